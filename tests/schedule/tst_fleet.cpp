// SPDX-License-Identifier: MIT
// The runner fleet (docs/design.md, "The runner fleet"): every `serve --fleet` takes work from the
// workspace's queue. Checked on the store (the claim's order, one claim per iteration, a dead
// runner's iterations put back, the run closed by whoever ends its last iteration, a firing made
// once) and with real processes: three runners share a queued run under the workspace's caps
// while one of them is SIGKILLed mid-copy, `run cancel` stops a queued run on its runners, and a
// runner cut off from the workspace server stops its copies and carries on once it is back.
// Runs on workspace files and on server workspaces (tests/CMakeLists.txt).
#include "model/engine/runcoordinator.h"
#include "tests/engine/enginefixture.h"
#include "tests/support/pgsession.h"
#include "tests/support/tcpcutter.h"
#include "tests/support/timespans.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QSysInfo>
#include <QtTest>

#include <csignal>

using namespace tidemark;
using namespace tidemark::test;

namespace {

constexpr int kGenerous = 120000; // waiting for things to happen, never a claim about speed

// One `serve --fleet` process with short heartbeats and slow copies.
class FleetRunnerProcess {
public:
    FleetRunnerProcess(const QString &workspace, int slotCount, const QString &delay,
                       const QStringList &extraEnv = {}) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
        env.insert(QStringLiteral("TIDEMARK_TEST_RUNNER_HEARTBEAT_MS"), QStringLiteral("200"));
        env.insert(QStringLiteral("TIDEMARK_TEST_RUN_HEARTBEAT_MS"), QStringLiteral("200"));
        env.insert(QStringLiteral("TIDEMARK_TEST_LEASE_TTL_MS"), QStringLiteral("2000"));
        env.insert(QStringLiteral("TIDEMARK_FAULT_DELAY"), delay);
        for (const QString &entry : extraEnv)
            env.insert(entry.section(QLatin1Char('='), 0, 0), entry.section(QLatin1Char('='), 1));
        m_process.setProcessEnvironment(env);
        m_process.start(cliPath(),
                        {QStringLiteral("-w"), workspace, QStringLiteral("serve"), QStringLiteral("--fleet"),
                         QStringLiteral("--slots"), QString::number(slotCount)});
    }
    ~FleetRunnerProcess() {
        if (m_process.state() != QProcess::NotRunning) {
            signal(SIGCONT);
            m_process.kill();
            m_process.waitForFinished(10000);
        }
    }
    bool started() {
        if (!m_process.waitForStarted(30000))
            return false;
        m_id = QStringLiteral("%1:%2").arg(QSysInfo::machineHostName()).arg(m_process.processId());
        return true;
    }
    qint64 pid() const { return m_process.processId(); }
    QString id() const { return m_id; }
    // Never kill(0, ...): once the process has ended its pid reads 0, which means this test's own
    // process group.
    void signal(int sig) {
        if (const qint64 pid = m_process.processId(); pid > 0)
            ::kill(pid_t(pid), sig);
    }
    bool stopsWithin(int ms) { return m_process.waitForFinished(ms); }
    QString err() {
        m_err += QString::fromUtf8(m_process.readAllStandardError());
        return m_err;
    }

private:
    QProcess m_process;
    QString m_id; // "host:pid", kept after it ends
    QString m_err;
};

QDateTime timeOf(const QJsonObject &object, const QString &key) {
    return QDateTime::fromString(object.value(key).toString(), Qt::ISODateWithMs);
}

} // namespace

class TestFleet : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void claimIsFairAndTakesEachIterationOnce();
    void deadRunnersIterationsGoBackAndTheRunClosesOnce();
    void handedBackAfterACancelTheRunCloses();
    void firingIsMadeOnce();
    void runnersShareAQueuedRunAndSurviveAKill();
    void runCancelStopsAQueuedRunOnItsRunners();
    void frozenRunnerWakesToFindItsIterationTakenOver();
    void scheduledRunsAreSharedAndEachFiringMakesOneRun();
    void newActiveRunnerFollowsTheRunsItsPredecessorFired();
    void runnerThatLosesTheWorkspaceCancelsReconnectsAndCarriesOn();
    void rangeBackfillIsQueuedForTheRunners();

private:
    // orders<n> (`rows` rows) copied from src into `target`; `batchSize` rows a batch (a small
    // batch keeps the copy off the one-statement push-down, so it checks for a cancel often).
    qint64 addOrders(int n, int rows, const QString &target = QStringLiteral("dst"), int batchSize = 10000);
    // A queued run over `tableIds`, as `run --queue --no-wait` records it.
    qint64 enqueue(const QList<qint64> &tableIds);
    CliResult cli(const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), m_fixture->wsPath} + args);
    }
    QJsonObject runJson(qint64 runId);

    std::unique_ptr<EngineFixture> m_fixture;
};

