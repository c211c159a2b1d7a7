// SPDX-License-Identifier: MIT
// The rule behind refusing an existing target column that would change its source column's values.

#include "model/connectors/columnfit.h"

#include <QtTest>

using namespace tidemark;

namespace {

ColumnInfo column(const char *origin, const char *nativeType, LogicalType logical) {
    ColumnInfo info;
    info.name = QStringLiteral("c");
    info.origin = QString::fromLatin1(origin);
    info.nativeType = QString::fromLatin1(nativeType);
    info.logical = logical;
    return info;
}

} // namespace

Q_DECLARE_METATYPE(tidemark::ColumnInfo)

class TestColumnFit : public QObject {
    Q_OBJECT

private slots:
    void columnLoss_data() {
        QTest::addColumn<ColumnInfo>("source");
        QTest::addColumn<ColumnInfo>("target");
        QTest::addColumn<QString>("loss"); // a part of the reason, empty when the target holds every value

        const auto ts = LogicalType::Timestamp;
        const auto tz = LogicalType::TimestampTz;
        const auto num = LogicalType::Numeric;
        const auto real = LogicalType::Real;
        const auto integer = LogicalType::Integer;

        QTest::newRow("datetime(6) into datetime")
            << column("mysql", "datetime(6)", ts) << column("mysql", "datetime", ts)
            << "keeps 0 fraction digits of a second where the source has 6";
        QTest::newRow("datetime(6) into datetime(6)")
            << column("mysql", "datetime(6)", ts) << column("mysql", "datetime(6)", ts) << "";
        QTest::newRow("datetime into timestamp(3)")
            << column("mysql", "datetime", ts) << column("postgres", "timestamp(3) without time zone", ts)
            << "";
        QTest::newRow("SQLite text into timestamp(3)")
            << column("sqlite", "TIMESTAMP", ts) << column("postgres", "timestamp(3) with time zone", tz)
            << "keeps 3 fraction digits of a second where the source has 6";
        QTest::newRow("timestamptz into timestamp")
            << column("postgres", "timestamp with time zone", tz)
            << column("postgres", "timestamp without time zone", ts) << "";
        QTest::newRow("timestamp into date")
            << column("postgres", "timestamp without time zone", ts)
            << column("mysql", "date", LogicalType::Date) << "keeps no time of day";
        QTest::newRow("into a SQLite target")
            << column("mysql", "datetime(6)", ts) << column("sqlite", "DATETIME", ts) << "";

        QTest::newRow("scale cut") << column("mysql", "decimal(12,4)", num)
                                   << column("postgres", "numeric(12,2)", num)
                                   << "keeps 2 digits after the point where the source has 4";
        QTest::newRow("integer digits cut: refused aloud, by the run")
            << column("postgres", "numeric(20,2)", num) << column("mysql", "decimal(12,2)", num) << "";
        QTest::newRow("unbounded into bounded")
            << column("postgres", "numeric", num) << column("mysql", "decimal(65,30)", num)
            << "keeps 30 digits after the point where the source has no limit";
        QTest::newRow("bounded into unbounded")
            << column("mysql", "decimal(65,30)", num) << column("postgres", "numeric", num) << "";
        QTest::newRow("decimal(10,2) into double")
            << column("mysql", "decimal(10,2)", num) << column("postgres", "double precision", real) << "";
        QTest::newRow("decimal(20,2) into double")
            << column("mysql", "decimal(20,2)", num) << column("mysql", "double", real)
            << "keeps about 15 significant digits where the source has 20";
        QTest::newRow("decimal(10,2) into float")
            << column("postgres", "numeric(10,2)", num) << column("mysql", "float", real)
            << "keeps about 6 significant digits where the source has 10";
        QTest::newRow("decimal with a scale into an integer")
            << column("postgres", "numeric(10,2)", num) << column("postgres", "bigint", integer)
            << "keeps no digits after the point where the source has 2";
        QTest::newRow("unsigned bigint into bigint: refused aloud")
            << column("mysql", "bigint(20) unsigned", num) << column("postgres", "bigint", integer) << "";
        QTest::newRow("decimal(18,0) into bigint")
            << column("mysql", "decimal(18,0)", num) << column("mysql", "bigint(20)", integer) << "";

        QTest::newRow("double into an integer")
            << column("sqlite", "REAL", real) << column("postgres", "integer", integer)
            << "keeps no fraction of the source's floating-point values";
        QTest::newRow("double into real")
            << column("postgres", "double precision", real) << column("postgres", "real", real)
            << "single-precision column rounds the source's double-precision";
        QTest::newRow("SQLite REAL (a double) into real")
            << column("sqlite", "REAL", real) << column("postgres", "real", real)
            << "single-precision column rounds the source's double-precision";
        QTest::newRow("float into double")
            << column("mysql", "float", real) << column("postgres", "double precision", real) << "";
        QTest::newRow("double into decimal(10,2)")
            << column("sqlite", "REAL", real) << column("mysql", "decimal(10,2)", num)
            << "keeps 2 digits after the point and would round the source's floating-point values";
        QTest::newRow("double into numeric")
            << column("sqlite", "REAL", real) << column("postgres", "numeric", num) << "";

        QTest::newRow("SQLite integer into integer: refused aloud")
            << column("sqlite", "INTEGER", integer) << column("postgres", "integer", integer) << "";
        QTest::newRow("int into bigint")
            << column("mysql", "int(11)", integer) << column("postgres", "bigint", integer) << "";
        QTest::newRow("int unsigned into int: refused aloud")
            << column("mysql", "int(10) unsigned", integer) << column("postgres", "integer", integer) << "";
        QTest::newRow("int unsigned into bigint")
            << column("mysql", "int(10) unsigned", integer) << column("postgres", "bigint", integer) << "";
        QTest::newRow("signed into unsigned: refused aloud")
            << column("postgres", "smallint", integer) << column("mysql", "int(10) unsigned", integer) << "";
        QTest::newRow("bit(64) into bigint: as created")
            << column("mysql", "bit(64)", integer) << column("postgres", "bigint", integer) << "";
        QTest::newRow("integer into double: refused value by value")
            << column("sqlite", "INTEGER", integer) << column("postgres", "double precision", real) << "";
        QTest::newRow("text into anything")
            << column("mysql", "time(6)", LogicalType::Text)
            << column("postgres", "time without time zone", LogicalType::Text) << "";
    }

    void columnLoss() {
        QFETCH(ColumnInfo, source);
        QFETCH(ColumnInfo, target);
        QFETCH(QString, loss);
        const QString reason = tidemark::columnLoss(source, target);
        if (loss.isEmpty())
            QVERIFY2(reason.isEmpty(), qPrintable(reason));
        else
            QVERIFY2(reason.contains(loss), qPrintable(reason));
    }
};

QTEST_GUILESS_MAIN(TestColumnFit)
#include "tst_columnfit.moc"
