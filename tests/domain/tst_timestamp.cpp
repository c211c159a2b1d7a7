// SPDX-License-Identifier: MIT
#include "model/common/timestamp.h"

#include <QDateTime>
#include <QTest>

using namespace tidemark;

class TestTimestamp : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
    void invalid_data();
    void invalid();
    void display_data();
    void display();
    void agreesWithQDateTime_data();
    void agreesWithQDateTime();
    void spellingCannotHold_data();
    void spellingCannotHold();
    void respellKeepsInstant();
    void canonical();
    void describe();
};

void TestTimestamp::roundTrip_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("micros");
    QTest::addColumn<bool>("dateOnly");
    QTest::addColumn<QString>("separator");
    QTest::addColumn<int>("fractionDigits");
    QTest::addColumn<QString>("zone");

    // 2025-07-30T23:05:18Z = 1753916718 s
    const qint64 base = 1753916718LL * 1000000;
    QTest::newRow("T, no fraction, Z") << "2025-07-30T23:05:18Z" << base << false << "T" << 0 << "Z";
    QTest::newRow("space, no zone") << "2025-07-30 23:05:18" << base << false << " " << 0 << "";
    QTest::newRow("T, no zone") << "2025-07-30T23:05:18" << base << false << "T" << 0 << "";
    QTest::newRow("+00:00") << "2025-07-30T23:05:18+00:00" << base << false << "T" << 0 << "+00:00";
    QTest::newRow("+02:00 is two hours earlier in UTC")
        << "2025-07-31T01:05:18+02:00" << base << false << "T" << 0 << "+02:00";
    QTest::newRow("-05:30") << "2025-07-30T17:35:18-05:30" << base << false << "T" << 0 << "-05:30";
    QTest::newRow("+0200") << "2025-07-31T01:05:18+0200" << base << false << "T" << 0 << "+0200";
    QTest::newRow("+02") << "2025-07-31T01:05:18+02" << base << false << "T" << 0 << "+02";
    QTest::newRow("3 digits") << "2025-07-30T23:05:18.120Z" << base + 120000 << false << "T" << 3 << "Z";
    QTest::newRow("3 zero digits") << "2025-07-30 23:05:18.000" << base << false << " " << 3 << "";
    QTest::newRow("6 digits") << "2025-07-30T23:05:18.123456Z" << base + 123456 << false << "T" << 6 << "Z";
    QTest::newRow("6 digits, space, +00:00")
        << "2025-07-30 23:05:18.000001+00:00" << base + 1 << false << " " << 6 << "+00:00";
    QTest::newRow("9 digits, whole micros")
        << "2025-07-30T23:05:18.123456000Z" << base + 123456 << false << "T" << 9 << "Z";
    QTest::newRow("1 digit") << "2025-07-30T23:05:18.5" << base + 500000 << false << "T" << 1 << "";
    QTest::newRow("date only") << "2025-07-30" << 1753833600LL * 1000000 << true << "T" << 0 << "";
    QTest::newRow("epoch") << "1970-01-01T00:00:00Z" << qint64(0) << false << "T" << 0 << "Z";
    QTest::newRow("one micro before epoch")
        << "1969-12-31T23:59:59.999999Z" << qint64(-1) << false << "T" << 6 << "Z";
    QTest::newRow("1900") << "1900-01-01 00:00:00" << -2208988800LL * 1000000 << false << " " << 0 << "";
    QTest::newRow("before epoch with fraction")
        << "1969-07-20T20:17:40.250Z" << -14182940LL * 1000000 + 250000 << false << "T" << 3 << "Z";
    QTest::newRow("leap day") << "2024-02-29T12:00:00Z" << 1709208000LL * 1000000 << false << "T" << 0 << "Z";
    QTest::newRow("far future") << "9999-12-31T23:59:59.999999Z" << 253402300799999999LL << false << "T" << 6
                                << "Z";
}