void TestFleet::initTestCase() {
    TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
}

void TestFleet::init() {
    m_fixture = std::make_unique<EngineFixture>();
    ConnectionSpec second;
    second.name = QStringLiteral("dst2");
    second.path = m_fixture->filePath(QStringLiteral("target2.db"));
    m_fixture->ws->addConnection(second);
}

void TestFleet::cleanup() {
    m_fixture.reset();
}

qint64 TestFleet::addOrders(int n, int rows, const QString &target, int batchSize) {
    const QString table = QStringLiteral("orders%1").arg(n);
    makeOrders(m_fixture->src, rows, 1, table);
    TableDraft draft = EngineFixture::draft(table, QStringLiteral("updated_at"));
    draft.spec.targetConnection = target;
    draft.spec.batchSize = batchSize;
    if (batchSize < 10000) {
        draft.spec.maxSkipped = 1;
        makeStreamingOrdersTarget(target == QLatin1String("dst")
                                      ? m_fixture->dst
                                      : m_fixture->filePath(QStringLiteral("target2.db")),
                                  table);
    }
    return m_fixture->addTable(draft);
}

qint64 TestFleet::enqueue(const QList<qint64> &tableIds) {
    RunRequest request;
    request.trigger = QStringLiteral("cli");
    request.tableIds = tableIds;
    return RunCoordinator::enqueue(m_fixture->wsPath, request);
}

QJsonObject TestFleet::runJson(qint64 runId) {
    const CliResult history = cli({QStringLiteral("history"), QStringLiteral("--run"), QString::number(runId),
                                   QStringLiteral("--json")});
    const QJsonArray runs = parseJsonArray(history.out);
    return runs.isEmpty() ? QJsonObject() : runs.first().toObject();
}

// Each run's oldest unclaimed iteration first, round-robin across runs: a one-table run queued
// after a run of five is served second, not sixth; a claimed iteration is never claimed again.
void TestFleet::claimIsFairAndTakesEachIterationOnce() {
    Workspace &ws = *m_fixture->ws;
    QList<qint64> five;
    for (int n = 1; n <= 5; ++n)
        five << addOrders(n, 10);
    const qint64 one = addOrders(6, 10);
    const qint64 bigRun = enqueue(five);
    const qint64 smallRun = enqueue({one});

    const QList<IterationRecord> first = ws.claimIterations(2);
    QCOMPARE(first.size(), 2);
    QCOMPARE(first.at(0).runId, bigRun);
    QCOMPARE(first.at(0).tableId, five.first());
    QCOMPARE(first.at(1).runId, smallRun);
    QCOMPARE(first.at(1).tableId, one);
    const QString me =
        QStringLiteral("%1:%2").arg(QSysInfo::machineHostName()).arg(QCoreApplication::applicationPid());
    for (const IterationRecord &claimed : first) {
        QCOMPARE(claimed.runner, me);
        QCOMPARE(claimed.status, IterationStatus::Queued);
        QCOMPARE(claimed.waiting, QStringLiteral("claimed by runner %1").arg(me));
    }
    QList<qint64> seen{first.at(0).id, first.at(1).id};
    const QList<IterationRecord> rest = ws.claimIterations(10);
    QCOMPARE(rest.size(), 4);
    for (const IterationRecord &claimed : rest) {
        QVERIFY(!seen.contains(claimed.id));
        QCOMPARE(claimed.runId, bigRun);
        seen << claimed.id;
    }
    QVERIFY(ws.claimIterations(10).isEmpty());
    // A queued run belongs to no process: the interrupted-run repair leaves it alone.
    QCOMPARE(ws.repairInterruptedRuns(), 0);
    QCOMPARE(ws.runStatus(bigRun), QStringLiteral("running"));
}

