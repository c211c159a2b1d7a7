// SPDX-License-Identifier: MIT
// The run coordinator: a "for each" over tables on a thread pool; one failing table never stops
// or spoils the others; results come back as signals.
#include "model/engine/runcoordinator.h"
#include "tests/engine/enginefixture.h"
#include "tests/support/faultgate.h"

#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QProcess>
#include <QSignalSpy>
#include <QSysInfo>
#include <QTest>

#include <sqlite3.h>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// Runs `request` to its end and returns the finished run (id 0 when it never finished).
RunRecord runToEnd(RunCoordinator &coordinator, const RunRequest &request, bool cancelAtOnce = false) {
    QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
    if (!coordinator.start(request))
        return {};
    if (cancelAtOnce)
        coordinator.cancel();
    if (!finished.wait(120000))
        return {};
    return finished.takeFirst().at(0).value<RunRecord>();
}

const IterationRecord *iterationOf(const RunRecord &run, qint64 tableId) {
    for (const IterationRecord &iteration : run.iterations) {
        if (iteration.tableId == tableId)
            return &iteration;
    }
    return nullptr;
}

// Counts the connections SQLite opens to database files of one directory in this process, by
// file name: a pass-through file layer (VFS) made the default while it lives. An ATTACH counts
// as an open of the attached file.
class OpenCounter {
public:
    explicit OpenCounter(const QString &directory) {
        static sqlite3_vfs counting = [] {
            sqlite3_vfs *original = sqlite3_vfs_find(nullptr);
            sqlite3_vfs vfs = *original; // same pAppData and methods; only xOpen counts first
            vfs.zName = "tidemark-test-counting";
            vfs.xOpen = [](sqlite3_vfs *, const char *name, sqlite3_file *file, int flags, int *outFlags) {
                if (name && (flags & SQLITE_OPEN_MAIN_DB))
                    OpenCounter::noteOpen(QString::fromUtf8(name));
                return s_original->xOpen(s_original, name, file, flags, outFlags);
            };
            s_original = original;
            return vfs;
        }();
        state().directory = QFileInfo(directory).canonicalFilePath();
        state().opens.clear();
        sqlite3_vfs_register(&counting, 1);
    }
    ~OpenCounter() {
        // Connections opened meanwhile keep pointing at the (static) layer; only counting stops.
        sqlite3_vfs_unregister(sqlite3_vfs_find("tidemark-test-counting"));
        sqlite3_vfs_register(s_original, 1);
        const QMutexLocker lock(&state().mutex);
        state().directory.clear();
    }
    OpenCounter(const OpenCounter &) = delete;
    OpenCounter &operator=(const OpenCounter &) = delete;

    int opens(const QString &fileName) {
        const QMutexLocker lock(&state().mutex);
        return state().opens.value(fileName);
    }
    void reset() {
        const QMutexLocker lock(&state().mutex);
        state().opens.clear();
    }

private:
    struct State {
        QMutex mutex;
        QString directory;
        QHash<QString, int> opens; // by file name
    };
    static State &state() {
        static State s;
        return s;
    }
    static void noteOpen(const QString &path) {
        const QFileInfo file(path);
        const QString directory = QFileInfo(file.absolutePath()).canonicalFilePath();
        const QMutexLocker lock(&state().mutex);
        if (!state().directory.isEmpty() && directory == state().directory)
            ++state().opens[file.fileName()];
    }
    static inline sqlite3_vfs *s_original = nullptr;
};

// Tables t0..t<count-1> of `rows` rows each, copied src -> dst in table-id order.
QList<qint64> addTables(EngineFixture &f, int count, int rows) {
    QList<qint64> ids;
    for (int i = 0; i < count; ++i) {
        const QString table = QStringLiteral("t%1").arg(i);
        makeOrders(f.src, rows, 1, table);
        ids << f.addTable(EngineFixture::draft(table, QStringLiteral("updated_at")));
    }
    return ids;
}

} // namespace

class TestRunCoordinator : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }
    void missingSourceNextToHealthy();
    void concurrencyRunsEveryTable();
    void pausedTableSkippedInRun();
    void cancelAtOnceCancelsEveryIteration();
    void dryRunThroughCoordinator();
    void runBeatsWhileAliveAndClosesDeadRuns();
    void removedTableIsRefused();
    void runOpensEachDatabaseOncePerWorker();
    void cancelStopsRunWithReusedConnections();
    void cancelledIterationLeavesNextOnSameWorkerClean();
    void finishedRunLeavesTheLogCopiedBack();
};

