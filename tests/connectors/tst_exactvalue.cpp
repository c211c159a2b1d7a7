// SPDX-License-Identifier: MIT
// The rule behind rejecting decimal text a numeric SQLite column would round.

#include "model/connectors/exactvalue.h"

#include <QtTest>

using namespace tidemark;

class TestExactValue : public QObject {
    Q_OBJECT

private slots:
    void decimalFitsDouble_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("literal");
        QTest::addColumn<bool>("fits");
        QTest::newRow("integer") << QByteArray("12") << true << true;
        QTest::newRow("half") << QByteArray("-0.5") << true << true;
        QTest::newRow("tenth") << QByteArray("0.1") << true << true;
        QTest::newRow("trailing zeros") << QByteArray("12.3000") << true << true;
        QTest::newRow("exponent") << QByteArray(" 1e30 ") << true << true;
        QTest::newRow("plus sign") << QByteArray("+7.25") << true << true;
        QTest::newRow("zero") << QByteArray("-0.000") << true << true;
        QTest::newRow("26 digits") << QByteArray("1.0000000000000000000000001") << true << false;
        QTest::newRow("2^53 + 1") << QByteArray("9007199254740993") << true << false;
        QTest::newRow("20 digits") << QByteArray("12345678901234567890") << true << false;
        QTest::newRow("1e20 spelled out") << QByteArray("100000000000000000000") << true << true;
        QTest::newRow("too large") << QByteArray("1e400") << true << false;
        QTest::newRow("timestamp") << QByteArray("2025-01-01") << false << false;
        QTest::newRow("word") << QByteArray("NaN") << false << false;
        QTest::newRow("bits") << QByteArray("0101") << true << true;
        QTest::newRow("empty") << QByteArray("") << false << false;
        QTest::newRow("exponent without digits") << QByteArray("1e") << false << false;
    }

    void decimalFitsDouble() {
        QFETCH(QByteArray, text);
        QFETCH(bool, literal);
        QFETCH(bool, fits);
        const std::string_view view(text.constData(), std::size_t(text.size()));
        QCOMPARE(isDecimalLiteral(view), literal);
        QCOMPARE(tidemark::decimalFitsDouble(view), fits);
    }

    void integersThatDoublesHold() {
        QVERIFY(integerFitsDouble(9007199254740992));
        QVERIFY(!integerFitsDouble(9007199254740993));
        QVERIFY(integerFitsDouble(std::numeric_limits<std::int64_t>::min()));
        QVERIFY(!integerFitsDouble(std::numeric_limits<std::int64_t>::max()));
        QVERIFY(decimalFitsInt64(" +42 "));
        QVERIFY(!decimalFitsInt64("9223372036854775808"));
        QVERIFY(!decimalFitsInt64("1e3"));
    }

    void describeCellShowsTheValue() {
        RowBatch batch(4);
        batch.appendReal(std::numeric_limits<double>::quiet_NaN());
        batch.appendText("a\0b", 3);
        batch.appendBlob("\x01\x02", 2);
        batch.appendInteger(-3);
        QCOMPARE(inexactValue(QStringLiteral("v"), batch, batch.cell(0, 0), QStringLiteral("is odd")),
                 QStringLiteral("column 'v': value NaN is odd"));
        QCOMPARE(describeCell(batch, batch.cell(0, 1)), QStringLiteral("'a\\0b'"));
        QCOMPARE(describeCell(batch, batch.cell(0, 2)), QStringLiteral("a blob of 2 bytes (x'0102')"));
        QCOMPARE(describeCell(batch, batch.cell(0, 3)), QStringLiteral("-3"));
    }
};

QTEST_GUILESS_MAIN(TestExactValue)
#include "tst_exactvalue.moc"
