// SPDX-License-Identifier: MIT
#include "model/storage/workspace.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/runnerid.h"
#include "model/storage/postgres/pgroles.h"
#include "model/storage/postgres/pgstoredb.h"
#include "model/storage/sqlite/sqlitestoredb.h"
#include "model/storage/storeopen.h"
#include "model/storage/stores/alertstore.h"
#include "model/storage/stores/auditstore.h"
#include "model/storage/stores/connectionstore.h"
#include "model/storage/stores/controltablestore.h"
#include "model/storage/stores/historystore.h"
#include "model/storage/stores/leasestore.h"
#include "model/storage/stores/queuestore.h"
#include "model/storage/stores/schedulestore.h"
#include "model/storage/stores/storerows.h"
#include "model/storage/workspacelocation.h"

#include <QCoreApplication>
#include <QUuid>

namespace tidemark {
namespace {

// A run's (and the runner's) owner beats this often.
constexpr int kHeartbeatMs = 5000;

// kHeartbeatMs, or what the test-only variable `testVariable` says.
int heartbeatIntervalMs(const char *testVariable) {
    bool ok = false;
    const int testMs = qEnvironmentVariableIntValue(testVariable, &ok);
    return ok && testMs > 0 ? testMs : kHeartbeatMs;
}

} // namespace

// One connection and the stores on it; they share its transactions.
struct Workspace::Stores {
    explicit Stores(std::unique_ptr<StoreDb> store, const QString &workspaceId)
        : db(std::move(store))
        , alerts(*db)
        , connections(*db, workspaceId)
        , audit(*db)
        , leases(*db)
        , tables(*db, connections, audit, leases)
        , history(*db, audit)
        , schedules(*db, tables)
        , queue(*db, history) {}