void TestRunCoordinator::missingSourceNextToHealthy() {
    EngineFixture f;
    makeOrders(f.src, 50);
    makeOrders(f.src, 10, 1, QStringLiteral("doomed"));
    const qint64 doomed =
        f.addTable(EngineFixture::draft(QStringLiteral("doomed"), QStringLiteral("updated_at")));
    const qint64 healthy =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    execSql(f.src, QStringLiteral("DROP TABLE doomed"));

    RunCoordinator coordinator(f.wsPath);
    RunRequest request;
    request.trigger = QStringLiteral("cli");
    const RunRecord run = runToEnd(coordinator, request);
    QVERIFY(run.id > 0);
    QCOMPARE(run.status, QStringLiteral("failed"));
    QCOMPARE(run.iterations.size(), 2);
    const IterationRecord *bad = iterationOf(run, doomed);
    const IterationRecord *good = iterationOf(run, healthy);
    QVERIFY(bad && good);
    QCOMPARE(bad->status, IterationStatus::Failed);
    QVERIFY2(bad->error.contains(QStringLiteral("doomed")), qPrintable(bad->error));
    QCOMPARE(good->status, IterationStatus::Succeeded);
    QCOMPARE(good->rowsWritten, 50);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 50);
    QVERIFY(f.spec(doomed).lastWatermark.isNull());
    QVERIFY(!coordinator.isRunning());

    // History holds the same story.
    const QList<RunRecord> history = f.ws->runs(1, run.id);
    QCOMPARE(history.size(), 1);
    QCOMPARE(history.first().status, QStringLiteral("failed"));
    QCOMPARE(history.first().iterations.size(), 2);
}

void TestRunCoordinator::concurrencyRunsEveryTable() {
    EngineFixture f;
    QList<qint64> ids;
    for (int i = 0; i < 5; ++i) {
        const QString table = QStringLiteral("t%1").arg(i);
        makeOrders(f.src, 200 + i, 1, table);
        TableDraft draft = EngineFixture::draft(table, QStringLiteral("updated_at"));
        draft.spec.batchSize = 50;
        ids << f.addTable(draft);
    }
    RunCoordinator coordinator(f.wsPath);
    QSignalSpy started(&coordinator, &RunCoordinator::runStarted);
    QSignalSpy changed(&coordinator, &RunCoordinator::iterationChanged);
    RunRequest request;
    request.concurrency = 2;
    const RunRecord run = runToEnd(coordinator, request);
    QCOMPARE(run.status, QStringLiteral("succeeded"));
    QCOMPARE(started.size(), 1);
    const auto queued = started.first().at(1).value<QList<IterationRecord>>();
    QCOMPARE(queued.size(), 5);
    for (int i = 0; i < 5; ++i) {
        QCOMPARE(queued[i].tableId, ids[i]);
        QCOMPARE(queued[i].status, IterationStatus::Queued);
    }
    QSet<qint64> finishedTables;
    for (const QList<QVariant> &signal : changed) {
        const auto record = signal.at(0).value<IterationRecord>();
        if (record.status == IterationStatus::Succeeded)
            finishedTables.insert(record.tableId);
    }
    QCOMPARE(finishedTables.size(), 5);
    for (int i = 0; i < 5; ++i) {
        QCOMPARE(countRows(f.dst, QStringLiteral("t%1").arg(i)), 200 + i);
        QCOMPARE(iterationOf(run, ids[i])->rowsRead, 200 + i);
    }
    QCOMPARE(f.ws->runs(1, run.id).first().concurrency, 2);
    // Never more than `concurrency` iterations at once: no start falls inside two other iterations.
    for (const IterationRecord &a : run.iterations) {
        int overlapping = 0;
        for (const IterationRecord &b : run.iterations) {
            if (b.startedAt <= a.startedAt && a.startedAt < b.finishedAt)
                ++overlapping;
        }
        QVERIFY2(
            overlapping <= 2,
            qPrintable(
                QStringLiteral("table %1 started while %2 iterations ran").arg(a.tableId).arg(overlapping)));
    }

    // A second run finds nothing new.
    const RunRecord again = runToEnd(coordinator, request);
    for (const IterationRecord &iteration : again.iterations)
        QCOMPARE(iteration.status, IterationStatus::NoNewRows);
}