void TestTimestamp::roundTrip() {
    QFETCH(QString, text);
    QFETCH(qint64, micros);
    QFETCH(bool, dateOnly);
    QFETCH(QString, separator);
    QFETCH(int, fractionDigits);
    QFETCH(QString, zone);

    const auto parsed = parseTimestamp(text);
    QVERIFY2(parsed, qPrintable(text));
    QCOMPARE(parsed->micros, micros);
    QCOMPARE(parsed->spelling.dateOnly, dateOnly);
    if (!dateOnly)
        QCOMPARE(QString(parsed->spelling.separator), separator);
    QCOMPARE(parsed->spelling.fractionDigits, fractionDigits);
    QCOMPARE(parsed->spelling.zone, zone);

    const auto spelled = formatTimestamp(parsed->micros, parsed->spelling, parsed->subMicros);
    QVERIFY(spelled);
    QCOMPARE(*spelled, text);
}

void TestTimestamp::invalid_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << "";
    QTest::newRow("garbage") << "yesterday";
    QTest::newRow("integer") << "1753916718";
    QTest::newRow("month 13") << "2025-13-01";
    QTest::newRow("feb 30") << "2025-02-30";
    QTest::newRow("feb 29 in a common year") << "2025-02-29T00:00:00";
    QTest::newRow("hour 24") << "2025-07-30T24:00:00";
    QTest::newRow("minute 60") << "2025-07-30T23:60:00";
    QTest::newRow("no seconds") << "2025-07-30T23:05";
    QTest::newRow("empty fraction") << "2025-07-30T23:05:18.";
    QTest::newRow("ten fraction digits") << "2025-07-30T23:05:18.1234567890";
    QTest::newRow("bad zone") << "2025-07-30T23:05:18+2";
    QTest::newRow("zone hour 24") << "2025-07-30T23:05:18+24:00";
    QTest::newRow("named zone") << "2025-07-30T23:05:18 CET";
    QTest::newRow("trailing text") << "2025-07-30T23:05:18Zx";
    QTest::newRow("slash date") << "2025/07/30";
    QTest::newRow("short year") << "25-07-30";
    QTest::newRow("bad separator") << "2025-07-30_23:05:18";
    QTest::newRow("date with zone only") << "2025-07-30Z";
}

void TestTimestamp::invalid() {
    QFETCH(QString, text);
    QVERIFY2(!parseTimestamp(text), qPrintable(text));
}

void TestTimestamp::display_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("display");
    QTest::newRow("millis kept") << "2025-07-30T23:05:18.000Z"
                                 << "2025-07-30T23:05:18.000Z";
    QTest::newRow("no zone is UTC") << "2025-07-30 23:05:18.120"
                                    << "2025-07-30T23:05:18.120Z";
    QTest::newRow("offset converted") << "2025-07-31 01:05:18.5+02:00"
                                      << "2025-07-30T23:05:18.5Z";
    QTest::newRow("micros") << "2025-07-30T23:05:18.123456"
                            << "2025-07-30T23:05:18.123456Z";
    QTest::newRow("no fraction") << "2025-07-30T23:05:18"
                                 << "2025-07-30T23:05:18Z";
    QTest::newRow("date only") << "2025-07-30"
                               << "2025-07-30T00:00:00Z";
    QTest::newRow("before epoch") << "1969-12-31T23:59:59.999999Z"
                                  << "1969-12-31T23:59:59.999999Z";
}

void TestTimestamp::display() {
    QFETCH(QString, text);
    QFETCH(QString, display);
    const auto parsed = parseTimestamp(text);
    QVERIFY(parsed);
    QCOMPARE(displayTimestamp(*parsed), display);
}

// Cross-check the hand-written calendar arithmetic against Qt's own, millisecond values only.
void TestTimestamp::agreesWithQDateTime_data() {
    QTest::addColumn<QString>("text");
    QTest::newRow("2025") << "2025-07-30T23:05:18.120Z";
    QTest::newRow("1969") << "1969-12-31T23:59:59.999Z";
    QTest::newRow("1901") << "1901-03-01T11:22:33.444Z";
    QTest::newRow("2000 leap") << "2000-02-29T00:00:00.001Z";
    QTest::newRow("2100") << "2100-03-01T00:00:00.000Z";
    QTest::newRow("offset") << "2030-01-01T00:30:00.000+01:00";
}

