// SPDX-License-Identifier: MIT
// Exactly-once under concurrency where PostgreSQL is on one side or both,
// each case in a fresh database of its own (TIDEMARK_PG_PORT, see scripts/pgcluster.sh): two
// processes racing for one window in every pairing and path, the compare-and-set at commit,
// Cancel interrupting a push-down, a dry run that leaves no DDL behind, a parallel first run,
// and a state table made by the first builds migrated in place.
#include "model/common/sqlquote.h"
#include "model/connectors/postgresconnector.h"
#include "model/engine/copyiteration.h"
#include "model/engine/tablesetup.h"
#include "model/sqlite/sqlitedb.h"
#include "model/storage/workspace.h"
#include "tests/engine/processrace.h"
#include "tests/support/testsupport.h"

#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>
#include <thread>

using namespace tidemark;
using namespace tidemark::test;

namespace {

constexpr int kRows = 2000;

QString conninfo(const QString &database) {
    return QStringLiteral("host=127.0.0.1 port=%1 dbname=%2 user=tidemark")
        .arg(QString::fromLocal8Bit(qgetenv("TIDEMARK_PG_PORT")), database);
}

ConnectionSpec pgSpec(const QString &name, const QString &database) {
    ConnectionSpec spec;
    spec.name = name;
    spec.kind = ConnectionKind::Postgres;
    spec.conninfo = conninfo(database);
    return spec;
}

// A database of its own, dropped afterwards: public.tidemark_state starts absent.
class FreshDatabase {
public:
    FreshDatabase()
        : name(QStringLiteral("tm_") + QUuid::createUuid().toString(QUuid::Id128).left(16)) {
        m_admin =
            std::make_unique<PostgresConnector>(pgSpec(QStringLiteral("admin"), QStringLiteral("tidemark")));
        m_admin->execute(QStringLiteral("CREATE DATABASE %1").arg(quoteIdentifier(name)));
        db = std::make_unique<PostgresConnector>(pgSpec(QStringLiteral("fresh"), name));
    }
    ~FreshDatabase() {
        db.reset();
        try {
            m_admin->execute(QStringLiteral("DROP DATABASE %1 WITH (FORCE)").arg(quoteIdentifier(name)));
        } catch (const std::exception &error) {
            qWarning("dropping %s: %s", qPrintable(name), error.what());
        }
    }
    bool hasStateTable() {
        return !db->query(QStringLiteral("SELECT to_regclass('public.tidemark_state')"))
                    .value(0)
                    .value(0)
                    .isEmpty();
    }

    QString name;
    std::unique_ptr<PostgresConnector> db;

private:
    std::unique_ptr<PostgresConnector> m_admin;
};

// One end of a copy: a SQLite file or the fresh database, holding events(id, payload) without key.
class End {
public:
    End(bool postgres, FreshDatabase &pg, const QString &path)
        : m_postgres(postgres)
        , m_pg(pg)
        , m_path(path) {}

    bool isPostgres() const { return m_postgres; }
    QStringList connectionArgs() const {
        return m_postgres ? QStringList{QStringLiteral("--postgres"), conninfo(m_pg.name)}
                          : QStringList{QStringLiteral("--sqlite"), m_path};
    }
    ConnectionSpec spec(const QString &name) const {
        return m_postgres ? pgSpec(name, m_pg.name) : sqliteSpec(name, m_path);
    }

    void addEvents(const QString &table, int from, int to) {
        if (m_postgres) {
            m_pg.db->execute(
                QStringLiteral("CREATE TABLE IF NOT EXISTS %1 (id bigint NOT NULL, payload text)")
                    .arg(quoteIdentifier(table)));
            m_pg.db->execute(
                QStringLiteral("INSERT INTO %1 SELECT i, 'event ' || i FROM generate_series($1::bigint, "
                               "$2::bigint) AS i")
                    .arg(quoteIdentifier(table)),
                {QString::number(from), QString::number(to)});
            return;
        }
        execSql(m_path, QStringLiteral("CREATE TABLE IF NOT EXISTS %1 (id INTEGER NOT NULL, payload TEXT)")
                            .arg(quoteIdentifier(table)));
        execSql(
            m_path,
            QStringLiteral("WITH RECURSIVE n(i) AS (SELECT ?1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2) "
                           "INSERT INTO %1 SELECT i, 'event ' || i FROM n")
                .arg(quoteIdentifier(table)),
            {from, to});
    }

