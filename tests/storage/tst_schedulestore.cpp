// SPDX-License-Identifier: MIT
// Schema 4: schedules, the schedule a run was fired by, and the runner's heartbeat row.

#include "model/common/error.h"
#include "model/schedule/runnerstatus.h"
#include "model/sqlite/sqlitedb.h"
#include "model/storage/workspace.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QCoreApplication>
#include <QProcess>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace tidemark;
using tidemark::test::queryValue;

namespace {

// The pid of a process that has ended (not reused by the time the test looks, in practice).
qint64 deadPid() {
    QProcess child;
    child.start(QStringLiteral("true"), {});
    if (!child.waitForStarted())
        return 0;
    const qint64 pid = child.processId();
    child.waitForFinished();
    return pid;
}

// Makes the runner row look held by `pid` on `host` until `expiresAt`.
void setRunnerOwner(const QString &path, const QString &host, qint64 pid, const QDateTime &expiresAt) {
    test::execWorkspaceSql(path, QStringLiteral("UPDATE runner SET host = ?1, pid = ?2, expires_at = ?3"),
                           {host, pid, isoUtc(expiresAt)});
}

TableSpec someTable() {
    TableSpec spec;
    spec.sourceConnection = QStringLiteral("src");
    spec.sourceTable = QStringLiteral("orders");
    spec.targetConnection = QStringLiteral("dst");
    spec.targetTable = QStringLiteral("orders");
    spec.watermarkColumn = QStringLiteral("id");
    spec.watermarkType = WatermarkType::Integer;
    return spec;
}

ScheduleSpec nightly(const QList<qint64> &tableIds = {}) {
    ScheduleSpec spec;
    spec.name = QStringLiteral("nightly");
    spec.cron = QStringLiteral("0 2 * * mon-fri");
    spec.timeZone = QStringLiteral("Europe/Paris");
    spec.tableIds = tableIds;
    spec.concurrency = 3;
    spec.retries = 2;
    spec.timeoutSeconds = 900;
    return spec;
}

} // namespace

class TestScheduleStore : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void version3WorkspaceMigrates();
    void schedulesRoundTrip();
    void refusalsChangeNothing();
    void runsRecordTheirSchedule();
    void oneRunnerClaimsTheWorkspace();
    void deadOrExpiredRunnerTakenOver();
    void heartbeatFromTheFutureTakenOverWhenItStandsStill();
    void heartbeatCarriesTheLastFiring();

private:
    // A workspace file in the test's folder, or a fresh server workspace (workspacebackend.h).
    QString newPath() { return test::testWorkspaceLocation(*m_dir, QStringLiteral("w.tidemark")); }
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestScheduleStore::initTestCase() {
    TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
}

void TestScheduleStore::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

// A schema-3 workspace with history opens migrated: runs kept (no schedule), schedules usable
// (with their own alerts, schema 7).
void TestScheduleStore::version3WorkspaceMigrates() {
    if (test::serverWorkspaces())
        QSKIP("the file's own migration steps (3 to 14); a server workspace starts at its version 1");
    const QString path = newPath();
    qint64 runId = 0;
    {
        auto workspace = Workspace::create(path);
        runId = workspace->beginRun(QStringLiteral("cli"), 2, false);
        workspace->finishRun(runId, QStringLiteral("succeeded"));
    }
    {
        SqliteDb db(path, SqliteDb::Mode::ReadWrite);
        db.exec(QStringLiteral(
            "DROP TABLE schedules; DROP TABLE runner; ALTER TABLE runs DROP COLUMN schedule; "
            "DROP TABLE alert_settings; ALTER TABLE watermark_changes DROP COLUMN host; DROP "
            "INDEX rejects_by_iteration; ALTER TABLE iterations DROP COLUMN rows_unorderable_watermark; "
            "ALTER TABLE iterations DROP COLUMN rows_pending; ALTER TABLE iterations DROP COLUMN "
            "rows_rolled_back; "
            "ALTER TABLE iterations DROP COLUMN rows_future; ALTER TABLE iterations DROP COLUMN "
            "source_behind; ALTER TABLE tables DROP COLUMN max_future; "
            "ALTER TABLE tables DROP COLUMN max_jump; ALTER TABLE tables DROP COLUMN stale_after; DROP TABLE "
            "table_alarms; ALTER TABLE tables DROP COLUMN delete_policy; "
            "ALTER TABLE iterations DROP COLUMN rows_deleted; ALTER TABLE runs DROP COLUMN kind; ALTER TABLE "
            "tables DROP COLUMN source_timezone; ALTER TABLE connections DROP COLUMN max_connections; "
            "DROP INDEX iterations_by_runner; ALTER TABLE runs DROP COLUMN queued; ALTER TABLE iterations "
            "DROP COLUMN cancel_requested; DROP TABLE fleet_runners; DROP TABLE schedule_firings; "
            "ALTER TABLE iterations DROP COLUMN runner; ALTER TABLE iterations DROP COLUMN waiting; "
            "ALTER TABLE leases DROP COLUMN token; ALTER TABLE runs DROP COLUMN backfill_range; ALTER TABLE "
            "tables DROP COLUMN zero_dates; ALTER TABLE runs DROP COLUMN started_by; ALTER TABLE "
            "watermark_changes DROP COLUMN changed_by; PRAGMA user_version = 3"));
    }
    auto workspace = Workspace::open(path);
    QCOMPARE(queryValue(path, QStringLiteral("PRAGMA user_version")).toLongLong(),
             qint64(Workspace::schemaVersion()));
    const QList<RunRecord> runs = workspace->runs();
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs.first().id, runId);
    QCOMPARE(runs.first().status, QStringLiteral("succeeded"));
    QVERIFY(runs.first().schedule.isEmpty());
    workspace->addSchedule(nightly());
    QCOMPARE(workspace->schedules().size(), 1);
    QVERIFY(!workspace->runner());
}