void TestRunCoordinator::pausedTableSkippedInRun() {
    EngineFixture f;
    makeOrders(f.src, 20);
    const qint64 active =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"),
                                            QStringLiteral("paused_copy"));
    draft.spec.active = false;
    const qint64 paused = f.addTable(draft);
    RunCoordinator coordinator(f.wsPath);
    const RunRecord run = runToEnd(coordinator, RunRequest{});
    QCOMPARE(run.status, QStringLiteral("succeeded"));
    QCOMPARE(iterationOf(run, paused)->status, IterationStatus::Skipped);
    QCOMPARE(iterationOf(run, active)->status, IterationStatus::Succeeded);
    QVERIFY(!f.targetHas(QStringLiteral("paused_copy")));
}

void TestRunCoordinator::cancelAtOnceCancelsEveryIteration() {
    EngineFixture f;
    makeOrders(f.src, 100);
    const qint64 a = f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    const qint64 b = f.addTable(
        EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"), QStringLiteral("b")));
    RunCoordinator coordinator(f.wsPath);
    const RunRecord run = runToEnd(coordinator, RunRequest{}, true);
    QCOMPARE(run.status, QStringLiteral("cancelled"));
    QCOMPARE(iterationOf(run, a)->status, IterationStatus::Cancelled);
    QCOMPARE(iterationOf(run, b)->status, IterationStatus::Cancelled);
    QVERIFY(!f.targetHas(QStringLiteral("orders")) || countRows(f.dst, QStringLiteral("orders")) == 0);
    QVERIFY(f.spec(a).lastWatermark.isNull());
    QVERIFY(f.spec(b).lastWatermark.isNull());
}

void TestRunCoordinator::dryRunThroughCoordinator() {
    EngineFixture f;
    makeOrders(f.src, 30);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    RunCoordinator coordinator(f.wsPath);
    RunRequest request;
    request.dryRun = true;
    const RunRecord run = runToEnd(coordinator, request);
    QCOMPARE(run.status, QStringLiteral("dry_run"));
    QCOMPARE(iterationOf(run, id)->status, IterationStatus::DryRun);
    QCOMPARE(iterationOf(run, id)->rowsRead, 30);
    QCOMPARE(iterationOf(run, id)->rowsWritten, 0);
    QVERIFY(!f.targetHas(QStringLiteral("orders")));
}

void TestRunCoordinator::runBeatsWhileAliveAndClosesDeadRuns() {
    EngineFixture f;
    // A run left behind by a process that died.
    const qint64 orphan = f.ws->beginRun(QStringLiteral("cli"), 1, false);
    QProcess child;
    child.start(QStringLiteral("true"), {});
    QVERIFY(child.waitForStarted());
    const qint64 deadPid = child.processId();
    QVERIFY(child.waitForFinished());
    execWorkspaceSql(f.wsPath, QStringLiteral("UPDATE runs SET pid = ?1, host = ?2 WHERE id = ?3"),
                     {deadPid, QSysInfo::machineHostName(), orphan});

    for (int i = 0; i < 3; ++i) {
        const QString table = QStringLiteral("t%1").arg(i);
        makeOrders(f.src, 100000, 1, table);
        f.addTable(EngineFixture::draft(table, QStringLiteral("updated_at")));
    }
    qputenv("TIDEMARK_TEST_RUN_HEARTBEAT_MS", "30");
    RunCoordinator coordinator(f.wsPath);
    QSignalSpy started(&coordinator, &RunCoordinator::runStarted);
    QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
    RunRequest request;
    request.concurrency = 1;
    QVERIFY(coordinator.start(request));
    QTRY_COMPARE_WITH_TIMEOUT(started.size(), 1, 60000);
    const qint64 runId = started.first().at(0).toLongLong();
    // The run's setup closed the dead one.
    QCOMPARE(f.ws->runs(0, orphan).first().status, QStringLiteral("interrupted"));
    // While it copies, its heartbeat moves on (its own thread; this thread only waits).
    const auto beaten = [&] {
        return execWorkspaceSql(f.wsPath,
                                QStringLiteral("SELECT CASE WHEN heartbeat_at > started_at THEN 1 ELSE 0 END "
                                               "FROM runs WHERE id = ?1"),
                                {runId})
                   .toInt() == 1;
    };
    QTRY_VERIFY_WITH_TIMEOUT(beaten() || finished.size() == 1, 120000);
    QVERIFY2(beaten(), "the run finished before its first beat");
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 120000);
    qunsetenv("TIDEMARK_TEST_RUN_HEARTBEAT_MS");
    QCOMPARE(finished.first().at(0).value<RunRecord>().status, QStringLiteral("succeeded"));
    QCOMPARE(f.ws->runs(0, runId).first().status, QStringLiteral("succeeded"));
}

