// SPDX-License-Identifier: MIT
// Naive timestamps declare their zone (`table add/edit --source-timezone ZONE`, SourceZone): a
// watermark column without zone holds wall-clock times of the table's zone. Across the hour a
// fall-back repeats, a table loses no row: rows stamped in the hour's second pass sort below a
// position reached in its first, and the window reaches back over the hour while the position
// lies in it (a UTC table beside it, on the same rows, shows what is lost without). Typed values
// with an offset are moved to the zone's wall clock; table list shows the position as an instant
// with the zone's offset. A SQLite source (text without offset, Europe/Berlin) and a PostgreSQL
// one (`timestamp without time zone`, America/New_York, against TIDEMARK_PG_PORT).
#include "model/domain/sourcezone.h"
#include "model/engine/verifier.h"
#include "tests/engine/enginefixture.h"
#include "tests/support/pgsession.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

class TestSourceTimezone : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void zoneArithmetic();
    void fallBackHourLosesNoRow_data();
    void fallBackHourLosesNoRow();
    void typedValuesAndDisplayConvert();
    void refusals();

private:
    CliResult cli(const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), m_fixture->wsPath} + args);
    }
    std::unique_ptr<EngineFixture> m_fixture;
    QString m_pgSchema;
    bool m_usedPostgres = false;
};

namespace {

constexpr qint64 kMicrosPerMinute = 60LL * 1000 * 1000;

qint64 utcMicros(const QString &iso) {
    return QDateTime::fromString(iso, Qt::ISODate).toMSecsSinceEpoch() * 1000;
}

// "2026-10-25 02:15:00": how a naive column spells a wall-clock time (micros read as UTC).
QString wallText(qint64 wallMicros) {
    return QDateTime::fromMSecsSinceEpoch(wallMicros / 1000, QTimeZone::utc())
        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

} // namespace

void TestSourceTimezone::init() {
    m_fixture = std::make_unique<EngineFixture>();
    static int tests = 0;
    m_pgSchema = QStringLiteral("zone_%1_%2").arg(QCoreApplication::applicationPid()).arg(++tests);
}

void TestSourceTimezone::cleanup() {
    if (m_usedPostgres)
        PgSession().exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(m_pgSchema));
    m_usedPostgres = false;
    m_fixture.reset();
}

// The zone's clock against the system's time zone database, at the ends of summer time.
void TestSourceTimezone::zoneArithmetic() {
    const SourceZone berlin = SourceZone::parse(QStringLiteral("Europe/Berlin"));
    QVERIFY(berlin.repeatsWallTimes());
    QCOMPARE(wallText(berlin.wallMicros(utcMicros(QStringLiteral("2026-10-25T00:30:00Z")))),
             QStringLiteral("2026-10-25 02:30:00"));
    QCOMPARE(wallText(berlin.wallMicros(utcMicros(QStringLiteral("2026-10-25T01:30:00Z")))),
             QStringLiteral("2026-10-25 02:30:00"));
    // 02:00 to 02:59:59 happens twice; 03:00 and 01:59 once.
    QCOMPARE(berlin.repeatStepAt(utcMicros(QStringLiteral("2026-10-25T02:00:00Z"))), 60 * kMicrosPerMinute);
    QCOMPARE(berlin.repeatStepAt(utcMicros(QStringLiteral("2026-10-25T02:59:59Z"))), 60 * kMicrosPerMinute);
    QCOMPARE(berlin.repeatStepAt(utcMicros(QStringLiteral("2026-10-25T03:00:00Z"))), 0);
    QCOMPARE(berlin.repeatStepAt(utcMicros(QStringLiteral("2026-10-25T01:59:59Z"))), 0);
    // The spring gap repeats nothing.
    QCOMPARE(berlin.repeatStepAt(utcMicros(QStringLiteral("2026-03-29T02:30:00Z"))), 0);
    QCOMPARE(berlin.display(*Watermark::timestamp(QStringLiteral("2026-10-25 03:15:00"))),
             QStringLiteral("2026-10-25T03:15:00+01:00"));
    QCOMPARE(berlin.display(*Watermark::timestamp(QStringLiteral("2026-10-25 02:30:00"))),
             QStringLiteral("2026-10-25T02:30:00+02:00")); // the first pass
    QVERIFY(!SourceZone::parse(QStringLiteral("Asia/Tokyo")).repeatsWallTimes());
    QVERIFY(SourceZone::parse(QString()).isUtc());
    QVERIFY_THROWS_EXCEPTION(ValidationError, SourceZone::parse(QStringLiteral("Mars/Olympus")));
    QVERIFY_THROWS_EXCEPTION(ValidationError, SourceZone::parse(QStringLiteral("Berlin")));
}

void TestSourceTimezone::fallBackHourLosesNoRow_data() {
    QTest::addColumn<bool>("postgresSource");
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("transition"); // the instant the clocks go back
    QTest::addColumn<int>("offsetBefore");   // minutes
    QTest::addColumn<int>("offsetAfter");
    QTest::newRow("sqlite, Europe/Berlin")
        << false << QStringLiteral("Europe/Berlin") << QStringLiteral("2026-10-25T01:00:00Z") << 120 << 60;
    QTest::newRow("postgresql, America/New_York") << true << QStringLiteral("America/New_York")
                                                  << QStringLiteral("2026-11-01T06:00:00Z") << -240 << -300;
}

