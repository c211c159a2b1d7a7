// SPDX-License-Identifier: MIT
#include "model/common/error.h"
#include "model/common/timestamp.h"
#include "model/domain/connectionspec.h"
#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"
#include "model/domain/watermark.h"

#include <QTest>

#include <limits>

using namespace tidemark;

Q_DECLARE_METATYPE(tidemark::WatermarkType)

class TestWatermark : public QObject {
    Q_OBJECT

private slots:
    void integerLossless_data();
    void integerLossless();
    void timestampKeepsSpelling();
    void compareOrder();
    void parseUserInteger_data();
    void parseUserInteger();
    void parseUserTimestamp_data();
    void parseUserTimestamp();
    void lookbackParse_data();
    void lookbackParse();
    void subtractLookback_data();
    void subtractLookback();
    void subtractLookbackRefusals();
    void deriveRunStatus_data();
    void deriveRunStatus();
    void statusNames();
    void writeModes();
    void isoUtcFormat();
    void connectionDescribeHidesPassword();
};

void TestWatermark::integerLossless_data() {
    QTest::addColumn<qint64>("value");
    QTest::newRow("zero") << qint64(0);
    QTest::newRow("max") << std::numeric_limits<qint64>::max();
    QTest::newRow("min") << std::numeric_limits<qint64>::min();
    QTest::newRow("above double precision") << qint64(9007199254740993LL); // 2^53 + 1
    QTest::newRow("negative") << qint64(-42);
}

void TestWatermark::integerLossless() {
    QFETCH(qint64, value);
    const Watermark w = Watermark::integer(value);
    QCOMPARE(w.type(), WatermarkType::Integer);
    QCOMPARE(w.nativeText(), QString::number(value));
    QCOMPARE(w.display(), QString::number(value));
    const Watermark restored = Watermark::fromStored(WatermarkType::Integer, w.nativeText());
    QCOMPARE(restored.toInteger(), value);
    QVERIFY(restored == w);
    const Watermark typed = parseUserWatermark(WatermarkType::Integer, QString::number(value), Watermark(),
                                               QStringLiteral("--initial-watermark"));
    QCOMPARE(typed.toInteger(), value);
}

void TestWatermark::timestampKeepsSpelling() {
    const auto w = Watermark::timestamp(QStringLiteral("2025-07-31 01:05:18.120+02:00"));
    QVERIFY(w);
    QCOMPARE(w->type(), WatermarkType::Timestamp);
    QCOMPARE(w->nativeText(), QStringLiteral("2025-07-31 01:05:18.120+02:00"));
    QCOMPARE(w->display(), QStringLiteral("2025-07-30T23:05:18.120Z"));
    QCOMPARE(w->micros(), 1753916718120000LL);
    QVERIFY(!Watermark::timestamp(QStringLiteral("not a time")));
    const Watermark restored = Watermark::fromStored(WatermarkType::Timestamp, w->nativeText());
    QVERIFY(restored == *w);
    QCOMPARE(restored.nativeText(), w->nativeText());
    QVERIFY(Watermark::fromStored(WatermarkType::Timestamp, QString()).isNull());
    QVERIFY(Watermark().display().isEmpty());
}

void TestWatermark::compareOrder() {
    QVERIFY(Watermark::integer(-1).compare(Watermark::integer(1)) < 0);
    QVERIFY(Watermark::integer(std::numeric_limits<qint64>::max())
                .compare(Watermark::integer(std::numeric_limits<qint64>::max() - 1)) > 0);
    const auto a = *Watermark::timestamp(QStringLiteral("2025-07-30T23:05:18.000001Z"));
    const auto b = *Watermark::timestamp(QStringLiteral("2025-07-31 01:05:18+02:00"));
    QVERIFY(a.compare(b) > 0); // by instant, not by text
    QVERIFY(b.compare(a) < 0);
    const auto c = *Watermark::timestamp(QStringLiteral("2025-07-30T23:05:18Z"));
    QVERIFY(b.compare(c) != 0); // same instant, different spelling: still a strict order
    QCOMPARE(b.compare(c), -c.compare(b));
    QVERIFY(Watermark().compare(c) < 0);
}

void TestWatermark::parseUserInteger_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<qint64>("value");
    QTest::newRow("plain") << "1200" << true << qint64(1200);
    QTest::newRow("negative") << "-5" << true << qint64(-5);
    QTest::newRow("blanks trimmed") << " 7 " << true << qint64(7);
    QTest::newRow("max") << "9223372036854775807" << true << std::numeric_limits<qint64>::max();
    QTest::newRow("min") << "-9223372036854775808" << true << std::numeric_limits<qint64>::min();
    QTest::newRow("overflow") << "9223372036854775808" << false << qint64(0);
    QTest::newRow("underflow") << "-9223372036854775809" << false << qint64(0);
    QTest::newRow("fraction") << "1.5" << false << qint64(0);
    QTest::newRow("garbage") << "12abc" << false << qint64(0);
    QTest::newRow("empty") << "" << false << qint64(0);
    QTest::newRow("timestamp") << "2025-07-30" << false << qint64(0);
    QTest::newRow("hex") << "0x10" << false << qint64(0);
}