    QList<QStringList> rows(const QString &sql) {
        if (m_postgres)
            return m_pg.db->query(sql);
        return queryRows(m_path, sql);
    }
    qint64 value(const QString &sql) { return rows(sql).value(0).value(0).toLongLong(); }

private:
    bool m_postgres;
    FreshDatabase &m_pg;
    QString m_path;
};

void cli(const QString &workspace, const QStringList &args) {
    const CliResult result = runCli(QStringList{QStringLiteral("-w"), workspace} + args);
    QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
}

QString describe(const IterationRecord &record) {
    return QStringLiteral("status %1, read %2, written %3, error '%4'")
        .arg(iterationStatusName(record.status))
        .arg(record.rowsRead)
        .arg(record.rowsWritten)
        .arg(record.error);
}

// A workspace (through the library) with connections src and dst, for engine-level cases.
struct EngineSetup {
    QTemporaryDir dir;
    std::unique_ptr<Workspace> ws;
    qint64 addTable(const ConnectionSpec &source, const ConnectionSpec &target, const QString &table,
                    const QString &targetTable) {
        ws = Workspace::create(dir.filePath(QStringLiteral("ws.tidemark")));
        ws->addConnection(source);
        ws->addConnection(target);
        TableDraft draft;
        draft.spec.sourceConnection = source.name;
        draft.spec.sourceTable = table;
        draft.spec.targetConnection = target.name;
        draft.spec.targetTable = targetTable;
        draft.spec.watermarkColumn = QStringLiteral("id");
        return ws->addTable(prepareTable(*ws, draft));
    }
    IterationRecord run(qint64 tableId, CopyIteration::Options options = {}) {
        const TableSpec spec = *ws->table(tableId);
        IterationRecord record;
        record.runId = ws->beginRun(QStringLiteral("cli"), 1, options.dryRun);
        record.tableId = tableId;
        record.source = spec.sourceDisplay();
        record.target = spec.targetDisplay();
        record.id = ws->addIteration(record);
        IterationRecord result = CopyIteration(*ws, spec, record, options).run();
        ws->finishRun(record.runId, deriveRunStatus({result.status}, options.dryRun));
        return result;
    }
};

class Observer : public IterationObserver {
public:
    std::function<void(const IterationRecord &)> onChange;
    void iterationChanged(const IterationRecord &record) override {
        if (onChange)
            onChange(record);
    }
};

} // namespace

class TestExactlyOncePg : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void twoProcessesOneWindow_data();
    void twoProcessesOneWindow();
    void compareAndSetAtCommitLoses();
    void cancelInterruptsPushDown();
    void dryRunCreatesNoStateTable();
    void parallelFirstRunIntoFreshDatabase();
    void olderStateTableMigratesOnWrite_data();
    void olderStateTableMigratesOnWrite();
};

void TestExactlyOncePg::initTestCase() {
    TIDEMARK_REQUIRE_POSTGRES();
}

