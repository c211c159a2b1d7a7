// SPDX-License-Identifier: MIT
#include "model/engine/runcoordinator.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/domain/sourcezone.h"
#include "model/engine/connectorcache.h"
#include "model/engine/copyiteration.h"
#include "model/storage/workspace.h"

#include <QElapsedTimer>
#include <QPointer>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace tidemark {

// Beats for one run on its own thread and connection, never the GUI thread's nor an
// iteration's, so a long statement or a busy GUI cannot make a live run look dead. Stopping
// (the destructor) wakes the thread at once; it is destroyed on the bookkeeping thread.
class RunHeartbeat {
public:
    RunHeartbeat(const QString &path, qint64 runId)
        : m_path(path)
        , m_runId(runId) {
        m_thread = std::thread([this] { beat(); });
    }
    ~RunHeartbeat() {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }
    RunHeartbeat(const RunHeartbeat &) = delete;
    RunHeartbeat &operator=(const RunHeartbeat &) = delete;

private:
    void beat() {
        const std::chrono::milliseconds interval(Workspace::runHeartbeatIntervalMs());
        std::unique_ptr<Workspace> workspace;
        std::unique_lock lock(m_mutex);
        while (!m_wake.wait_for(lock, interval, [this] { return m_stop; })) {
            lock.unlock();
            try {
                if (!workspace)
                    workspace = Workspace::open(m_path);
                workspace->beatRun(m_runId);
            } catch (const Error &error) {
                // A missed beat is only a risk if several in a row miss; try a fresh connection.
                workspace.reset();
                logger("core.engine")->warn("run {}: heartbeat failed: {}", m_runId, str(error.message()));
            }
            lock.lock();
        }
    }

    const QString m_path;
    const qint64 m_runId;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread;
};

// A run's iterations, taken one at a time by its pool tasks (next: the first not taken yet).
struct IterationQueue {
    QList<IterationRecord> iterations;
    QList<std::shared_ptr<std::atomic_bool>> cancels; // iterations' cancel flags, in their order
    std::atomic<qsizetype> next{0};
};

// What each worker thread keeps open across one run's iterations: its workspace connection and
// its connectors (model/engine/connectorcache.h). A worker finds its own by its thread id, so
// no connection is ever used by two threads; they all close when the run ends and the last
// iteration has let go of this object.
class RunConnections {
public:
    struct Worker {
        std::unique_ptr<Workspace> workspace;
        ConnectorCache connectors;
    };

    explicit RunConnections(const QString &path)
        : m_path(path) {}

    // The calling thread's own; opens its workspace on first use. Throws Error.
    Worker &forThisThread() {
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

    // After a failure that may have left the workspace connection in a bad state.
    void dropWorkspace() {
        const std::lock_guard lock(m_mutex);
        m_workers[std::this_thread::get_id()].workspace.reset();
    }

private:
    const QString m_path;
    std::mutex m_mutex;
    std::map<std::thread::id, Worker> m_workers;
};

namespace {

// How long a run's closing checkpoint waits for readers (holding up writers meanwhile).
constexpr int kCheckpointWaitMs = 250;

// Forwards an iteration's progress to the coordinator's thread as queued calls carrying copies,
// and records it in the workspace now and then (the window of another process follows a run
// from there): at once when the window's size becomes known, else at most once a second.
class ForwardingObserver : public IterationObserver {
public:
    ForwardingObserver(RunCoordinator *coordinator, Workspace &workspace)
        : m_coordinator(coordinator)
        , m_workspace(workspace) {}

    void iterationChanged(const IterationRecord &record) override {
        recordProgress(record);
        QPointer<RunCoordinator> coordinator = m_coordinator;
        QMetaObject::invokeMethod(
            m_coordinator,
            [coordinator, record] {
                if (coordinator)
                    emit coordinator->iterationChanged(record);
            },
            Qt::QueuedConnection);
    }