void TestRunCoordinator::removedTableIsRefused() {
    EngineFixture f;
    makeOrders(f.src, 10);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    f.ws->removeTable(id);
    RunCoordinator coordinator(f.wsPath);
    QSignalSpy failed(&coordinator, &RunCoordinator::runFailedToStart);
    RunRequest request;
    request.tableIds = {id};
    QVERIFY(coordinator.start(request));
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 60000);
    const QString error = failed.first().at(0).toString();
    QVERIFY2(error.contains(QStringLiteral("table %1").arg(id)) && error.contains(QStringLiteral("restore")),
             qPrintable(error));
    QVERIFY(f.ws->runs().isEmpty());
    QVERIFY(!f.targetHas(QStringLiteral("orders")));
}

// A run over many tables keeps each worker's connections open from one table to the next: each
// database is opened by at most `concurrency` connections per run, not once per table.
void TestRunCoordinator::runOpensEachDatabaseOncePerWorker() {
    EngineFixture f;
    const QList<qint64> ids = addTables(f, 12, 5);
    OpenCounter counter(f.dirPath());
    RunCoordinator coordinator(f.wsPath);
    RunRequest request;
    request.concurrency = 2;
    const RunRecord copied = runToEnd(coordinator, request);
    QCOMPARE(copied.status, QStringLiteral("succeeded"));
    // A copy may also ATTACH the source to the worker's target connection (push-down): once each.
    QVERIFY2(counter.opens(QStringLiteral("source.db")) <= 2 * request.concurrency,
             qPrintable(QString::number(counter.opens(QStringLiteral("source.db")))));
    QVERIFY2(counter.opens(QStringLiteral("target.db")) <= request.concurrency,
             qPrintable(QString::number(counter.opens(QStringLiteral("target.db")))));

    counter.reset();
    const RunRecord again = runToEnd(coordinator, request);
    QCOMPARE(again.status, QStringLiteral("succeeded"));
    for (const IterationRecord &iteration : again.iterations)
        QCOMPARE(iteration.status, IterationStatus::NoNewRows);
    QVERIFY2(counter.opens(QStringLiteral("source.db")) <= 2 * request.concurrency,
             qPrintable(QString::number(counter.opens(QStringLiteral("source.db")))));
    QVERIFY2(counter.opens(QStringLiteral("target.db")) <= request.concurrency,
             qPrintable(QString::number(counter.opens(QStringLiteral("target.db")))));
    for (int i = 0; i < ids.size(); ++i)
        QCOMPARE(countRows(f.dst, QStringLiteral("t%1").arg(i)), 5);
}

// Cancel reaches an iteration running on connections an earlier table opened: it stops, the
// tables after it end cancelled, and nothing of it reaches the target.
void TestRunCoordinator::cancelStopsRunWithReusedConnections() {
    EngineFixture f;
    const QList<qint64> ids = addTables(f, 4, 20);
    OpenCounter counter(f.dirPath());
    RunCoordinator coordinator(f.wsPath);
    QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
    FaultGate gate("before_write_transaction", 2); // t1, on the connections t0 opened
    RunRequest request;
    request.concurrency = 1;
    QVERIFY(coordinator.start(request));
    QTRY_VERIFY_WITH_TIMEOUT(gate.reached(), 120000);        // the coordinator needs this thread's events
    QCOMPARE(counter.opens(QStringLiteral("target.db")), 1); // t1 writes through t0's connection
    coordinator.cancel();
    QTest::qWait(300); // lets the watchdog interrupt t1's (reused) connections meanwhile
    gate.release();
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 120000);
    const auto run = finished.first().at(0).value<RunRecord>();
    QCOMPARE(run.status, QStringLiteral("cancelled"));
    QCOMPARE(iterationOf(run, ids[0])->status, IterationStatus::Succeeded);
    for (int i = 1; i < ids.size(); ++i) {
        QVERIFY2(iterationOf(run, ids[i])->status == IterationStatus::Cancelled,
                 qPrintable(describe(*iterationOf(run, ids[i]))));
        QVERIFY(f.spec(ids[i]).lastWatermark.isNull());
        const QString table = QStringLiteral("t%1").arg(i);
        QVERIFY(!f.targetHas(table) || countRows(f.dst, table) == 0);
    }
    QCOMPARE(countRows(f.dst, QStringLiteral("t0")), 20);
}

