// SPDX-License-Identifier: MIT
#include "model/schedule/fleetworker.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/runnerid.h"
#include "model/engine/copyiteration.h"
#include "model/engine/queuediteration.h"
#include "model/storage/workspace.h"

#include <QElapsedTimer>
#include <QPointer>

namespace tidemark {
namespace {

// How often a runner looks at the queue (and at most how late it sees a cancel).
constexpr int kLookMs = 500;

auto fleetLog() {
    return logger("core.schedule");
}

std::chrono::milliseconds fleetTtl() {
    return std::chrono::milliseconds(qint64(Workspace::runnerHeartbeatIntervalMs()) *
                                     Workspace::kRunnerBeatsToExpire);
}

// Records a claimed iteration's progress, so every window and `run --queue` follows it.
class ProgressObserver : public IterationObserver {
public:
    explicit ProgressObserver(Workspace &workspace)
        : m_progress(workspace) {}
    void iterationChanged(const IterationRecord &record) override { m_progress.record(record); }

private:
    ProgressRecorder m_progress;
};

// Runs `call(worker)` on the worker's own thread, unless it is gone by then.
template <typename Call> void onWorkerThread(const QPointer<FleetWorker> &worker, Call call) {
    if (worker)
        QMetaObject::invokeMethod(
            worker,
            [worker, call] {
                if (worker)
                    call(*worker);
            },
            Qt::QueuedConnection);
}

} // namespace

// The bookkeeping thread's connection (that pool's one thread never expires) and when it last
// renewed this runner's row.
struct FleetWorker::Looker {
    std::unique_ptr<Workspace> workspace;
    QElapsedTimer sinceBeat;

