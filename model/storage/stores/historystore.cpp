// SPDX-License-Identifier: MIT
#include "model/storage/stores/historystore.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/runnerid.h"
#include "model/common/timestamp.h"
#include "model/storage/stores/auditstore.h"
#include "model/storage/stores/storerows.h"

#include <QCoreApplication>

namespace tidemark {
namespace {

// A run's owner beats this often; a run whose last beat is older than kBeatsToExpire beats is
// taken for dead (its process frozen or on a host whose pids we cannot check).
constexpr int kBeatsToExpire = 4;

// Removed tables are set apart by archived_at.
QString archivedCondition(bool archived) {
    return archived ? QStringLiteral("archived_at IS NOT NULL") : QStringLiteral("archived_at IS NULL");
}

} // namespace

namespace {

IterationStatus statusOfSeverity(qint64 severity) {
    switch (severity) {
    case 4:
        return IterationStatus::Failed;
    case 3:
        return IterationStatus::Interrupted;
    case 2:
        return IterationStatus::Cancelled;
    case 1:
        return IterationStatus::Warning;
    default:
        return IterationStatus::Succeeded;
    }
}

} // namespace

QHash<qint64, IterationRecord> HistoryStore::lastFinishedIterations() {
    // One probe per table (iterations_by_table, newest first), not one per iteration of history:
    // ORDER BY ... LIMIT 1, not max(), which PostgreSQL computes over every iteration of the table
    // once a join is in it (3.2 s at 1,000 tables and 400,000 iterations). A range backfill
    // leaves the position alone: it says nothing of how the table's copies go.
    Statement select(
        m_db, QStringLiteral("SELECT %1 FROM tables t JOIN iterations i ON i.id = (SELECT l.id "
                             "FROM iterations l JOIN runs r ON r.id = l.run_id WHERE l.table_id = t.id "
                             "AND l.status NOT IN (?1, ?2, ?3, ?4) AND r.kind = 'copy' ORDER BY l.id DESC "
                             "LIMIT 1)")
                  .arg(iterationColumnsOf(QStringLiteral("i"))));
    select.bind(1, iterationStatusName(IterationStatus::Queued))
        .bind(2, iterationStatusName(IterationStatus::Running))
        .bind(3, iterationStatusName(IterationStatus::Skipped))
        .bind(4, iterationStatusName(IterationStatus::DryRun));
    QHash<qint64, IterationRecord> last;
    while (select.step()) {
        const IterationRecord record = readIteration(select);
        last.insert(record.tableId, record);
    }
    return last;
}

qint64 HistoryStore::finishedCopies(qint64 tableId) {
    Statement count(m_db,
                    QStringLiteral("SELECT count(*) FROM iterations i JOIN runs r ON r.id = i.run_id "
                                   "WHERE i.table_id = ?1 AND i.status IN (?2, ?3, ?4) AND r.kind = 'copy'"));
    count.bind(1, tableId)
        .bind(2, iterationStatusName(IterationStatus::Succeeded))
        .bind(3, iterationStatusName(IterationStatus::NoNewRows))
        .bind(4, iterationStatusName(IterationStatus::Warning));
    count.step();
    return count.columnInt64(0);
}

Trend HistoryStore::trend(const TrendQuery &query) {
    const QString tableCondition =
        query.tableId > 0 ? QStringLiteral("i.table_id = ?1") : QStringLiteral("?1 = 0");
    Trend trend;
    trend.to = query.to.isValid() ? query.to.toUTC() : QDateTime::currentDateTimeUtc();
    trend.from = query.from.toUTC();
    if (!trend.from.isValid()) {
        // Ids grow with time: the first iteration (or run) is the first to have started.
        Statement first(m_db,
                        query.tableId > 0
                            ? QStringLiteral("SELECT r.started_at FROM iterations i JOIN runs r ON "
                                             "r.id = i.run_id WHERE i.table_id = ?1 ORDER BY i.id LIMIT 1")
                            : QStringLiteral("SELECT started_at FROM runs ORDER BY id LIMIT 1"));
        if (query.tableId > 0)
            first.bind(1, query.tableId);
        trend.from = first.step() ? readTime(first, 0) : QDateTime();
        if (!trend.from.isValid() || trend.from > trend.to)
            trend.from = trend.to.addDays(-30);
    }

    // Per run: the table's iterations (or all of them) summed; then, when there are more runs
    // than points, runs grouped by the slice of the period they started in.
    const QString slice =
        m_db.truncated(QStringLiteral("(%1 - %2) * ?4 / %3")
                           .arg(m_db.dayNumber(QStringLiteral("at")), m_db.dayNumber(QStringLiteral("?2")),
                                m_db.greatest(m_db.dayNumber(QStringLiteral("?3")) + QStringLiteral(" - ") +
                                                  m_db.dayNumber(QStringLiteral("?2")),
                                              QStringLiteral("1e-9"))));
    Statement points(m_db, QStringLiteral(R"(
WITH per_run AS (
    SELECT r.id AS run_id, r.started_at AS at, sum(i.rows_written) AS written,
           CASE WHEN ?1 = 0 AND r.finished_at IS NOT NULL
                THEN CAST(round((%2 - %3) * 86400000) AS BIGINT)
                ELSE max(i.duration_ms) END AS duration_ms,
           max(CASE i.status WHEN ?5 THEN 4 WHEN ?6 THEN 3 WHEN ?7 THEN 2 WHEN ?8 THEN 1 ELSE 0 END) AS severity
    FROM runs r JOIN iterations i ON i.run_id = r.id
    WHERE %1 AND r.dry_run = 0 AND r.started_at >= ?2 AND r.started_at <= ?3
      AND i.status NOT IN (?9, ?10, ?11, ?12)
    GROUP BY r.id
), counted AS (
    SELECT *, count(*) OVER () AS total FROM per_run
)
SELECT min(at), min(run_id), max(run_id), count(*), sum(written), max(duration_ms), max(severity)
FROM counted
GROUP BY CASE WHEN total <= ?4 THEN run_id
              ELSE %4 END
ORDER BY 1, 2)")
                               .arg(tableCondition, m_db.dayNumber(QStringLiteral("r.finished_at")),
                                    m_db.dayNumber(QStringLiteral("r.started_at")),
                                    m_db.least(QStringLiteral("?4 - 1"), slice)));
    points.bind(1, query.tableId)
        .bind(2, isoUtc(trend.from))
        .bind(3, isoUtc(trend.to))
        .bind(4, qint64(qMax(1, query.maxPoints)));
    int index = 5;
    for (IterationStatus status :
         {IterationStatus::Failed, IterationStatus::Interrupted, IterationStatus::Cancelled,
          IterationStatus::Warning, IterationStatus::Queued, IterationStatus::Running,
          IterationStatus::Skipped, IterationStatus::DryRun})
        points.bind(index++, iterationStatusName(status));
    while (points.step()) {
        TrendPoint point;
        point.at = readTime(points, 0);
        point.firstRunId = points.columnInt64(1);
        point.lastRunId = points.columnInt64(2);
        point.runs = int(points.columnInt64(3));
        point.rowsWritten = points.columnInt64(4);
        point.durationMs = points.columnInt64(5);
        point.status = statusOfSeverity(points.columnInt64(6));
        trend.points.append(point);
    }

    trend.backfills = m_audit.backfills(query.tableId, trend.from, trend.to);
    return trend;
}

QString HistoryStore::lastIterationStatus(qint64 tableId) {
    // A dry run says nothing about the table's real state, a range backfill nothing about its
    // copies: both are left out.
    Statement stmt(m_db, QStringLiteral("SELECT i.status FROM iterations i JOIN runs r ON r.id = i.run_id "
                                        "WHERE i.table_id = ?1 AND r.dry_run = 0 AND r.kind = 'copy' "
                                        "ORDER BY i.id DESC LIMIT 1"));
    stmt.bind(1, tableId);
    return stmt.step() ? stmt.columnText(0) : QString();
}

QHash<qint64, QString> HistoryStore::lastIterationStatuses() {
    // lastIterationStatus for every live table in one statement: the window reads 10,000 of
    // them at each reload, and one statement is one index probe per table with no round trips.
    Statement stmt(
        m_db, QStringLiteral("SELECT t.id, (SELECT i.status FROM iterations i JOIN runs r "
                             "ON r.id = i.run_id WHERE i.table_id = t.id AND "
                             "r.dry_run = 0 AND r.kind = 'copy' ORDER BY i.id DESC LIMIT 1) FROM tables t "
                             "WHERE %1")
                  .arg(archivedCondition(false)));
    QHash<qint64, QString> result;
    while (stmt.step())
        result.insert(stmt.columnInt64(0), stmt.columnText(1));
    return result;
}

QHash<qint64, QString> HistoryStore::lastIterationStatuses(const QList<qint64> &tableIds) {
    QHash<qint64, QString> result;
    if (tableIds.isEmpty())
        return result;
    Statement stmt(
        m_db, QStringLiteral("SELECT t.id, (SELECT i.status FROM iterations i JOIN runs r "
                             "ON r.id = i.run_id WHERE i.table_id = t.id AND "
                             "r.dry_run = 0 AND r.kind = 'copy' ORDER BY i.id DESC LIMIT 1) FROM tables t "
                             "WHERE t.id IN (%2) AND %1")
                  .arg(archivedCondition(false), m_db.idsFromJson(1)));
    stmt.bind(1, idsJson(tableIds));
    while (stmt.step())
        result.insert(stmt.columnInt64(0), stmt.columnText(1));
    return result;
}

IterationActivity HistoryStore::iterationActivity(std::optional<qint64> afterIterationId) {
    IterationActivity activity;
    {
        Statement last(m_db, QStringLiteral("SELECT coalesce(max(id), 0) FROM iterations"));
        activity.lastIterationId = last.step() ? last.columnInt64(0) : 0;
    }
    if (afterIterationId) {
        Statement since(m_db, QStringLiteral("SELECT DISTINCT table_id FROM iterations WHERE id > ?1 "
                                             "AND id <= ?2 AND table_id IS NOT NULL"));
        since.bind(1, *afterIterationId).bind(2, activity.lastIterationId);
        while (since.step())
            activity.tablesIteratedSince << since.columnInt64(0);
    }
    Statement open(m_db, QStringLiteral("SELECT id, table_id, status FROM iterations WHERE status IN "
                                        "('queued', 'running') AND table_id IS NOT NULL"));
    while (open.step())
        activity.open.insert(open.columnInt64(0), {open.columnInt64(1), open.columnText(2)});
    return activity;
}

qint64 HistoryStore::beginRun(const QString &trigger, int concurrency, bool dryRun, const QString &schedule,
                              const QString &kind, bool queued, const QString &range) {
    const QDateTime now = QDateTime::currentDateTimeUtc();
    Statement insert(
        m_db, QStringLiteral(
                  R"(INSERT INTO runs ("trigger", host, pid, started_at, status, )"
                  R"(concurrency, dry_run, heartbeat_at, heartbeat_expires_at, )"
                  R"(schedule, kind, queued, backfill_range, started_by) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, )"
                  R"(?4, ?8, ?9, ?10, ?11, ?12, ?13 WHERE NOT EXISTS (SELECT 1 FROM meta WHERE "key" = )"
                  R"('copied_to'))"));
    insert.bind(1, trigger)
        .bind(2, hostName())
        .bind(3, QCoreApplication::applicationPid())
        .bind(4, isoUtc(now))
        .bind(5, QStringLiteral("running"))
        .bind(6, concurrency)
        .bind(7, dryRun ? 1 : 0)
        .bind(8, isoUtc(now.addMSecs(qint64(Workspace::runHeartbeatIntervalMs()) * kBeatsToExpire)))
        .bind(9, textOrNull(schedule))
        .bind(10, kind)
        .bind(11, queued ? 1 : 0)
        .bind(12, range)
        .bind(13, m_db.userName())
        .run();
    return m_db.changes() == 1 ? m_db.lastInsertId() : 0; // 0: the workspace was copied elsewhere
}

QString HistoryStore::runRange(qint64 runId) {
    Statement select(m_db, QStringLiteral("SELECT backfill_range FROM runs WHERE id = ?1"));
    select.bind(1, runId);
    return select.step() ? select.columnText(0) : QString();
}

void HistoryStore::beatRun(qint64 runId) {
    const QDateTime now = QDateTime::currentDateTimeUtc();
    Statement update(m_db, QStringLiteral("UPDATE runs SET heartbeat_at = ?1, heartbeat_expires_at = ?2 "
                                          "WHERE id = ?3"));
    update.bind(1, isoUtc(now))
        .bind(2, isoUtc(now.addMSecs(qint64(Workspace::runHeartbeatIntervalMs()) * kBeatsToExpire)))
        .bind(3, runId)
        .run();
}

void HistoryStore::finishRun(qint64 runId, const QString &status) {
    Statement update(m_db, QStringLiteral("UPDATE runs SET finished_at = ?1, status = ?2 WHERE id = ?3"));
    update.bind(1, nowText()).bind(2, status).bind(3, runId).run();
    if (m_db.changes() == 0)
        throw Error(QStringLiteral("workspace %1: run %2 does not exist").arg(m_db.location()).arg(runId));
}

namespace {

struct LiveRun {
    qint64 id = 0;
    QString host;
    qint64 pid = 0;
    QDateTime expiresAt; // invalid: the run never beat (recorded before schema 2)
};

// `lock`: StoreDb::forUpdate() inside the transaction that closes them, else empty. A queued run
// belongs to no process: the runners take its iterations over (QueueStore::requeueOrphans).
QList<LiveRun> runningRuns(StoreDb &db, const QString &lock = QString()) {
    Statement select(db, QStringLiteral("SELECT id, host, pid, heartbeat_expires_at FROM runs "
                                        "WHERE status = 'running' AND queued = 0 ORDER BY id") +
                             lock);
    QList<LiveRun> runs;
    while (select.step())
        runs.append(
            LiveRun{select.columnInt64(0), select.columnText(1), select.columnInt64(2), readTime(select, 3)});
    return runs;
}

// Why the run's owner is taken for dead, or empty while it may still be alive. A pid only
// means something on its own host; elsewhere the heartbeat is all we can trust.
QString deathOf(const LiveRun &run, const QDateTime &now) {
    if (run.host == hostName() && !processAlive(run.pid))
        return QStringLiteral("process %1 on host %2 is gone").arg(run.pid).arg(run.host);
    if (run.expiresAt.isValid() ? run.expiresAt <= now : run.host != hostName())
        return QStringLiteral("process %1 on host %2 stopped beating (heartbeat expired %3)")
            .arg(run.pid)
            .arg(run.host, isoUtc(run.expiresAt));
    return {};
}

} // namespace

int HistoryStore::repairInterruptedRuns(QList<qint64> *closedRunIds) {
    // A cheap read first: nearly always nothing is dead, and then no write lock is taken.
    QDateTime now = QDateTime::currentDateTimeUtc();
    bool anyDead = false;
    for (const LiveRun &run : runningRuns(m_db))
        anyDead = anyDead || !deathOf(run, now).isEmpty();
    if (!anyDead)
        return 0;

    // Decided again under the write lock, so of several processes opening at once exactly one
    // closes each run, and a run that finished meanwhile is left alone.
    Transaction transaction(m_db);
    now = QDateTime::currentDateTimeUtc();
    const QString nowIso = isoUtc(now);
    const QString interrupted = iterationStatusName(IterationStatus::Interrupted);
    Statement closeRun(m_db, QStringLiteral("UPDATE runs SET status = ?1, finished_at = ?2 WHERE id = ?3 "
                                            "AND status = 'running'"));
    Statement openIterations(m_db, QStringLiteral("SELECT id, table_id FROM iterations WHERE run_id = ?1 AND "
                                                  "status IN ('queued', 'running') ORDER BY id"));
    Statement closeIteration(
        m_db,
        QStringLiteral("UPDATE iterations SET status = ?1, finished_at = ?2, error = coalesce(error, ?3), "
                       "rows_rolled_back = rows_rolled_back + rows_pending, rows_pending = 0 WHERE id = ?4"));
    Statement log(m_db, QStringLiteral("INSERT INTO iteration_logs (iteration_id, at, level, message) "
                                       "VALUES (?1, ?2, 'warning', ?3)"));
    int repaired = 0;
    for (const LiveRun &run : runningRuns(m_db, m_db.forUpdate())) {
        const QString why = deathOf(run, now);
        if (why.isEmpty())
            continue;
        const QString message = QStringLiteral("run %1 interrupted: %2").arg(run.id).arg(why);
        closeRun.reset();
        closeRun.bind(1, interrupted).bind(2, nowIso).bind(3, run.id).run();
        if (m_db.changes() == 0)
            continue; // finished meanwhile
        openIterations.reset();
        openIterations.bind(1, run.id);
        QList<qint64> iterationIds;
        while (openIterations.step())
            iterationIds.append(openIterations.columnInt64(0));
        for (const qint64 iterationId : std::as_const(iterationIds)) {
            closeIteration.reset();
            closeIteration.bind(1, interrupted).bind(2, nowIso).bind(3, message).bind(4, iterationId).run();
            log.reset();
            log.bind(1, iterationId).bind(2, nowIso).bind(3, message).run();
        }
        if (closedRunIds)
            closedRunIds->append(run.id);
        storageLog()->warn("workspace {}: {} ({} iteration(s) closed as interrupted)", str(m_db.location()),
                           str(message), iterationIds.size());
        ++repaired;
    }
    transaction.commit();
    return repaired;
}

void HistoryStore::writeIteration(const IterationRecord &record) {
    Statement update(
        m_db, QStringLiteral(
                  "UPDATE iterations SET run_id = ?1, table_id = ?2, source = ?3, target = ?4, "
                  "status = ?5, started_at = ?6, finished_at = ?7, duration_ms = ?8, rows_read = ?9, "
                  "rows_written = ?10, rows_skipped = ?11, rows_null_watermark = ?12, window_rows = ?13, "
                  "watermark_before = ?14, watermark_after = ?15, window_lower = ?16, "
                  "window_upper = ?17, error = ?18, rows_unorderable_watermark = ?19, rows_pending = ?20, "
                  "rows_rolled_back = ?21, rows_future = ?22, source_behind = ?23, rows_deleted = ?24, "
                  "runner = ?25, waiting = ?26 WHERE id = ?27 AND (runner = ?28 OR (runner = '' AND "
                  "run_id NOT IN (SELECT id FROM runs WHERE queued = 1)))"));
    bindIteration(update, record);
    const QString me = thisRunnerId();
    update.bind(27, record.id).bind(28, me).run();
    if (m_db.changes() > 0)
        return;
    // Another runner holds it, or a queued run's iteration went back in the queue: this
    // process's claim was taken over (docs/design.md, "The runner fleet"), and the record is the
    // next holder's to write. (A queued iteration is written only by its holder, so a runner woken
    // after its claim was put back cannot close it before another runner has run it.)
    Statement holder(m_db, QStringLiteral("SELECT runner FROM iterations WHERE id = ?1"));
    holder.bind(1, record.id);
    if (holder.step())
        throw Error(QStringLiteral("workspace %1: iteration %2 was taken over by %3; this process (%4) "
                                   "no longer writes its record")
                        .arg(m_db.location())
                        .arg(record.id)
                        .arg(holder.columnText(0).isEmpty()
                                 ? QStringLiteral("the queue (it went back for another runner)")
                                 : QStringLiteral("runner ") + holder.columnText(0),
                             me));
    throw Error(
        QStringLiteral("workspace %1: iteration %2 does not exist").arg(m_db.location()).arg(record.id));
}

// The record of the iteration `committed` names, when it is closed and says less than that.
std::optional<IterationRecord> HistoryStore::recordToComplete(const CommittedIteration &committed,
                                                              bool lock) {
    Statement select(m_db, QStringLiteral("SELECT %1 FROM iterations WHERE id = ?1%2")
                               .arg(kIterationColumns, lock ? m_db.forUpdate() : QString()));
    select.bind(1, committed.iterationId);
    if (!select.step())
        return std::nullopt;
    IterationRecord record = readIteration(select);
    const bool open = record.status == IterationStatus::Queued || record.status == IterationStatus::Running;
    const bool saysSo = record.rowsWritten == committed.rowsWritten &&
                        record.rowsSkipped == committed.rowsSkipped &&
                        record.watermarkAfter == committed.watermarkAfter;
    if (record.runId != committed.runId || record.tableId != committed.tableId || open || saysSo)
        return std::nullopt;
    return record;
}

bool HistoryStore::completeCommittedIteration(const CommittedIteration &committed, qint64 byRunId) {
    // A cheap read first: nearly always the record says so already, and then no write lock is taken.
    if (!recordToComplete(committed, false))
        return false;
    Transaction transaction(m_db);
    std::optional<IterationRecord> toComplete = recordToComplete(committed, true); // again, under the lock
    if (!toComplete)
        return false;
    IterationRecord &record = *toComplete;

    const QString was =
        QStringLiteral("%1, %2 rows written, watermark after %3")
            .arg(iterationStatusName(record.status))
            .arg(record.rowsWritten)
            .arg(record.watermarkAfter.isEmpty() ? QStringLiteral("none") : record.watermarkAfter);
    // What the target's state row shows committed was counted as rolled back when the run was
    // closed: it landed after all.
    const qint64 landed =
        committed.rowsWritten + committed.rowsSkipped - record.rowsWritten - record.rowsSkipped;
    record.rowsRolledBack = qMax<qint64>(0, record.rowsRolledBack - qMax<qint64>(0, landed));
    record.rowsPending = 0;
    record.rowsWritten = committed.rowsWritten;
    record.rowsSkipped = committed.rowsSkipped;
    record.rowsRead = committed.windowDone
                          ? committed.rowsWritten + committed.rowsSkipped
                          : qMax(record.rowsRead, committed.rowsWritten + committed.rowsSkipped);
    record.watermarkAfter = committed.watermarkAfter;
    if (committed.windowDone) {
        record.error =
            QStringLiteral("committed to the target, but the workspace could not record it%1; "
                           "completed from the target's state row")
                .arg(record.error.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(record.error));
        record.status = IterationStatus::Warning;
    }
    Statement update(m_db,
                     QStringLiteral("UPDATE iterations SET status = ?1, rows_read = ?2, rows_written = ?3, "
                                    "rows_skipped = ?4, watermark_after = ?5, error = ?6, rows_pending = 0, "
                                    "rows_rolled_back = ?7 WHERE id = ?8"));
    update.bind(1, iterationStatusName(record.status))
        .bind(2, record.rowsRead)
        .bind(3, record.rowsWritten)
        .bind(4, record.rowsSkipped)
        .bind(5, textOrNull(record.watermarkAfter))
        .bind(6, textOrNull(record.error))
        .bind(7, record.rowsRolledBack)
        .bind(8, record.id)
        .run();
    appendLog(record.id,
              LogLine{QDateTime::currentDateTimeUtc(), QStringLiteral("warning"),
                      QStringLiteral("completed by run %1 from the target's state row: %2 rows "
                                     "written, %3 skipped, watermark after %4 (the record said %5)")
                          .arg(byRunId)
                          .arg(record.rowsWritten)
                          .arg(record.rowsSkipped)
                          .arg(record.watermarkAfter, was)});

    // The run was closed as interrupted because its iterations could not be recorded; once
    // none is left open or interrupted it gets the status they give.
    Statement statuses(m_db, QStringLiteral("SELECT i.status FROM iterations i JOIN runs r ON "
                                            "r.id = i.run_id WHERE r.id = ?1 AND r.status = ?2"));
    statuses.bind(1, record.runId).bind(2, iterationStatusName(IterationStatus::Interrupted));
    QList<IterationStatus> found;
    while (statuses.step())
        found << iterationStatusFromName(statuses.columnText(0)).value_or(IterationStatus::Failed);
    const bool settled = !found.isEmpty() && !found.contains(IterationStatus::Queued) &&
                         !found.contains(IterationStatus::Running) &&
                         !found.contains(IterationStatus::Interrupted);
    if (settled) {
        Statement run(m_db, QStringLiteral("UPDATE runs SET status = ?1 WHERE id = ?2"));
        run.bind(1, deriveRunStatus(found, false)).bind(2, record.runId).run();
    }
    transaction.commit();
    storageLog()->warn("workspace {}: iteration {} of run {} completed from the target's state row by run {}",
                       str(m_db.location()), record.id, record.runId, byRunId);
    return true;
}

void HistoryStore::addIterations(QList<IterationRecord> &records) {
    Transaction transaction(m_db);
    Statement insert(
        m_db, QStringLiteral(
                  "INSERT INTO iterations (run_id, table_id, source, target, status, started_at, "
                  "finished_at, duration_ms, rows_read, rows_written, rows_skipped, rows_null_watermark, "
                  "window_rows, watermark_before, watermark_after, window_lower, window_upper, error, "
                  "rows_unorderable_watermark, rows_pending, rows_rolled_back, rows_future, source_behind, "
                  "rows_deleted, runner, waiting) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                  "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)"));
    for (IterationRecord &record : records) {
        insert.reset();
        bindIteration(insert, record);
        insert.run();
        record.id = m_db.lastInsertId();
        for (const LogLine &line : std::as_const(record.log))
            appendLog(record.id, line);
    }
    transaction.commit();
}

void HistoryStore::appendLog(qint64 iterationId, const LogLine &line) {
    Statement insert(m_db, QStringLiteral("INSERT INTO iteration_logs (iteration_id, at, level, message) "
                                          "VALUES (?1, ?2, ?3, ?4)"));
    insert.bind(1, iterationId)
        .bind(2, line.at.isValid() ? isoUtc(line.at) : nowText())
        .bind(3, line.level.isEmpty() ? QStringLiteral("info") : line.level)
        .bind(4, line.message.isNull() ? QStringLiteral("") : line.message)
        .run();
}

void HistoryStore::addReject(const RejectedRow &row) {
    Statement insert(m_db, QStringLiteral("INSERT INTO rejects (run_id, iteration_id, table_id, at, error, "
                                          "row_key, row_data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
    insert.bind(1, idOrNull(row.runId))
        .bind(2, idOrNull(row.iterationId))
        .bind(3, row.tableId)
        .bind(4, row.at.isValid() ? isoUtc(row.at) : nowText())
        .bind(5, row.error.isNull() ? QStringLiteral("") : row.error)
        .bind(6, row.rowKey)
        .bind(7, row.rowData)
        .run();
}

namespace {

const QString kRejectColumns =
    QStringLiteral("id, run_id, iteration_id, table_id, at, error, row_key, row_data");

QList<RejectedRow> readRejects(Statement &stmt) {
    QList<RejectedRow> result;
    while (stmt.step()) {
        RejectedRow row;
        row.id = stmt.columnInt64(0);
        row.runId = stmt.columnInt64(1);
        row.iterationId = stmt.columnInt64(2);
        row.tableId = stmt.columnInt64(3);
        row.at = readTime(stmt, 4);
        row.error = stmt.columnText(5);
        row.rowKey = stmt.columnText(6);
        row.rowData = stmt.columnText(7);
        result.append(row);
    }
    return result;
}

const QString kIterationRejects = QStringLiteral("FROM rejects WHERE iteration_id = ?1");

} // namespace

QList<RejectedRow> HistoryStore::rejects(qint64 tableId) {
    Statement stmt(
        m_db, QStringLiteral("SELECT %1 FROM rejects WHERE table_id = ?1 ORDER BY id").arg(kRejectColumns));
    stmt.bind(1, tableId);
    return readRejects(stmt);
}

QList<RejectedRow> HistoryStore::iterationRejects(qint64 iterationId, qint64 afterId, int limit) {
    Statement stmt(m_db, QStringLiteral("SELECT %1 %2 AND id > ?2 ORDER BY id LIMIT ?3")
                             .arg(kRejectColumns, kIterationRejects));
    stmt.bind(1, iterationId).bind(2, afterId).bind(3, limit > 0 ? QVariant(qint64(limit)) : m_db.noLimit());
    return readRejects(stmt);
}

qint64 HistoryStore::iterationRejectCount(qint64 iterationId) {
    Statement stmt(m_db, QStringLiteral("SELECT count(*) %1").arg(kIterationRejects));
    stmt.bind(1, iterationId);
    return stmt.step() ? stmt.columnInt64(0) : 0;
}

namespace {

// The columns a history read orders by: the order's key (empty for the id alone), then the
// run's id — a whitelist, so no identifier ever comes from the caller. Filtered to a table, the
// iteration's own columns (an index each: iterations_by_table_*), its run_id standing for the
// run's id so the index also gives the tie order.
struct PageOrder {
    QString key;
    QString id;
};

PageOrder pageOrder(const RunPageQuery &query) {
    if (!canSortRuns(query.order.by, query.tableId))
        throw Error(QStringLiteral("the run history can be ordered by its runs' figures only when "
                                   "filtered to one table"));
    const bool table = query.tableId > 0;
    switch (query.order.by) {
    case RunSort::Started:
        return {QStringLiteral("r.started_at"), QStringLiteral("r.id")};
    case RunSort::Id:
        return {QString(), table ? QStringLiteral("i.run_id") : QStringLiteral("r.id")};
    case RunSort::Status:
        return table ? PageOrder{QStringLiteral("i.status"), QStringLiteral("i.run_id")}
                     : PageOrder{QStringLiteral("r.status"), QStringLiteral("r.id")};
    case RunSort::Duration:
        return {QStringLiteral("i.duration_ms"), QStringLiteral("i.run_id")};
    case RunSort::RowsRead:
        return {QStringLiteral("i.rows_read"), QStringLiteral("i.run_id")};
    case RunSort::RowsWritten:
        return {QStringLiteral("i.rows_written"), QStringLiteral("i.run_id")};
    }
    return {};
}

// FROM and WHERE of a history read. Parameters: ?1 table, ?2 status, ?3 run, ?4 ?5 the cursor
// (the order's key, the id); the clauses of the filters not asked for are left out, so each
// read gets the plan it needs (keyset paging only stays cheap when the cursor bounds the index
// range).
QString pageFromWhere(const RunPageQuery &query) {
    QString sql;
    QStringList where;
    if (query.tableId > 0) {
        sql = QStringLiteral(" FROM iterations i JOIN runs r ON r.id = i.run_id");
        where << QStringLiteral("i.table_id = ?1");
        if (!query.status.isEmpty())
            where << QStringLiteral("i.status = ?2");
    } else {
        sql = QStringLiteral(" FROM runs r");
        if (!query.status.isEmpty())
            where << QStringLiteral("(r.status = ?2 OR EXISTS (SELECT 1 FROM iterations s "
                                    "WHERE s.run_id = r.id AND s.status = ?2))");
    }
    if (query.runId > 0)
        where << QStringLiteral("r.id = ?3");
    if (query.before) {
        const PageOrder order = pageOrder(query);
        const QString after = query.order.descending ? QStringLiteral("<") : QStringLiteral(">");
        where << (order.key.isEmpty()
                      ? QStringLiteral("%1 %2 ?5").arg(order.id, after)
                      : QStringLiteral("(%1, %2) %3 (?4, ?5)").arg(order.key, order.id, after));
    }
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "));
    return sql;
}

// The SELECT of a history page: kRunColumns, then (filtered to a table) that table's
// iteration's kIterationColumns; ?6 the limit.
QString pageSql(const RunPageQuery &query) {
    QString columns = kRunColumns;
    if (query.tableId > 0)
        columns += QStringLiteral(", ") + iterationColumnsOf(QStringLiteral("i"));
    const PageOrder order = pageOrder(query);
    const QString direction = query.order.descending ? QStringLiteral(" DESC") : QStringLiteral(" ASC");
    QString orderBy = order.id + direction;
    if (!order.key.isEmpty())
        orderBy.prepend(order.key + direction + QStringLiteral(", "));
    return QStringLiteral("SELECT ") + columns + pageFromWhere(query) + QStringLiteral(" ORDER BY ") +
           orderBy + QStringLiteral(" LIMIT ?6");
}

void bindFilter(Statement &stmt, const RunPageQuery &query) {
    if (query.tableId > 0)
        stmt.bind(1, query.tableId);
    if (!query.status.isEmpty())
        stmt.bind(2, query.status);
    if (query.runId > 0)
        stmt.bind(3, query.runId);
    if (query.before) {
        if (query.order.by == RunSort::Started)
            stmt.bind(4, timeText(query.before->startedAt));
        else if (query.order.by != RunSort::Id)
            stmt.bind(4, query.before->key);
        stmt.bind(5, query.before->runId);
    }
}

// The page's runs; filtered to a table, each with that table's iteration (and no other).
} // namespace

QList<RunRecord> HistoryStore::selectPageRuns(const RunPageQuery &query) {
    Statement select(m_db, pageSql(query));
    bindFilter(select, query);
    select.bind(6, query.limit > 0 ? QVariant(qint64(query.limit)) : m_db.noLimit());
    QList<RunRecord> runs;
    while (select.step()) {
        runs.append(readRun(select));
        if (query.tableId > 0)
            runs.last().iterations.append(readIteration(select, kRunColumnCount));
    }
    return runs;
}

namespace {

// The runs' ids (idsJson): a whole page's iterations in one bound query.
QString runIdsJson(const QList<RunRecord> &runs) {
    QList<qint64> ids;
    ids.reserve(runs.size());
    for (const RunRecord &run : runs)
        ids << run.id;
    return idsJson(ids);
}

QHash<qint64, qsizetype> indexOfRuns(const QList<RunRecord> &runs) {
    QHash<qint64, qsizetype> index;
    index.reserve(runs.size());
    for (qsizetype i = 0; i < runs.size(); ++i)
        index.insert(runs.at(i).id, i);
    return index;
}

} // namespace

QList<RunRecord> HistoryStore::readRunPage(const RunPageQuery &query) {
    QList<RunRecord> runs = selectPageRuns(query);
    if (query.tableId > 0 || runs.isEmpty())
        return runs;
    const QHash<qint64, qsizetype> index = indexOfRuns(runs);
    Statement select(m_db,
                     QStringLiteral("SELECT %1 FROM iterations WHERE run_id IN (%2) ORDER BY run_id, id")
                         .arg(kIterationColumns, m_db.idsFromJson(1)));
    select.bind(1, runIdsJson(runs));
    while (select.step()) {
        IterationRecord iteration = readIteration(select);
        runs[index.value(iteration.runId)].iterations.append(std::move(iteration));
    }
    return runs;
}

QList<RunRecord> HistoryStore::runPage(const RunPageQuery &query) {
    Transaction read(m_db, Transaction::Kind::Read);
    QList<RunRecord> runs = readRunPage(query);
    read.commit();
    return runs;
}

QList<RunOverview> HistoryStore::runOverviews(const RunPageQuery &query) {
    Transaction read(m_db, Transaction::Kind::Read);
    const QList<RunRecord> runs = selectPageRuns(query);
    QList<RunOverview> overviews;
    overviews.reserve(runs.size());
    if (query.tableId > 0) {
        // One iteration each: the same figures as the C++ definition, from that iteration.
        for (const RunRecord &run : runs)
            overviews.append(*overviewOf(run, query));
        read.commit();
        return overviews;
    }
    for (const RunRecord &run : runs) {
        RunOverview overview;
        overview.run = run;
        overview.status = run.status;
        overview.finishedAt = run.finishedAt;
        overviews.append(overview);
    }
    if (!runs.isEmpty()) {
        const QHash<qint64, qsizetype> index = indexOfRuns(runs);
        const QString ids = runIdsJson(runs);
        // Figures summed by SQLite: a run of a thousand tables costs no thousand records here.
        // The kept figure is rowsShownRead's, in SQL.
        Statement sums(
            m_db,
            QStringLiteral(
                "SELECT run_id, count(*), sum(rows_read), sum(rows_written), "
                "sum(rows_skipped), max(duration_ms), sum(CASE WHEN status IN (?2, ?3, ?4) "
                "THEN %1 ELSE rows_read END), sum(rows_deleted) FROM iterations WHERE run_id IN (%2) "
                "GROUP BY run_id")
                .arg(m_db.least(QStringLiteral("rows_read"), QStringLiteral("rows_written + rows_skipped")),
                     m_db.idsFromJson(1)));
        sums.bind(1, ids)
            .bind(2, iterationStatusName(IterationStatus::Cancelled))
            .bind(3, iterationStatusName(IterationStatus::Failed))
            .bind(4, iterationStatusName(IterationStatus::Interrupted));
        while (sums.step()) {
            RunOverview &overview = overviews[index.value(sums.columnInt64(0))];
            overview.tables = int(sums.columnInt64(1));
            overview.rowsRead = sums.columnInt64(2);
            overview.rowsWritten = sums.columnInt64(3);
            overview.rowsSkipped = sums.columnInt64(4);
            overview.durationMs = sums.columnInt64(5);
            overview.rowsReadKept = sums.columnInt64(6);
            overview.rowsDeleted = sums.columnInt64(7);
        }
        Statement problems(m_db,
                           QStringLiteral("SELECT run_id, source, status FROM iterations WHERE run_id IN "
                                          "(%1) AND status IN (?2, ?3, ?4, ?5) ORDER BY run_id, id")
                               .arg(m_db.idsFromJson(1)));
        problems.bind(1, ids)
            .bind(2, iterationStatusName(IterationStatus::Failed))
            .bind(3, iterationStatusName(IterationStatus::Warning))
            .bind(4, iterationStatusName(IterationStatus::Cancelled))
            .bind(5, iterationStatusName(IterationStatus::Interrupted));
        while (problems.step())
            overviews[index.value(problems.columnInt64(0))].problems.append(
                {problems.columnText(1),
                 iterationStatusFromName(problems.columnText(2)).value_or(IterationStatus::Failed)});
    }
    for (RunOverview &overview : overviews) {
        if (overview.run.startedAt.isValid() && overview.run.finishedAt.isValid())
            overview.durationMs = overview.run.startedAt.msecsTo(overview.run.finishedAt);
    }
    read.commit();
    return overviews;
}

qint64 HistoryStore::runCount(const RunPageQuery &query) {
    // A status alone: the runs that ended so and the runs with an iteration that did, each an
    // index range (the page's OR EXISTS would probe every run's iterations).
    const bool statusAlone =
        query.tableId <= 0 && !query.status.isEmpty() && query.runId <= 0 && !query.before;
    Statement count(m_db, statusAlone ? QStringLiteral("SELECT count(*) FROM (SELECT id FROM runs WHERE "
                                                       "status = ?2 UNION SELECT run_id FROM "
                                                       "iterations WHERE status = ?2) AS matching")
                                      : QStringLiteral("SELECT count(*)") + pageFromWhere(query));
    bindFilter(count, query);
    return count.step() ? count.columnInt64(0) : 0;
}

QList<LogLine> HistoryStore::iterationLog(qint64 iterationId) {
    Statement select(m_db, QStringLiteral("SELECT at, level, message FROM iteration_logs "
                                          "WHERE iteration_id = ?1 ORDER BY id"));
    select.bind(1, iterationId);
    QList<LogLine> lines;
    while (select.step())
        lines.append(LogLine{readTime(select, 0), select.columnText(1), select.columnText(2)});
    return lines;
}

QList<RunRecord> HistoryStore::runs(int limit, qint64 runId) {
    // One read transaction, so a run being written meanwhile is seen whole or not at all.
    Transaction read(m_db, Transaction::Kind::Read);
    RunPageQuery query;
    query.limit = limit;
    query.runId = runId;
    QList<RunRecord> runs = readRunPage(query);
    // Each run's log lines in one query.
    Statement selectLog(m_db, QStringLiteral("SELECT l.iteration_id, l.at, l.level, l.message "
                                             "FROM iteration_logs l JOIN iterations i ON "
                                             "i.id = l.iteration_id WHERE i.run_id = ?1 "
                                             "ORDER BY l.iteration_id, l.id"));
    for (RunRecord &run : runs) {
        QHash<qint64, qsizetype> index;
        for (qsizetype i = 0; i < run.iterations.size(); ++i)
            index.insert(run.iterations.at(i).id, i);
        selectLog.reset();
        selectLog.bind(1, run.id);
        while (selectLog.step())
            run.iterations[index.value(selectLog.columnInt64(0))].log.append(
                LogLine{readTime(selectLog, 1), selectLog.columnText(2), selectLog.columnText(3)});
    }
    read.commit();
    return runs;
}

QString HistoryStore::runStatus(qint64 runId) {
    Statement select(m_db, QStringLiteral("SELECT status FROM runs WHERE id = ?1"));
    select.bind(1, runId);
    return select.step() ? select.columnText(0) : QString();
}

} // namespace tidemark
