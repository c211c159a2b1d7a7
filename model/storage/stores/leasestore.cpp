// SPDX-License-Identifier: MIT
#include "model/storage/stores/leasestore.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/timestamp.h"
#include "model/storage/stores/storerows.h"

#include <QCoreApplication>

namespace tidemark {

LeaseAttempt LeaseStore::take(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl) {
    const QString host = hostName();
    const qint64 pid = QCoreApplication::applicationPid();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    LeaseAttempt attempt;
    m_db.lock(StoreLock::Lease, tableId);
    Statement select(m_db, QStringLiteral("SELECT run_id, host, pid, expires_at FROM leases "
                                          "WHERE table_id = ?1"));
    select.bind(1, tableId);
    if (select.step()) {
        Lease current{tableId, select.columnInt64(0), select.columnText(1), select.columnInt64(2),
                      readTime(select, 3)};
        select.reset();
        const bool sameHost = current.host == host;
        const bool expired = !current.expiresAt.isValid() || current.expiresAt <= now;
        // A pid only means something on its own host; elsewhere the expiry is all we can trust.
        const bool dead = sameHost && !processAlive(current.pid);
        const bool ownRun = sameHost && current.pid == pid && current.runId == runId;
        if (!expired && !dead && !ownRun) {
            attempt.holder = current;
            return attempt; // nothing written: the caller rolls back
        }
        if (!ownRun) {
            attempt.holder = current;
            storageLog()->warn("table {}: taking over the lease of run {} (host {}, pid {}, {})", tableId,
                               current.runId, str(current.host), current.pid,
                               expired ? "expired" : "process gone");
        }
    }
    Statement upsert(
        m_db, QStringLiteral("INSERT INTO leases (table_id, run_id, host, pid, acquired_at, expires_at) "
                             "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (table_id) DO UPDATE SET "
                             "run_id = excluded.run_id, host = excluded.host, pid = excluded.pid, "
                             "acquired_at = excluded.acquired_at, expires_at = excluded.expires_at"));
    upsert.bind(1, tableId)
        .bind(2, runId)
        .bind(3, host)
        .bind(4, pid)
        .bind(5, isoUtc(now))
        .bind(6, isoUtc(now.addMSecs(ttl.count())))
        .run();
    attempt.acquired = true;
    return attempt;
}

void LeaseStore::renew(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl) {
    Statement update(m_db, QStringLiteral("UPDATE leases SET expires_at = ?1 WHERE table_id = ?2 AND "
                                          "run_id = ?3"));
    update.bind(1, isoUtc(QDateTime::currentDateTimeUtc().addMSecs(ttl.count())))
        .bind(2, tableId)
        .bind(3, runId)
        .run();
    if (m_db.changes() == 0)
        throw Error(QStringLiteral("workspace %1: the lease of table %2 is no longer held by run %3")
                        .arg(m_db.location())
                        .arg(tableId)
                        .arg(runId));
}

void LeaseStore::release(qint64 tableId, qint64 runId) {
    Statement remove(m_db, QStringLiteral("DELETE FROM leases WHERE table_id = ?1 AND run_id = ?2"));
    remove.bind(1, tableId).bind(2, runId).run();
}

void LeaseStore::releaseAll(qint64 tableId) {
    Statement remove(m_db, QStringLiteral("DELETE FROM leases WHERE table_id = ?1"));
    remove.bind(1, tableId).run();
}

std::optional<RunnerHeartbeat> LeaseStore::runner() {
    Statement select(m_db, QStringLiteral("SELECT host, pid, version, started_at, last_beat_at, expires_at, "
                                          "last_firing_at, last_firing_schedule, last_firing_error "
                                          "FROM runner WHERE slot = 1"));
    if (!select.step())
        return std::nullopt;
    return RunnerHeartbeat{select.columnText(0),
                           select.columnInt64(1),
                           select.columnText(2),
                           readTime(select, 3),
                           readTime(select, 4),
                           readTime(select, 5),
                           FiringOutcome{readTime(select, 6), select.columnText(7), select.columnText(8)}};
}

RunnerClaim LeaseStore::claimRunner(const QDateTime &startedAt, std::chrono::milliseconds ttl,
                                    const QDateTime &staleBeat) {
    const QString host = hostName();
    const qint64 pid = QCoreApplication::applicationPid();
    Transaction transaction(m_db);
    m_db.lock(StoreLock::RunnerSlot);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    RunnerClaim claim;
    if (const std::optional<RunnerHeartbeat> current = runner()) {
        const bool sameHost = current->host == host;
        const bool own = sameHost && current->pid == pid;
        const bool expired = !current->expiresAt.isValid() || current->expiresAt <= now ||
                             (staleBeat.isValid() && current->lastBeatAt == staleBeat);
        // A pid only means something on its own host; elsewhere the heartbeat is all we trust.
        const bool dead = sameHost && !processAlive(current->pid);
        if (!own && !expired && !dead) {
            claim.holder = current;
            return claim; // rolls back: nothing written
        }
        if (!own) {
            claim.holder = current;
            storageLog()->warn("workspace {}: taking over from runner pid {} on host {} ({})",
                               str(m_db.location()), current->pid, str(current->host),
                               expired ? "heartbeat expired" : "process gone");
        }
    }
    Statement upsert(m_db,
                     QStringLiteral("INSERT INTO runner (slot, host, pid, version, started_at, last_beat_at, "
                                    "expires_at, last_firing_at, last_firing_schedule, last_firing_error) "
                                    "VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, NULL, NULL, NULL) ON CONFLICT (slot) "
                                    "DO UPDATE SET host = excluded.host, pid = excluded.pid, version = "
                                    "excluded.version, started_at = excluded.started_at, last_beat_at = "
                                    "excluded.last_beat_at, expires_at = excluded.expires_at, last_firing_at "
                                    "= NULL, last_firing_schedule = NULL, last_firing_error = NULL"));
    upsert.bind(1, host)
        .bind(2, pid)
        .bind(3, QStringLiteral(TIDEMARK_VERSION))
        .bind(4, isoUtc(startedAt.isValid() ? startedAt : now))
        .bind(5, isoUtc(now))
        .bind(6, isoUtc(now.addMSecs(ttl.count())))
        .run();
    transaction.commit();
    claim.acquired = true;
    return claim;
}

bool LeaseStore::beatRunner(std::chrono::milliseconds ttl, const FiringOutcome &lastFiring) {
    const QDateTime now = QDateTime::currentDateTimeUtc();
    Statement update(m_db, QStringLiteral("UPDATE runner SET last_beat_at = ?1, expires_at = ?2, "
                                          "last_firing_at = ?5, last_firing_schedule = ?6, "
                                          "last_firing_error = ?7 "
                                          "WHERE slot = 1 AND host = ?3 AND pid = ?4"));
    update.bind(1, isoUtc(now))
        .bind(2, isoUtc(now.addMSecs(ttl.count())))
        .bind(3, hostName())
        .bind(4, QCoreApplication::applicationPid())
        .bind(5, timeText(lastFiring.at))
        .bind(6, textOrNull(lastFiring.schedule))
        .bind(7, textOrNull(lastFiring.error))
        .run();
    return m_db.changes() > 0;
}

void LeaseStore::releaseRunner() {
    Statement remove(m_db, QStringLiteral("DELETE FROM runner WHERE slot = 1 AND host = ?1 AND pid = ?2"));
    remove.bind(1, hostName()).bind(2, QCoreApplication::applicationPid()).run();
}

} // namespace tidemark