void TestWatermark::parseUserInteger() {
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QFETCH(qint64, value);
    if (valid) {
        const Watermark w =
            parseUserWatermark(WatermarkType::Integer, text, Watermark(), QStringLiteral("--from"));
        QCOMPARE(w.type(), WatermarkType::Integer);
        QCOMPARE(w.toInteger(), value);
        return;
    }
    try {
        parseUserWatermark(WatermarkType::Integer, text, Watermark(), QStringLiteral("--from"));
        QFAIL("accepted");
    } catch (const ValidationError &error) {
        QCOMPARE(error.message(), QStringLiteral("invalid --from '%1': expected an integer").arg(text));
    }
}

void TestWatermark::parseUserTimestamp_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("column"); // a value of the column, empty = none
    QTest::addColumn<QString>("native"); // expected spelling, empty = refused

    QTest::newRow("canonical without column") << "2025-07-30T23:05:18Z"
                                              << ""
                                              << "2025-07-30T23:05:18.000000Z";
    QTest::newRow("no zone means UTC") << "2025-07-30 23:05:18"
                                       << ""
                                       << "2025-07-30T23:05:18.000000Z";
    QTest::newRow("offset converted") << "2025-07-31T01:05:18+02:00"
                                      << ""
                                      << "2025-07-30T23:05:18.000000Z";
    QTest::newRow("like a space/no-zone/millis column") << "2025-07-30T23:05:18.5Z"
                                                        << "2020-01-01 00:00:00.000"
                                                        << "2025-07-30 23:05:18.500";
    QTest::newRow("like a +02:00 column") << "2025-07-30T23:05:18Z"
                                          << "2020-01-01T00:00:00+02:00"
                                          << "2025-07-31T01:05:18+02:00";
    QTest::newRow("like a date column") << "2025-07-30"
                                        << "2020-01-01"
                                        << "2025-07-30";
    QTest::newRow("like a nanosecond column") << "2025-07-30T23:05:18.123456789Z"
                                              << "2020-01-01T00:00:00.000000000Z"
                                              << "2025-07-30T23:05:18.123456789Z";
    QTest::newRow("more fraction than the column has") << "2025-07-30T23:05:18.123456Z"
                                                       << "2020-01-01 00:00:00.000"
                                                       << "";
    QTest::newRow("time on a date column") << "2025-07-30T12:00:00Z"
                                           << "2020-01-01"
                                           << "";
    QTest::newRow("nanos without column") << "2025-07-30T23:05:18.123456789Z"
                                          << ""
                                          << "";
    QTest::newRow("garbage") << "last tuesday"
                             << ""
                             << "";
    QTest::newRow("integer") << "1753916718"
                             << ""
                             << "";
}

void TestWatermark::parseUserTimestamp() {
    QFETCH(QString, text);
    QFETCH(QString, column);
    QFETCH(QString, native);
    const Watermark spellingOf = column.isEmpty() ? Watermark() : *Watermark::timestamp(column);
    if (!native.isEmpty()) {
        const Watermark w = parseUserWatermark(WatermarkType::Timestamp, text, spellingOf,
                                               QStringLiteral("--initial-watermark"));
        QCOMPARE(w.type(), WatermarkType::Timestamp);
        QCOMPARE(w.nativeText(), native);
        return;
    }
    try {
        parseUserWatermark(WatermarkType::Timestamp, text, spellingOf, QStringLiteral("--initial-watermark"));
        QFAIL("accepted");
    } catch (const ValidationError &error) {
        QVERIFY2(error.message().contains(QStringLiteral("--initial-watermark")),
                 qPrintable(error.message()));
        QVERIFY2(error.message().contains(text), qPrintable(error.message()));
        if (!column.isEmpty()) // explains the column's spelling
            QVERIFY2(error.message().contains(parseTimestamp(column)->spelling.describe()),
                     qPrintable(error.message()));
    }
}