void TestTimestamp::agreesWithQDateTime() {
    QFETCH(QString, text);
    const auto parsed = parseTimestamp(text);
    QVERIFY(parsed);
    const QDateTime qt = QDateTime::fromString(text, Qt::ISODateWithMs);
    QVERIFY(qt.isValid());
    QCOMPARE(parsed->micros, qt.toMSecsSinceEpoch() * 1000);
}

void TestTimestamp::spellingCannotHold_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("spelledLike");
    QTest::newRow("micros into seconds") << "2025-07-30T23:05:18.000001Z"
                                         << "2025-01-01T00:00:00Z";
    QTest::newRow("micros into millis") << "2025-07-30T23:05:18.123456Z"
                                        << "2025-01-01 00:00:00.000";
    QTest::newRow("time into date only") << "2025-07-30T23:05:18Z"
                                         << "2025-01-01";
    QTest::newRow("midnight elsewhere into date only") << "2025-07-30T00:00:00+02:00"
                                                       << "2025-01-01";
    QTest::newRow("nanos into micros") << "2025-07-30T23:05:18.123456789Z"
                                       << "2025-01-01T00:00:00.000000Z";
    QTest::newRow("before epoch, micros into millis") << "1969-12-31T23:59:59.999999Z"
                                                      << "2025-01-01T00:00:00.000Z";
}

void TestTimestamp::spellingCannotHold() {
    QFETCH(QString, value);
    QFETCH(QString, spelledLike);
    const auto parsed = parseTimestamp(value);
    const auto column = parseTimestamp(spelledLike);
    QVERIFY(parsed && column);
    QVERIFY(!formatTimestamp(parsed->micros, column->spelling, parsed->subMicros));
}

void TestTimestamp::respellKeepsInstant() {
    const auto value = parseTimestamp(u"2025-07-31 01:05:18.5+02:00");
    const auto column = parseTimestamp(u"2000-01-01 00:00:00.000000");
    QVERIFY(value && column);
    const auto spelled = formatTimestamp(value->micros, column->spelling, value->subMicros);
    QVERIFY(spelled);
    QCOMPARE(*spelled, QStringLiteral("2025-07-30 23:05:18.500000"));
    QCOMPARE(parseTimestamp(*spelled)->micros, value->micros);

    const auto midnightUtc = parseTimestamp(u"2025-07-30T02:00:00+02:00");
    const auto dateColumn = parseTimestamp(u"1999-12-31");
    QVERIFY(midnightUtc && dateColumn);
    QCOMPARE(formatTimestamp(midnightUtc->micros, dateColumn->spelling).value_or(QString()),
             QStringLiteral("2025-07-30"));
}

void TestTimestamp::canonical() {
    QCOMPARE(canonicalTimestamp(0), QStringLiteral("1970-01-01T00:00:00.000000Z"));
    QCOMPARE(canonicalTimestamp(-1), QStringLiteral("1969-12-31T23:59:59.999999Z"));
    const auto parsed = parseTimestamp(canonicalTimestamp(1753916718123456LL));
    QVERIFY(parsed);
    QCOMPARE(parsed->spelling, TimestampSpelling::canonical());
    QCOMPARE(parsed->micros, 1753916718123456LL);
}

void TestTimestamp::describe() {
    QCOMPARE(TimestampSpelling::canonical().describe(), QStringLiteral("YYYY-MM-DDTHH:MM:SS.ffffffZ"));
    QCOMPARE(parseTimestamp(u"2025-01-01 00:00:00.000")->spelling.describe(),
             QStringLiteral("YYYY-MM-DD HH:MM:SS.fff"));
    QCOMPARE(parseTimestamp(u"2025-01-01")->spelling.describe(), QStringLiteral("YYYY-MM-DD"));
}

QTEST_GUILESS_MAIN(TestTimestamp)
#include "tst_timestamp.moc"