void TestExactlyOncePg::twoProcessesOneWindow_data() {
    QTest::addColumn<bool>("sourcePg");
    QTest::addColumn<bool>("targetPg");
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QString>("frozenAt");
    QTest::addColumn<QString>("takeoverAt");
    QTest::addColumn<bool>("laterWindow");
    for (const bool later : {false, true}) {
        const char *w = later ? "later window" : "first window";
        for (const auto &[sourcePg, pairing] :
             {std::pair{false, "sqlite->postgres"}, std::pair{true, "postgres->sqlite"}}) {
            const bool targetPg = !sourcePg;
            QTest::addRow("%s, streaming per window, %s", pairing, w)
                << sourcePg << targetPg << kPerWindow << kRaceAfterBatch << kRaceBeforeWrite << later;
            QTest::addRow("%s, streaming per batch, %s", pairing, w)
                << sourcePg << targetPg << kPerBatch << kRaceAfterBatch << kRaceBeforeWrite << later;
            QTest::addRow("%s, frozen before writing, %s", pairing, w)
                << sourcePg << targetPg << kPerWindow << kRaceBeforeWrite << QString() << later;
        }
        QTest::addRow("postgres->postgres, push-down, %s", w)
            << true << true << kPerWindow << kRaceAfterPushDown << kRaceBeforeWrite << later;
        QTest::addRow("postgres->postgres, streaming per window, %s", w)
            << true << true << kStreamingPerWindow << kRaceAfterBatch << kRaceBeforeWrite << later;
        QTest::addRow("postgres->postgres, streaming per batch, %s", w)
            << true << true << kPerBatch << kRaceAfterBatch << kRaceBeforeWrite << later;
        QTest::addRow("postgres->postgres, push-down, frozen before writing, %s", w)
            << true << true << kPerWindow << kRaceBeforeWrite << QString() << later;
    }
}

