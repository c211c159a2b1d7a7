// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

namespace tidemark {

class HistoryStore;
class StoreDb;

// The queue the runners of a workspace share (docs/design.md, "The runner fleet"): the live
// runners' rows, the claim of queued runs' iterations, their takeover when a runner dies, the
// close of a run by whoever ends its last iteration, cancel requests, and the one row per
// schedule firing. Workspace's "runner fleet" part states the contract.
class QueueStore {
public:
    QueueStore(StoreDb &db, HistoryStore &history)
        : m_db(db)
        , m_history(history) {}

    void beatRunner(int slotCount, const QDateTime &startedAt, std::chrono::milliseconds ttl);
    void leave();
    QList<FleetRunner> runners();
    QList<IterationRecord> claim(int count);
    int requeueOrphans();
    QString requeue(qint64 iterationId, const QString &why);
    QHash<qint64, qint64> claimedByThisRunner();
    QString finishRunIfSettled(qint64 runId);
    CancelRequest requestCancel(qint64 runId);
    void requestIterationCancel(qint64 iterationId);
    QList<qint64> cancelRequested(qint64 runId);
    QList<qint64> cancelRequestedOfThisRunner();
    bool claimFiring(const QString &schedule, const QDateTime &at);

private:
    std::optional<qint64> putBack(qint64 iterationId, const QString &runner, const QString &why);

    StoreDb &m_db;
    HistoryStore &m_history;
};

} // namespace tidemark
