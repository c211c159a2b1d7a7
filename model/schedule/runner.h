// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"
#include "model/schedule/scheduler.h"
#include "model/storage/workspace.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>
#include <memory>

namespace tidemark {

class Clock;
class FireTimes;
class FleetWorker;
class RunCoordinator;
class Workspace;

// The runner behind `tidemark-cli serve` (docs/design.md, "Schedules and the runner"): one per
// workspace acts. It claims the workspace's runner heartbeat row and renews it every
// Workspace::runnerHeartbeatIntervalMs(); while another live process holds it, it waits as a
// standby and tries again each beat, so it takes over once the holder's heartbeat stops (or
// its pid is gone on this host). The active runner asks its Scheduler what is due and runs
// each firing through a RunCoordinator of its own (trigger "schedule", the run records the
// schedule's name); the target's compare-and-set keeps runs from copying a window twice even
// when two processes overlap for a moment. Lives on the thread that created it (an event
// loop); workspace calls are short and made there.
// The active runner also takes queued work (`run --queue`) through a FleetWorker. In a fleet
// (setFleet; docs/design.md, "The runner fleet") every runner does, while the active one alone
// decides what is due: its firings make queued runs, each firing at most once
// (Workspace::claimFiring), which it follows to their end for retries, timeouts and alerts; any
// runner runs their iterations.
class Runner : public QObject {
    Q_OBJECT
public:
    Runner(const QString &workspacePath, const Clock &clock, const FireTimes &fireTimes,
           QObject *parent = nullptr);
    ~Runner() override;

    // This runner's own limit on iterations running at once, across its schedules (`serve
    // --slots`); 0 = none. Set before start().
    void setSlotLimit(int limit) { m_slotLimit = limit; }
    // Takes work from the workspace's queue whether or not it is the active runner, and queues
    // its schedules' runs for every runner. Set before start().
    void setFleet(bool fleet) { m_fleet = fleet; }
    // A fleet runner's slots when `--slots` is not given.
    static constexpr int kDefaultFleetSlots = 4;
    void start();
    // Cancels the running iterations cooperatively (their runs end cancelled), releases the
    // heartbeat row once every run has ended, then emits stopped().
    void stop();
    bool isActive() const { return m_active; }

    // 30 s, or TIDEMARK_TEST_RETRY_BASE_MS (tests): the first retry's back-off, doubled after.
    static int retryBaseMs();

signals:
    // A run fired by a schedule has finished: the one place a finished run leaves the runner
    // (alerts hook in here).
    void runFinished(const tidemark::RunRecord &run);
    // A firing failed before its run existed (the workspace locked past its busy timeout, the
    // disk full, the file read-only...): `firing` has no id, status "failed", the schedule and
    // the error. The schedule fires again at its next due time. Alerts hook in here too.
    void firingFailed(const tidemark::RunRecord &firing);
    void activeChanged(bool active);
    // The workspace file was replaced under the runner (restored from a backup, copied over): it
    // acts no more. Its process must end without closing its workspace connections: SQLite would
    // checkpoint and delete the old file's WAL by name, which is now the new file's WAL name.
    void workspaceReplaced();
    void stopped();

private:
    void beat();
    void tryClaim();
    void tick();
    void armTick();
    void fire(const Firing &firing);
    void startRun(const Firing &firing);
    // The iterations and end of `coordinator`'s run reach the scheduler (timeouts, retries) and
    // runFinished (alerts).
    void watchRun(const QString &schedule, RunCoordinator *coordinator);
    // A fleet's new active runner follows the queued runs its schedules fired before it took over.
    void adoptOpenRuns();
    void recordFiringFailure(const Firing &firing, const QString &error);
    void recordFiringStarted(const QString &schedule);
    QDateTime staleHolderBeat(const RunnerHeartbeat &holder);
    bool workspaceFileReplaced();
    void onRunFinished(const QString &schedule, RunCoordinator *coordinator, const RunRecord &run);
    void forget(const QString &schedule, RunCoordinator *coordinator);
    void becomeStandby(const QString &why);
    // The active runner's runs end here: cancelled (a lone runner's), or left to the fleet
    // (queued runs go on without their follower).
    void letGoOfRuns();
    void startWorker();
    bool otherRunnerAlive(); // a fleet runner besides this one is beating
    void stopIfIdle();

    const QString m_path;
    const Clock &m_clock;
    const FireTimes &m_fireTimes;
    std::unique_ptr<Workspace> m_workspace;
    std::unique_ptr<Scheduler> m_scheduler; // made afresh on each takeover: anchors come from the workspace
    QDateTime m_startedAt;
    int m_slotLimit = 0;
    bool m_fleet = false;
    // Takes queued work: a fleet runner's always, a lone runner's while it is active. Child of this.
    FleetWorker *m_worker = nullptr;
    bool m_active = false;
    bool m_adoptPending = false; // a fleet runner just became active: adopt at the next tick
    bool m_stopping = false;
    bool m_stoppedEmitted = false;
    QString m_lastHolder;       // the holder last logged while standing by
    FiringOutcome m_lastFiring; // carried by every beat
    // The holder's last beat while standing by, and how long (on the monotonic clock) it has
    // not moved: a holder is dead when its beat stands still for a whole ttl, whatever wall
    // time its expiry names.
    QDateTime m_watchedBeat;
    QElapsedTimer m_watchedSince;
    QTimer m_beatTimer;
    QTimer m_tickTimer;
    QHash<QString, RunCoordinator *> m_runs; // by schedule name; children of this
    QSet<qint64> m_timedOut;                 // iterations cancelled for their timeout
};

} // namespace tidemark