    void logged(const IterationRecord &record, const LogLine &line) override {
        QPointer<RunCoordinator> coordinator = m_coordinator;
        const qint64 runId = record.runId;
        const qint64 tableId = record.tableId;
        QMetaObject::invokeMethod(
            m_coordinator,
            [coordinator, runId, tableId, line] {
                if (coordinator)
                    emit coordinator->iterationLogged(runId, tableId, line);
            },
            Qt::QueuedConnection);
    }

private:
    void recordProgress(const IterationRecord &record) {
        // The iteration records its start and its end itself.
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
            logger("core.engine")
                ->debug("run {}: progress not recorded: {}", record.runId, str(error.message()));
        }
        m_recordedWindowRows = record.windowRows;
        m_recordedRowsRead = record.rowsRead;
        m_sinceRecorded.start();
    }

    RunCoordinator *m_coordinator;
    Workspace &m_workspace;
    qint64 m_recordedWindowRows = -1;
    qint64 m_recordedRowsRead = 0;
    QElapsedTimer m_sinceRecorded;
};

IterationRecord queuedIteration(qint64 runId, const TableSpec &spec) {
    IterationRecord record;
    record.runId = runId;
    record.tableId = spec.id;
    record.source = spec.sourceDisplay();
    record.target = spec.targetDisplay();
    record.status = IterationStatus::Queued;
    record.watermarkBefore = shownWatermark(spec.lastWatermark, spec.sourceTimezone);
    return record;
}

} // namespace

RunCoordinator::RunCoordinator(const QString &workspacePath, QObject *parent)
    : QObject(parent)
    , m_workspacePath(workspacePath) {
    qRegisterMetaType<tidemark::IterationRecord>();
    qRegisterMetaType<tidemark::RunRecord>();
    qRegisterMetaType<tidemark::LogLine>();
    qRegisterMetaType<QList<tidemark::IterationRecord>>();
    m_bookkeeping.setMaxThreadCount(1);
}

RunCoordinator::~RunCoordinator() {
    cancel();
    waitForDone();
}

bool RunCoordinator::start(const RunRequest &request) {
    if (m_running) {
        emit runFailedToStart(tr("a run is in progress already"));
        return false;
    }
    m_running = true;
    m_request = request;
    m_request.concurrency = qMax(1, request.concurrency);
    m_cancel = std::make_shared<std::atomic_bool>(false);
    m_iterationCancels.clear();
    m_results.clear();
    m_runId = 0;
    m_pool.setMaxThreadCount(m_request.concurrency);

    QPointer<RunCoordinator> self = this;
    const QString path = m_workspacePath;
    const RunRequest runRequest = m_request;
    m_bookkeeping.start([self, path, runRequest] {
        qint64 runId = 0;
        QList<IterationRecord> iterations;
        std::shared_ptr<RunHeartbeat> heartbeat;
        QString error;
        try {
            auto workspace = Workspace::open(path);
            workspace->repairInterruptedRuns();
            QList<TableSpec> tables;
            if (runRequest.tableIds.isEmpty()) {
                tables = workspace->tables();
            } else {
                for (qint64 id : runRequest.tableIds) {
                    const auto spec = workspace->table(id);
                    if (spec) {
                        tables << *spec;
                    } else if (const auto removed = workspace->archivedTable(id)) {
                        throw ValidationError(QStringLiteral("table %1 (%2) is removed; restore it first "
                                                             "(tidemark-cli table restore %1, or Undo)")
                                                  .arg(id)
                                                  .arg(removed->sourceDisplay()));
                    } else {
                        throw ValidationError(QStringLiteral("table %1 does not exist").arg(id));
                    }
                }
            }
            runId = workspace->beginRun(
                runRequest.trigger, runRequest.concurrency, runRequest.dryRun, runRequest.schedule,
                QString::fromLatin1(runRequest.range ? kRunKindRangeBackfill : kRunKindCopy));
            heartbeat = std::make_shared<RunHeartbeat>(path, runId);
            for (const TableSpec &spec : tables)
                iterations << queuedIteration(runId, spec);
            workspace->addIterations(iterations);
        } catch (const std::exception &e) {
            const auto *tidemarkError = dynamic_cast<const Error *>(&e);
            error = tidemarkError ? tidemarkError->message() : QString::fromUtf8(e.what());
        }
        if (self)
            QMetaObject::invokeMethod(
                self,
                [self, runId, iterations, error, heartbeat] {
                    if (!self)
                        return;
                    self->m_heartbeat = heartbeat;
                    self->onRunPrepared(runId, iterations, error);
                },
                Qt::QueuedConnection);
    });
    return true;
}

