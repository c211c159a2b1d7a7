// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

namespace tidemark {

class StoreDb;

// Leases (one run copies a table at a time) and the heartbeat of the workspace's one active
// runner. Workspace's "leases" and "runner's heartbeat" parts state the contract.
class LeaseStore {
public:
    explicit LeaseStore(StoreDb &db)
        : m_db(db) {}
    // Inside the caller's write transaction; writes nothing when the lease is refused. With
    // `caps`, also refused (LeaseAttempt::waiting) while a cap the table falls under is full.
    LeaseAttempt take(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl, bool caps = false,
                      int processSlots = 0);
    LeaseRenewal renew(qint64 tableId, qint64 token, std::chrono::milliseconds ttl);
    void release(qint64 tableId, qint64 runId);
    void releaseByToken(qint64 tableId, qint64 token);
    void releaseAll(qint64 tableId); // whoever holds it: the table leaves

    RunnerClaim claimRunner(const QDateTime &startedAt, std::chrono::milliseconds ttl,
                            const QDateTime &staleBeat);
    bool beatRunner(std::chrono::milliseconds ttl, const FiringOutcome &lastFiring);
    void releaseRunner();
    std::optional<RunnerHeartbeat> runner();

    int maxConcurrency();
    void setMaxConcurrency(int cap);

private:
    QString fullCap(qint64 tableId, int processSlots);
    qint64 drawToken();
    StoreDb &m_db;
};

} // namespace tidemark