void TestWatermark::lookbackParse_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<WatermarkType>("type");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<qint64>("amount");

    const auto ts = WatermarkType::Timestamp;
    const auto in = WatermarkType::Integer;
    QTest::newRow("empty") << "" << ts << true << qint64(0);
    QTest::newRow("250ms") << "250ms" << ts << true << qint64(250000);
    QTest::newRow("90s") << "90s" << ts << true << qint64(90000000);
    QTest::newRow("30m") << "30m" << ts << true << 30LL * 60 * 1000000;
    QTest::newRow("2h") << "2h" << ts << true << 2LL * 3600 * 1000000;
    QTest::newRow("1d") << "1d" << ts << true << 86400LL * 1000000;
    QTest::newRow("0s") << "0s" << ts << true << qint64(0);
    QTest::newRow("plain number for a timestamp") << "500" << ts << false << qint64(0);
    QTest::newRow("negative duration") << "-2h" << ts << false << qint64(0);
    QTest::newRow("unknown unit") << "2w" << ts << false << qint64(0);
    QTest::newRow("fractional duration") << "1.5h" << ts << false << qint64(0);
    QTest::newRow("unit only") << "h" << ts << false << qint64(0);
    QTest::newRow("huge duration") << "999999999999999d" << ts << false << qint64(0);
    QTest::newRow("count") << "500" << in << true << qint64(500);
    QTest::newRow("zero count") << "0" << in << true << qint64(0);
    QTest::newRow("negative count") << "-1" << in << false << qint64(0);
    QTest::newRow("duration for an integer") << "2h" << in << false << qint64(0);
    QTest::newRow("garbage count") << "abc" << in << false << qint64(0);
    QTest::newRow("no watermark column") << "5" << WatermarkType::None << false << qint64(0);
}

void TestWatermark::lookbackParse() {
    QFETCH(QString, text);
    QFETCH(WatermarkType, type);
    QFETCH(bool, valid);
    QFETCH(qint64, amount);
    if (valid) {
        const Lookback lookback = Lookback::parse(text, type);
        QCOMPARE(lookback.amount, amount);
        QCOMPARE(lookback.text, text);
        return;
    }
    try {
        Lookback::parse(text, type);
        QFAIL("accepted");
    } catch (const ValidationError &error) {
        QVERIFY2(error.message().contains(QStringLiteral("--lookback")), qPrintable(error.message()));
        if (type == WatermarkType::Timestamp && text == QLatin1String("500")) // shows the accepted forms
            QVERIFY2(error.message().contains(QStringLiteral("90s")), qPrintable(error.message()));
    }
}

void TestWatermark::subtractLookback_data() {
    QTest::addColumn<QString>("position"); // a timestamp's native text
    QTest::addColumn<QString>("lookback");
    QTest::addColumn<QString>("expected");
    QTest::newRow("canonical") << "2025-07-30T23:05:18.000000Z"
                               << "2h"
                               << "2025-07-30T21:05:18.000000Z";
    QTest::newRow("space, no zone, millis") << "2025-07-30 00:30:00.120"
                                            << "1h"
                                            << "2025-07-29 23:30:00.120";
    QTest::newRow("offset zone kept") << "2025-07-31T01:05:18+02:00"
                                      << "90s"
                                      << "2025-07-31T01:03:48+02:00";
    QTest::newRow("date column, whole days") << "2025-03-01"
                                             << "1d"
                                             << "2025-02-28";
    QTest::newRow("across the epoch") << "1970-01-01T00:00:00.100Z"
                                      << "250ms"
                                      << "1969-12-31T23:59:59.850Z";
    QTest::newRow("nanos kept") << "2025-07-30T23:05:18.123456789Z"
                                << "30m"
                                << "2025-07-30T22:35:18.123456789Z";
    QTest::newRow("no lookback") << "2025-07-30T23:05:18Z"
                                 << ""
                                 << "2025-07-30T23:05:18Z";
}

void TestWatermark::subtractLookback() {
    QFETCH(QString, position);
    QFETCH(QString, lookback);
    QFETCH(QString, expected);
    const Watermark moved = tidemark::subtractLookback(*Watermark::timestamp(position),
                                                       Lookback::parse(lookback, WatermarkType::Timestamp));
    QCOMPARE(moved.nativeText(), expected);
}

void TestWatermark::subtractLookbackRefusals() {
    QCOMPARE(tidemark::subtractLookback(Watermark::integer(1000),
                                        Lookback::parse(QStringLiteral("500"), WatermarkType::Integer))
                 .toInteger(),
             qint64(500));
    const qint64 min = std::numeric_limits<qint64>::min();
    QCOMPARE(tidemark::subtractLookback(Watermark::integer(min + 5),
                                        Lookback::parse(QStringLiteral("5"), WatermarkType::Integer))
                 .toInteger(),
             min);
    QVERIFY_THROWS_EXCEPTION(
        Error, tidemark::subtractLookback(Watermark::integer(min + 4),
                                          Lookback::parse(QStringLiteral("5"), WatermarkType::Integer)));
    // A date-only column cannot hold "two hours earlier".
    QVERIFY_THROWS_EXCEPTION(
        Error, tidemark::subtractLookback(*Watermark::timestamp(QStringLiteral("2025-03-01")),
                                          Lookback::parse(QStringLiteral("2h"), WatermarkType::Timestamp)));
    QVERIFY(tidemark::subtractLookback(Watermark(),
                                       Lookback::parse(QStringLiteral("2h"), WatermarkType::Timestamp))
                .isNull());
}

