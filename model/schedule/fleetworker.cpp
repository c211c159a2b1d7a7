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
#include <QSet>

namespace tidemark {
namespace {

// How often a runner looks at the queue (and at most how late it sees a cancel).
constexpr int kLookMs = 500;
// How often a runner that cannot reach the workspace says so again.
constexpr qint64 kWarnEveryMs = 30000;

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

// Iterations this runner claimed but no longer runs: their end could not be recorded (the
// workspace was out of reach when they ended). Back in the queue, from the target's state.
void putBackStrays(Workspace &workspace, const QSet<qint64> &running) {
    const QHash<qint64, qint64> claimed = workspace.iterationsClaimedByThisRunner();
    for (auto it = claimed.cbegin(); it != claimed.cend(); ++it) {
        if (running.contains(it.key()))
            continue;
        fleetLog()->info("run {}: iteration {} ended while the workspace was out of reach: back in the queue",
                         it.value(), it.key());
        workspace.requeueIteration(
            it.key(), QStringLiteral("runner %1 could not record its end: the workspace was out of reach")
                          .arg(thisRunnerId()));
    }
}

} // namespace

// The bookkeeping thread's connection (that pool's one thread never expires), when it last
// renewed this runner's row and when it last reached the workspace.
struct FleetWorker::Looker {
    std::unique_ptr<Workspace> workspace;
    QElapsedTimer sinceBeat;
    QElapsedTimer sinceReached;
    QElapsedTimer sinceWarned; // while the workspace is out of reach: a line now and then, not each look

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

// What one look found.
struct FleetWorker::Looked {
    QList<IterationRecord> claimed;
    QList<qint64> cancels;
    qint64 unreachableMs = 0; // how long the workspace has been out of reach; 0: reached
    QString error;            // why it is out of reach
};

void FleetWorker::look() {
    if (m_looking || m_stopping)
        return;
    m_looking = true;
    QPointer<FleetWorker> self = this;
    const int free = m_slots - int(m_running.size());
    QSet<qint64> running;
    for (auto it = m_running.cbegin(); it != m_running.cend(); ++it)
        running.insert(it.key());
    m_bookkeeping.start([self, looker = m_looker, path = m_path, free, slotCount = m_slots,
                         startedAt = m_startedAt, running] {
        Looked looked;
        try {
            Workspace &workspace = looker->open(path);
            if (!looker->sinceBeat.isValid() ||
                looker->sinceBeat.hasExpired(Workspace::runnerHeartbeatIntervalMs())) {
                workspace.beatFleetRunner(slotCount, startedAt, fleetTtl());
                looker->sinceBeat.start();
            }
            putBackStrays(workspace, running);
            workspace.requeueOrphanedIterations();
            looked.cancels = workspace.cancelRequestedOfThisRunner();
            if (free > 0)
                looked.claimed = workspace.claimIterations(free);
            // One this runner still runs was put back while it was stopped: its earlier attempt
            // ends first (refused as a stale claim), and the queue gives it to whoever is free.
            for (auto it = looked.claimed.begin(); it != looked.claimed.end();) {
                if (!running.contains(it->id)) {
                    ++it;
                    continue;
                }
                workspace.requeueIteration(
                    it->id, QStringLiteral("runner %1 still ends its earlier attempt").arg(thisRunnerId()));
                it = looked.claimed.erase(it);
            }
            looker->sinceReached.start();
            looker->sinceWarned.invalidate();
        } catch (const Error &error) {
            looker->workspace.reset(); // the next look opens it afresh
            if (!looker->sinceReached.isValid())
                looker->sinceReached.start();
            looked.unreachableMs = qMax(qint64(1), looker->sinceReached.elapsed());
            looked.error = error.message();
            if (!looker->sinceWarned.isValid() || looker->sinceWarned.hasExpired(kWarnEveryMs)) {
                fleetLog()->warn("runner {}: cannot look at the queue ({} ms out of reach): {}",
                                 str(thisRunnerId()), looked.unreachableMs, str(error.message()));
                looker->sinceWarned.start();
            }
        }
        onWorkerThread(self, [looked](FleetWorker &worker) { worker.onLooked(looked); });
    });
}

void FleetWorker::onLooked(const Looked &looked) {
    m_looking = false;
    if (looked.unreachableMs == 0 && m_workspaceLost) {
        m_workspaceLost = false;
        fleetLog()->info("runner {} reached the workspace again: it takes work from the queue",
                         str(thisRunnerId()));
    }
    // Out of reach for longer than a beat: before its row expires and another runner takes its
    // iterations over, it stops them (they roll back to their last commit) rather than copy on
    // without being able to record anything.
    if (looked.unreachableMs > Workspace::runnerHeartbeatIntervalMs() && !m_workspaceLost) {
        m_workspaceLost = true;
        cancelEverything(QStringLiteral("the workspace has been out of reach for %1 ms (%2)")
                             .arg(looked.unreachableMs)
                             .arg(looked.error));
    }
    const QList<IterationRecord> &claimed = looked.claimed;
    const QList<qint64> &cancels = looked.cancels;
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
        bool unrecorded = false; // its end is not in the workspace: putBackStrays() sees to it
        try {
            WorkerConnections::Worker &worker = connections->forThisThread();
            ProgressObserver observer(*worker.workspace);
            QueuedIterationOptions options;
            options.range = worker.workspace->runRange(claimed.runId);
            options.cancel = flags.cancel.get();
            options.observer = &observer;
            result = runQueuedIteration(worker, claimed, options);
            closed = flags.handBack->load() && result.status == IterationStatus::Cancelled
                         ? worker.workspace->requeueIteration(
                               result.id, QStringLiteral("runner %1 stopped").arg(thisRunnerId()))
                         : worker.workspace->finishRunIfSettled(result.runId);
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
                unrecorded = true;
            }
        }
        onWorkerThread(self, [result, closed, unrecorded](FleetWorker &worker) {
            worker.onIterationDone(result, closed, unrecorded);
        });
    });
}

void FleetWorker::onIterationDone(const IterationRecord &record, const QString &closedRunStatus,
                                  bool unrecorded) {
    m_running.remove(record.id);
    if (unrecorded)
        fleetLog()->warn(
            "run {}, table {}: iteration {} stopped, and its end is not recorded: it goes back in "
            "the queue once this runner reaches the workspace again",
            record.runId, record.tableId, record.id);
    else
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
    cancelEverything(QStringLiteral("it stops"));
    stopIfIdle();
}

void FleetWorker::cancelEverything(const QString &why) {
    fleetLog()->info("runner {}: {}; its {} running iteration(s) roll back and go back in the queue",
                     str(thisRunnerId()), str(why), m_running.size());
    for (const Running &running : std::as_const(m_running)) {
        running.handBack->store(true);
        running.cancel->store(true);
    }
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
