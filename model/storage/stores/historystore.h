// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

namespace tidemark {

class AuditStore;
class StoreDb;

// The run history: runs, their iterations, the iterations' log lines and rejected rows.
// Workspace's "runs and iterations" part states the contract.
class HistoryStore {
public:
    HistoryStore(StoreDb &db, AuditStore &audit)
        : m_db(db)
        , m_audit(audit) {}

    QHash<qint64, IterationRecord> lastFinishedIterations();
    qint64 finishedCopies(qint64 tableId); // Workspace::finishedCopies
    Trend trend(const TrendQuery &query);
    QString lastIterationStatus(qint64 tableId);
    QHash<qint64, QString> lastIterationStatuses();
    QHash<qint64, QString> lastIterationStatuses(const QList<qint64> &tableIds);
    IterationActivity iterationActivity(std::optional<qint64> afterIterationId);

    qint64 beginRun(const QString &trigger, int concurrency, bool dryRun, const QString &schedule,
                    const QString &kind, bool queued, const QString &range);
    QString runRange(qint64 runId); // empty: no range
    void beatRun(qint64 runId);
    void finishRun(qint64 runId, const QString &status);
    int repairInterruptedRuns(QList<qint64> *closedRunIds);
    bool completeCommittedIteration(const CommittedIteration &committed, qint64 byRunId);
    void addIterations(QList<IterationRecord> &records);
    // Inside the caller's transaction, or alone.
    void writeIteration(const IterationRecord &record);
    void appendLog(qint64 iterationId, const LogLine &line);
    void addReject(const RejectedRow &row);
    QList<RejectedRow> rejects(qint64 tableId);
    QList<RejectedRow> iterationRejects(qint64 iterationId, qint64 afterId, int limit);
    qint64 iterationRejectCount(qint64 iterationId);
    QList<RunRecord> runs(int limit, qint64 runId);
    QList<RunRecord> runPage(const RunPageQuery &query);
    QList<RunOverview> runOverviews(const RunPageQuery &query);
    qint64 runCount(const RunPageQuery &query);
    QList<LogLine> iterationLog(qint64 iterationId);
    QString runStatus(qint64 runId);

private:
    std::optional<IterationRecord> recordToComplete(const CommittedIteration &committed, bool lock);
    QList<RunRecord> selectPageRuns(const RunPageQuery &query);
    QList<RunRecord> readRunPage(const RunPageQuery &query);

    StoreDb &m_db;
    AuditStore &m_audit;
};

} // namespace tidemark
