// SPDX-License-Identifier: MIT
#include "model/storage/stores/leasestore.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/timestamp.h"
#include "model/storage/stores/storerows.h"

#include <QCoreApplication>
#include <QHash>

#include <algorithm>

namespace tidemark {

LeaseAttempt LeaseStore::take(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl, bool caps,
                              int processSlots) {
    const QString host = hostName();
    const qint64 pid = QCoreApplication::applicationPid();
    LeaseAttempt attempt;
    m_db.lock(StoreLock::Lease, tableId);
    // Read after the lock: a take that waited for it (its holder stopped inside its transaction)
    // judges expiry as of now.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    Statement select(m_db, QStringLiteral("SELECT run_id, host, pid, expires_at, token FROM leases "
                                          "WHERE table_id = ?1"));
    select.bind(1, tableId);
    if (select.step()) {
        Lease current{tableId,
                      select.columnInt64(0),
                      select.columnText(1),
                      select.columnInt64(2),
                      readTime(select, 3),
                      select.columnInt64(4)};
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
    if (caps) {
        attempt.waiting = fullCap(tableId, processSlots);
        if (!attempt.waiting.isEmpty()) {
            attempt.holder.reset();
            return attempt; // nothing written
        }
    }
    attempt.token = drawToken();
    // And the lease's times after the slots' lock too: one written already expired would free
    // its slot to every take queued behind it.
    const QDateTime acquired = QDateTime::currentDateTimeUtc();
    Statement upsert(
        m_db,
        QStringLiteral("INSERT INTO leases (table_id, run_id, host, pid, acquired_at, expires_at, token) "
                       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (table_id) DO UPDATE SET "
                       "run_id = excluded.run_id, host = excluded.host, pid = excluded.pid, "
                       "acquired_at = excluded.acquired_at, expires_at = excluded.expires_at, "
                       "token = excluded.token"));
    upsert.bind(1, tableId)
        .bind(2, runId)
        .bind(3, host)
        .bind(4, pid)
        .bind(5, isoUtc(acquired))
        .bind(6, isoUtc(acquired.addMSecs(ttl.count())))
        .bind(7, attempt.token)
        .run();
    attempt.acquired = true;
    return attempt;
}

// The first full cap `tableId` falls under, as a reason to wait; empty when there is room. Counts
// the live leases of runs' iterations (a backfill's or an edit's short lease takes no slot) under
// one lock per workspace, so two processes never both see the last free slot. A lease that
// expired, or whose process is gone on this host, frees its slot as it frees its table.
QString LeaseStore::fullCap(qint64 tableId, int processSlots) {
    const int workspaceCap = maxConcurrency();
    QList<std::pair<QString, int>> connectionCaps; // the table's capped connections
    {
        Statement select(m_db,
                         QStringLiteral("SELECT c.name, c.max_connections FROM tables t JOIN connections c "
                                        "ON c.name = t.source_connection OR c.name = t.target_connection "
                                        "WHERE t.id = ?1 AND c.max_connections > 0 ORDER BY c.name"));
        select.bind(1, tableId);
        while (select.step())
            connectionCaps.append({select.columnText(0), int(select.columnInt64(1))});
    }
    if (workspaceCap <= 0 && processSlots <= 0 && connectionCaps.isEmpty())
        return QString();
    m_db.lock(StoreLock::Slots);
    const QString host = hostName();
    const qint64 pid = QCoreApplication::applicationPid();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    int running = 0;
    int ownRunning = 0;
    QHash<QString, int> byConnection;
    Statement live(m_db,
                   QStringLiteral("SELECT l.host, l.pid, l.expires_at, t.source_connection, "
                                  "t.target_connection FROM leases l LEFT JOIN tables t ON t.id = l.table_id "
                                  "WHERE l.table_id <> ?1 AND l.run_id <> 0"));
    live.bind(1, tableId);
    while (live.step()) {
        const QString leaseHost = live.columnText(0);
        const qint64 leasePid = live.columnInt64(1);
        const QDateTime expiresAt = readTime(live, 2);
        if (!expiresAt.isValid() || expiresAt <= now || (leaseHost == host && !processAlive(leasePid)))
            continue;
        ++running;
        if (leaseHost == host && leasePid == pid)
            ++ownRunning;
        const QString source = live.columnText(3);
        const QString target = live.columnText(4);
        ++byConnection[source];
        if (target != source)
            ++byConnection[target];
    }
    if (processSlots > 0 && ownRunning >= processSlots)
        return QStringLiteral("waiting: this process has %1 of %2 slots in use")
            .arg(ownRunning)
            .arg(processSlots);
    if (workspaceCap > 0 && running >= workspaceCap)
        return QStringLiteral("waiting: the workspace has %1 of %2 iterations running")
            .arg(running)
            .arg(workspaceCap);
    for (const auto &[name, cap] : connectionCaps) {
        const int used = byConnection.value(name);
        if (used >= cap)
            return QStringLiteral("waiting: connection %1 has %2 of %3 in use").arg(name).arg(used).arg(cap);
    }
    return QString();
}