void TestScheduleStore::schedulesRoundTrip() {
    const QString path = newPath();
    auto workspace = Workspace::create(path);
    const qint64 table1 = workspace->addTable(someTable());
    const qint64 table2 = workspace->addTable(someTable());
    const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-1);
    workspace->addSchedule(nightly({table2, table1}));
    ScheduleSpec hourly;
    hourly.name = QStringLiteral("hourly");
    hourly.cron = QStringLiteral("@hourly");
    hourly.timeZone = QStringLiteral("UTC");
    hourly.active = false;
    workspace->addSchedule(hourly);

    const QList<ScheduleSpec> all = workspace->schedules();
    QCOMPARE(all.size(), 2);
    QCOMPARE(all.at(0).name, QStringLiteral("hourly")); // by name
    QVERIFY(!all.at(0).active);
    QVERIFY(all.at(0).tableIds.isEmpty());
    QCOMPARE(all.at(0).timeoutSeconds, qint64(0));
    const ScheduleSpec read = *workspace->schedule(QStringLiteral("nightly"));
    QCOMPARE(read.cron, QStringLiteral("0 2 * * mon-fri"));
    QCOMPARE(read.timeZone, QStringLiteral("Europe/Paris"));
    QCOMPARE(read.tableIds, (QList<qint64>{table2, table1}));
    QCOMPARE(read.concurrency, 3);
    QCOMPARE(read.retries, 2);
    QCOMPARE(read.timeoutSeconds, qint64(900));
    QVERIFY(read.active);
    QVERIFY(read.createdAt >= before);
    QCOMPARE(read.updatedAt, read.createdAt);
    QVERIFY(!read.lastFiredAt.isValid());
    QCOMPARE(read.lastRunId, qint64(0));

    workspace->setScheduleActive(QStringLiteral("nightly"), false);
    QVERIFY(!workspace->schedule(QStringLiteral("nightly"))->active);
    workspace->setScheduleActive(QStringLiteral("nightly"), true);
    QVERIFY(workspace->schedule(QStringLiteral("nightly"))->active);

    const QDateTime firedAt = QDateTime(QDate(2026, 12, 1), QTime(1, 0), Qt::UTC);
    workspace->recordScheduleFiring(QStringLiteral("nightly"), firedAt);
    const qint64 runId = workspace->beginRun(QStringLiteral("schedule"), 3, false, QStringLiteral("nightly"));
    workspace->setScheduleLastRun(QStringLiteral("nightly"), runId);
    const ScheduleSpec fired = *workspace->schedule(QStringLiteral("nightly"));
    QCOMPARE(fired.lastFiredAt, firedAt);
    QCOMPARE(fired.lastRunId, runId);
    QCOMPARE(workspace->runStatus(runId), QStringLiteral("running"));
    QVERIFY(workspace->runStatus(runId + 1).isEmpty());

    workspace->removeSchedule(QStringLiteral("hourly"));
    QCOMPARE(workspace->schedules().size(), 1);
    QVERIFY(!workspace->schedule(QStringLiteral("hourly")));
}