// A runner that stopped beating: its iterations go back in the queue (logged, its committed rows
// named), once no live lease of it holds their table; the run is closed once, by whoever ends
// its last iteration, with the status its iterations give.
void TestFleet::deadRunnersIterationsGoBackAndTheRunClosesOnce() {
    Workspace &ws = *m_fixture->ws;
    const qint64 a = addOrders(1, 10);
    const qint64 b = addOrders(2, 10);
    const qint64 runId = enqueue({a, b});
    ws.beatFleetRunner(2, QDateTime::currentDateTimeUtc(), std::chrono::minutes(1)); // this process is alive
    QList<IterationRecord> claimed = ws.claimIterations(2);
    QCOMPARE(claimed.size(), 2);
    // Both handed to a runner on another host that never beat (or whose row expired).
    execWorkspaceSql(m_fixture->wsPath,
                     QStringLiteral("UPDATE iterations SET runner = 'elsewhere:42', status = 'running', "
                                    "rows_written = 7, rows_pending = 3 WHERE run_id = ?1"),
                     {runId});
    // ... one of them still under that runner's live lease: its last write may still land.
    execWorkspaceSql(
        m_fixture->wsPath,
        QStringLiteral("INSERT INTO leases (table_id, run_id, host, pid, acquired_at, expires_at) "
                       "VALUES (?1, ?2, 'elsewhere', 42, '2026-01-01T00:00:00.000Z', "
                       "'2999-01-01T00:00:00.000Z')"),
        {b, runId});
    QCOMPARE(ws.requeueOrphanedIterations(), 1);
    QList<IterationRecord> again = ws.claimIterations(5);
    QCOMPARE(again.size(), 1);
    QCOMPARE(again.first().tableId, a);
    QCOMPARE(again.first().rowsWritten, qint64(0));
    QCOMPARE(again.first().rowsRolledBack, qint64(3));
    const QList<LogLine> log = ws.iterationLog(again.first().id);
    QVERIFY(!log.isEmpty());
    QCOMPARE(
        log.last().message,
        QStringLiteral("back in the queue for another runner: runner elsewhere:42 stopped beating (that "
                       "attempt committed 7 row(s), which stay in the target; 3 uncommitted rolled back)"));

    // The lease expires: the other goes back too.
    execWorkspaceSql(
        m_fixture->wsPath,
        QStringLiteral("UPDATE leases SET expires_at = '2000-01-01T00:00:00.000Z' WHERE table_id = ?1"), {b});
    QCOMPARE(ws.requeueOrphanedIterations(), 1);
    again << ws.claimIterations(5);
    QCOMPARE(again.size(), 2);

    for (IterationRecord &record : again) {
        QCOMPARE(ws.finishRunIfSettled(runId), QString()); // one is still open
        record.status = record.tableId == a ? IterationStatus::Succeeded : IterationStatus::Warning;
        record.waiting.clear();
        ws.updateIteration(record);
    }
    QCOMPARE(ws.finishRunIfSettled(runId), QStringLiteral("warning"));
    QCOMPARE(ws.finishRunIfSettled(runId), QString()); // closed already: once
    QCOMPARE(ws.runStatus(runId), QStringLiteral("warning"));
}

// A stopping runner hands back what it claimed; when the run's cancel was asked for meanwhile (a
// stopping scheduler cancels the runs it fired), the iteration ends cancelled, and when it was the
// run's last open one the run ends too: never `running` with nothing left to run.
void TestFleet::handedBackAfterACancelTheRunCloses() {
    Workspace &ws = *m_fixture->ws;
    const qint64 runId = enqueue({addOrders(1, 10)});
    const QList<IterationRecord> claimed = ws.claimIterations(1);
    QCOMPARE(claimed.size(), 1);
    QCOMPARE(ws.requestCancel(runId).runStatus, QStringLiteral("running"));
    QCOMPARE(ws.requeueIteration(claimed.first().id, QStringLiteral("runner stopped")),
             QStringLiteral("cancelled"));
    QCOMPARE(ws.runStatus(runId), QStringLiteral("cancelled"));
    QVERIFY(ws.claimIterations(1).isEmpty());
}

void TestFleet::firingIsMadeOnce() {
    Workspace &ws = *m_fixture->ws;
    const QDateTime at = QDateTime::fromString(QStringLiteral("2026-12-07T02:00:00.000Z"), Qt::ISODateWithMs);
    QVERIFY(ws.claimFiring(QStringLiteral("nightly"), at));
    QVERIFY(!Workspace::open(m_fixture->wsPath)->claimFiring(QStringLiteral("nightly"), at));
    QVERIFY(ws.claimFiring(QStringLiteral("nightly"), at.addSecs(60)));
    QVERIFY(ws.claimFiring(QStringLiteral("hourly"), at));
}