void RunCoordinator::onRunPrepared(qint64 runId, const QList<IterationRecord> &iterations,
                                   const QString &error) {
    if (!error.isEmpty()) {
        m_running = false;
        emit runFailedToStart(error);
        return;
    }
    m_runId = runId;
    m_pending = int(iterations.size());
    // One allocation: grown one result at a time, 10,000 records were copied at each growth.
    m_results.reserve(iterations.size());
    emit runStarted(runId, iterations);
    if (iterations.isEmpty()) {
        onIterationDone(IterationRecord());
        return;
    }

    // Each of the `concurrency` pool tasks takes the next iteration not taken yet until none is
    // left: one pool task per iteration cost the GUI thread some 40 ms at the start of a run of
    // 10,000 tables.
    auto queue = std::make_shared<IterationQueue>();
    queue->iterations = iterations;
    queue->cancels.reserve(iterations.size());
    m_iterationCancels.reserve(iterations.size());
    for (const IterationRecord &queued : iterations) {
        // Each iteration has its own flag, so one can be cancelled alone; cancel() sets them all.
        const auto cancel = std::make_shared<std::atomic_bool>(m_cancel->load());
        m_iterationCancels.insert(queued.id, cancel);
        queue->cancels << cancel;
    }
    QPointer<RunCoordinator> self = this;
    m_connections = std::make_shared<RunConnections>(m_workspacePath);
    const qsizetype workers = std::min<qsizetype>(m_pool.maxThreadCount(), iterations.size());
    for (qsizetype w = 0; w < workers; ++w) {
        m_pool.start(
            [self, connections = m_connections, queue, request = m_request, coordinator = this]() mutable {
                const qsizetype count = queue->iterations.size();
                for (qsizetype taken = queue->next++; taken < count;) {
                    const IterationRecord result = runQueued(*connections, queue->iterations.at(taken),
                                                             *queue->cancels.at(taken), request, coordinator);
                    const qsizetype following = queue->next++;
                    // This task's last: let go before reporting, so the run's end (which follows
                    // the last report) closes the connections.
                    if (following >= count)
                        connections.reset();
                    if (self)
                        QMetaObject::invokeMethod(
                            self,
                            [self, result] {
                                if (self)
                                    self->onIterationDone(result);
                            },
                            Qt::QueuedConnection);
                    taken = following;
                }
            });
    }
}

IterationRecord RunCoordinator::runQueued(RunConnections &connections, const IterationRecord &queued,
                                          std::atomic_bool &cancel, const RunRequest &request,
                                          RunCoordinator *coordinator) {
    IterationRecord result = queued;
    try {
        RunConnections::Worker &worker = connections.forThisThread();
        Workspace *workspace = worker.workspace.get();
        const auto spec = workspace->table(queued.tableId);
        if (spec && !spec->active) {
            // Paused: skipped whether or not the run was cancelled meanwhile.
            result = CopyIteration(*workspace, *spec, queued, {}).run();
        } else if (cancel.load()) {
            result.status = IterationStatus::Cancelled;
            result.error = QStringLiteral("cancelled before it started");
            workspace->updateIteration(result);
        } else if (!spec && workspace->archivedTable(queued.tableId)) {
            result.status = IterationStatus::Skipped;
            result.error = QStringLiteral("table %1 was removed before its turn").arg(queued.tableId);
            workspace->updateIteration(result);
        } else if (!spec) {
            result.status = IterationStatus::Failed;
            result.error = QStringLiteral("table %1 no longer exists").arg(queued.tableId);
            workspace->updateIteration(result);
        } else {
            ForwardingObserver observer(coordinator, *workspace);
            CopyIteration::Options options;
            options.dryRun = request.dryRun;
            options.adopt = request.adopt;
            options.range = request.range;
            options.processSlots = request.processSlots;
            options.cancel = &cancel;
            options.observer = &observer;
            options.connectors = &worker.connectors;
            result = CopyIteration(*workspace, *spec, queued, options).run();
        }
    } catch (const std::exception &e) {
        // Only the workspace itself failing gets here; the iteration never throws.
        const auto *tidemarkError = dynamic_cast<const Error *>(&e);
        result.status = IterationStatus::Failed;
        result.error = tidemarkError ? tidemarkError->message() : QString::fromUtf8(e.what());
        logger("core.engine")->error("run {}, table {}: {}", result.runId, result.tableId, str(result.error));
        connections.dropWorkspace(); // the next iteration on this thread opens it afresh
    }
    return result;
}

