// SPDX-License-Identifier: MIT
#include "model/engine/runcoordinator.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/domain/sourcezone.h"
#include "model/engine/copyiteration.h"
#include "model/engine/queuediteration.h"
#include "model/storage/workspace.h"

#include <QPointer>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace tidemark {

// Beats for one run on its own thread and connection, never the GUI thread's nor an
// iteration's, so a long statement or a busy GUI cannot make a live run look dead. Each second it
// also asks whether another process asked an iteration of the run to stop (`run cancel`, a
// window elsewhere) and hands those to `cancelled`. Stopping (the destructor) wakes the thread
// at once; it is destroyed on the bookkeeping thread.
class RunHeartbeat {
public:
    using CancelHandler = std::function<void(const QList<qint64> &iterationIds)>;

    RunHeartbeat(const QString &path, qint64 runId, CancelHandler cancelled)
        : m_path(path)
        , m_runId(runId)
        , m_cancelled(std::move(cancelled)) {
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
        const std::chrono::milliseconds look = std::min(interval, std::chrono::milliseconds(kCancelLookMs));
        auto lastBeat = std::chrono::steady_clock::now();
        std::unique_ptr<Workspace> workspace;
        QList<qint64> handed;
        std::unique_lock lock(m_mutex);
        while (!m_wake.wait_for(lock, look, [this] { return m_stop; })) {
            lock.unlock();
            try {
                if (!workspace)
                    workspace = Workspace::open(m_path);
                if (std::chrono::steady_clock::now() - lastBeat >= interval) {
                    workspace->beatRun(m_runId);
                    lastBeat = std::chrono::steady_clock::now();
                }
                QList<qint64> asked = workspace->cancelRequested(m_runId);
                asked.removeIf([&handed](qint64 id) { return handed.contains(id); });
                if (!asked.isEmpty()) {
                    handed << asked;
                    m_cancelled(asked);
                }
            } catch (const Error &error) {
                // A missed beat is only a risk if several in a row miss; try a fresh connection.
                workspace.reset();
                logger("core.engine")->warn("run {}: heartbeat failed: {}", m_runId, str(error.message()));
            }
            lock.lock();
        }
    }
    static constexpr int kCancelLookMs = 1000;

    const QString m_path;
    const qint64 m_runId;
    const CancelHandler m_cancelled;
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
        , m_progress(workspace) {}

    void iterationChanged(const IterationRecord &record) override {
        m_progress.record(record);
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
    RunCoordinator *m_coordinator;
    ProgressRecorder m_progress;
};

IterationRecord queuedIteration(qint64 runId, const TableSpec &spec, bool forRunners) {
    IterationRecord record;
    record.runId = runId;
    record.tableId = spec.id;
    record.source = spec.sourceDisplay();
    record.target = spec.targetDisplay();
    record.status = IterationStatus::Queued;
    record.watermarkBefore = shownWatermark(spec.lastWatermark, spec.sourceTimezone);
    if (forRunners)
        record.waiting = QStringLiteral("waiting: no runner has taken it yet");
    return record;
}

// Whether the record of a run another process runs says something new.
bool moved(const IterationRecord &seen, const IterationRecord &now) {
    return seen.status != now.status || seen.rowsRead != now.rowsRead ||
           seen.rowsWritten != now.rowsWritten || seen.windowRows != now.windowRows ||
           seen.waiting != now.waiting || seen.runner != now.runner ||
           seen.watermarkAfter != now.watermarkAfter || seen.error != now.error;
}

} // namespace

// The workspace connection of the bookkeeping thread, for following a queued run and asking for
// its cancel: that pool's one thread never expires, so it is always the same thread.
struct RunCoordinator::Follower {
    std::unique_ptr<Workspace> workspace;

    Workspace &open(const QString &path) {
        if (!workspace)
            workspace = Workspace::open(path);
        return *workspace;
    }
};