void TestScheduleStore::refusalsChangeNothing() {
    const QString path = newPath();
    auto workspace = Workspace::create(path);
    const qint64 table = workspace->addTable(someTable());
    workspace->addSchedule(nightly({table}));
    const auto refused = [&](auto &&call, const QString &culprit) {
        try {
            call();
        } catch (const ValidationError &error) {
            QVERIFY2(error.message().contains(culprit), qPrintable(error.message()));
            return;
        }
        QFAIL(qPrintable(QStringLiteral("not refused: %1").arg(culprit)));
    };
    ScheduleSpec duplicate = nightly();
    duplicate.cron = QStringLiteral("* * * * *");
    refused([&] { workspace->addSchedule(duplicate); }, QStringLiteral("nightly"));
    ScheduleSpec unknownTable = nightly({table, 99});
    unknownTable.name = QStringLiteral("other");
    refused([&] { workspace->addSchedule(unknownTable); }, QStringLiteral("table 99"));
    refused([&] { workspace->setScheduleActive(QStringLiteral("nope"), false); }, QStringLiteral("nope"));
    refused([&] { workspace->removeSchedule(QStringLiteral("nope")); }, QStringLiteral("nope"));
    QCOMPARE(test::execWorkspaceSql(path, QStringLiteral("SELECT count(*) FROM schedules")).toLongLong(),
             qint64(1));
    QCOMPARE(workspace->schedule(QStringLiteral("nightly"))->cron, QStringLiteral("0 2 * * mon-fri"));
}

void TestScheduleStore::runsRecordTheirSchedule() {
    auto workspace = Workspace::create(newPath());
    const qint64 byHand = workspace->beginRun(QStringLiteral("cli"), 2, false);
    const qint64 fired = workspace->beginRun(QStringLiteral("schedule"), 2, false, QStringLiteral("nightly"));
    const QList<RunRecord> runs = workspace->runs();
    QCOMPARE(runs.size(), 2);
    QCOMPARE(runs.at(0).id, fired);
    QCOMPARE(runs.at(0).trigger, QStringLiteral("schedule"));
    QCOMPARE(runs.at(0).schedule, QStringLiteral("nightly"));
    QCOMPARE(runs.at(1).id, byHand);
    QVERIFY(runs.at(1).schedule.isEmpty());
}

void TestScheduleStore::oneRunnerClaimsTheWorkspace() {
    const QString path = newPath();
    auto workspace = Workspace::create(path);
    const QDateTime started = QDateTime::currentDateTimeUtc().addSecs(-5);
    const RunnerClaim first = workspace->claimRunner(started, std::chrono::seconds(20));
    QVERIFY(first.acquired);
    QVERIFY(!first.holder);
    const RunnerHeartbeat row = *workspace->runner();
    QCOMPARE(row.host, QSysInfo::machineHostName());
    QCOMPARE(row.pid, QCoreApplication::applicationPid());
    QCOMPARE(row.version, QStringLiteral(TIDEMARK_VERSION));
    QCOMPARE(row.startedAt, started);
    QVERIFY(row.expiresAt > row.lastBeatAt);
    QVERIFY(workspace->claimRunner(started, std::chrono::seconds(20)).acquired); // its own again
    QVERIFY(workspace->beatRunner(std::chrono::seconds(20)));

    // A live runner elsewhere holds it: refused, named, nothing written; our beat fails.
    const QDateTime future = QDateTime::currentDateTimeUtc().addSecs(60);
    setRunnerOwner(path, QStringLiteral("elsewhere"), 4242, future);
    const RunnerClaim second =
        workspace->claimRunner(QDateTime::currentDateTimeUtc(), std::chrono::seconds(20));
    QVERIFY(!second.acquired);
    QVERIFY(second.holder);
    QCOMPARE(second.holder->host, QStringLiteral("elsewhere"));
    QCOMPARE(second.holder->pid, qint64(4242));
    QCOMPARE(workspace->runner()->host, QStringLiteral("elsewhere"));
    QVERIFY(!workspace->beatRunner(std::chrono::seconds(20)));
    workspace->releaseRunner(); // not ours: stays
    QCOMPARE(workspace->runner()->pid, qint64(4242));
    QCOMPARE(test::execWorkspaceSql(path, QStringLiteral("SELECT count(*) FROM runner")).toLongLong(),
             qint64(1));
}

