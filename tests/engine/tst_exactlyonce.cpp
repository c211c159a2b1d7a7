// SPDX-License-Identifier: MIT
// Exactly-once under concurrency with SQLite on both sides: the target's
// state row is written as a compare-and-set inside the write transaction, so two processes that
// both believe they hold a table can never both commit its window; the state table is one
// versioned definition, created only by a write, migrated in place from the first builds' shape.
#include "model/connectors/sqliteconnector.h"
#include "tests/engine/enginefixture.h"
#include "tests/engine/processrace.h"

#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

constexpr int kRows = 2000;

// events(id, payload): no key, so only the protocol can keep an appended window from doubling.
void addEvents(const QString &path, int from, int to) {
    execSql(path, QStringLiteral("CREATE TABLE IF NOT EXISTS events (id INTEGER NOT NULL, payload TEXT)"));
    execSql(path,
            QStringLiteral("WITH RECURSIVE n(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2) "
                           "INSERT INTO events SELECT i, 'event ' || i FROM n"),
            {from, to});
}

QStringList cli(const QString &workspace, const QStringList &args) {
    const CliResult result = runCli(QStringList{QStringLiteral("-w"), workspace} + args);
    if (result.exitCode != 0)
        qWarning("%s", qPrintable(result.describe()));
    return result.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

// Records what the engine logs, and runs `onLine` for each line.
class Observer : public IterationObserver {
public:
    std::function<void(const QString &)> onLine;
    std::function<void(const IterationRecord &)> onChange;
    void logged(const IterationRecord &, const LogLine &line) override {
        if (onLine)
            onLine(line.message);
    }
    void iterationChanged(const IterationRecord &record) override {
        if (onChange)
            onChange(record);
    }
};

QString stateColumns(const QString &path) {
    QStringList names;
    SqliteDb db(path, SqliteDb::Mode::ReadWrite);
    SqliteStatement columns(db, QStringLiteral("SELECT name FROM pragma_table_info('tidemark_state')"));
    while (columns.step())
        names << columns.columnText(0);
    return names.join(QLatin1Char(','));
}

} // namespace

class TestExactlyOnce : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }
    void twoProcessesOneWindow_data();
    void twoProcessesOneWindow();
    void earlyCheckFindsTargetMoved();
    void compareAndSetWritesOnlyFromExpected();
    void dryRunCreatesNoStateTable();
    void firstBuildsStateTableMigratesOnWrite();
    void version2StateTableMigratesOnWrite();
    void cancelInterruptsRunningStatement();
};

void TestExactlyOnce::twoProcessesOneWindow_data() {
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("frozenAt");
    QTest::addColumn<QString>("takeoverAt");
    QTest::addColumn<bool>("laterWindow");
    for (const bool later : {false, true}) {
        const char *window = later ? "later window" : "first window";
        QTest::addRow("push-down, %s", window)
            << kPerWindow << kRaceAfterPushDown << kRaceBeforeWrite << later;
        QTest::addRow("streaming per window, %s", window)
            << kStreamingPerWindow << kRaceAfterBatch << kRaceBeforeWrite << later;
        QTest::addRow("streaming per batch, %s", window)
            << kPerBatch << kRaceAfterBatch << kRaceBeforeWrite << later;
        QTest::addRow("push-down, frozen before writing, %s", window)
            << kPerWindow << kRaceBeforeWrite << QString() << later;
    }
}

void TestExactlyOnce::twoProcessesOneWindow() {
    QFETCH(QStringList, options);
    QFETCH(QString, frozenAt);
    QFETCH(QString, takeoverAt);
    QFETCH(bool, laterWindow);
    QTemporaryDir dir;
    const QString ws = testWorkspaceLocation(dir, QStringLiteral("ws.tidemark"));
    const QString src = dir.filePath(QStringLiteral("source.db"));
    const QString dst = dir.filePath(QStringLiteral("target.db"));
    const int before = laterWindow ? 500 : 0;
    addEvents(src, 1, before > 0 ? before : kRows);
    if (options == kStreamingPerWindow) {
        // A table that may skip rows pushes down into SQLite until a row is refused: a target
        // column of another affinity (NUMERIC keeps every integer) makes the window stream.
        execSql(dst, QStringLiteral("CREATE TABLE events (id NUMERIC NOT NULL, payload TEXT)"));
    }
    cli(ws, {QStringLiteral("init")});
    cli(ws, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
             QStringLiteral("--sqlite"), src});
    cli(ws, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
             QStringLiteral("--sqlite"), dst});
    cli(ws, QStringList{QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                        QStringLiteral("src:events"), QStringLiteral("--target"),
                        QStringLiteral("dst:events"), QStringLiteral("--watermark"), QStringLiteral("id")} +
                options);
    if (laterWindow) {
        QCOMPARE(runCli({QStringLiteral("-w"), ws, QStringLiteral("run")}).exitCode, 0);
        addEvents(src, before + 1, kRows);
    }

    const RaceOutcome outcome = raceTwoRuns(ws, frozenAt, takeoverAt);
    verifyOneWinner(outcome, kRows - before);
    QCOMPARE(countRows(dst, QStringLiteral("events")), qint64(kRows));
    QCOMPARE(queryValue(dst, QStringLiteral("SELECT count(DISTINCT id) FROM events")).toLongLong(),
             qint64(kRows));
    QCOMPARE(symmetricDifference(dst, src, QStringLiteral("events"), QStringLiteral("events")), qint64(0));
}