// Three runners, twelve tables, a workspace cap of 4 and dst capped at 2; one runner is killed
// while it copies. Every target ends exact, the run succeeds with each iteration recorded once,
// at least two runners did the work, and history's spans never overlap past a cap.
void TestFleet::runnersShareAQueuedRunAndSurviveAKill() {
    constexpr int kTables = 12;
    constexpr int kRows = 2000;
    QList<qint64> ids;
    for (int n = 1; n <= kTables; ++n)
        ids << addOrders(n, kRows, n % 2 == 0 ? QStringLiteral("dst") : QStringLiteral("dst2"));
    QCOMPARE(cli({QStringLiteral("workspace"), QStringLiteral("set"), QStringLiteral("--max-concurrency"),
                  QStringLiteral("4")})
                 .exitCode,
             0);
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("set"), QStringLiteral("dst"),
                  QStringLiteral("--max-connections"), QStringLiteral("2")})
                 .exitCode,
             0);

    const QString delay = QStringLiteral("before_write_transaction:1500");
    std::vector<std::unique_ptr<FleetRunnerProcess>> runners;
    for (int r = 0; r < 3; ++r) {
        runners.push_back(std::make_unique<FleetRunnerProcess>(m_fixture->wsPath, 2, delay));
        QVERIFY(runners.back()->started());
    }
    // Every runner is listed as taking work.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const CliResult listed = cli({QStringLiteral("runners"), QStringLiteral("--json")});
            int workers = 0;
            for (const QJsonValue &value : parseJsonArray(listed.out)) {
                const QJsonObject runner = value.toObject();
                workers += runner.value(QStringLiteral("role")).toString() == QLatin1String("worker") &&
                                   runner.value(QStringLiteral("alive")).toBool() &&
                                   runner.value(QStringLiteral("slots")).toInt() == 2
                               ? 1
                               : 0;
            }
            return workers == 3;
        }(),
        kGenerous);

    // `run --queue` waits for the runners and prints the run as `run` does.
    QProcess run;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    run.setProcessEnvironment(env);
    run.start(cliPath(), {QStringLiteral("-w"), m_fixture->wsPath, QStringLiteral("run"),
                          QStringLiteral("--queue"), QStringLiteral("--json")});
    QVERIFY(run.waitForStarted(30000));

    // The first runner is killed while one of its iterations is running.
    const QString victim = runners.front()->id();
    QTRY_VERIFY_WITH_TIMEOUT(
        execWorkspaceSql(m_fixture->wsPath,
                         QStringLiteral("SELECT count(*) FROM iterations WHERE runner = ?1 "
                                        "AND status = 'running'"),
                         {victim})
                .toInt() > 0,
        kGenerous);
    runners.front()->signal(SIGKILL);
    QVERIFY(runners.front()->stopsWithin(10000));

    QVERIFY2(run.waitForFinished(kGenerous * 2), "the queued run never ended");
    const QString out = QString::fromUtf8(run.readAllStandardOutput());
    QVERIFY2(run.exitCode() == 0, qPrintable(out + QString::fromUtf8(run.readAllStandardError())));
    const QJsonObject printed = parseJsonObject(out);
    QCOMPARE(printed.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    const qint64 runId = printed.value(QStringLiteral("run_id")).toInteger();

    const QJsonObject recorded = runJson(runId);
    QCOMPARE(recorded.value(QStringLiteral("queued")).toBool(), true);
    QStringList ranOn;
    QList<Span> all;
    QList<Span> intoDst;
    const QJsonArray iterations = recorded.value(QStringLiteral("iterations")).toArray();
    QCOMPARE(iterations.size(), kTables);
    for (const QJsonValue &value : iterations) {
        const QJsonObject iteration = value.toObject();
        QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        ranOn << iteration.value(QStringLiteral("runner")).toString();
        const Span span{timeOf(iteration, QStringLiteral("started_at")),
                        timeOf(iteration, QStringLiteral("finished_at")),
                        iteration.value(QStringLiteral("target")).toString()};
        QVERIFY(span.start.isValid() && span.finish.isValid());
        all << span;
        if (span.target.startsWith(QLatin1String("dst:")))
            intoDst << span;
    }
    ranOn.removeDuplicates();
    QVERIFY2(ranOn.size() >= 2, qPrintable(ranOn.join(QLatin1Char(','))));
    QVERIFY2(mostAtOnce(all) <= 4, qPrintable(QString::number(mostAtOnce(all))));
    QVERIFY2(mostAtOnce(intoDst) <= 2, qPrintable(QString::number(mostAtOnce(intoDst))));
    // The killed runner's iteration went back in the queue and another runner finished it.
    QVERIFY(
        execWorkspaceSql(m_fixture->wsPath,
                         QStringLiteral("SELECT count(*) FROM iteration_logs WHERE message LIKE ?1"),
                         {QStringLiteral("back in the queue for another runner: runner %1 %").arg(victim)})
            .toInt() > 0);
    QVERIFY(!ranOn.contains(victim) || ranOn.size() >= 2);
    for (int n = 1; n <= kTables; ++n) {
        const QString db = n % 2 == 0 ? m_fixture->dst : m_fixture->filePath(QStringLiteral("target2.db"));
        const QString table = QStringLiteral("orders%1").arg(n);
        recoverAfterKill(db);
        QCOMPARE(countRows(db, table), qint64(kRows));
        QCOMPARE(
            queryValue(db, QStringLiteral("SELECT count(DISTINCT id) FROM \"%1\"").arg(table)).toLongLong(),
            qint64(kRows));
    }
    // Nothing is left open, and the survivors stop cleanly (SIGTERM: exit 0).
    QCOMPARE(execWorkspaceSql(
                 m_fixture->wsPath,
                 QStringLiteral("SELECT count(*) FROM iterations WHERE status IN ('queued', 'running')"))
                 .toInt(),
             0);
    for (size_t r = 1; r < runners.size(); ++r) {
        runners[r]->signal(SIGTERM);
        QVERIFY2(runners[r]->stopsWithin(kGenerous), qPrintable(runners[r]->err()));
    }
}

