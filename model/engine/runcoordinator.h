// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"
#include "model/domain/watermarkrange.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace tidemark {

class RunHeartbeat;
class WorkerConnections;
class Workspace;

struct RunRequest {
    QList<qint64> tableIds; // empty = every table of the control table (paused ones end skipped)
    int concurrency = 2;
    bool dryRun = false;
    bool adopt = false; // CopyIteration::Options::adopt for every iteration of the run
    QString trigger = QStringLiteral("gui");
    QString schedule; // the schedule that fired the run (trigger "schedule"); empty otherwise
    // A range backfill (CopyIteration::Options::range) of every table of the run, recorded as
    // a run of kind "range_backfill".
    std::optional<WatermarkRangeText> range;
    // CopyIteration::Options::processSlots: this process's own cap (`serve --slots`).
    int processSlots = 0;
    // Handed to the workspace's runners (docs/design.md, "The runner fleet"): the coordinator
    // records the run and its queued iterations, then follows what the runners record; it runs
    // nothing itself. Its cancel asks the runners (Workspace::requestCancel).
    bool queued = false;
};

// Runs a "for each" over tables on its own thread pool, `concurrency` iterations at a time.
// Each worker thread keeps its own connections (workspace and connectors) across the run's
// iterations and closes them when the run ends: a run over hundreds of tables opens each
// database once per worker, not once per table. Lives on the thread that created it (the GUI thread); it
// never touches the database there and never blocks: setup, iterations and bookkeeping run on
// the pool, and results come back as queued signals carrying value types only. One failing
// table never stops the others. One run at a time per coordinator. While a run is alive its
// heartbeat thread beats in the workspace (Workspace::beatRun), so a process that dies
// mid-run leaves a run the next opener closes as interrupted. The run's setup first closes
// the dead runs of others (Workspace::repairInterruptedRuns) and refuses removed tables.
class RunCoordinator : public QObject {
    Q_OBJECT
public:
    explicit RunCoordinator(const QString &workspacePath, QObject *parent = nullptr);
    // Cancels and waits for the pool: destroy it once runFinished has come (the window closes
    // only then), or the GUI thread waits for the iterations to roll back.
    ~RunCoordinator() override;

    bool isRunning() const { return m_running; }
    qint64 currentRunId() const { return m_runId; }

    // Starts a run; returns false (and emits runFailedToStart) when one is running already.
    bool start(const RunRequest &request);
    // Records a queued run (RunRequest::queued) for the runners and returns its id, without
    // following it (`run --queue --no-wait`). Throws Error.
    static qint64 enqueue(const QString &workspacePath, RunRequest request);
    // Follows queued run `runId`, recorded by another process, as if this one had started it:
    // iterationChanged as its runners record them, runFinished at its end; cancel() asks the
    // runners. Returns false when a run is in progress already.
    bool followRun(qint64 runId);
    // Cooperative: running iterations roll back between batches, queued ones end cancelled.
    // A queued run's are asked to, on whichever runner holds them (within a second or so).
    void cancel();
    // Cancels one iteration of the current run (a schedule's per-iteration timeout), the same
    // cooperative way; the others go on.
    void cancelIteration(qint64 iterationId);
    // Blocks until the pool is idle (tests and the CLI's shutdown only).
    void waitForDone();

signals:
    // The run record exists; `iterations` are queued, one per table, in table-id order.
    void runStarted(qint64 runId, const QList<tidemark::IterationRecord> &iterations);
    void iterationChanged(const tidemark::IterationRecord &record);
    void iterationLogged(qint64 runId, qint64 tableId, const tidemark::LogLine &line);
    void runFinished(const tidemark::RunRecord &run);
    void runFailedToStart(const QString &error);

private:
    struct Follower;
    static std::pair<qint64, QList<IterationRecord>> prepareRun(Workspace &workspace,
                                                                const RunRequest &request);
    void cancelHere();
    void askOnBookkeeping(std::function<void(Workspace &)> ask);
    void follow();
    void onFollowed(const tidemark::RunRecord &run);
    void onRunPrepared(qint64 runId, const QList<tidemark::IterationRecord> &iterations,
                       const QString &error);
    void onIterationDone(const tidemark::IterationRecord &record);
    // One queued iteration, on a pool thread: copied, or closed as paused, cancelled or gone.
    static IterationRecord runQueued(WorkerConnections &connections, const IterationRecord &queued,
                                     std::atomic_bool &cancel, const RunRequest &request,
                                     RunCoordinator *coordinator);

    QString m_workspacePath;
    QThreadPool m_pool;        // iterations, `concurrency` at a time
    QThreadPool m_bookkeeping; // the run's setup and its final record, never behind an iteration
    std::shared_ptr<std::atomic_bool> m_cancel;
    QHash<qint64, std::shared_ptr<std::atomic_bool>> m_iterationCancels; // by iteration id
    RunRequest m_request;
    bool m_running = false;
    qint64 m_runId = 0;
    int m_pending = 0;
    QList<IterationRecord> m_results;
    std::shared_ptr<RunHeartbeat> m_heartbeat;        // alive from the run's record to its end
    std::shared_ptr<WorkerConnections> m_connections; // the workers', from the first iteration to the end
    // A queued run's: the bookkeeping thread's connection, the last record seen of each
    // iteration, and the look in flight.
    static constexpr int kFollowMs = 500;
    std::shared_ptr<Follower> m_follower;
    std::shared_ptr<std::atomic<qint64>> m_preparedRunId; // set on the bookkeeping thread
    QTimer m_followTimer;
    bool m_following = false;
    QHash<qint64, IterationRecord> m_seen;
};

} // namespace tidemark
