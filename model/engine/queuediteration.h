// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"
#include "model/domain/watermarkrange.h"
#include "model/engine/connectorcache.h"

#include <QElapsedTimer>
#include <QString>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace tidemark {

class IterationObserver;
class Workspace;

// What each worker thread keeps open across its iterations: its workspace connection and its
// connectors (model/engine/connectorcache.h). A worker finds its own by its thread id, so no
// connection is ever used by two threads; they all close when the last iteration has let go of
// this object (a run's end, a runner's stop).
class WorkerConnections {
public:
    struct Worker {
        std::unique_ptr<Workspace> workspace;
        ConnectorCache connectors;
    };

    explicit WorkerConnections(const QString &path);
    ~WorkerConnections();

    // The calling thread's own; opens its workspace on first use. Throws Error.
    Worker &forThisThread();
    // After a failure that may have left the workspace connection in a bad state.
    void dropWorkspace();

private:
    const QString m_path;
    std::mutex m_mutex;
    std::map<std::thread::id, Worker> m_workers;
};

// Records a running iteration's progress in the workspace now and then (the window of another
// process follows a run from there): at once when the window's size becomes known, else at most
// once a second. The iteration records its start and its end itself.
class ProgressRecorder {
public:
    explicit ProgressRecorder(Workspace &workspace)
        : m_workspace(workspace) {}
    void record(const IterationRecord &record);

private:
    Workspace &m_workspace;
    qint64 m_recordedWindowRows = -1;
    qint64 m_recordedRowsRead = 0;
    QElapsedTimer m_sinceRecorded;
};

// How a queued iteration is to run, whoever took it: its run's own pool (RunCoordinator) or a
// runner that claimed it from the queue (FleetWorker).
struct QueuedIterationOptions {
    bool dryRun = false;
    bool adopt = false;
    std::optional<WatermarkRangeText> range;
    int processSlots = 0;
    const std::atomic_bool *cancel = nullptr;
    IterationObserver *observer = nullptr;
};

// One queued iteration on the calling thread: copied, or closed as paused, cancelled or gone.
// Throws only when the workspace itself fails.
IterationRecord runQueuedIteration(WorkerConnections::Worker &worker, const IterationRecord &queued,
                                   const QueuedIterationOptions &options);

} // namespace tidemark