// `run cancel` from another process stops a queued run's iterations on the runners that hold
// them, and closes those no runner took, within a few seconds.
void TestFleet::runCancelStopsAQueuedRunOnItsRunners() {
    QList<qint64> ids;
    for (int n = 1; n <= 6; ++n)
        ids << addOrders(n, 2000, QStringLiteral("dst"), 10);
    // 200 batches of 200 ms each: a copy of some 40 s, checking for a cancel between batches.
    FleetRunnerProcess first(m_fixture->wsPath, 1, QStringLiteral("after_batch_write:200"));
    FleetRunnerProcess second(m_fixture->wsPath, 1, QStringLiteral("after_batch_write:200"));
    QVERIFY(first.started() && second.started());
    const CliResult queued = cli({QStringLiteral("run"), QStringLiteral("--queue"),
                                  QStringLiteral("--no-wait"), QStringLiteral("--json")});
    QVERIFY2(queued.exitCode == 0, qPrintable(queued.describe()));
    const qint64 runId = parseJsonObject(queued.out).value(QStringLiteral("run_id")).toInteger();
    QVERIFY(runId > 0);
    QTRY_COMPARE_WITH_TIMEOUT(
        execWorkspaceSql(m_fixture->wsPath,
                         QStringLiteral("SELECT count(*) FROM iterations WHERE run_id = ?1 "
                                        "AND status = 'running'"),
                         {runId})
            .toInt(),
        2, kGenerous);

    QElapsedTimer took;
    took.start();
    const CliResult cancelled = cli(
        {QStringLiteral("run"), QStringLiteral("cancel"), QString::number(runId), QStringLiteral("--json")});
    QVERIFY2(cancelled.exitCode == 0, qPrintable(cancelled.describe()));
    const QJsonObject answer = parseJsonObject(cancelled.out);
    QCOMPARE(answer.value(QStringLiteral("status")).toString(), QStringLiteral("cancelled"));
    QCOMPARE(answer.value(QStringLiteral("iterations_closed")).toInt(), 4);
    QCOMPARE(answer.value(QStringLiteral("ended")).toBool(), true);
    // Well inside the 40 s each copy would take: the runners stopped them.
    QVERIFY2(took.elapsed() < 15000, qPrintable(QString::number(took.elapsed())));
    for (const QJsonValue &value : runJson(runId).value(QStringLiteral("iterations")).toArray())
        QCOMPARE(value.toObject().value(QStringLiteral("status")).toString(), QStringLiteral("cancelled"));

    // Cancelling it again says it had ended.
    const CliResult again = cli({QStringLiteral("run"), QStringLiteral("cancel"), QString::number(runId)});
    QCOMPARE(again.exitCode, 0);
    QCOMPARE(again.out,
             QStringLiteral("run %1 had ended already (cancelled): nothing to cancel\n").arg(runId));
}

// A runner frozen (SIGSTOP) just before its write transaction, past its heartbeat and its lease:
// another runner takes the iteration over and copies the table. Continued, the frozen one finds
// the target's position moved on, writes nothing, and leaves the iteration's record (and the
// lease) to its new holder.
void TestFleet::frozenRunnerWakesToFindItsIterationTakenOver() {
    constexpr int kRows = 3000;
    const qint64 id = addOrders(1, kRows);
    FleetRunnerProcess frozen(m_fixture->wsPath, 1, QString(),
                              {QStringLiteral("TIDEMARK_FAULT_STOP=before_write_transaction")});
    QVERIFY(frozen.started());
    const CliResult queued =
        cli({QStringLiteral("run"), QStringLiteral("--queue"), QStringLiteral("--no-wait"),
             QStringLiteral("--json"), QStringLiteral("--table"), QString::number(id)});
    QVERIFY2(queued.exitCode == 0, qPrintable(queued.describe()));
    const qint64 runId = parseJsonObject(queued.out).value(QStringLiteral("run_id")).toInteger();
    QTRY_COMPARE_WITH_TIMEOUT(processState(frozen.pid()), QChar(QLatin1Char('T')), kGenerous);

    FleetRunnerProcess other(m_fixture->wsPath, 1, QString());
    QVERIFY(other.started());
    QTRY_COMPARE_WITH_TIMEOUT(cli({QStringLiteral("history"), QStringLiteral("--run"), QString::number(runId),
                                   QStringLiteral("--json")})
                                  .out.contains(QLatin1String("\"status\":\"succeeded\"")),
                              true, kGenerous);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders1")), qint64(kRows));

    frozen.signal(SIGCONT);
    QTRY_VERIFY_WITH_TIMEOUT(frozen.err().contains(QLatin1String("was taken over by runner ") + other.id()),
                             kGenerous);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders1")), qint64(kRows));
    QCOMPARE(
        queryValue(m_fixture->dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders1")).toLongLong(),
        qint64(kRows));
    const QJsonObject run = runJson(runId);
    QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    const QJsonObject iteration = run.value(QStringLiteral("iterations")).toArray().first().toObject();
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(iteration.value(QStringLiteral("runner")).toString(), other.id());
    QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInteger(), qint64(kRows));
}