// The early check: the target moved on between reconcile and the write transaction (another
// process committed the window): the iteration writes nothing and names that run.
void TestExactlyOnce::earlyCheckFindsTargetMoved() {
    EngineFixture f;
    addEvents(f.src, 1, 100);
    const qint64 id = f.addTable(EngineFixture::draft(QStringLiteral("events"), QStringLiteral("id")));
    QCOMPARE(f.run(id).status, IterationStatus::Succeeded);
    addEvents(f.src, 101, 300);

    Observer observer;
    const QString workspaceId = f.ws->workspaceId();
    observer.onLine = [&](const QString &message) {
        if (!message.startsWith(QLatin1String("copying from")))
            return;
        // What another process's commit of this window leaves behind.
        execSql(f.dst,
                QStringLiteral("UPDATE tidemark_state SET watermark = '300', run_id = 4242 "
                               "WHERE workspace_id = ?1 AND table_id = ?2"),
                {workspaceId, id});
    };
    CopyIteration::Options options;
    options.observer = &observer;
    const IterationRecord record = f.run(id, options);
    QVERIFY2(record.status == IterationStatus::Skipped, qPrintable(describe(record)));
    QVERIFY2(record.error.contains(QLatin1String("run 4242 committed this table first (target now at 300)")),
             qPrintable(record.error));
    QVERIFY2(record.error.contains(QLatin1String("nothing written")), qPrintable(record.error));
    QCOMPARE(record.rowsWritten, qint64(0));
    QCOMPARE(countRows(f.dst, QStringLiteral("events")), qint64(100));
    QCOMPARE(f.lastWatermarkText(id), QStringLiteral("100"));
}

// The authoritative write: a conditional update from the expected position, an insert only
// when there was no row; anything else writes nothing and reports it.
void TestExactlyOnce::compareAndSetWritesOnlyFromExpected() {
    QTemporaryDir dir;
    SqliteConnector target(sqliteSpec(QStringLiteral("dst"), dir.filePath(QStringLiteral("t.db"))));
    const Position five(Watermark::integer(5), QVariant(qint64(2)));
    const Position six(Watermark::integer(6), QVariant(2.5));

    QVERIFY(!target.beginStateWrite(QStringLiteral("ws"), 1));
    QVERIFY(target.compareAndSetState(std::nullopt, {QStringLiteral("ws"), 1, five, 7}));
    target.commit();

    const auto current = target.beginStateWrite(QStringLiteral("ws"), 1);
    QVERIFY(current);
    QCOMPARE(current->position, five);
    QVERIFY(!target.compareAndSetState(std::nullopt, {QStringLiteral("ws"), 1, six, 8}));
    QVERIFY(!target.compareAndSetState(Position(Watermark::integer(5)), {QStringLiteral("ws"), 1, six, 8}));
    QCOMPARE(target.readState(QStringLiteral("ws"), 1)->runId, qint64(7));
    QVERIFY(target.compareAndSetState(five, {QStringLiteral("ws"), 1, six, 8}));
    // Chained: the next batch expects what this one wrote, tiebreak text and all.
    QVERIFY(target.compareAndSetState(six, {QStringLiteral("ws"), 1, six, 8}));
    target.commit();
    const auto after = target.readState(QStringLiteral("ws"), 1);
    QCOMPARE(after->position, six);
    QCOMPARE(after->runId, qint64(8));

    // A backfill put the row back at six with the next generation: a run that read six before
    // it expects generation 0 and writes nothing; one that read the backfill's state goes on.
    target.beginStateWrite(QStringLiteral("ws"), 1);
    target.writeState({QStringLiteral("ws"), 1, six, 0, 1});
    target.commit();
    target.beginStateWrite(QStringLiteral("ws"), 1);
    QVERIFY(!target.compareAndSetState(six, {QStringLiteral("ws"), 1, Position(Watermark::integer(7)), 9}));
    QVERIFY(target.compareAndSetState(six, {QStringLiteral("ws"), 1, Position(Watermark::integer(7)), 9, 1}));
    target.commit();
    QCOMPARE(target.readState(QStringLiteral("ws"), 1)->generation, qint64(1));
}