void RunCoordinator::onIterationDone(const IterationRecord &record) {
    if (record.id != 0) {
        m_results << record;
        emit iterationChanged(record);
        --m_pending;
    }
    if (m_pending > 0)
        return;

    std::sort(m_results.begin(), m_results.end(),
              [](const IterationRecord &a, const IterationRecord &b) { return a.id < b.id; });
    QList<IterationStatus> statuses;
    for (const IterationRecord &result : m_results)
        statuses << result.status;
    const QString status = deriveRunStatus(statuses, m_request.dryRun);

    QPointer<RunCoordinator> self = this;
    const QString path = m_workspacePath;
    const qint64 runId = m_runId;
    m_bookkeeping.start([self, path, runId, status, heartbeat = std::move(m_heartbeat),
                         connections = std::move(m_connections)]() mutable {
        heartbeat.reset();   // stops beating here, off the GUI thread
        connections.reset(); // closes the workers' connections: every iteration has let go
        RunRecord run;
        try {
            auto workspace = Workspace::open(path);
            workspace->finishRun(runId, status);
            const QList<RunRecord> runs = workspace->runs(1, runId);
            if (!runs.isEmpty())
                run = runs.first();
        } catch (const Error &error) {
            logger("core.engine")->error("run {}: could not record its end: {}", runId, str(error.message()));
        }
        if (self)
            QMetaObject::invokeMethod(
                self,
                [self, run, status, runId] {
                    if (!self)
                        return;
                    RunRecord finished = run;
                    if (finished.id == 0) {
                        finished.id = runId;
                        finished.iterations = self->m_results;
                        finished.kind =
                            QString::fromLatin1(self->m_request.range ? kRunKindRangeBackfill : kRunKindCopy);
                    }
                    finished.status = status;
                    self->m_running = false;
                    emit self->runFinished(finished);
                },
                Qt::QueuedConnection);
        // A run's start and end each write a row in every table's pages of the iteration
        // indexes (10,000 tables: ~300 MB of log); copied back now, off the GUI thread, while the
        // window reads what the run left, rather than by whoever closes the workspace last.
        try {
            if (!Workspace::checkpoint(path, kCheckpointWaitMs))
                logger("core.engine")->debug("run {}: readers kept part of the workspace log", runId);
        } catch (const Error &error) {
            logger("core.engine")
                ->warn("run {}: could not checkpoint the workspace: {}", runId, str(error.message()));
        }
    });
}

void RunCoordinator::cancel() {
    if (m_cancel)
        m_cancel->store(true);
    for (const auto &cancel : std::as_const(m_iterationCancels))
        cancel->store(true);
}

void RunCoordinator::cancelIteration(qint64 iterationId) {
    if (const auto cancel = m_iterationCancels.value(iterationId))
        cancel->store(true);
}

void RunCoordinator::waitForDone() {
    m_pool.waitForDone();
    m_bookkeeping.waitForDone();
}

} // namespace tidemark