// Three runners and a schedule every two seconds over six tables; the runner that fires the
// schedule is killed after its first run. Every firing makes one run (schedule_firings), the
// runs' iterations spread over the runners, none fails, and every target ends exact.
void TestFleet::scheduledRunsAreSharedAndEachFiringMakesOneRun() {
    constexpr int kTables = 6;
    constexpr int kRows = 500;
    for (int n = 1; n <= kTables; ++n)
        addOrders(n, kRows);
    const CliResult scheduled =
        cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("every-2s"),
             QStringLiteral("--cron"), QStringLiteral("*/2 * * * * *"), QStringLiteral("--tz"),
             QStringLiteral("UTC")});
    QVERIFY2(scheduled.exitCode == 0, qPrintable(scheduled.describe()));
    std::vector<std::unique_ptr<FleetRunnerProcess>> runners;
    for (int r = 0; r < 3; ++r) {
        runners.push_back(std::make_unique<FleetRunnerProcess>(
            m_fixture->wsPath, 2, QStringLiteral("before_write_transaction:300")));
        QVERIFY(runners.back()->started());
    }
    const auto endedRuns = [this] {
        return execWorkspaceSql(m_fixture->wsPath,
                                QStringLiteral("SELECT count(*) FROM runs WHERE schedule = 'every-2s' AND "
                                               "status <> 'running'"))
            .toInt();
    };
    QTRY_VERIFY_WITH_TIMEOUT(endedRuns() >= 1, kGenerous);
    // The runner that fires the schedule dies; another takes the firing over.
    QString scheduler;
    for (const QJsonValue &value :
         parseJsonArray(cli({QStringLiteral("runners"), QStringLiteral("--json")}).out)) {
        if (value.toObject().value(QStringLiteral("role")).toString() == QLatin1String("scheduler"))
            scheduler = value.toObject().value(QStringLiteral("runner")).toString();
    }
    bool killed = false;
    for (const auto &runner : runners) {
        if (runner->id() == scheduler) {
            runner->signal(SIGKILL);
            QVERIFY(runner->stopsWithin(10000));
            killed = true;
        }
    }
    QVERIFY2(killed, qPrintable(scheduler));
    const int before = endedRuns();
    QTRY_VERIFY_WITH_TIMEOUT(endedRuns() >= before + 3, kGenerous);
    for (const auto &runner : runners) {
        if (runner->id() != scheduler) {
            runner->signal(SIGTERM);
            QVERIFY(runner->stopsWithin(kGenerous));
        }
    }

    const int firings =
        execWorkspaceSql(m_fixture->wsPath, QStringLiteral("SELECT count(*) FROM schedule_firings")).toInt();
    const int runs =
        execWorkspaceSql(m_fixture->wsPath,
                         QStringLiteral("SELECT count(*) FROM runs WHERE schedule = 'every-2s' AND "
                                        "queued = 1"))
            .toInt();
    // Each firing made one run, never two; the killed runner may have taken a firing and died
    // before its run was recorded (that firing is lost; the next one comes).
    QVERIFY2(runs <= firings && runs >= firings - 1,
             qPrintable(QStringLiteral("%1 runs, %2 firings").arg(runs).arg(firings)));
    QVERIFY(execWorkspaceSql(m_fixture->wsPath,
                             QStringLiteral("SELECT count(*) FROM iterations WHERE status IN ('failed', "
                                            "'interrupted')"))
                .toInt() == 0);
    QVERIFY(execWorkspaceSql(m_fixture->wsPath,
                             QStringLiteral("SELECT count(DISTINCT runner) FROM iterations WHERE status = "
                                            "'succeeded'"))
                .toInt() >= 2);
    for (int n = 1; n <= kTables; ++n) {
        const QString table = QStringLiteral("orders%1").arg(n);
        recoverAfterKill(m_fixture->dst);
        QCOMPARE(countRows(m_fixture->dst, table), qint64(kRows));
        QCOMPARE(
            queryValue(m_fixture->dst, QStringLiteral("SELECT count(DISTINCT id) FROM \"%1\"").arg(table))
                .toLongLong(),
            qint64(kRows));
    }
}