void TestScheduleStore::deadOrExpiredRunnerTakenOver() {
    const QString path = newPath();
    auto workspace = Workspace::create(path);
    QVERIFY(workspace->claimRunner(QDateTime(), std::chrono::seconds(20)).acquired);

    // Its heartbeat stopped (another host: only the expiry tells).
    setRunnerOwner(path, QStringLiteral("elsewhere"), 4242, QDateTime::currentDateTimeUtc().addSecs(-1));
    RunnerClaim claim = workspace->claimRunner(QDateTime(), std::chrono::seconds(20));
    QVERIFY(claim.acquired);
    QCOMPARE(claim.holder->host, QStringLiteral("elsewhere"));
    QCOMPARE(workspace->runner()->pid, QCoreApplication::applicationPid());

    // Its process is gone on this host: taken over at once, heartbeat or not.
    const qint64 dead = deadPid();
    QVERIFY(dead > 0);
    setRunnerOwner(path, QSysInfo::machineHostName(), dead, QDateTime::currentDateTimeUtc().addSecs(60));
    claim = workspace->claimRunner(QDateTime(), std::chrono::seconds(20));
    QVERIFY(claim.acquired);
    QCOMPARE(claim.holder->pid, dead);

    workspace->releaseRunner();
    QVERIFY(!workspace->runner());
}

// A holder on another host whose clock ran a day ahead: its expiry is tomorrow, but a standby
// that watched its beat stand still for a whole ttl (staleBeat) takes over now.
void TestScheduleStore::heartbeatFromTheFutureTakenOverWhenItStandsStill() {
    const QString path = newPath();
    auto workspace = Workspace::create(path);
    QVERIFY(workspace->claimRunner(QDateTime(), std::chrono::seconds(20)).acquired);
    setRunnerOwner(path, QStringLiteral("elsewhere"), 4242, QDateTime::currentDateTimeUtc().addDays(1));
    const QDateTime beat = workspace->runner()->lastBeatAt;
    QVERIFY(!workspace->claimRunner(QDateTime(), std::chrono::seconds(20)).acquired);
    // A beat it saw move is no reason.
    QVERIFY(!workspace->claimRunner(QDateTime(), std::chrono::seconds(20), beat.addSecs(-5)).acquired);
    const RunnerClaim claim = workspace->claimRunner(QDateTime(), std::chrono::seconds(20), beat);
    QVERIFY(claim.acquired);
    QCOMPARE(claim.holder->pid, qint64(4242));
    QCOMPARE(workspace->runner()->pid, QCoreApplication::applicationPid());
}

// A failed firing rides on the heartbeat, and the status line says so; a later good one clears it.
void TestScheduleStore::heartbeatCarriesTheLastFiring() {
    const QString path = newPath();
    auto workspace = Workspace::create(path);
    QVERIFY(workspace->claimRunner(QDateTime(), std::chrono::seconds(20)).acquired);
    QVERIFY(!workspace->runner()->lastFiring.at.isValid());
    const QDateTime at = QDateTime::currentDateTimeUtc().addSecs(-3);
    const FiringOutcome failed{at, QStringLiteral("nightly"), QStringLiteral("database is locked")};
    QVERIFY(workspace->beatRunner(std::chrono::seconds(20), failed));
    const RunnerHeartbeat row = *workspace->runner();
    QCOMPARE(row.lastFiring.schedule, QStringLiteral("nightly"));
    QCOMPARE(row.lastFiring.error, QStringLiteral("database is locked"));
    QVERIFY(row.lastFiring.failed());
    const RunnerStatus status = RunnerStatus::of(row, QDateTime::currentDateTimeUtc());
    QCOMPARE(status.state, RunnerStatus::State::Running);
    QVERIFY(status.lastFiringFailed);
    QVERIFY2(status.text.contains(QStringLiteral("last firing FAILED (schedule 'nightly'")),
             qPrintable(status.text));
    QCOMPARE(status.firingError, QStringLiteral("database is locked"));

    QVERIFY(
        workspace->beatRunner(std::chrono::seconds(20),
                              FiringOutcome{QDateTime::currentDateTimeUtc(), QStringLiteral("nightly"), {}}));
    const RunnerStatus fine = RunnerStatus::of(workspace->runner(), QDateTime::currentDateTimeUtc());
    QVERIFY(!fine.lastFiringFailed);
    QVERIFY(!fine.text.contains(QStringLiteral("FAILED")));
}

QTEST_GUILESS_MAIN(TestScheduleStore)
#include "tst_schedulestore.moc"