void TestExactlyOnce::dryRunCreatesNoStateTable() {
    EngineFixture f;
    addEvents(f.src, 1, 10);
    execSql(f.dst, QStringLiteral("CREATE TABLE other (x INTEGER)"));
    const qint64 id = f.addTable(EngineFixture::draft(QStringLiteral("events"), QStringLiteral("id")));
    CopyIteration::Options options;
    options.dryRun = true;
    const IterationRecord record = f.run(id, options);
    QVERIFY2(record.status == IterationStatus::DryRun, qPrintable(describe(record)));
    QCOMPARE(record.rowsRead, qint64(10));
    QVERIFY(!f.targetHas(QStringLiteral("tidemark_state")));
    QVERIFY(!f.targetHas(QStringLiteral("events")));
}

// A target written by the first builds: tidemark_state without tiebreak_type and state_version,
// its tiebreak stored as SQLite's own integer. The next write migrates it and keeps the position.
void TestExactlyOnce::firstBuildsStateTableMigratesOnWrite() {
    EngineFixture f;
    execSql(f.src,
            QStringLiteral("CREATE TABLE ev (wm INTEGER NOT NULL, tb INTEGER NOT NULL, payload TEXT)"));
    for (int wm = 1; wm <= 10; ++wm)
        for (int tb = 1; tb <= 5; ++tb)
            execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2, ?3)"),
                    {wm, tb, QStringLiteral("%1/%2").arg(wm).arg(tb)});
    TableDraft draft = EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("wm"));
    draft.spec.tiebreakColumn = QStringLiteral("tb");
    const qint64 id = f.addTable(draft);
    // What the first builds left: rows up to (3, 2) and their state row.
    execSql(f.dst,
            QStringLiteral("CREATE TABLE ev (wm INTEGER NOT NULL, tb INTEGER NOT NULL, payload TEXT)"));
    execSql(f.dst,
            QStringLiteral(
                "ATTACH DATABASE '%1' AS s; INSERT INTO ev SELECT * FROM s.ev WHERE (wm, tb) <= (3, 2)")
                .arg(f.src));
    execSql(f.dst, QStringLiteral(
                       "CREATE TABLE tidemark_state (workspace_id TEXT NOT NULL, table_id INTEGER NOT NULL, "
                       "watermark_type TEXT, watermark TEXT, tiebreak, run_id INTEGER, updated_at TEXT, "
                       "PRIMARY KEY (workspace_id, table_id))"));
    execSql(f.dst,
            QStringLiteral("INSERT INTO tidemark_state VALUES (?1, ?2, 'integer', '3', ?3, 1, '2026-01-01')"),
            {f.ws->workspaceId(), id, qint64(2)});

    const IterationRecord record = f.run(id);
    QVERIFY2(record.status == IterationStatus::Succeeded, qPrintable(describe(record)));
    QCOMPARE(record.rowsWritten, qint64(50 - 12));
    QCOMPARE(countRows(f.dst, QStringLiteral("ev")), qint64(50));
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("ev"), QStringLiteral("ev")), qint64(0));
    QCOMPARE(stateColumns(f.dst),
             QStringLiteral("workspace_id,table_id,watermark_type,watermark,tiebreak,run_id,"
                            "updated_at,tiebreak_type,state_version,generation,target_table,workspace_path,"
                            "iteration_id,rows_written,rows_skipped,window_done,fence"));
    QCOMPARE(
        queryValue(f.dst, QStringLiteral("SELECT tiebreak || '/' || tiebreak_type || '/' || state_version "
                                         "|| '/' || generation FROM tidemark_state")),
        QVariant(QStringLiteral("5/integer/6/0")));
}