std::pair<qint64, QList<IterationRecord>> RunCoordinator::prepareRun(Workspace &workspace,
                                                                     const RunRequest &request) {
    workspace.repairInterruptedRuns();
    QList<TableSpec> tables;
    if (request.tableIds.isEmpty()) {
        tables = workspace.tables();
    } else {
        for (qint64 id : request.tableIds) {
            const auto spec = workspace.table(id);
            if (spec) {
                tables << *spec;
            } else if (const auto removed = workspace.archivedTable(id)) {
                throw ValidationError(QStringLiteral("table %1 (%2) is removed; restore it first "
                                                     "(tidemark-cli table restore %1, or Undo)")
                                          .arg(id)
                                          .arg(removed->sourceDisplay()));
            } else {
                throw ValidationError(QStringLiteral("table %1 does not exist").arg(id));
            }
        }
    }
    // The runners copy (a range backfill too: its range is kept with the run); a dry run or an
    // adoption acts in the process that asks.
    if (request.queued && (request.dryRun || request.adopt))
        throw ValidationError(
            QStringLiteral("a %1 runs in the process that asks for it; it cannot be queued "
                           "for the runners")
                .arg(request.dryRun ? QStringLiteral("dry run") : QStringLiteral("run --adopt")));
    const qint64 runId =
        workspace.beginRun(request.trigger, request.concurrency, request.dryRun, request.schedule,
                           QString::fromLatin1(request.range ? kRunKindRangeBackfill : kRunKindCopy),
                           request.queued, request.range);
    QList<IterationRecord> iterations;
    for (const TableSpec &spec : tables)
        iterations << queuedIteration(runId, spec, request.queued);
    workspace.addIterations(iterations);
    if (request.queued && iterations.isEmpty())
        workspace.finishRunIfSettled(runId);
    return {runId, iterations};
}

qint64 RunCoordinator::enqueue(const QString &workspacePath, RunRequest request) {
    request.queued = true;
    return prepareRun(*Workspace::open(workspacePath), request).first;
}

RunCoordinator::RunCoordinator(const QString &workspacePath, QObject *parent)
    : QObject(parent)
    , m_workspacePath(workspacePath)
    , m_follower(std::make_shared<Follower>()) {
    qRegisterMetaType<tidemark::IterationRecord>();
    qRegisterMetaType<tidemark::RunRecord>();
    qRegisterMetaType<tidemark::LogLine>();
    qRegisterMetaType<QList<tidemark::IterationRecord>>();
    m_bookkeeping.setMaxThreadCount(1);
    m_bookkeeping.setExpiryTimeout(-1); // one thread for the run's life: the follower's connection is its own
    m_followTimer.setInterval(kFollowMs);
    connect(&m_followTimer, &QTimer::timeout, this, &RunCoordinator::follow);
}