// Rows are stamped with the zone's wall clock as time goes by, five minutes apart from an hour
// before the fall-back to two hours after, and both tables run every twenty minutes. The zoned
// table's target ends equal to the source; the UTC one misses the second pass's rows that came
// after its position had passed them.
void TestSourceTimezone::fallBackHourLosesNoRow() {
    QFETCH(bool, postgresSource);
    QFETCH(QString, zone);
    QFETCH(QString, transition);
    QFETCH(int, offsetBefore);
    QFETCH(int, offsetAfter);
    if (postgresSource) {
        TIDEMARK_REQUIRE_POSTGRES();
        m_usedPostgres = true;
        ConnectionSpec pg;
        pg.name = QStringLiteral("pg");
        pg.kind = ConnectionKind::Postgres;
        pg.conninfo = pgConninfo();
        m_fixture->ws->addConnection(pg);
        PgSession pgSession;
        pgSession.exec(QStringLiteral("CREATE SCHEMA %1").arg(m_pgSchema));
        pgSession.exec(
            QStringLiteral("CREATE TABLE %1.events (id integer PRIMARY KEY, at timestamp without time "
                           "zone NOT NULL, payload text)")
                .arg(m_pgSchema));
    } else {
        execSql(
            m_fixture->src,
            QStringLiteral("CREATE TABLE events (id INTEGER PRIMARY KEY, at TEXT NOT NULL, payload TEXT)"));
    }
    const auto insert = [&](int id, const QString &at) {
        if (postgresSource)
            PgSession().exec(QStringLiteral("INSERT INTO %1.events VALUES ($1, $2, $3)").arg(m_pgSchema),
                             {id, at, QStringLiteral("row %1").arg(id)});
        else
            execSql(m_fixture->src, QStringLiteral("INSERT INTO events VALUES (?1, ?2, ?3)"),
                    {id, at, QStringLiteral("row %1").arg(id)});
    };
    const qint64 fallBack = utcMicros(transition);
    // The first row, so each table's column type and spelling can be read at add.
    insert(0, wallText(fallBack - 60 * kMicrosPerMinute + offsetBefore * kMicrosPerMinute));

    const auto addTable = [&](const QString &target, const QString &sourceTimezone) {
        TableDraft draft = EngineFixture::draft(postgresSource ? m_pgSchema + QStringLiteral(".events")
                                                               : QStringLiteral("events"),
                                                QStringLiteral("at"), target);
        if (postgresSource)
            draft.spec.sourceConnection = QStringLiteral("pg");
        draft.spec.mode = WriteMode::Merge;
        draft.spec.keyColumns = {QStringLiteral("id")};
        draft.spec.sourceTimezone = sourceTimezone;
        return m_fixture->addTable(draft);
    };
    const qint64 zoned = addTable(QStringLiteral("events_zoned"), zone);
    const qint64 utc = addTable(QStringLiteral("events_utc"), QString());

    int rows = 1;
    for (int step = 1; step <= 36; ++step) {
        const qint64 now = fallBack - 60 * kMicrosPerMinute + step * 5 * kMicrosPerMinute;
        const int offset = now < fallBack ? offsetBefore : offsetAfter;
        insert(step, wallText(now + offset * kMicrosPerMinute));
        ++rows;
        if (step % 4 != 3)
            continue;
        for (const qint64 id : {zoned, utc}) {
            const IterationRecord copied = m_fixture->run(id);
            QVERIFY2(copied.status == IterationStatus::Succeeded ||
                         copied.status == IterationStatus::NoNewRows,
                     qPrintable(describe(copied)));
        }
    }
    for (const qint64 id : {zoned, utc})
        m_fixture->run(id);

    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("events_zoned")), rows);
    const VerifyResult verified = verifyTable(*m_fixture->ws, zoned);
    QVERIFY2(verified.matches, qPrintable(verified.difference));
    // Without the zone the same rows are lost: the test sees what it guards against.
    QVERIFY2(countRows(m_fixture->dst, QStringLiteral("events_utc")) < rows,
             qPrintable(QString::number(countRows(m_fixture->dst, QStringLiteral("events_utc")))));
}