// A target written by state_version 2 (no generation column). A dry run reads it as it is (no
// DDL); the next write adds the column, keeps the position, and the row reads generation 0.
void TestExactlyOnce::version2StateTableMigratesOnWrite() {
    EngineFixture f;
    addEvents(f.src, 1, 100);
    const qint64 id = f.addTable(EngineFixture::draft(QStringLiteral("events"), QStringLiteral("id")));
    addEvents(f.dst, 1, 40);
    execSql(f.dst,
            QStringLiteral(
                "CREATE TABLE tidemark_state (workspace_id TEXT NOT NULL, table_id INTEGER NOT NULL, "
                "watermark_type TEXT, watermark TEXT, tiebreak TEXT, tiebreak_type TEXT, run_id "
                "INTEGER, updated_at TEXT, state_version INTEGER, PRIMARY KEY (workspace_id, table_id))"));
    execSql(f.dst,
            QStringLiteral("INSERT INTO tidemark_state VALUES (?1, ?2, 'integer', '40', NULL, NULL, 1, "
                           "'2026-01-01T00:00:00.000000Z', 2)"),
            {f.ws->workspaceId(), id});
    const QString version2Columns = stateColumns(f.dst);

    CopyIteration::Options dryRun;
    dryRun.dryRun = true;
    const IterationRecord preview = f.run(id, dryRun);
    QVERIFY2(preview.status == IterationStatus::DryRun, qPrintable(describe(preview)));
    QCOMPARE(preview.rowsRead, qint64(60));
    QCOMPARE(stateColumns(f.dst), version2Columns);

    const IterationRecord record = f.run(id);
    QVERIFY2(record.status == IterationStatus::Succeeded, qPrintable(describe(record)));
    QCOMPARE(record.rowsWritten, qint64(60));
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("events"), QStringLiteral("events")),
             qint64(0));
    QCOMPARE(stateColumns(f.dst),
             version2Columns + QStringLiteral(",generation,target_table,workspace_path,iteration_id,"
                                              "rows_written,rows_skipped,window_done,fence"));
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT watermark || '/' || state_version || '/' || generation "
                                              "FROM tidemark_state")),
             QVariant(QStringLiteral("100/6/0")));
    QCOMPARE(f.spec(id).lastGeneration, qint64(0));
}

// Cancel (SIGTERM to tidemark-cli) while a statement runs that would never end on its own: the
// source became a view over an endless recursive query, so the watermark probe runs forever. The
// watchdog interrupts it; the iteration ends cancelled (exit 1), nothing written.
void TestExactlyOnce::cancelInterruptsRunningStatement() {
    QTemporaryDir dir;
    const QString ws = testWorkspaceLocation(dir, QStringLiteral("ws.tidemark"));
    const QString src = dir.filePath(QStringLiteral("source.db"));
    const QString dst = dir.filePath(QStringLiteral("target.db"));
    addEvents(src, 1, 10);
    cli(ws, {QStringLiteral("init")});
    cli(ws, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
             QStringLiteral("--sqlite"), src});
    cli(ws, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
             QStringLiteral("--sqlite"), dst});
    cli(ws, {QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:events"), QStringLiteral("--target"), QStringLiteral("dst:events"),
             QStringLiteral("--watermark"), QStringLiteral("id")});
    execSql(src, QStringLiteral(
                     "DROP TABLE events; CREATE VIEW events AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
                     "SELECT i + 1 FROM n) SELECT i AS id, 'event' AS payload FROM n"));

    QProcess run;
    run.start(cliPath(), {QStringLiteral("-w"), ws, QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY(run.waitForStarted(30000));
    const auto iterationStatus = [&] {
        return execWorkspaceSql(ws, QStringLiteral("SELECT status FROM iterations ORDER BY id DESC LIMIT 1"));
    };
    for (int i = 0; i < 3000 && iterationStatus() != QLatin1String("running"); ++i)
        QThread::msleep(20);
    QCOMPARE(iterationStatus(), QStringLiteral("running"));
    run.terminate();                               // SIGTERM: the CLI cancels the run
    const bool ended = run.waitForFinished(60000); // liveness only: without an interrupt it never ends
    if (!ended) {
        run.kill();
        run.waitForFinished(5000);
    }
    QVERIFY2(ended, "the running statement was not interrupted");
    const QString out = QString::fromUtf8(run.readAllStandardOutput());
    QCOMPARE(run.exitCode(), 1);
    const QJsonObject iteration =
        parseJsonObject(out).value(QStringLiteral("iterations")).toArray().at(0).toObject();
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("cancelled"));
    QVERIFY2(iteration.value(QStringLiteral("error"))
                 .toString()
                 .contains(QLatin1String("the running statement was interrupted")),
             qPrintable(out));
    QVERIFY(!QFile::exists(dst) || !tableExists(dst, QStringLiteral("events")));
}

QTEST_GUILESS_MAIN(TestExactlyOnce)
#include "tst_exactlyonce.moc"