// The runner that fires the schedules is killed while a run it fired is open. The runner that
// takes over follows that run (its retries, timeouts and alerts are its own now) to its end.
void TestFleet::newActiveRunnerFollowsTheRunsItsPredecessorFired() {
    addOrders(1, 300);
    const CliResult scheduled =
        cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("every-2s"),
             QStringLiteral("--cron"), QStringLiteral("*/2 * * * * *"), QStringLiteral("--tz"),
             QStringLiteral("UTC")});
    QVERIFY2(scheduled.exitCode == 0, qPrintable(scheduled.describe()));
    FleetRunnerProcess first(m_fixture->wsPath, 1, QStringLiteral("before_write_transaction:4000"));
    QVERIFY(first.started());
    QTRY_VERIFY_WITH_TIMEOUT(
        execWorkspaceSql(m_fixture->wsPath,
                         QStringLiteral("SELECT count(*) FROM iterations i JOIN runs r ON "
                                        "r.id = i.run_id WHERE r.schedule = 'every-2s' AND "
                                        "i.status = 'running'"))
                .toInt() > 0,
        kGenerous);
    const qint64 runId =
        execWorkspaceSql(m_fixture->wsPath,
                         QStringLiteral("SELECT max(id) FROM runs WHERE schedule = 'every-2s'"))
            .toLongLong();
    first.signal(SIGKILL);
    QVERIFY(first.stopsWithin(10000));

    FleetRunnerProcess second(m_fixture->wsPath, 1, QString());
    QVERIFY(second.started());
    QTRY_VERIFY2_WITH_TIMEOUT(second.err().contains(QStringLiteral("schedule 'every-2s': follows its run %1, "
                                                                   "fired by runner ")
                                                        .arg(runId)),
                              qPrintable(second.err()), kGenerous);
    QTRY_VERIFY2_WITH_TIMEOUT(
        second.err().contains(QStringLiteral("schedule 'every-2s': run %1 ended succeeded").arg(runId)),
        qPrintable(second.err()), kGenerous);
    second.signal(SIGTERM);
    QVERIFY(second.stopsWithin(kGenerous));
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders1")), qint64(300));
}