// A queued run goes on on its runners: only what runs here is cancelled.
RunCoordinator::~RunCoordinator() {
    cancelHere();
    waitForDone();
    m_bookkeeping.start([follower = std::move(m_follower)]() mutable { follower.reset(); });
    m_bookkeeping.waitForDone();
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
    m_seen.clear();
    m_runId = 0;
    m_pool.setMaxThreadCount(m_request.concurrency);

    QPointer<RunCoordinator> self = this;
    const QString path = m_workspacePath;
    const RunRequest runRequest = m_request;
    m_preparedRunId = std::make_shared<std::atomic<qint64>>(0);
    m_bookkeeping.start([self, path, runRequest, prepared = m_preparedRunId] {
        qint64 runId = 0;
        QList<IterationRecord> iterations;
        std::shared_ptr<RunHeartbeat> heartbeat;
        QString error;
        try {
            auto workspace = Workspace::open(path);
            std::tie(runId, iterations) = prepareRun(*workspace, runRequest);
            prepared->store(runId);
            if (!runRequest.queued)
                heartbeat = std::make_shared<RunHeartbeat>(path, runId, [self](const QList<qint64> &ids) {
                    if (self)
                        QMetaObject::invokeMethod(
                            self,
                            [self, ids] {
                                if (!self)
                                    return;
                                logger("core.engine")
                                    ->info("run {}: cancel asked for from elsewhere ({} iteration(s))",
                                           self->m_runId, ids.size());
                                for (const qint64 id : ids)
                                    self->cancelIteration(id);
                            },
                            Qt::QueuedConnection);
                });
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

bool RunCoordinator::followRun(qint64 runId) {
    if (m_running)
        return false;
    m_running = true;
    m_request = RunRequest();
    m_request.queued = true;
    m_cancel = std::make_shared<std::atomic_bool>(false);
    m_iterationCancels.clear();
    m_results.clear();
    m_seen.clear();
    m_runId = runId;
    m_preparedRunId = std::make_shared<std::atomic<qint64>>(runId);
    m_followTimer.start();
    follow();
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
    if (m_request.queued && !iterations.isEmpty()) {
        for (const IterationRecord &queued : iterations)
            m_seen.insert(queued.id, queued);
        m_followTimer.start();
        return;
    }
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
    m_connections = std::make_shared<WorkerConnections>(m_workspacePath);
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

IterationRecord RunCoordinator::runQueued(WorkerConnections &connections, const IterationRecord &queued,
                                          std::atomic_bool &cancel, const RunRequest &request,
                                          RunCoordinator *coordinator) {
    try {
        WorkerConnections::Worker &worker = connections.forThisThread();
        ForwardingObserver observer(coordinator, *worker.workspace);
        QueuedIterationOptions options;
        options.dryRun = request.dryRun;
        options.adopt = request.adopt;
        options.range = request.range;
        options.processSlots = request.processSlots;
        options.cancel = &cancel;
        options.observer = &observer;
        return runQueuedIteration(worker, queued, options);
    } catch (const std::exception &e) {
        // Only the workspace itself failing gets here; the iteration never throws.
        IterationRecord result = queued;
        const auto *tidemarkError = dynamic_cast<const Error *>(&e);
        result.status = IterationStatus::Failed;
        result.error = tidemarkError ? tidemarkError->message() : QString::fromUtf8(e.what());
        logger("core.engine")->error("run {}, table {}: {}", result.runId, result.tableId, str(result.error));
        connections.dropWorkspace(); // the next iteration on this thread opens it afresh
        return result;
    }
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
    cancelHere();
    // Asked on the bookkeeping thread, after the run's record: its id is known there even when
    // the cancel comes while it is being recorded.
    if (m_request.queued && m_running)
        askOnBookkeeping([prepared = m_preparedRunId](Workspace &workspace) {
            if (const qint64 runId = prepared->load(); runId > 0)
                workspace.requestCancel(runId);
        });
}

void RunCoordinator::cancelHere() {
    if (m_cancel)
        m_cancel->store(true);
    for (const auto &cancel : std::as_const(m_iterationCancels))
        cancel->store(true);
}

void RunCoordinator::cancelIteration(qint64 iterationId) {
    if (m_request.queued && m_running) {
        askOnBookkeeping(
            [iterationId](Workspace &workspace) { workspace.requestIterationCancel(iterationId); });
        return;
    }
    if (const auto cancel = m_iterationCancels.value(iterationId))
        cancel->store(true);
}

void RunCoordinator::askOnBookkeeping(std::function<void(Workspace &)> ask) {
    m_bookkeeping.start([follower = m_follower, path = m_workspacePath, ask = std::move(ask)] {
        try {
            ask(follower->open(path));
        } catch (const Error &error) {
            follower->workspace.reset();
            logger("core.engine")->error("cannot ask the runners: {}", str(error.message()));
        }
    });
}

// A queued run is followed from the workspace: what its runners record, twice a second.
void RunCoordinator::follow() {
    if (m_following || !m_running)
        return;
    m_following = true;
    QPointer<RunCoordinator> self = this;
    m_bookkeeping.start([self, follower = m_follower, path = m_workspacePath, runId = m_runId] {
        RunRecord run;
        try {
            RunPageQuery query;
            query.runId = runId;
            query.limit = 1;
            const QList<RunRecord> runs = follower->open(path).runPage(query);
            if (!runs.isEmpty())
                run = runs.first();
        } catch (const Error &error) {
            follower->workspace.reset(); // the next look opens it afresh
            logger("core.engine")->warn("run {}: cannot follow it: {}", runId, str(error.message()));
        }
        if (self)
            QMetaObject::invokeMethod(
                self,
                [self, run] {
                    if (self)
                        self->onFollowed(run);
                },
                Qt::QueuedConnection);
    });
}

void RunCoordinator::onFollowed(const RunRecord &run) {
    m_following = false;
    if (run.id == 0 || !m_running)
        return;
    for (const IterationRecord &record : run.iterations) {
        const auto seen = m_seen.constFind(record.id);
        if (seen == m_seen.cend() || moved(*seen, record)) {
            m_seen.insert(record.id, record);
            emit iterationChanged(record);
        }
    }
    if (run.status == QLatin1String("running"))
        return;
    m_followTimer.stop();
    m_running = false;
    m_results = run.iterations;
    emit runFinished(run);
}

void RunCoordinator::waitForDone() {
    m_followTimer.stop();
    m_pool.waitForDone();
    m_bookkeeping.waitForDone();
}

} // namespace tidemark
