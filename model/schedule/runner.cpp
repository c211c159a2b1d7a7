// SPDX-License-Identifier: MIT
#include "model/schedule/runner.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/runnerid.h"
#include "model/engine/runcoordinator.h"
#include "model/schedule/clock.h"
#include "model/schedule/firetimes.h"
#include "model/schedule/fleetworker.h"
#include "model/storage/workspace.h"

#include <QCoreApplication>
#include <QSysInfo>

#include <algorithm>

namespace tidemark {
namespace {

constexpr int kRetryBaseMs = 30000;
// The scheduler is asked at least this often, so schedules added, paused or removed by
// another process are seen soon.
constexpr int kMaxTickMs = 1000;

auto runnerLog() {
    return logger("core.schedule");
}

std::chrono::milliseconds runnerTtl() {
    return std::chrono::milliseconds(qint64(Workspace::runnerHeartbeatIntervalMs()) *
                                     Workspace::kRunnerBeatsToExpire);
}

QString idList(const QList<qint64> &ids) {
    QStringList texts;
    for (const qint64 id : ids)
        texts << QString::number(id);
    return texts.join(QLatin1String(", "));
}

} // namespace

int Runner::retryBaseMs() {
    bool ok = false;
    const int testMs = qEnvironmentVariableIntValue("TIDEMARK_TEST_RETRY_BASE_MS", &ok);
    return ok && testMs > 0 ? testMs : kRetryBaseMs;
}

Runner::Runner(const QString &workspacePath, const Clock &clock, const FireTimes &fireTimes, QObject *parent)
    : QObject(parent)
    , m_path(workspacePath)
    , m_clock(clock)
    , m_fireTimes(fireTimes) {
    m_beatTimer.setInterval(Workspace::runnerHeartbeatIntervalMs());
    connect(&m_beatTimer, &QTimer::timeout, this, &Runner::beat);
    m_tickTimer.setSingleShot(true);
    connect(&m_tickTimer, &QTimer::timeout, this, &Runner::tick);
}

Runner::~Runner() {
    if (!m_fleet) {
        for (RunCoordinator *coordinator : std::as_const(m_runs))
            coordinator->cancel();
    }
    qDeleteAll(m_runs); // each waits for its iterations to roll back
}

void Runner::start() {
    m_workspace = Workspace::open(m_path);
    m_workspace->pinFile();
    m_startedAt = QDateTime::currentDateTimeUtc();
    runnerLog()->info("runner started for workspace {} (host {}, pid {}, version {})", str(m_path),
                      str(QSysInfo::machineHostName()), QCoreApplication::applicationPid(), TIDEMARK_VERSION);
    m_beatTimer.start();
    if (m_fleet)
        startWorker();
    tryClaim();
}

void Runner::startWorker() {
    if (m_worker)
        return;
    m_worker = new FleetWorker(m_path, m_slotLimit > 0 ? m_slotLimit : kDefaultFleetSlots, this);
    connect(m_worker, &FleetWorker::stopped, this, [this, worker = m_worker] {
        if (m_worker == worker)
            m_worker = nullptr;
        worker->deleteLater();
        if (m_stopping)
            stopIfIdle();
        else if (m_active)
            startWorker(); // it became active again while this one was stopping
    });
    m_worker->start();
}

void Runner::beat() {
    if (m_stopping)
        return;
    if (workspaceFileReplaced())
        return;
    if (!m_active) {
        tryClaim();
        return;
    }
    try {
        if (!m_workspace->beatRunner(runnerTtl(), m_lastFiring))
            becomeStandby(QStringLiteral("another runner took over this workspace"));
    } catch (const Error &error) {
        // One missed beat is harmless; only several in a row let a standby take over.
        runnerLog()->warn("runner heartbeat failed: {}", str(error.message()));
    }
}

// A runner that went on acting on a file that is no longer the workspace would make two active
// runners (the new file's own, and this one). It stops acting at once and says so; whoever runs
// it ends the process (serve), see workspaceReplaced().
bool Runner::workspaceFileReplaced() {
    // A server workspace, or a file moved away for a moment (nothing at its name): not replaced.
    if (!m_workspace->pinnedFileReplaced())
        return false;
    runnerLog()->error("workspace file {} was replaced under this runner: it stops acting on the old file",
                       str(m_path));
    m_active = false;
    m_stopping = true;
    m_beatTimer.stop();
    m_tickTimer.stop();
    emit workspaceReplaced();
    return true;
}

QDateTime Runner::staleHolderBeat(const RunnerHeartbeat &holder) {
    if (holder.lastBeatAt != m_watchedBeat || !m_watchedSince.isValid()) {
        m_watchedBeat = holder.lastBeatAt;
        m_watchedSince.start();
        return QDateTime();
    }
    return m_watchedSince.hasExpired(runnerTtl().count()) ? m_watchedBeat : QDateTime();
}

void Runner::tryClaim() {
    RunnerClaim claim;
    try {
        m_workspace->repairInterruptedRuns();
        QDateTime staleBeat;
        if (const std::optional<RunnerHeartbeat> holder = m_workspace->runner())
            staleBeat = staleHolderBeat(*holder);
        claim = m_workspace->claimRunner(m_startedAt, runnerTtl(), staleBeat);
    } catch (const Error &error) {
        runnerLog()->warn("cannot claim the runner of workspace {}: {}", str(m_path), str(error.message()));
        return;
    }
    if (!claim.acquired) {
        const QString holder = QStringLiteral("%1:%2").arg(claim.holder->host).arg(claim.holder->pid);
        if (holder != m_lastHolder)
            runnerLog()->info("standby: runner pid {} on host {} is active (since {}, last beat {})",
                              claim.holder->pid, str(claim.holder->host),
                              str(isoUtc(claim.holder->startedAt)), str(isoUtc(claim.holder->lastBeatAt)));
        m_lastHolder = holder;
        return;
    }
    m_active = true;
    m_lastHolder.clear();
    m_watchedSince.invalidate();
    runnerLog()->info("active runner for workspace {}", str(m_path));
    startWorker(); // the active runner takes queued work, fleet or not
    m_adoptPending = m_fleet;
    m_scheduler = std::make_unique<Scheduler>(
        m_clock, m_fireTimes,
        Scheduler::Options{std::chrono::milliseconds(retryBaseMs()), std::chrono::minutes(10)});
    emit activeChanged(true);
    tick();
}

void Runner::becomeStandby(const QString &why) {
    runnerLog()->error("runner of workspace {} stands by: {}; cancelling its runs", str(m_path), str(why));
    m_active = false;
    m_tickTimer.stop();
    letGoOfRuns();
    if (!m_fleet && m_worker)
        m_worker->stop(); // its iterations go back in the queue for the active runner
    emit activeChanged(false);
}

void Runner::letGoOfRuns() {
    if (!m_fleet) {
        for (RunCoordinator *coordinator : std::as_const(m_runs))
            coordinator->cancel();
        return;
    }
    const QList<RunCoordinator *> followed = m_runs.values();
    m_runs.clear();
    qDeleteAll(followed); // their runs go on; the next active runner's scheduler sees them run
}

void Runner::tick() {
    if (!m_active || m_stopping)
        return;
    const FiringOutcome lastFiring = m_lastFiring;
    try {
        m_scheduler->update(m_workspace->schedules());
        if (m_adoptPending) {
            m_adoptPending = false;
            adoptOpenRuns();
        }
        for (const SkippedFiring &skipped : m_scheduler->takeSkipped())
            runnerLog()->warn("schedule '{}': firing at {} skipped: its run {} is still running",
                              str(skipped.schedule), str(isoUtc(skipped.at)),
                              skipped.runningRunId > 0 ? QString::number(skipped.runningRunId).toStdString()
                                                       : std::string("(starting)"));
        for (const qint64 iterationId : m_scheduler->takeOverdue()) {
            m_timedOut.insert(iterationId);
            runnerLog()->warn("iteration {} ran past its schedule's timeout: cancelling it", iterationId);
            // The iteration itself only knows it was cancelled; its log says why.
            m_workspace->appendLog(iterationId,
                                   LogLine{QDateTime::currentDateTimeUtc(), QStringLiteral("warning"),
                                           QStringLiteral("timed out: the schedule's timeout cancelled it")});
            for (RunCoordinator *coordinator : std::as_const(m_runs))
                coordinator->cancelIteration(iterationId);
        }
        for (const Firing &firing : m_scheduler->takeDue())
            fire(firing);
    } catch (const Error &error) {
        runnerLog()->error("runner of workspace {}: {}", str(m_path), str(error.message()));
    }
    if (m_lastFiring.failed() && m_lastFiring != lastFiring)
        beat(); // the heartbeat shows a failed firing at once, if the workspace takes a write
    armTick();
}

void Runner::armTick() {
    if (!m_active || m_stopping)
        return;
    qint64 wait = kMaxTickMs;
    const QDateTime next = m_scheduler->nextWakeUp();
    if (next.isValid())
        wait = std::clamp<qint64>(m_clock.now().msecsTo(next), 0, kMaxTickMs);
    m_tickTimer.start(int(wait));
}

// A firing either starts its run or is recorded as failed; either way its schedule is not left
// marked running without a run, and it fires again at its next due time.
void Runner::fire(const Firing &firing) {
    try {
        startRun(firing);
    } catch (const std::exception &error) {
        m_runs.remove(firing.schedule);
        recordFiringFailure(firing, QString::fromUtf8(error.what()));
    }
}

void Runner::recordFiringFailure(const Firing &firing, const QString &error) {
    m_scheduler->runFinished(firing.schedule, RunRecord());
    const QDateTime now = m_clock.now();
    m_lastFiring = FiringOutcome{now, firing.schedule, error};
    const QDateTime next = m_scheduler->nextFireTime(firing.schedule);
    runnerLog()->error("schedule '{}': the firing due {} failed before its run existed: {}; it fires again "
                       "at {}",
                       str(firing.schedule), str(isoUtc(firing.at)), str(error),
                       next.isValid() ? str(isoUtc(next)) : std::string("no later time"));
    RunRecord failed;
    failed.trigger = runTriggerName(RunTrigger::Schedule);
    failed.schedule = firing.schedule;
    failed.host = QSysInfo::machineHostName();
    failed.pid = QCoreApplication::applicationPid();
    failed.startedAt = now;
    failed.finishedAt = now;
    failed.status = QStringLiteral("failed");
    failed.error = QStringLiteral("schedule '%1': the firing due %2 could not start its run: %3")
                       .arg(firing.schedule, isoUtc(firing.at), error);
    emit firingFailed(failed);
}

void Runner::recordFiringStarted(const QString &schedule) {
    m_lastFiring = FiringOutcome{m_clock.now(), schedule, QString()};
}

void Runner::startRun(const Firing &firing) {
    const std::optional<ScheduleSpec> spec = m_workspace->schedule(firing.schedule);
    if (!spec) {
        m_scheduler->runFinished(firing.schedule, RunRecord()); // removed since the last update
        return;
    }
    QList<qint64> tableIds = firing.tableIds.isEmpty() ? spec->tableIds : firing.tableIds;
    // A runner that took over from one it thought dead may see the same firing due: one of them
    // makes its run.
    if (m_fleet && firing.attempt == 0 && !m_workspace->claimFiring(firing.schedule, firing.at)) {
        runnerLog()->info("schedule '{}': the firing due {} was made by another runner", str(firing.schedule),
                          str(isoUtc(firing.at)));
        m_scheduler->runFinished(firing.schedule, RunRecord());
        return;
    }
    if (firing.attempt == 0)
        m_workspace->recordScheduleFiring(firing.schedule, firing.at);
    if (tableIds.isEmpty()) {
        for (const TableSpec &table : m_workspace->tables()) {
            if (table.active)
                tableIds << table.id;
        }
    } else {
        // A table removed since the schedule was made is left out, not a failure of the others.
        QList<qint64> live;
        for (const qint64 id : std::as_const(tableIds)) {
            if (m_workspace->table(id))
                live << id;
            else
                runnerLog()->warn("schedule '{}': table {} no longer exists; left out", str(firing.schedule),
                                  id);
        }
        tableIds = live;
    }
    if (tableIds.isEmpty()) {
        runnerLog()->info("schedule '{}': fired at {} with nothing to run", str(firing.schedule),
                          str(isoUtc(firing.at)));
        m_scheduler->runFinished(firing.schedule, RunRecord());
        return;
    }

    auto *coordinator = new RunCoordinator(m_path, this);
    m_runs.insert(firing.schedule, coordinator);
    const QString name = firing.schedule;
    const int attempt = firing.attempt;
    const QDateTime firedAt = firing.at;
    connect(coordinator, &RunCoordinator::runStarted, this,
            [this, name, attempt, firedAt](qint64 runId, const QList<IterationRecord> &iterations) {
                m_scheduler->runStarted(name, runId);
                recordFiringStarted(name);
                try {
                    m_workspace->setScheduleLastRun(name, runId);
                } catch (const Error &error) {
                    runnerLog()->warn("schedule '{}': {}", str(name), str(error.message()));
                }
                if (attempt == 0)
                    runnerLog()->info("schedule '{}' fired (due {}): run {} over {} table(s)", str(name),
                                      str(isoUtc(firedAt)), runId, iterations.size());
                else
                    runnerLog()->info("schedule '{}': retry {} is run {} over {} table(s)", str(name),
                                      attempt, runId, iterations.size());
            });
    watchRun(name, coordinator);
    connect(coordinator, &RunCoordinator::runFailedToStart, this,
            [this, firing, coordinator](const QString &error) {
                recordFiringFailure(firing, error);
                forget(firing.schedule, coordinator);
            });

    RunRequest request;
    request.tableIds = tableIds;
    request.concurrency = spec->concurrency;
    request.processSlots = m_slotLimit;
    request.queued = m_fleet;
    request.trigger = runTriggerName(RunTrigger::Schedule);
    request.schedule = name;
    coordinator->start(request);
}

void Runner::watchRun(const QString &schedule, RunCoordinator *coordinator) {
    connect(coordinator, &RunCoordinator::iterationChanged, this,
            [this, schedule](const IterationRecord &record) {
                if (record.status == IterationStatus::Running)
                    m_scheduler->iterationStarted(schedule, record.id);
                else if (isFinished(record.status))
                    m_scheduler->iterationEnded(record.id);
            });
    connect(
        coordinator, &RunCoordinator::runFinished, this,
        [this, schedule, coordinator](const RunRecord &run) { onRunFinished(schedule, coordinator, run); });
}

void Runner::adoptOpenRuns() {
    RunPageQuery open;
    open.status = QStringLiteral("running");
    open.limit = 0;
    for (const RunRecord &run : m_workspace->runPage(open)) {
        if (!run.queued || run.status != QLatin1String("running") || run.schedule.isEmpty() ||
            m_runs.contains(run.schedule))
            continue;
        auto *coordinator = new RunCoordinator(m_path, this);
        m_runs.insert(run.schedule, coordinator);
        m_scheduler->adoptRun(run.schedule, run.id);
        watchRun(run.schedule, coordinator);
        coordinator->followRun(run.id);
        runnerLog()->info("schedule '{}': follows its run {}, fired by runner {}:{}", str(run.schedule),
                          run.id, str(run.host), run.pid);
    }
}

void Runner::onRunFinished(const QString &schedule, RunCoordinator *coordinator, const RunRecord &run) {
    for (const IterationRecord &iteration : run.iterations) {
        if (m_timedOut.remove(iteration.id))
            runnerLog()->warn("schedule '{}': run {}, table {}: timed out, ended {}", str(schedule), run.id,
                              iteration.tableId, str(iterationStatusName(iteration.status)));
    }
    const bool bad = run.status == QLatin1String("failed") || run.status == QLatin1String("cancelled");
    const std::string summary = QStringLiteral("schedule '%1': run %2 ended %3 (%4 iteration(s))")
                                    .arg(schedule)
                                    .arg(run.id)
                                    .arg(run.status)
                                    .arg(run.iterations.size())
                                    .toStdString();
    if (bad)
        runnerLog()->warn(summary);
    else
        runnerLog()->info(summary);
    if (m_scheduler) {
        if (const std::optional<Firing> retry = m_scheduler->runFinished(schedule, run))
            runnerLog()->warn("schedule '{}': table(s) {} failed on a transient error; retry {} in {} ms",
                              str(schedule), str(idList(retry->tableIds)), retry->attempt,
                              m_clock.now().msecsTo(retry->at));
    }
    forget(schedule, coordinator);
    emit runFinished(run);
}

void Runner::forget(const QString &schedule, RunCoordinator *coordinator) {
    if (m_runs.value(schedule) == coordinator)
        m_runs.remove(schedule);
    coordinator->deleteLater();
    if (m_stopping)
        stopIfIdle();
    else
        armTick();
}

void Runner::stop() {
    if (m_stopping)
        return;
    m_stopping = true;
    m_beatTimer.stop();
    m_tickTimer.stop();
    if (m_fleet && !otherRunnerAlive()) {
        // Nobody would take the runs it fired over: they end as a lone runner's do.
        runnerLog()->info("runner stopping: no other runner is alive; cancelling the {} run(s) it fired",
                          m_runs.size());
        for (RunCoordinator *coordinator : std::as_const(m_runs))
            coordinator->cancel();
    } else if (m_fleet) {
        runnerLog()->info("runner stopping: its runs go on on the other runners");
    } else {
        runnerLog()->info("runner stopping: cancelling {} run(s)", m_runs.size());
    }
    letGoOfRuns();
    if (m_worker)
        m_worker->stop();
    stopIfIdle();
}

bool Runner::otherRunnerAlive() {
    const QString me = thisRunnerId();
    try {
        for (const FleetRunner &runner : m_workspace->fleetRunners()) {
            if (runner.alive && runner.id != me)
                return true;
        }
    } catch (const Error &error) {
        runnerLog()->warn("cannot read the workspace's runners: {}", str(error.message()));
    }
    return false;
}

void Runner::stopIfIdle() {
    if (!m_stopping || !m_runs.isEmpty() || m_stoppedEmitted)
        return;
    if (m_worker)
        return; // stopped() comes once its iterations are handed back
    m_stoppedEmitted = true;
    if (m_active && m_workspace) {
        try {
            m_workspace->releaseRunner();
        } catch (const Error &error) {
            runnerLog()->warn("cannot release the runner row: {}", str(error.message()));
        }
    }
    m_active = false;
    runnerLog()->info("runner stopped");
    emit stopped();
}

} // namespace tidemark