void TestWatermark::deriveRunStatus_data() {
    QTest::addColumn<QList<IterationStatus>>("statuses");
    QTest::addColumn<bool>("dryRun");
    QTest::addColumn<QString>("expected");
    using S = IterationStatus;
    QTest::newRow("nothing") << QList<S>{} << false << "succeeded";
    QTest::newRow("nothing, dry") << QList<S>{} << true << "dry_run";
    QTest::newRow("all fine") << QList<S>{S::Succeeded, S::NoNewRows, S::Skipped} << false << "succeeded";
    QTest::newRow("a warning") << QList<S>{S::Succeeded, S::Warning} << false << "warning";
    QTest::newRow("cancelled beats warning") << QList<S>{S::Warning, S::Cancelled} << false << "cancelled";
    QTest::newRow("failed beats all") << QList<S>{S::Cancelled, S::Failed, S::Warning} << false << "failed";
    QTest::newRow("dry run") << QList<S>{S::DryRun, S::DryRun} << true << "dry_run";
    QTest::newRow("dry run that failed") << QList<S>{S::DryRun, S::Failed} << true << "failed";
    QTest::newRow("dry run with a warning") << QList<S>{S::DryRun, S::Warning} << true << "warning";
}

void TestWatermark::deriveRunStatus() {
    QFETCH(QList<IterationStatus>, statuses);
    QFETCH(bool, dryRun);
    QFETCH(QString, expected);
    QCOMPARE(tidemark::deriveRunStatus(statuses, dryRun), expected);
}

void TestWatermark::statusNames() {
    const QStringList names{
        QStringLiteral("queued"),      QStringLiteral("running"), QStringLiteral("succeeded"),
        QStringLiteral("no_new_rows"), QStringLiteral("warning"), QStringLiteral("failed"),
        QStringLiteral("cancelled"),   QStringLiteral("skipped"), QStringLiteral("dry_run")};
    for (const QString &name : names) {
        const auto status = iterationStatusFromName(name);
        QVERIFY2(status, qPrintable(name));
        QCOMPARE(iterationStatusName(*status), name);
        QCOMPARE(isFailure(*status), name == QLatin1String("failed") || name == QLatin1String("cancelled"));
        QCOMPARE(isFinished(*status), name != QLatin1String("queued") && name != QLatin1String("running"));
    }
    QVERIFY(!iterationStatusFromName(QStringLiteral("done")));
    QCOMPARE(runTriggerName(RunTrigger::Schedule), QStringLiteral("schedule"));
}

void TestWatermark::writeModes() {
    for (const WriteMode mode : {WriteMode::Append, WriteMode::Merge, WriteMode::Overwrite})
        QCOMPARE(writeModeFromName(writeModeName(mode)), std::optional<WriteMode>(mode));
    QVERIFY(!writeModeFromName(QStringLiteral("upsert")));
    QCOMPARE(watermarkTypeFromName(watermarkTypeName(WatermarkType::Timestamp)), WatermarkType::Timestamp);
}

void TestWatermark::isoUtcFormat() {
    const QDateTime local = QDateTime(QDate(2026, 11, 30), QTime(3, 0, 0, 120), Qt::OffsetFromUTC, 3600);
    QCOMPARE(isoUtc(local), QStringLiteral("2026-11-30T02:00:00.120Z"));
    QCOMPARE(isoUtc(QDateTime()), QString());
}

void TestWatermark::connectionDescribeHidesPassword() {
    ConnectionSpec pg;
    pg.kind = ConnectionKind::Postgres;
    pg.conninfo =
        QStringLiteral("host=db port=5432 dbname=sales user=etl password='s3 cret' sslmode=require");
    QVERIFY(!pg.describe().contains(QStringLiteral("s3")));
    QVERIFY(pg.describe().contains(QStringLiteral("dbname=sales")));
    pg.conninfo = QStringLiteral("postgresql://etl:hunter2@db/sales");
    QVERIFY(!pg.describe().contains(QStringLiteral("hunter2")));
    ConnectionSpec lite;
    lite.path = QStringLiteral("/data/src.db");
    QCOMPARE(lite.describe(), QStringLiteral("sqlite /data/src.db"));
}

QTEST_GUILESS_MAIN(TestWatermark)
#include "tst_watermark.moc"