    std::unique_ptr<StoreDb> db;
    AlertStore alerts;
    ConnectionStore connections;
    AuditStore audit;
    LeaseStore leases;
    ControlTableStore tables;
    HistoryStore history;
    ScheduleStore schedules;
    QueueStore queue;
};

Workspace::Workspace(std::unique_ptr<Stores> stores, const QString &path)
    : m_stores(std::move(stores))
    , m_path(path) {}

Workspace::~Workspace() = default;

int Workspace::schemaVersion() {
    return SqliteStoreDb::schemaVersion();
}

bool Workspace::isServer() const {
    return m_stores->db->dialect() == StoreDialect::Postgres;
}

void Workspace::stopStatementsWhile(const std::atomic_bool *flag) {
    m_stores->db->stopStatementsWhile(flag);
}

void Workspace::pinFile() {
    m_stores->db->pinFile();
}

bool Workspace::pinnedFileReplaced() {
    return m_stores->db->pinnedFileReplaced();
}

std::unique_ptr<Workspace> Workspace::create(const QString &location) {
    std::unique_ptr<StoreDb> db = createStoreDb(location);
    std::unique_ptr<Workspace> workspace(
        new Workspace(std::make_unique<Stores>(std::move(db), QString()), location));
    workspace->readWorkspaceId();
    storageLog()->info("created workspace {} ({})", str(workspace->m_stores->db->location()),
                       str(workspace->m_workspaceId));
    return workspace;
}

std::unique_ptr<Workspace> Workspace::open(const QString &location) {
    std::unique_ptr<StoreDb> db = openStoreDb(location);
    std::unique_ptr<Workspace> workspace(
        new Workspace(std::make_unique<Stores>(std::move(db), QString()), location));
    workspace->readWorkspaceId();
    return workspace;
}

bool Workspace::checkpoint(const QString &location, int waitMs) {
    if (WorkspaceLocation::isServer(location))
        return true;
    return SqliteStoreDb::checkpoint(location, waitMs);
}

// The workspace's id, made once (by whoever opens it first after its creation).
void Workspace::readWorkspaceId() {
    StoreDb &db = *m_stores->db;
    Statement select(db, QStringLiteral(R"(SELECT value FROM meta WHERE "key" = 'workspace_id')"));
    if (!select.step()) {
        select.reset();
        Transaction transaction(db);
        Statement insert(db, QStringLiteral(R"(INSERT INTO meta ("key", value) VALUES (?1, ?2) )"
                                            R"(ON CONFLICT ("key") DO NOTHING)"));
        insert.bind(1, QStringLiteral("workspace_id"))
            .bind(2, QUuid::createUuid().toString(QUuid::WithoutBraces))
            .run();
        insert.reset();
        insert.bind(1, QStringLiteral("created_at")).bind(2, nowText()).run();
        insert.reset();
        insert.bind(1, QStringLiteral("created_by"))
            .bind(2, QStringLiteral("tidemark " TIDEMARK_VERSION))
            .run();
        transaction.commit();
        if (!select.step())
            throw Error(QStringLiteral("workspace %1: cannot record the workspace id").arg(db.location()));
    }
    m_workspaceId = select.columnText(0);
    // The connection store names keychain entries by it.
    m_stores = std::make_unique<Stores>(std::move(m_stores->db), m_workspaceId);
}

// --- caps ---

int Workspace::maxConcurrency() {
    return m_stores->leases.maxConcurrency();
}

void Workspace::setMaxConcurrency(int cap) {
    m_stores->leases.setMaxConcurrency(cap);
}

// --- alerts ---

AlertSettings Workspace::alertSettings() {
    return m_stores->alerts.settings();
}

void Workspace::setAlertSettings(const AlertSettings &settings) {
    m_stores->alerts.setSettings(settings);
}

QList<qint64> Workspace::raiseStalledAlarms(const QSet<qint64> &stalled, const QDateTime &now) {
    return m_stores->alerts.raiseStalledAlarms(stalled, now);
}

// --- connections ---

QList<ConnectionSpec> Workspace::connections() {
    return m_stores->connections.connections();
}

std::optional<ConnectionSpec> Workspace::connection(const QString &name) {
    return m_stores->connections.connection(name);
}

ConnectionSpec Workspace::requireConnection(const QString &name) {
    const std::optional<ConnectionSpec> found = connection(name);
    if (!found)
        throw ValidationError(QStringLiteral("connection '%1' does not exist").arg(name));
    return *found;
}

qint64 Workspace::addConnection(const ConnectionSpec &spec) {
    return m_stores->connections.add(spec);
}

void Workspace::updateConnection(const ConnectionSpec &spec) {
    m_stores->connections.update(spec);
}

void Workspace::removeConnection(const QString &name) {
    m_stores->connections.remove(name);
}

// --- control table ---

QList<TableSpec> Workspace::tables() {
    return m_stores->tables.tables(false);
}

bool Workspace::hasTables() {
    return m_stores->tables.hasTables();
}

QList<TableSpec> Workspace::archivedTables() {
    return m_stores->tables.tables(true);
}

qint64 Workspace::finishedCopies(qint64 tableId) {
    return m_stores->history.finishedCopies(tableId);
}

QHash<qint64, IterationRecord> Workspace::lastFinishedIterations() {
    return m_stores->history.lastFinishedIterations();
}

QHash<qint64, QDateTime> Workspace::positionsMovedAt() {
    return m_stores->audit.positionsMovedAt();
}

std::optional<TableSpec> Workspace::table(qint64 id) {
    return m_stores->tables.table(id, false);
}

std::optional<TableSpec> Workspace::archivedTable(qint64 id) {
    return m_stores->tables.table(id, true);
}

qint64 Workspace::addTable(const TableSpec &spec) {
    return m_stores->tables.add(spec);
}

void Workspace::updateTable(const TableSpec &spec) {
    m_stores->tables.update(spec);
}

void Workspace::replaceTable(const TableSpec &spec, qint64 generation, const Position &position,
                             const QString &cause) {
    m_stores->tables.replace(spec, generation, position, cause);
}

void Workspace::removeTable(qint64 id) {
    m_stores->tables.setArchived(id, true);
}

void Workspace::restoreTable(qint64 id) {
    m_stores->tables.setArchived(id, false);
}

void Workspace::purgeTable(qint64 id) {
    m_stores->tables.purge(id);
}

std::optional<TableSpec> Workspace::otherTableWritingInto(const ConnectionSpec &target,
                                                          const QString &targetTable, qint64 exceptId,
                                                          bool archived) {
    return m_stores->tables.otherTableWritingInto(target, targetTable, exceptId, archived);
}

void Workspace::setActive(qint64 id, bool active) {
    m_stores->tables.setActive(id, active);
}

void Workspace::setWatermark(qint64 tableId, const Watermark &watermark, const QVariant &tiebreak,
                             const QString &cause, qint64 runId) {
    m_stores->tables.setWatermark(tableId, watermark, tiebreak, cause, runId);
}

FollowResult Workspace::followTargetState(qint64 tableId, qint64 generation, const Position &position,
                                          const QString &cause, qint64 runId) {
    return m_stores->tables.followTargetState(tableId, generation, position, cause, runId);
}

QList<WatermarkChange> Workspace::watermarkChanges(qint64 tableId) {
    return m_stores->audit.changes(tableId);
}

Trend Workspace::trend(const TrendQuery &query) {
    return m_stores->history.trend(query);
}

QString Workspace::lastIterationStatus(qint64 tableId) {
    return m_stores->history.lastIterationStatus(tableId);
}

QHash<qint64, QString> Workspace::lastIterationStatuses() {
    return m_stores->history.lastIterationStatuses();
}

QHash<qint64, QString> Workspace::lastIterationStatuses(const QList<qint64> &tableIds) {
    return m_stores->history.lastIterationStatuses(tableIds);
}

IterationActivity Workspace::iterationActivity(std::optional<qint64> afterIterationId) {
    return m_stores->history.iterationActivity(afterIterationId);
}

// --- runs and iterations ---

int Workspace::runHeartbeatIntervalMs() {
    return heartbeatIntervalMs("TIDEMARK_TEST_RUN_HEARTBEAT_MS");
}

qint64 Workspace::beginRun(const QString &trigger, int concurrency, bool dryRun, const QString &schedule,
                           const QString &kind, bool queued, const std::optional<WatermarkRangeText> &range) {
    const qint64 runId = m_stores->history.beginRun(trigger, concurrency, dryRun, schedule, kind, queued,
                                                    range ? range->display() : QStringLiteral(""));
    if (runId == 0) {
        requireNotCopied();
        // Marked when the run was refused, unmarked since (that copy failed): nothing was recorded.
        throw Error(QStringLiteral("workspace %1: the run was not recorded while the workspace was being "
                                   "copied; start it again")
                        .arg(m_path));
    }
    return runId;
}

namespace {

PgStoreDb &serverStore(StoreDb &db, const QString &what) {
    auto *server = dynamic_cast<PgStoreDb *>(&db);
    if (!server)
        throw ValidationError(QStringLiteral("%1: workspace %2 is a file, which has no roles (a server "
                                             "workspace has them: docs/team.md)")
                                  .arg(what, db.location()));
    return *server;
}

} // namespace

std::optional<WorkspaceRole> Workspace::myRole() {
    auto *server = dynamic_cast<PgStoreDb *>(m_stores->db.get());
    return server ? PgRoles(*server).currentRole() : std::nullopt;
}

QString Workspace::databaseUser() {
    auto *server = dynamic_cast<PgStoreDb *>(m_stores->db.get());
    return server ? PgRoles(*server).currentUser() : QString();
}

void Workspace::grantRole(const QString &user, WorkspaceRole role) {
    PgRoles(serverStore(*m_stores->db, QStringLiteral("workspace grant"))).grant(user, role);
}

bool Workspace::revokeRoles(const QString &user) {
    return PgRoles(serverStore(*m_stores->db, QStringLiteral("workspace revoke"))).revoke(user);
}

QList<RoleMember> Workspace::roleMembers() {
    return PgRoles(serverStore(*m_stores->db, QStringLiteral("workspace roles"))).members();
}

void Workspace::requireNotCopied() {
    if (const std::optional<QString> copy = copiedTo())
        throw ValidationError(
            QStringLiteral("workspace %1 was copied to %2 (`workspace copy`), which runs its tables now: "
                           "nothing done here")
                .arg(m_path, *copy));
}

namespace {

const QString kCopiedToKey = QStringLiteral("copied_to");

} // namespace

void Workspace::markCopiedTo(const QString &destination) {
    StoreDb &db = *m_stores->db;
    Transaction transaction(db);
    db.lock(StoreLock::Runs); // a run being begun commits first, or sees the mark
    if (const std::optional<QString> earlier = copiedTo())
        throw ValidationError(QStringLiteral("workspace copy: %1 was copied to %2 already: copy that one")
                                  .arg(m_path, *earlier));
    Statement running(db, QStringLiteral(R"(SELECT id, started_at, host, "trigger" FROM runs )"
                                         R"(WHERE status = 'running' ORDER BY id LIMIT 1)"));
    if (running.step())
        throw ValidationError(
            QStringLiteral("workspace copy: run %1 (%2, started %3 on %4) is going: wait for "
                           "it to end, or cancel it (run cancel %1), then copy")
                .arg(running.columnText(0), running.columnText(3), running.columnText(1),
                     running.columnText(2)));
    Statement mark(db, QStringLiteral(R"(INSERT INTO meta ("key", value) VALUES (?1, ?2))"));
    mark.bind(1, kCopiedToKey).bind(2, destination).run();
    transaction.commit();
}

void Workspace::unmarkCopied() {
    Statement unmark(*m_stores->db, QStringLiteral(R"(DELETE FROM meta WHERE "key" = ?1)"));
    unmark.bind(1, kCopiedToKey).run();
}

std::optional<QString> Workspace::copiedTo() {
    Statement select(*m_stores->db, QStringLiteral(R"(SELECT value FROM meta WHERE "key" = ?1)"));
    select.bind(1, kCopiedToKey);
    if (!select.step())
        return std::nullopt;
    return select.columnText(0);
}

QList<CopiedRows> Workspace::copyInto(const QString &destination,
                                      const std::function<void(const CopiedRows &)> &progress) {
    std::unique_ptr<StoreDb> created = createStoreDb(destination);
    try {
        return copyStoreRows(*m_stores->db, *created, progress);
    } catch (const Error &) {
        removeCreatedStore(std::move(created), destination);
        throw;
    }
}

std::optional<WatermarkRangeText> Workspace::runRange(qint64 runId) {
    const QString text = m_stores->history.runRange(runId);
    if (text.isEmpty())
        return std::nullopt;
    return WatermarkRangeText::parse(text);
}

void Workspace::beatFleetRunner(int slotCount, const QDateTime &startedAt, std::chrono::milliseconds ttl) {
    m_stores->queue.beatRunner(slotCount, startedAt, ttl);
}

void Workspace::leaveFleet() {
    m_stores->queue.leave();
}

QList<FleetRunner> Workspace::fleetRunners() {
    return m_stores->queue.runners();
}

QList<IterationRecord> Workspace::claimIterations(int count) {
    return m_stores->queue.claim(count);
}

int Workspace::requeueOrphanedIterations() {
    return m_stores->queue.requeueOrphans();
}

QString Workspace::requeueIteration(qint64 iterationId, const QString &why) {
    return m_stores->queue.requeue(iterationId, why);
}

QString Workspace::finishRunIfSettled(qint64 runId) {
    return m_stores->queue.finishRunIfSettled(runId);
}

CancelRequest Workspace::requestCancel(qint64 runId) {
    return m_stores->queue.requestCancel(runId);
}

void Workspace::requestIterationCancel(qint64 iterationId) {
    m_stores->queue.requestIterationCancel(iterationId);
}

QList<qint64> Workspace::cancelRequested(qint64 runId) {
    return m_stores->queue.cancelRequested(runId);
}

QHash<qint64, qint64> Workspace::iterationsClaimedByThisRunner() {
    return m_stores->queue.claimedByThisRunner();
}

QList<qint64> Workspace::cancelRequestedOfThisRunner() {
    return m_stores->queue.cancelRequestedOfThisRunner();
}

bool Workspace::claimFiring(const QString &schedule, const QDateTime &at) {
    return m_stores->queue.claimFiring(schedule, at);
}

void Workspace::beatRun(qint64 runId) {
    m_stores->history.beatRun(runId);
}

void Workspace::finishRun(qint64 runId, const QString &status) {
    m_stores->history.finishRun(runId, status);
}

int Workspace::repairInterruptedRuns(QList<qint64> *closedRunIds) {
    return m_stores->history.repairInterruptedRuns(closedRunIds);
}

bool Workspace::completeCommittedIteration(const CommittedIteration &committed, qint64 byRunId) {
    return m_stores->history.completeCommittedIteration(committed, byRunId);
}

qint64 Workspace::addIteration(const IterationRecord &record) {
    QList<IterationRecord> records{record};
    addIterations(records);
    return records.first().id;
}

void Workspace::addIterations(QList<IterationRecord> &records) {
    m_stores->history.addIterations(records);
}

void Workspace::updateIteration(const IterationRecord &record) {
    m_stores->history.writeIteration(record);
}

void Workspace::finishIteration(const IterationRecord &record, const QList<LogLine> &newLines,
                                qint64 leaseToken) {
    Transaction transaction(*m_stores->db);
    if (record.id > 0) {
        m_stores->history.writeIteration(record);
        for (const LogLine &line : newLines)
            m_stores->history.appendLog(record.id, line);
    }
    if (leaseToken != 0)
        m_stores->leases.releaseByToken(record.tableId, leaseToken);
    transaction.commit();
}

void Workspace::appendLog(qint64 iterationId, const LogLine &line) {
    m_stores->history.appendLog(iterationId, line);
}

void Workspace::appendLogs(qint64 iterationId, const QList<LogLine> &lines) {
    Transaction transaction(*m_stores->db);
    for (const LogLine &line : lines)
        m_stores->history.appendLog(iterationId, line);
    transaction.commit();
}

void Workspace::addReject(const RejectedRow &row) {
    m_stores->history.addReject(row);
}

QList<RejectedRow> Workspace::rejects(qint64 tableId) {
    return m_stores->history.rejects(tableId);
}

QList<RejectedRow> Workspace::iterationRejects(qint64 iterationId, qint64 afterId, int limit) {
    return m_stores->history.iterationRejects(iterationId, afterId, limit);
}

qint64 Workspace::iterationRejectCount(qint64 iterationId) {
    return m_stores->history.iterationRejectCount(iterationId);
}

QList<RunRecord> Workspace::runs(int limit, qint64 runId) {
    return m_stores->history.runs(limit, runId);
}

QList<RunRecord> Workspace::runPage(const RunPageQuery &query) {
    return m_stores->history.runPage(query);
}

QList<RunOverview> Workspace::runOverviews(const RunPageQuery &query) {
    return m_stores->history.runOverviews(query);
}

qint64 Workspace::runCount(const RunPageQuery &query) {
    return m_stores->history.runCount(query);
}

QList<LogLine> Workspace::iterationLog(qint64 iterationId) {
    return m_stores->history.iterationLog(iterationId);
}

QString Workspace::runStatus(qint64 runId) {
    return m_stores->history.runStatus(runId);
}

// --- leases ---

LeaseAttempt Workspace::acquireLease(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl) {
    Transaction transaction(*m_stores->db);
    const LeaseAttempt attempt = m_stores->leases.take(tableId, runId, ttl);
    if (attempt.acquired)
        transaction.commit();
    return attempt;
}

LeaseAttempt Workspace::startIteration(IterationRecord &record, std::chrono::milliseconds ttl,
                                       int processSlots) {
    Transaction transaction(*m_stores->db);
    const LeaseAttempt attempt = m_stores->leases.take(record.tableId, record.runId, ttl, true, processSlots);
    if (!attempt.acquired)
        return attempt;
    IterationRecord started = record;
    // Taken under the lock that admitted it: after the end of any iteration whose slot it took.
    started.startedAt = QDateTime::currentDateTimeUtc();
    started.status = IterationStatus::Running;
    started.runner = thisRunnerId();
    started.waiting.clear();
    if (started.id > 0)
        m_stores->history.writeIteration(started);
    transaction.commit();
    record = started;
    return attempt;
}

LeaseRenewal Workspace::renewLease(qint64 tableId, qint64 token, std::chrono::milliseconds ttl) {
    return m_stores->leases.renew(tableId, token, ttl);
}

void Workspace::releaseLease(qint64 tableId, qint64 runId) {
    m_stores->leases.release(tableId, runId);
}

void Workspace::releaseLeaseByToken(qint64 tableId, qint64 token) {
    m_stores->leases.releaseByToken(tableId, token);
}

// --- schedules ---

QList<ScheduleSpec> Workspace::schedules() {
    return m_stores->schedules.schedules();
}

std::optional<ScheduleSpec> Workspace::schedule(const QString &name) {
    return m_stores->schedules.schedule(name);
}

qint64 Workspace::addSchedule(const ScheduleSpec &spec) {
    return m_stores->schedules.add(spec);
}

void Workspace::editSchedule(const ScheduleSpec &spec) {
    m_stores->schedules.edit(spec);
}

void Workspace::setScheduleActive(const QString &name, bool active) {
    m_stores->schedules.setActive(name, active);
}

void Workspace::removeSchedule(const QString &name) {
    m_stores->schedules.remove(name);
}

void Workspace::recordScheduleFiring(const QString &name, const QDateTime &firedAt) {
    m_stores->schedules.recordFiring(name, firedAt);
}

void Workspace::setScheduleLastRun(const QString &name, qint64 runId) {
    m_stores->schedules.setLastRun(name, runId);
}

// --- the runner's heartbeat ---

int Workspace::runnerHeartbeatIntervalMs() {
    return heartbeatIntervalMs("TIDEMARK_TEST_RUNNER_HEARTBEAT_MS");
}

std::optional<RunnerHeartbeat> Workspace::runner() {
    return m_stores->leases.runner();
}

RunnerClaim Workspace::claimRunner(const QDateTime &startedAt, std::chrono::milliseconds ttl,
                                   const QDateTime &staleBeat) {
    return m_stores->leases.claimRunner(startedAt, ttl, staleBeat);
}

bool Workspace::beatRunner(std::chrono::milliseconds ttl, const FiringOutcome &lastFiring) {
    return m_stores->leases.beatRunner(ttl, lastFiring);
}

void Workspace::releaseRunner() {
    m_stores->leases.releaseRunner();
}

} // namespace tidemark