int LeaseStore::maxConcurrency() {
    Statement select(m_db, QStringLiteral(R"(SELECT value FROM meta WHERE "key" = 'max_concurrency')"));
    return select.step() ? select.columnText(0).toInt() : 0;
}

void LeaseStore::setMaxConcurrency(int cap) {
    if (cap < 0)
        throw ValidationError(QStringLiteral("workspace %1: a max concurrency of %2 is not a number of "
                                             "iterations (0 for none)")
                                  .arg(m_db.location())
                                  .arg(cap));
    Transaction transaction(m_db);
    Statement remove(m_db, QStringLiteral(R"(DELETE FROM meta WHERE "key" = 'max_concurrency')"));
    remove.run();
    if (cap > 0) {
        Statement insert(m_db,
                         QStringLiteral(R"(INSERT INTO meta ("key", value) VALUES ('max_concurrency', ?1))"));
        insert.bind(1, QString::number(cap)).run();
    }
    transaction.commit();
}

// Fenced: only the acquisition that drew `token` renews it, so a run whose lease was taken over
// (even by itself, on another thread or machine) learns so here. An expired lease is not simply
// extended: its slot was free meanwhile, so it is taken again under the caps, as take() would.
LeaseRenewal LeaseStore::renew(qint64 tableId, qint64 token, std::chrono::milliseconds ttl) {
    Transaction transaction(m_db);
    m_db.lock(StoreLock::Lease, tableId);
    Statement select(m_db,
                     QStringLiteral("SELECT expires_at FROM leases WHERE table_id = ?1 AND token = ?2"));
    select.bind(1, tableId).bind(2, token);
    if (!select.step())
        return LeaseRenewal::TakenOver;
    const QDateTime expiresAt = readTime(select, 0);
    select.reset();
    if (!expiresAt.isValid() || expiresAt <= QDateTime::currentDateTimeUtc()) {
        if (!fullCap(tableId, 0).isEmpty())
            return LeaseRenewal::SlotLost;
        storageLog()->info("table {}: its lease (token {}) had expired; taken again, a slot being free",
                           tableId, token);
    }
    Statement update(m_db, QStringLiteral("UPDATE leases SET expires_at = ?1 WHERE table_id = ?2 AND "
                                          "token = ?3"));
    update.bind(1, isoUtc(QDateTime::currentDateTimeUtc().addMSecs(ttl.count())))
        .bind(2, tableId)
        .bind(3, token)
        .run();
    transaction.commit();
    return LeaseRenewal::Renewed;
}

// The next fencing token: above every token drawn before, and never below the clock in
// microseconds, so a workspace restored from an older backup still draws tokens above those its
// targets have seen. The last token's row is locked until the caller's transaction ends.
qint64 LeaseStore::drawToken() {
    Statement select(m_db, QStringLiteral(R"(SELECT value FROM meta WHERE "key" = 'last_lease_token')") +
                               m_db.forUpdate());
    const qint64 last = select.step() ? select.columnText(0).toLongLong() : 0;
    select.reset();
    const qint64 token = std::max(last + 1, QDateTime::currentMSecsSinceEpoch() * 1000);
    Statement update(m_db,
                     QStringLiteral(R"(INSERT INTO meta ("key", value) VALUES ('last_lease_token', ?1) )"
                                    R"(ON CONFLICT ("key") DO UPDATE SET value = excluded.value)"));
    update.bind(1, QString::number(token)).run();
    return token;
}

void LeaseStore::release(qint64 tableId, qint64 runId) {
    Statement remove(m_db,
                     QStringLiteral("DELETE FROM leases WHERE table_id = ?1 AND run_id = ?2 AND host = ?3 "
                                    "AND pid = ?4"));
    remove.bind(1, tableId)
        .bind(2, runId)
        .bind(3, hostName())
        .bind(4, QCoreApplication::applicationPid())
        .run();
}

void LeaseStore::releaseByToken(qint64 tableId, qint64 token) {
    Statement remove(m_db, QStringLiteral("DELETE FROM leases WHERE table_id = ?1 AND token = ?2"));
    remove.bind(1, tableId).bind(2, token).run();
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