// A value typed with an offset is the zone's wall clock at that instant; the position shows as
// an instant with the zone's offset, and the zone in table list.
void TestSourceTimezone::typedValuesAndDisplayConvert() {
    execSql(
        m_fixture->src,
        QStringLiteral("CREATE TABLE events (id INTEGER PRIMARY KEY, at TEXT NOT NULL); INSERT INTO events "
                       "VALUES (1, '2026-10-25 01:30:00'), (2, '2026-10-25 02:30:00'), "
                       "(3, '2026-10-25 03:15:00')"));
    CliResult added =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:events"), QStringLiteral("--target"), QStringLiteral("dst:events"),
             QStringLiteral("--watermark"), QStringLiteral("at"), QStringLiteral("--mode"),
             QStringLiteral("merge"), QStringLiteral("--source-timezone"), QStringLiteral("Europe/Berlin"),
             QStringLiteral("--initial-watermark"), QStringLiteral("2026-10-24T23:00:00Z")});
    QCOMPARE(added.exitCode, 0);
    const qint64 id = added.out.trimmed().toLongLong();
    QCOMPARE(m_fixture->spec(id).initialWatermark.nativeText(), QStringLiteral("2026-10-25 01:00:00"));
    QCOMPARE(cli({QStringLiteral("run")}).exitCode, 0);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("events")), 3);

    const auto listed = [&] {
        const QJsonArray tables =
            QJsonDocument::fromJson(
                cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out.toUtf8())
                .array();
        return tables.first().toObject();
    };
    QJsonObject table = listed();
    QCOMPARE(table.value(QStringLiteral("source_timezone")).toString(), QStringLiteral("Europe/Berlin"));
    QCOMPARE(table.value(QStringLiteral("last_watermark")).toString(),
             QStringLiteral("2026-10-25T03:15:00+01:00"));
    const CliResult text = cli({QStringLiteral("table"), QStringLiteral("list")});
    QVERIFY2(text.out.contains(QStringLiteral("(timestamp, Europe/Berlin)")), qPrintable(text.out));

    // 00:30Z is 02:30 on Berlin's clock (its first pass).
    QCOMPARE(cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--from"),
                  QStringLiteral("2026-10-25T00:30:00Z"), QStringLiteral("--keep")})
                 .exitCode,
             0);
    QCOMPARE(m_fixture->spec(id).lastWatermark.nativeText(), QStringLiteral("2026-10-25 02:30:00"));
    table = listed();
    QCOMPARE(table.value(QStringLiteral("last_watermark")).toString(),
             QStringLiteral("2026-10-25T02:30:00+02:00"));
    // A value without offset is a time on the zone's clock, as the column spells it.
    QCOMPARE(
        cli({QStringLiteral("table"), QStringLiteral("set-position"), QString::number(id),
             QStringLiteral("--watermark"), QStringLiteral("2026-10-25T01:45:00"), QStringLiteral("--yes")})
            .exitCode,
        0);
    QCOMPARE(m_fixture->spec(id).lastWatermark.nativeText(), QStringLiteral("2026-10-25 01:45:00"));

    // The zone goes back to UTC: table list says so.
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                  QStringLiteral("--source-timezone"), QStringLiteral("UTC")})
                 .exitCode,
             0);
    QCOMPARE(listed().value(QStringLiteral("source_timezone")).toString(), QStringLiteral("UTC"));
    QVERIFY(m_fixture->spec(id).sourceTimezone.isEmpty());
}

// An unknown zone, an append table in a zone that turns its clocks back, a column whose values
// carry their own zone, and an integer watermark are refused at add, each naming why.
void TestSourceTimezone::refusals() {
    execSql(m_fixture->src,
            QStringLiteral("CREATE TABLE naive (id INTEGER PRIMARY KEY, at TEXT NOT NULL, n INTEGER); "
                           "INSERT INTO naive VALUES (1, '2026-10-25 01:30:00', 1); "
                           "CREATE TABLE zoned (id INTEGER PRIMARY KEY, at TEXT NOT NULL); "
                           "INSERT INTO zoned VALUES (1, '2026-10-25T01:30:00Z')"));
    const auto add = [&](const QString &table, const QString &column, const QString &zone,
                         const QString &mode) {
        return cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                    QStringLiteral("src:") + table, QStringLiteral("--target"),
                    QStringLiteral("dst:") + table + column, QStringLiteral("--watermark"), column,
                    QStringLiteral("--mode"), mode, QStringLiteral("--source-timezone"), zone});
    };
    CliResult refused = add(QStringLiteral("naive"), QStringLiteral("at"), QStringLiteral("Mars/Olympus"),
                            QStringLiteral("merge"));
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("'Mars/Olympus' is no time zone")), qPrintable(refused.err));
    refused = add(QStringLiteral("naive"), QStringLiteral("at"), QStringLiteral("Europe/Berlin"),
                  QStringLiteral("append"));
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("use --mode merge")), qPrintable(refused.err));
    refused = add(QStringLiteral("zoned"), QStringLiteral("at"), QStringLiteral("Europe/Berlin"),
                  QStringLiteral("merge"));
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("carries its own zone (Z)")), qPrintable(refused.err));
    refused = add(QStringLiteral("naive"), QStringLiteral("n"), QStringLiteral("Europe/Berlin"),
                  QStringLiteral("merge"));
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("holds integers")), qPrintable(refused.err));
    // A zone without summer time repeats nothing: an append table may have it.
    QCOMPARE(add(QStringLiteral("naive"), QStringLiteral("at"), QStringLiteral("Asia/Tokyo"),
                 QStringLiteral("append"))
                 .exitCode,
             0);
}

QTEST_GUILESS_MAIN(TestSourceTimezone)
#include "tst_sourcetimezone.moc"