void TestExactlyOncePg::twoProcessesOneWindow() {
    QFETCH(bool, sourcePg);
    QFETCH(bool, targetPg);
    QFETCH(QStringList, options);
    QFETCH(QString, frozenAt);
    QFETCH(QString, takeoverAt);
    QFETCH(bool, laterWindow);
    FreshDatabase pg;
    QTemporaryDir dir;
    End source(sourcePg, pg, dir.filePath(QStringLiteral("source.db")));
    End target(targetPg, pg, dir.filePath(QStringLiteral("target.db")));
    const QString ws = dir.filePath(QStringLiteral("ws.tidemark"));
    const int before = laterWindow ? 500 : 0;
    source.addEvents(QStringLiteral("events"), 1, before > 0 ? before : kRows);
    cli(ws, {QStringLiteral("init")});
    cli(ws, QStringList{QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src")} +
                source.connectionArgs());
    cli(ws, QStringList{QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst")} +
                target.connectionArgs());
    cli(ws,
        QStringList{QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                    QStringLiteral("src:events"), QStringLiteral("--target"),
                    QStringLiteral("dst:events_copy"), QStringLiteral("--watermark"), QStringLiteral("id")} +
            options);
    if (laterWindow) {
        cli(ws, {QStringLiteral("run")});
        source.addEvents(QStringLiteral("events"), before + 1, kRows);
    }

    const RaceOutcome outcome = raceTwoRuns(ws, frozenAt, takeoverAt);
    verifyOneWinner(outcome, kRows - before);
    QCOMPARE(target.value(QStringLiteral("SELECT count(*) FROM events_copy")), qint64(kRows));
    QCOMPARE(target.value(QStringLiteral("SELECT count(DISTINCT id) FROM events_copy")), qint64(kRows));
    // Both ways: every source row once, nothing else.
    QCOMPARE(target.rows(QStringLiteral("SELECT id, payload FROM events_copy ORDER BY id")),
             source.rows(QStringLiteral("SELECT id, payload FROM events ORDER BY id")));
}

// The authoritative compare-and-set: another process commits this table's first state row while
// this iteration writes (no row to lock yet); at commit the insert finds it and this one loses.
void TestExactlyOncePg::compareAndSetAtCommitLoses() {
    FreshDatabase pg;
    EngineSetup setup;
    End source(false, pg, setup.dir.filePath(QStringLiteral("source.db")));
    source.addEvents(QStringLiteral("events"), 1, 1000);
    const qint64 id = setup.addTable(
        sqliteSpec(QStringLiteral("src"), setup.dir.filePath(QStringLiteral("source.db"))),
        pgSpec(QStringLiteral("dst"), pg.name), QStringLiteral("events"), QStringLiteral("events_copy"));
    PostgresConnector other(pgSpec(QStringLiteral("other"), pg.name));
    bool moved = false;
    Observer observer;
    observer.onChange = [&](const IterationRecord &record) {
        if (moved || record.rowsRead == 0)
            return;
        moved = true;
        other.writeState({setup.ws->workspaceId(), id, Position(Watermark::integer(1000)), 4242});
    };
    CopyIteration::Options options;
    options.observer = &observer;
    const IterationRecord record = setup.run(id, options);
    QVERIFY(moved);
    QVERIFY2(record.status == IterationStatus::Skipped, qPrintable(describe(record)));
    QVERIFY2(record.error.contains(QLatin1String("run 4242 committed this table first (target now at 1000)")),
             qPrintable(record.error));
    QCOMPARE(record.rowsWritten, qint64(0));
    // Nothing written: even the target table it created is rolled back.
    QVERIFY(pg.db->query(QStringLiteral("SELECT to_regclass('events_copy')")).value(0).value(0).isNull());
    QVERIFY(setup.ws->table(id)->lastWatermark.isNull());
}

// A push-down statement held up on a lock the test holds: meanwhile the heartbeat renews the
// lease; then Cancel: the watchdog interrupts the statement, the iteration ends cancelled,
// rolled back, watermark unchanged.
void TestExactlyOncePg::cancelInterruptsPushDown() {
    FreshDatabase pg;
    End source(true, pg, QString());
    source.addEvents(QStringLiteral("events"), 1, 100);
    EngineSetup setup;
    const qint64 id =
        setup.addTable(pgSpec(QStringLiteral("src"), pg.name), pgSpec(QStringLiteral("dst"), pg.name),
                       QStringLiteral("events"), QStringLiteral("events_copy"));
    QCOMPARE(setup.run(id).status, IterationStatus::Succeeded);
    source.addEvents(QStringLiteral("events"), 101, 200);

    PostgresConnector blocker(pgSpec(QStringLiteral("blocker"), pg.name));
    blocker.execute(QStringLiteral("BEGIN"));
    blocker.execute(QStringLiteral("LOCK TABLE events_copy IN SHARE MODE")); // readers pass, writers wait
    std::atomic_bool cancel{false};
    IterationRecord record;
    std::atomic_bool done{false};
    std::thread iteration([&] {
        CopyIteration::Options options;
        options.cancel = &cancel;
        options.leaseTtl = std::chrono::milliseconds(600);
        std::unique_ptr<Workspace> ws = Workspace::open(setup.ws->path()); // this thread's own
        const TableSpec spec = *ws->table(id);
        IterationRecord queued;
        queued.runId = ws->beginRun(QStringLiteral("cli"), 1, false);
        queued.tableId = id;
        queued.id = ws->addIteration(queued);
        record = CopyIteration(*ws, spec, queued, options).run();
        done = true;
    });
    PostgresConnector watcher(pgSpec(QStringLiteral("watcher"), pg.name));
    bool waiting = false;
    for (int i = 0; i < 3000 && !waiting && !done; ++i) {
        waiting = watcher
                      .query(QStringLiteral(
                          "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                          "AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO%'"))
                      .value(0)
                      .value(0) != QLatin1String("0");
        if (!waiting)
            QThread::msleep(20);
    }
    // The heartbeat renews the lease while the statement waits, independent of batches.
    const auto leaseExpiry = [&] {
        return queryValue(setup.ws->path(),
                          QStringLiteral("SELECT expires_at FROM leases WHERE table_id = ?1"), {id})
            .toString();
    };
    const QString firstExpiry = leaseExpiry();
    bool renewed = false;
    for (int i = 0; i < 3000 && !renewed && !done; ++i) {
        renewed = leaseExpiry() != firstExpiry;
        if (!renewed)
            QThread::msleep(20); // liveness only
    }
    cancel = true;
    for (int i = 0; i < 3000 && !done; ++i)
        QThread::msleep(20); // liveness only: without an interrupt the statement waits for the lock
    const bool stoppedWhileLocked = done.load();
    blocker.execute(QStringLiteral("ROLLBACK"));
    iteration.join();
    QVERIFY2(waiting, "the push-down never waited on the lock");
    QVERIFY2(!firstExpiry.isEmpty() && renewed, "the lease was not renewed while the statement ran");
    QVERIFY2(stoppedWhileLocked, "the push-down was not interrupted: it ran on after the lock was released");
    QVERIFY2(record.status == IterationStatus::Cancelled, qPrintable(describe(record)));
    QVERIFY2(record.error.contains(QLatin1String("the running statement was interrupted")),
             qPrintable(record.error));
    QCOMPARE(pg.db->query(QStringLiteral("SELECT count(*) FROM events_copy")).value(0).value(0),
             QStringLiteral("100"));
    QCOMPARE(setup.ws->table(id)->lastWatermark.display(), QStringLiteral("100"));
}

void TestExactlyOncePg::dryRunCreatesNoStateTable() {
    for (const bool sourcePg : {false, true}) {
        FreshDatabase pg;
        EngineSetup setup;
        End source(sourcePg, pg, setup.dir.filePath(QStringLiteral("source.db")));
        source.addEvents(QStringLiteral("events"), 1, 10);
        const qint64 id =
            setup.addTable(source.spec(QStringLiteral("src")), pgSpec(QStringLiteral("dst"), pg.name),
                           QStringLiteral("events"), QStringLiteral("events_copy"));
        CopyIteration::Options options;
        options.dryRun = true;
        const IterationRecord record = setup.run(id, options);
        QVERIFY2(record.status == IterationStatus::DryRun, qPrintable(describe(record)));
        QCOMPARE(record.rowsRead, qint64(10));
        QVERIFY2(!pg.hasStateTable(), "a dry run created public.tidemark_state");
    }
}

// Three iterations creating the state table of a fresh database at once (it once failed with "duplicate key
// value violates unique constraint pg_type_typname_nsp_index"). A few rounds: it is a race.
void TestExactlyOncePg::parallelFirstRunIntoFreshDatabase() {
    for (int round = 0; round < 6; ++round) {
        FreshDatabase pg;
        QTemporaryDir dir;
        const QString sourcePath = dir.filePath(QStringLiteral("source.db"));
        End source(false, pg, sourcePath);
        const QString ws = dir.filePath(QStringLiteral("ws.tidemark"));
        cli(ws, {QStringLiteral("init")});
        cli(ws, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                 QStringLiteral("--sqlite"), sourcePath});
        cli(ws, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
                 QStringLiteral("--postgres"), conninfo(pg.name)});
        for (const QString &table : {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}) {
            source.addEvents(table, 1, 50);
            cli(ws, {QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                     QStringLiteral("src:") + table, QStringLiteral("--target"),
                     QStringLiteral("dst:") + table, QStringLiteral("--watermark"), QStringLiteral("id")});
        }
        const CliResult result =
            runCli({QStringLiteral("-w"), ws, QStringLiteral("run"), QStringLiteral("--concurrency"),
                    QStringLiteral("3"), QStringLiteral("--json")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
        const QJsonArray iterations =
            parseJsonObject(result.out).value(QStringLiteral("iterations")).toArray();
        QCOMPARE(iterations.size(), 3);
        for (const QJsonValue &iteration : iterations)
            QVERIFY2(iteration.toObject().value(QStringLiteral("status")).toString() ==
                         QLatin1String("succeeded"),
                     qPrintable(result.describe()));
        QCOMPARE(pg.db->query(QStringLiteral("SELECT count(*) FROM public.tidemark_state")).value(0).value(0),
                 QStringLiteral("3"));
    }
}

// A target written by an older build: public.tidemark_state of the first builds (no
// state_version) or of state_version 2 (no generation). A dry run reads it as it is (no DDL);
// the next write migrates it in place, keeps the position, and the row reads generation 0.
void TestExactlyOncePg::olderStateTableMigratesOnWrite_data() {
    QTest::addColumn<QString>("createTable");
    QTest::addColumn<QString>("insertRow");
    QTest::newRow("first builds") << QStringLiteral(
                                         "workspace_id text NOT NULL, table_id bigint NOT NULL, "
                                         "watermark_type text, watermark text, tiebreak text, "
                                         "tiebreak_type text, run_id bigint, updated_at timestamptz "
                                         "NOT NULL DEFAULT now()")
                                  << QStringLiteral("watermark_type, watermark, run_id) VALUES ($1, $2, "
                                                    "'integer', '40', 1");
    QTest::newRow("state_version 2") << QStringLiteral(
                                            "workspace_id text NOT NULL, table_id bigint NOT NULL, "
                                            "watermark_type text, watermark text, tiebreak text, "
                                            "tiebreak_type text, run_id bigint, updated_at "
                                            "timestamptz, state_version bigint")
                                     << QStringLiteral("watermark_type, watermark, run_id, updated_at, "
                                                       "state_version) VALUES ($1, $2, 'integer', '40', 1, "
                                                       "now(), 2");
}

void TestExactlyOncePg::olderStateTableMigratesOnWrite() {
    QFETCH(QString, createTable);
    QFETCH(QString, insertRow);
    FreshDatabase pg;
    EngineSetup setup;
    End source(false, pg, setup.dir.filePath(QStringLiteral("source.db")));
    source.addEvents(QStringLiteral("events"), 1, 100);
    const qint64 id =
        setup.addTable(source.spec(QStringLiteral("src")), pgSpec(QStringLiteral("dst"), pg.name),
                       QStringLiteral("events"), QStringLiteral("events_copy"));
    pg.db->execute(QStringLiteral("CREATE TABLE events_copy (id bigint NOT NULL, payload text)"));
    pg.db->execute(
        QStringLiteral("INSERT INTO events_copy SELECT i, 'event ' || i FROM generate_series(1, 40) AS i"));
    pg.db->execute(
        QStringLiteral("CREATE TABLE public.tidemark_state (%1, PRIMARY KEY (workspace_id, table_id))")
            .arg(createTable));
    pg.db->execute(
        QStringLiteral("INSERT INTO public.tidemark_state (workspace_id, table_id, %1)").arg(insertRow),
        {setup.ws->workspaceId(), QString::number(id)});
    const auto columns = [&] {
        return pg.db
            ->query(QStringLiteral("SELECT count(*) FROM pg_attribute WHERE attrelid = "
                                   "'public.tidemark_state'::regclass AND attnum > 0"))
            .value(0)
            .value(0);
    };
    const QString olderColumns = columns();

    CopyIteration::Options dryRun;
    dryRun.dryRun = true;
    const IterationRecord preview = setup.run(id, dryRun);
    QVERIFY2(preview.status == IterationStatus::DryRun, qPrintable(describe(preview)));
    QCOMPARE(preview.rowsRead, qint64(60));
    QCOMPARE(columns(), olderColumns);

    const IterationRecord record = setup.run(id);
    QVERIFY2(record.status == IterationStatus::Succeeded, qPrintable(describe(record)));
    QCOMPARE(record.rowsWritten, qint64(60));
    QCOMPARE(pg.db->query(QStringLiteral("SELECT count(*), count(DISTINCT id) FROM events_copy")).value(0),
             (QStringList{QStringLiteral("100"), QStringLiteral("100")}));
    QCOMPARE(
        pg.db->query(QStringLiteral("SELECT watermark, state_version, generation FROM public.tidemark_state"))
            .value(0),
        (QStringList{QStringLiteral("100"), QStringLiteral("6"), QStringLiteral("0")}));
}

QTEST_GUILESS_MAIN(TestExactlyOncePg)
#include "tst_exactlyoncepg.moc"
