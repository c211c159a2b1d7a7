// SPDX-License-Identifier: MIT
#include "model/storage/stores/queuestore.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/runnerid.h"
#include "model/storage/stores/historystore.h"
#include "model/storage/stores/storerows.h"

#include <QCoreApplication>
#include <QSet>

#include <algorithm>

namespace tidemark {
namespace {

// A stopped runner's row stays listed (`runners` shows it stopped) for this long.
constexpr qint64 kForgetStoppedRunnerMs = 24 * 3600 * 1000;

// "host:pid" split at its last colon (a host name may hold none; an IPv6 literal several).
std::pair<QString, qint64> runnerParts(const QString &runner) {
    const qsizetype colon = runner.lastIndexOf(QLatin1Char(':'));
    if (colon < 0)
        return {runner, 0};
    return {runner.left(colon), runner.mid(colon + 1).toLongLong()};
}

struct OpenIteration {
    qint64 id = 0;
    qint64 runId = 0;
    qint64 tableId = 0;
    QString runner;
};

} // namespace

void QueueStore::beatRunner(int slotCount, const QDateTime &startedAt, std::chrono::milliseconds ttl) {
    const QDateTime now = QDateTime::currentDateTimeUtc();
    Transaction transaction(m_db);
    Statement upsert(
        m_db, QStringLiteral("INSERT INTO fleet_runners (id, host, pid, version, slots, started_at, "
                             "last_beat_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
                             "ON CONFLICT (id) DO UPDATE SET slots = excluded.slots, "
                             "last_beat_at = excluded.last_beat_at, expires_at = excluded.expires_at"));
    upsert.bind(1, thisRunnerId())
        .bind(2, hostName())
        .bind(3, QCoreApplication::applicationPid())
        .bind(4, QStringLiteral(TIDEMARK_VERSION))
        .bind(5, slotCount)
        .bind(6, isoUtc(startedAt))
        .bind(7, isoUtc(now))
        .bind(8, isoUtc(now.addMSecs(ttl.count())))
        .run();
    Statement forget(m_db, QStringLiteral("DELETE FROM fleet_runners WHERE expires_at < ?1"));
    forget.bind(1, isoUtc(now.addMSecs(-kForgetStoppedRunnerMs))).run();
    transaction.commit();
}

void QueueStore::leave() {
    Statement remove(m_db, QStringLiteral("DELETE FROM fleet_runners WHERE id = ?1"));
    remove.bind(1, thisRunnerId()).run();
}

QList<FleetRunner> QueueStore::runners() {
    const QDateTime now = QDateTime::currentDateTimeUtc();
    Statement select(m_db, QStringLiteral("SELECT f.id, f.host, f.pid, f.version, f.slots, f.started_at, "
                                          "f.last_beat_at, f.expires_at, (SELECT count(*) FROM iterations i "
                                          "WHERE i.status = 'running' AND i.runner = f.id) "
                                          "FROM fleet_runners f ORDER BY f.started_at, f.id"));
    QList<FleetRunner> runners;
    while (select.step()) {
        FleetRunner runner;
        runner.id = select.columnText(0);
        runner.host = select.columnText(1);
        runner.pid = select.columnInt64(2);
        runner.version = select.columnText(3);
        runner.slotCount = int(select.columnInt64(4));
        runner.startedAt = readTime(select, 5);
        runner.lastBeatAt = readTime(select, 6);
        runner.expiresAt = readTime(select, 7);
        runner.running = int(select.columnInt64(8));
        runner.alive = runner.expiresAt > now && (runner.host != hostName() || processAlive(runner.pid));
        runners.append(runner);
    }
    return runners;
}

// Each run's oldest unclaimed iteration first, then each run's second, and so on (ties: the
// older run first): a run of 500 tables does not starve a run of one queued after it. Read run by
// run (a few index probes each, however long the queue), then locked; on a server, rows another
// runner is claiming at this moment are passed over, not waited for.
QList<IterationRecord> QueueStore::claim(int count) {
    if (count <= 0)
        return {};
    {
        // A cheap read first: nearly always nothing is queued, and then no write lock is taken.
        Statement any(m_db,
                      QStringLiteral("SELECT 1 FROM runs r WHERE r.status = 'running' AND r.queued = 1 AND "
                                     "EXISTS (SELECT 1 FROM iterations i WHERE i.run_id = r.id AND "
                                     "i.status = 'queued' AND i.runner = '')"));
        if (!any.step())
            return {};
    }
    const QString runner = thisRunnerId();
    Transaction transaction(m_db);
    QList<QList<qint64>> byRun; // each open queued run's first unclaimed iterations, oldest run first
    {
        Statement runs(m_db, QStringLiteral("SELECT id FROM runs WHERE queued = 1 AND status = 'running' "
                                            "ORDER BY id"));
        QList<qint64> runIds;
        while (runs.step())
            runIds.append(runs.columnInt64(0));
        // More than `count` of each: the first ones may be another runner's to claim right now.
        Statement first(m_db,
                        QStringLiteral("SELECT id FROM iterations WHERE run_id = ?1 AND status = 'queued' "
                                       "AND runner = '' ORDER BY id LIMIT ?2"));
        for (const qint64 runId : std::as_const(runIds)) {
            first.reset();
            first.bind(1, runId).bind(2, 2 * count + 8);
            QList<qint64> ids;
            while (first.step())
                ids.append(first.columnInt64(0));
            if (!ids.isEmpty())
                byRun.append(ids);
        }
    }
    QList<qint64> candidates; // round-robin across runs
    qsizetype longest = 0;
    for (const QList<qint64> &ids : std::as_const(byRun))
        longest = std::max(longest, ids.size());
    for (qsizetype k = 0; k < longest; ++k) {
        for (const QList<qint64> &ids : std::as_const(byRun)) {
            if (k < ids.size())
                candidates.append(ids.at(k));
        }
    }
    if (candidates.isEmpty())
        return {};
    QSet<qint64> lockable;
    {
        Statement lock(m_db, QStringLiteral("SELECT i.id FROM iterations i WHERE i.id IN (%1) AND "
                                            "i.status = 'queued' AND i.runner = ''")
                                     .arg(m_db.idsFromJson(1)) +
                                 m_db.forUpdateSkipLocked(QStringLiteral("i")));
        lock.bind(1, idsJson(candidates));
        while (lock.step())
            lockable.insert(lock.columnInt64(0));
    }
    QList<qint64> ids;
    for (const qint64 id : std::as_const(candidates)) {
        if (ids.size() < count && lockable.contains(id))
            ids.append(id);
    }
    if (ids.isEmpty())
        return {};
    Statement take(m_db, QStringLiteral("UPDATE iterations SET runner = ?1, waiting = ?2 WHERE id = ?3"));
    const QString claimed = QStringLiteral("claimed by runner %1").arg(runner);
    for (const qint64 id : std::as_const(ids)) {
        take.reset();
        take.bind(1, runner).bind(2, claimed).bind(3, id).run();
    }
    Statement read(m_db, QStringLiteral("SELECT %1 FROM iterations WHERE id IN (%2) ORDER BY id")
                             .arg(kIterationColumns, m_db.idsFromJson(1)));
    read.bind(1, idsJson(ids));
    QList<IterationRecord> records;
    while (read.step())
        records.append(readIteration(read));
    transaction.commit();
    return records;
}

// An iteration of a queued run is orphaned when its runner is gone (its row expired or missing,
// or its pid gone on this host) and no live lease of that runner holds its table: the
// runner's last write may still be landing until then.
int QueueStore::requeueOrphans() {
    const auto orphans = [this](const QString &lock) {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        Statement open(m_db, QStringLiteral("SELECT i.id, i.run_id, i.table_id, i.runner FROM iterations i "
                                            "JOIN runs r ON r.id = i.run_id WHERE r.queued = 1 AND "
                                            "r.status = 'running' AND i.status IN ('queued', 'running') "
                                            "AND i.runner > '' ORDER BY i.id") +
                                 lock);
        QList<OpenIteration> found;
        while (open.step())
            found.append({open.columnInt64(0), open.columnInt64(1), open.columnInt64(2), open.columnText(3)});
        QList<OpenIteration> dead;
        Statement runner(m_db, QStringLiteral("SELECT expires_at FROM fleet_runners WHERE id = ?1"));
        Statement lease(m_db, QStringLiteral("SELECT expires_at FROM leases WHERE table_id = ?1 AND "
                                             "run_id = ?2 AND host = ?3 AND pid = ?4"));
        for (const OpenIteration &iteration : std::as_const(found)) {
            const auto [host, pid] = runnerParts(iteration.runner);
            const bool gone = host == hostName() && !processAlive(pid);
            runner.reset();
            runner.bind(1, iteration.runner);
            const bool beating = runner.step() && readTime(runner, 0) > now;
            if (beating && !gone)
                continue;
            lease.reset();
            lease.bind(1, iteration.tableId).bind(2, iteration.runId).bind(3, host).bind(4, pid);
            if (!gone && lease.step() && readTime(lease, 0) > now)
                continue; // its copy may still commit: wait for the lease to expire too
            dead.append(iteration);
        }
        return dead;
    };
    // A cheap read first: nearly always no runner died, and then no write lock is taken.
    if (orphans(QString()).isEmpty())
        return 0;
    QList<OpenIteration> dead;
    {
        Transaction transaction(m_db);
        dead = orphans(m_db.forUpdate());
        for (const OpenIteration &iteration : std::as_const(dead))
            putBack(iteration.id, iteration.runner,
                    QStringLiteral("runner %1 stopped beating").arg(iteration.runner));
        transaction.commit();
    }
    for (const OpenIteration &iteration : std::as_const(dead))
        finishRunIfSettled(iteration.runId); // its last iteration may have ended cancelled
    return int(dead.size());
}

QString QueueStore::requeue(qint64 iterationId, const QString &why) {
    std::optional<qint64> endedRun;
    {
        Transaction transaction(m_db);
        endedRun = putBack(iterationId, thisRunnerId(), why);
        transaction.commit();
    }
    // It may have been its run's last open iteration.
    return endedRun ? finishRunIfSettled(*endedRun) : QString();
}

// Back in the queue for any runner; the rows its attempt committed stay in the target, whose
// state row the next attempt starts from. One whose cancel was asked for ends cancelled instead.
// Only while `runner` still holds it, and only while its run is open: the run's row is locked, as
// finishRunIfSettled() locks it, so a run is never closed with an iteration that goes back in the
// queue after (a stopping runner's iteration ends cancelled before it is handed back).
// Returns the run of an iteration that ended cancelled.
std::optional<qint64> QueueStore::putBack(qint64 iterationId, const QString &runner, const QString &why) {
    Statement counts(m_db, QStringLiteral("SELECT i.rows_written, i.rows_pending, i.cancel_requested, "
                                          "i.run_id FROM "
                                          "iterations i JOIN runs r ON r.id = i.run_id WHERE i.id = ?1 AND "
                                          "i.runner = ?2 AND i.status IN ('queued', 'running', 'cancelled') "
                                          "AND r.status = 'running'") +
                               m_db.forUpdate());
    counts.bind(1, iterationId).bind(2, runner);
    if (!counts.step())
        return std::nullopt;
    const qint64 written = counts.columnInt64(0);
    const qint64 pending = counts.columnInt64(1);
    const bool cancelled = counts.columnInt64(2) != 0;
    const qint64 runId = counts.columnInt64(3);
    counts.reset();
    QString message;
    if (cancelled) {
        Statement close(m_db,
                        QStringLiteral("UPDATE iterations SET status = 'cancelled', finished_at = ?1, "
                                       "waiting = '', rows_rolled_back = rows_rolled_back + rows_pending, "
                                       "rows_pending = 0, error = coalesce(error, ?2) WHERE id = ?3"));
        message = QStringLiteral("cancelled (run cancel): %1").arg(why);
        close.bind(1, nowText()).bind(2, message).bind(3, iterationId).run();
    } else {
        Statement update(
            m_db, QStringLiteral("UPDATE iterations SET status = 'queued', runner = '', waiting = '', "
                                 "started_at = NULL, finished_at = NULL, duration_ms = 0, rows_read = 0, "
                                 "rows_written = 0, rows_skipped = 0, rows_pending = 0, "
                                 "rows_rolled_back = rows_rolled_back + ?1, error = NULL WHERE id = ?2"));
        update.bind(1, pending).bind(2, iterationId).run();
        message =
            QStringLiteral("back in the queue for another runner: %1 (that attempt committed %2 row(s), "
                           "which stay in the target; %3 uncommitted rolled back)")
                .arg(why)
                .arg(written)
                .arg(pending);
    }
    m_history.appendLog(iterationId,
                        LogLine{QDateTime::currentDateTimeUtc(), QStringLiteral("warning"), message});
    storageLog()->warn("workspace {}: iteration {}: {}", str(m_db.location()), iterationId, str(message));
    return cancelled ? std::optional(runId) : std::nullopt;
}

QString QueueStore::finishRunIfSettled(qint64 runId) {
    Transaction transaction(m_db);
    Statement run(m_db, QStringLiteral("SELECT dry_run FROM runs WHERE id = ?1 AND status = 'running'") +
                            m_db.forUpdate());
    run.bind(1, runId);
    if (!run.step())
        return {};
    const bool dryRun = run.columnInt64(0) != 0;
    run.reset();
    Statement statuses(m_db, QStringLiteral("SELECT status FROM iterations WHERE run_id = ?1"));
    statuses.bind(1, runId);
    QList<IterationStatus> found;
    while (statuses.step()) {
        const IterationStatus status =
            iterationStatusFromName(statuses.columnText(0)).value_or(IterationStatus::Failed);
        if (status == IterationStatus::Queued || status == IterationStatus::Running)
            return {};
        found << status;
    }
    const QString status = deriveRunStatus(found, dryRun);
    Statement close(m_db, QStringLiteral("UPDATE runs SET status = ?1, finished_at = ?2 WHERE id = ?3"));
    close.bind(1, status).bind(2, nowText()).bind(3, runId).run();
    transaction.commit();
    return status;
}

CancelRequest QueueStore::requestCancel(qint64 runId) {
    CancelRequest request;
    {
        Transaction transaction(m_db);
        Statement run(m_db,
                      QStringLiteral("SELECT status, queued FROM runs WHERE id = ?1") + m_db.forUpdate());
        run.bind(1, runId);
        if (!run.step())
            throw ValidationError(
                QStringLiteral("workspace %1: run %2 does not exist").arg(m_db.location()).arg(runId));
        request.runStatus = run.columnText(0);
        const bool queued = run.columnInt64(1) != 0;
        run.reset();
        if (request.runStatus != QLatin1String("running"))
            return request;
        if (queued) {
            Statement close(
                m_db, QStringLiteral("UPDATE iterations SET status = 'cancelled', finished_at = ?1, "
                                     "waiting = '', error = 'cancelled before a runner took it (run "
                                     "cancel)' WHERE run_id = ?2 AND status = 'queued' AND runner = ''"));
            close.bind(1, nowText()).bind(2, runId).run();
            request.closed = int(m_db.changes());
        }
        Statement ask(m_db, QStringLiteral("UPDATE iterations SET cancel_requested = 1 WHERE run_id = ?1 AND "
                                           "status IN ('queued', 'running')"));
        ask.bind(1, runId).run();
        request.iterations = int(m_db.changes());
        transaction.commit();
    }
    if (request.iterations == 0)
        finishRunIfSettled(runId);
    return request;
}

void QueueStore::requestIterationCancel(qint64 iterationId) {
    Statement ask(m_db, QStringLiteral("UPDATE iterations SET cancel_requested = 1 WHERE id = ?1 AND "
                                       "status IN ('queued', 'running')"));
    ask.bind(1, iterationId).run();
}

QList<qint64> QueueStore::cancelRequested(qint64 runId) {
    Statement select(m_db,
                     QStringLiteral("SELECT id FROM iterations WHERE run_id = ?1 AND cancel_requested = 1 "
                                    "AND status IN ('queued', 'running') ORDER BY id"));
    select.bind(1, runId);
    QList<qint64> ids;
    while (select.step())
        ids.append(select.columnInt64(0));
    return ids;
}

QHash<qint64, qint64> QueueStore::claimedByThisRunner() {
    Statement select(m_db,
                     QStringLiteral("SELECT i.id, i.run_id FROM iterations i JOIN runs r ON r.id = "
                                    "i.run_id WHERE i.status IN ('queued', 'running') AND i.runner = ?1 "
                                    "AND r.queued = 1 AND r.status = 'running'"));
    select.bind(1, thisRunnerId());
    QHash<qint64, qint64> runs;
    while (select.step())
        runs.insert(select.columnInt64(0), select.columnInt64(1));
    return runs;
}

QList<qint64> QueueStore::cancelRequestedOfThisRunner() {
    Statement select(m_db,
                     QStringLiteral("SELECT id FROM iterations WHERE status IN ('queued', 'running') AND "
                                    "runner = ?1 AND cancel_requested = 1 ORDER BY id"));
    select.bind(1, thisRunnerId());
    QList<qint64> ids;
    while (select.step())
        ids.append(select.columnInt64(0));
    return ids;
}

bool QueueStore::claimFiring(const QString &schedule, const QDateTime &at) {
    Statement insert(m_db,
                     QStringLiteral("INSERT INTO schedule_firings (schedule, fire_at, host, pid) VALUES "
                                    "(?1, ?2, ?3, ?4) ON CONFLICT (schedule, fire_at) DO NOTHING"));
    insert.bind(1, schedule)
        .bind(2, isoUtc(at))
        .bind(3, hostName())
        .bind(4, QCoreApplication::applicationPid())
        .run();
    return m_db.changes() == 1;
}

} // namespace tidemark