// A connection interrupted by one iteration's cancel (a schedule's timeout) is not handed to the
// next iteration of the same worker: those copy as if nothing happened.
void TestRunCoordinator::cancelledIterationLeavesNextOnSameWorkerClean() {
    EngineFixture f;
    const QList<qint64> ids = addTables(f, 4, 20);
    RunCoordinator coordinator(f.wsPath);
    QSignalSpy started(&coordinator, &RunCoordinator::runStarted);
    QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
    FaultGate gate("before_write_transaction", 2); // t1
    RunRequest request;
    request.concurrency = 1;
    QVERIFY(coordinator.start(request));
    QTRY_VERIFY_WITH_TIMEOUT(gate.reached(), 120000); // the coordinator needs this thread's events
    QTRY_COMPARE_WITH_TIMEOUT(started.size(), 1, 60000);
    const auto queued = started.first().at(1).value<QList<IterationRecord>>();
    coordinator.cancelIteration(queued[1].id);
    QTest::qWait(300); // lets the watchdog interrupt t1's connections, for good
    // t2 finds the target locked for a while: a connection still carrying t1's interrupt would
    // give up at once ("database is locked") instead of waiting for its turn.
    SqliteDb holder(f.dst, SqliteDb::Mode::ReadWrite);
    holder.exec(QStringLiteral("BEGIN IMMEDIATE"));
    gate.release();
    QTest::qWait(500);
    holder.exec(QStringLiteral("COMMIT"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 120000);
    const auto run = finished.first().at(0).value<RunRecord>();
    QVERIFY2(iterationOf(run, ids[1])->status == IterationStatus::Cancelled,
             qPrintable(describe(*iterationOf(run, ids[1]))));
    QVERIFY(f.spec(ids[1]).lastWatermark.isNull());
    for (const int i : {0, 2, 3}) {
        QVERIFY2(iterationOf(run, ids[i])->status == IterationStatus::Succeeded,
                 qPrintable(describe(*iterationOf(run, ids[i]))));
        QCOMPARE(countRows(f.dst, QStringLiteral("t%1").arg(i)), 20);
    }
}

// A run's writes are copied back into the workspace file once it ends, and the log emptied:
// whoever closes the workspace last (a window quitting) has no big log left to copy and delete.
void TestRunCoordinator::finishedRunLeavesTheLogCopiedBack() {
    if (serverWorkspaces())
        QSKIP("the workspace file's write-ahead log; a server workspace has none");
    EngineFixture f;
    const QList<qint64> ids = addTables(f, 3, 20);
    const QFileInfo log(f.wsPath + QStringLiteral("-wal"));
    RunRecord run;
    {
        RunCoordinator coordinator(f.wsPath);
        run = runToEnd(coordinator, RunRequest{});
    } // its end's bookkeeping is over once it is gone
    QCOMPARE(run.status, QStringLiteral("succeeded"));
    QVERIFY(QFileInfo::exists(log.filePath())); // f.ws still holds the workspace open
    QCOMPARE(QFileInfo(log.filePath()).size(), qint64(0));
    // Nothing lost on the way: the run and its iterations read back from the file.
    const RunRecord stored = f.ws->runs(1, run.id).first();
    QCOMPARE(stored.status, QStringLiteral("succeeded"));
    QCOMPARE(stored.iterations.size(), ids.size());
}

QTEST_GUILESS_MAIN(TestRunCoordinator)
#include "tst_runcoordinator.moc"