    Workspace &open(const QString &path) {
        if (!workspace)
            workspace = Workspace::open(path);
        return *workspace;
    }
};

FleetWorker::FleetWorker(const QString &workspacePath, int slotCount, QObject *parent)
    : QObject(parent)
    , m_path(workspacePath)
    , m_slots(qMax(1, slotCount))
    , m_startedAt(QDateTime::currentDateTimeUtc())
    , m_looker(std::make_shared<Looker>())
    , m_connections(std::make_shared<WorkerConnections>(workspacePath)) {
    qRegisterMetaType<tidemark::IterationRecord>();
    qRegisterMetaType<QList<tidemark::IterationRecord>>();
    m_pool.setMaxThreadCount(m_slots);
    m_bookkeeping.setMaxThreadCount(1);
    m_bookkeeping.setExpiryTimeout(-1);
    m_lookTimer.setInterval(kLookMs);
    connect(&m_lookTimer, &QTimer::timeout, this, &FleetWorker::look);
}

FleetWorker::~FleetWorker() {
    m_lookTimer.stop();
    for (const Running &running : std::as_const(m_running)) {
        running.handBack->store(true);
        running.cancel->store(true);
    }
    m_pool.waitForDone(); // each hands its iteration back as it ends
    m_bookkeeping.waitForDone();
    m_bookkeeping.start([looker = std::move(m_looker), path = m_path, left = m_stoppedEmitted]() mutable {
        try {
            if (!left)
                looker->open(path).leaveFleet();
        } catch (const Error &) {
        }
        looker.reset();
    });
    m_bookkeeping.waitForDone();
}

void FleetWorker::start() {
    fleetLog()->info("runner {} takes work from the queue of workspace {} ({} slot(s))", str(thisRunnerId()),
                     str(m_path), m_slots);
    m_lookTimer.start();
    look();
}

void FleetWorker::look() {
    if (m_looking || m_stopping)
        return;
    m_looking = true;
    QPointer<FleetWorker> self = this;
    const int free = m_slots - int(m_running.size());
    m_bookkeeping.start([self, looker = m_looker, path = m_path, free, slotCount = m_slots,
                         startedAt = m_startedAt] {
        QList<IterationRecord> claimed;
        QList<qint64> cancels;
        try {
            Workspace &workspace = looker->open(path);
            if (!looker->sinceBeat.isValid() ||
                looker->sinceBeat.hasExpired(Workspace::runnerHeartbeatIntervalMs())) {
                workspace.beatFleetRunner(slotCount, startedAt, fleetTtl());
                looker->sinceBeat.start();
            }
            workspace.requeueOrphanedIterations();
            cancels = workspace.cancelRequestedOfThisRunner();
            if (free > 0)
                claimed = workspace.claimIterations(free);
        } catch (const Error &error) {
            looker->workspace.reset(); // the next look opens it afresh
            fleetLog()->warn("runner {}: cannot look at the queue: {}", str(thisRunnerId()),
                             str(error.message()));
        }
        onWorkerThread(self, [claimed, cancels](FleetWorker &worker) { worker.onLooked(claimed, cancels); });
    });
}

void FleetWorker::onLooked(const QList<IterationRecord> &claimed, const QList<qint64> &cancels) {
    m_looking = false;
    for (const qint64 id : cancels) {
        if (const auto running = m_running.constFind(id);
            running != m_running.cend() && !running->cancel->load()) {
            fleetLog()->info("iteration {}: cancel asked for: cancelling it", id);
            running->cancel->store(true);
        }
    }
    for (const IterationRecord &record : claimed) {
        if (!m_stopping) {
            runClaimed(record);
            continue;
        }
        m_bookkeeping.start([looker = m_looker, path = m_path, id = record.id] {
            try {
                looker->open(path).requeueIteration(id,
                                                    QStringLiteral("runner %1 stopped").arg(thisRunnerId()));
            } catch (const Error &error) {
                fleetLog()->warn("iteration {}: cannot hand it back: {}", id, str(error.message()));
            }
        });
    }
    if (m_stopping)
        stopIfIdle();
}

void FleetWorker::runClaimed(const IterationRecord &claimed) {
    const Running flags{std::make_shared<std::atomic_bool>(false), std::make_shared<std::atomic_bool>(false)};
    m_running.insert(claimed.id, flags);
    fleetLog()->info("run {}, table {}: iteration {} claimed", claimed.runId, claimed.tableId, claimed.id);
    QPointer<FleetWorker> self = this;
    m_pool.start([self, claimed, flags, connections = m_connections] {
        IterationRecord result = claimed;
        QString closed;
        try {
            WorkerConnections::Worker &worker = connections->forThisThread();
            ProgressObserver observer(*worker.workspace);
            QueuedIterationOptions options;
            options.cancel = flags.cancel.get();
            options.observer = &observer;
            result = runQueuedIteration(worker, claimed, options);
            if (flags.handBack->load() && result.status == IterationStatus::Cancelled)
                worker.workspace->requeueIteration(result.id,
                                                   QStringLiteral("runner %1 stopped").arg(thisRunnerId()));
            closed = worker.workspace->finishRunIfSettled(result.runId);
        } catch (const std::exception &e) {
            // The workspace failed under the iteration: its record may still say running, and
            // this runner is alive, so nobody else would take it over. Handed back, if it can be.
            const auto *error = dynamic_cast<const Error *>(&e);
            const QString message = error ? error->message() : QString::fromUtf8(e.what());
            fleetLog()->error("run {}, table {}: {}", claimed.runId, claimed.tableId, str(message));
            result.status = IterationStatus::Failed;
            result.error = message;
            connections->dropWorkspace();
            try {
                connections->forThisThread().workspace->requeueIteration(
                    claimed.id,
                    QStringLiteral("runner %1 lost the workspace: %2").arg(thisRunnerId(), message));
            } catch (const std::exception &) {
                connections->dropWorkspace();
            }
        }
        onWorkerThread(self,
                       [result, closed](FleetWorker &worker) { worker.onIterationDone(result, closed); });
    });
}

void FleetWorker::onIterationDone(const IterationRecord &record, const QString &closedRunStatus) {
    m_running.remove(record.id);
    fleetLog()->info("run {}, table {}: iteration {} ended {}", record.runId, record.tableId, record.id,
                     str(iterationStatusName(record.status)));
    if (!closedRunStatus.isEmpty()) {
        fleetLog()->info("run {} ended {}: this runner ended its last iteration", record.runId,
                         str(closedRunStatus));
    }
    if (m_stopping)
        stopIfIdle();
    else
        look(); // a slot is free: the next iteration need not wait for the timer
}

void FleetWorker::stop() {
    if (m_stopping)
        return;
    m_stopping = true;
    m_lookTimer.stop();
    fleetLog()->info("runner {} stops taking work; {} running iteration(s) go back in the queue",
                     str(thisRunnerId()), m_running.size());
    for (const Running &running : std::as_const(m_running)) {
        running.handBack->store(true);
        running.cancel->store(true);
    }
    stopIfIdle();
}

void FleetWorker::stopIfIdle() {
    if (!m_running.isEmpty() || m_looking || m_stoppedEmitted)
        return;
    m_stoppedEmitted = true;
    QPointer<FleetWorker> self = this;
    m_bookkeeping.start([self, looker = m_looker, path = m_path] {
        try {
            looker->open(path).leaveFleet();
        } catch (const Error &error) {
            fleetLog()->warn("runner {}: cannot leave the fleet: {}", str(thisRunnerId()),
                             str(error.message()));
        }
        onWorkerThread(self, [](FleetWorker &worker) { emit worker.stopped(); });
    });
}

} // namespace tidemark
