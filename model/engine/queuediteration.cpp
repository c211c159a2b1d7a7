// SPDX-License-Identifier: MIT
#include "model/engine/queuediteration.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/engine/copyiteration.h"
#include "model/storage/workspace.h"

namespace tidemark {

WorkerConnections::WorkerConnections(const QString &path)
    : m_path(path) {}

WorkerConnections::~WorkerConnections() = default;

WorkerConnections::Worker &WorkerConnections::forThisThread() {
    Worker *worker = nullptr;
    {
        const std::lock_guard lock(m_mutex);
        worker = &m_workers[std::this_thread::get_id()];
    }
    // Only this thread touches its entry (std::map never moves its elements).
    if (!worker->workspace)
        worker->workspace = Workspace::open(m_path);
    return *worker;
}

void WorkerConnections::dropWorkspace() {
    const std::lock_guard lock(m_mutex);
    m_workers[std::this_thread::get_id()].workspace.reset();
}

void ProgressRecorder::record(const IterationRecord &record) {
    if (record.status != IterationStatus::Running || record.id == 0)
        return;
    const bool sizeKnown = record.windowRows != m_recordedWindowRows;
    const bool moved = record.rowsRead != m_recordedRowsRead;
    if (!sizeKnown && !(moved && (!m_sinceRecorded.isValid() || m_sinceRecorded.hasExpired(1000))))
        return;
    try {
        m_workspace.updateIteration(record);
    } catch (const Error &error) {
        // Progress is a courtesy to other windows; the copy goes on.
        logger("core.engine")->debug("run {}: progress not recorded: {}", record.runId, str(error.message()));
    }
    m_recordedWindowRows = record.windowRows;
    m_recordedRowsRead = record.rowsRead;
    m_sinceRecorded.start();
}

IterationRecord runQueuedIteration(WorkerConnections::Worker &worker, const IterationRecord &queued,
                                   const QueuedIterationOptions &options) {
    IterationRecord result = queued;
    Workspace &workspace = *worker.workspace;
    const auto spec = workspace.table(queued.tableId);
    if (spec && !spec->active) {
        // Paused: skipped whether or not the run was cancelled meanwhile.
        return CopyIteration(workspace, *spec, queued, {}).run();
    }
    if (options.cancel && options.cancel->load()) {
        result.status = IterationStatus::Cancelled;
        result.error = QStringLiteral("cancelled before it started");
        result.waiting.clear();
        workspace.updateIteration(result);
    } else if (!spec && workspace.archivedTable(queued.tableId)) {
        result.status = IterationStatus::Skipped;
        result.error = QStringLiteral("table %1 was removed before its turn").arg(queued.tableId);
        result.waiting.clear();
        workspace.updateIteration(result);
    } else if (!spec) {
        result.status = IterationStatus::Failed;
        result.error = QStringLiteral("table %1 no longer exists").arg(queued.tableId);
        result.waiting.clear();
        workspace.updateIteration(result);
    } else {
        CopyIteration::Options copy;
        copy.dryRun = options.dryRun;
        copy.adopt = options.adopt;
        copy.range = options.range;
        copy.processSlots = options.processSlots;
        copy.cancel = options.cancel;
        copy.observer = options.observer;
        copy.connectors = &worker.connectors;
        result = CopyIteration(workspace, *spec, queued, copy).run();
    }
    return result;
}

} // namespace tidemark