// A runner cut off from the workspace server (a relay between them, cut) for longer than its
// heartbeat cancels what it holds: its copies stop and roll back to their last commit. Once it
// reaches the server again, it puts back in the queue the iterations whose end it could not
// record and carries on: the run ends succeeded and every target is exact, with no other
// runner's help.
void TestFleet::runnerThatLosesTheWorkspaceCancelsReconnectsAndCarriesOn() {
    if (!serverWorkspaces())
        QSKIP("a workspace file has no server to lose (the server run of this suite checks it)");
    TcpCutter relay(quint16(pgPort().toUInt()));
    QVERIFY(relay.listening());
    QString viaRelay = m_fixture->wsPath;
    viaRelay.replace(QStringLiteral(":%1/").arg(pgPort()), QStringLiteral(":%1/").arg(relay.port()));
    QVERIFY2(viaRelay != m_fixture->wsPath, qPrintable(viaRelay));
    constexpr int kRows = 2000;
    const QList<qint64> ids{addOrders(1, kRows, QStringLiteral("dst"), 10),
                            addOrders(2, kRows, QStringLiteral("dst"), 10)};
    // 200 batches of 50 ms each: a copy of some 10 s.
    FleetRunnerProcess runner(viaRelay, 2, QStringLiteral("after_batch_write:50"));
    QVERIFY(runner.started());
    const qint64 runId = enqueue(ids);
    const auto runningOfRun = [&] {
        return execWorkspaceSql(m_fixture->wsPath,
                                QStringLiteral("SELECT count(*) FROM iterations WHERE run_id = ?1 AND "
                                               "status = 'running' AND runner = ?2"),
                                {runId, runner.id()})
            .toInt();
    };
    QTRY_COMPARE_WITH_TIMEOUT(runningOfRun(), 2, kGenerous);

    relay.cut();
    QTRY_VERIFY_WITH_TIMEOUT(runner.err().contains(QLatin1String("the workspace has been out of reach")),
                             kGenerous);
    // Its copies have stopped: nothing more lands in the targets while it is cut off.
    const auto landed = [&] {
        qint64 rows = 0;
        for (const QString &table : {QStringLiteral("orders1"), QStringLiteral("orders2")}) {
            if (queryValue(m_fixture->dst,
                           QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = ?1"), {table})
                    .toInt() > 0)
                rows += countRows(m_fixture->dst, table);
        }
        return rows;
    };
    QTRY_COMPARE_WITH_TIMEOUT(runner.err().count(QLatin1String("its end is not recorded")), 2, kGenerous);
    const qint64 whileCut = landed();
    QTest::qWait(1500);
    QCOMPARE(landed(), whileCut);
    // The workspace still shows them running under this runner: nobody could record otherwise.
    QCOMPARE(runningOfRun(), 2);

    QVERIFY(relay.restore());
    QTRY_VERIFY_WITH_TIMEOUT(runner.err().contains(QLatin1String("reached the workspace again")), kGenerous);
    QTRY_COMPARE_WITH_TIMEOUT(
        execWorkspaceSql(m_fixture->wsPath, QStringLiteral("SELECT status FROM runs WHERE id = ?1"), {runId}),
        QStringLiteral("succeeded"), kGenerous);
    for (const QString &table : {QStringLiteral("orders1"), QStringLiteral("orders2")}) {
        QCOMPARE(countRows(m_fixture->dst, table), qint64(kRows));
        QCOMPARE(queryValue(m_fixture->dst, QStringLiteral("SELECT count(DISTINCT id) FROM %1").arg(table))
                     .toLongLong(),
                 qint64(kRows));
    }
    const QJsonObject run = runJson(runId);
    for (const QJsonValue &value : run.value(QStringLiteral("iterations")).toArray()) {
        const QJsonObject iteration = value.toObject();
        QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(iteration.value(QStringLiteral("runner")).toString(), runner.id());
    }
    QCOMPARE(execWorkspaceSql(
                 m_fixture->wsPath,
                 QStringLiteral("SELECT count(*) FROM iteration_logs l JOIN iterations i ON i.id = "
                                "l.iteration_id WHERE i.run_id = ?1 AND l.message LIKE ?2"),
                 {runId, QStringLiteral("%could not record its end: the workspace was out of reach%")})
                 .toInt(),
             2);
}

// `backfill ID --range FROM..TO --queue`: the run keeps its range and a runner re-copies it; the
// backfills that move the position refuse --queue, naming the range backfill.
void TestFleet::rangeBackfillIsQueuedForTheRunners() {
    constexpr int kRows = 1000;
    makeOrders(m_fixture->src, kRows, 1, QStringLiteral("orders1"));
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders1"), QStringLiteral("updated_at"));
    draft.spec.mode = WriteMode::Merge;
    draft.spec.keyColumns = {QStringLiteral("id")};
    const qint64 id = m_fixture->addTable(draft);
    QCOMPARE(m_fixture->run(id).status, IterationStatus::Succeeded);
    execSql(m_fixture->dst, QStringLiteral("DELETE FROM orders1 WHERE id BETWEEN 100 AND 199"));
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders1")), qint64(kRows - 100));

    const QString range = orderTimestamp(100) + QStringLiteral("..") + orderTimestamp(199);
    CliResult refused = cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--from"),
                             orderTimestamp(50), QStringLiteral("--keep"), QStringLiteral("--queue")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("backfill %1 --range FROM..TO --queue").arg(id)),
             qPrintable(refused.err));
    refused = cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--range"), range,
                   QStringLiteral("--no-wait")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("--range --queue --no-wait")), qPrintable(refused.err));

    // Queued while no runner is alive: it waits, and says so.
    const CliResult early = cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--range"),
                                 range, QStringLiteral("--queue"), QStringLiteral("--no-wait")});
    QCOMPARE(early.exitCode, 0);
    QVERIFY2(early.err.contains(QLatin1String("no runner of this workspace is alive")),
             qPrintable(early.err));
    const qint64 earlyRunId = early.out.section(QLatin1Char(' '), 1, 1).toLongLong();
    QVERIFY2(earlyRunId > 0 && early.out.endsWith(QLatin1String(" queued for the runners\n")),
             qPrintable(early.out));

    FleetRunnerProcess runner(m_fixture->wsPath, 1, QString());
    QVERIFY(runner.started());
    const CliResult queued = cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--range"),
                                  range, QStringLiteral("--queue"), QStringLiteral("--json")});
    QVERIFY2(queued.exitCode == 0, qPrintable(queued.describe()));
    const QJsonObject run = parseJsonObject(queued.out);
    QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(run.value(QStringLiteral("kind")).toString(), QString::fromLatin1(kRunKindRangeBackfill));
    const QJsonObject iteration = run.value(QStringLiteral("iterations")).toArray().first().toObject();
    QCOMPARE(iteration.value(QStringLiteral("runner")).toString(), runner.id());
    QCOMPARE(iteration.value(QStringLiteral("rows_read")).toInteger(), 100);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders1")), qint64(kRows));
    QCOMPARE(
        runJson(run.value(QStringLiteral("run_id")).toInteger()).value(QStringLiteral("queued")).toBool(),
        true);
    QTRY_COMPARE_WITH_TIMEOUT(runJson(earlyRunId).value(QStringLiteral("status")).toString(),
                              QStringLiteral("succeeded"), kGenerous);
}

QTEST_GUILESS_MAIN(TestFleet)
#include "tst_fleet.moc"
