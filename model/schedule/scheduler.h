// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"
#include "model/domain/schedulespec.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>
#include <chrono>
#include <optional>

namespace tidemark {

class Clock;
class FireTimes;

// A run the runner is to start now.
struct Firing {
    QString schedule;
    QDateTime at;           // the fire time (for a retry: when its back-off ended)
    QList<qint64> tableIds; // empty = the schedule's tables as configured
    int attempt = 0;        // 0 = a regular firing; n = the n-th retry of its transient failures
};

// A firing that did not start because the schedule's previous run is still running.
struct SkippedFiring {
    QString schedule;
    QDateTime at;
    qint64 runningRunId = 0; // 0 while that run's record is not made yet
};

// Decides what the runner starts and when (docs/design.md, "Schedules and the runner"); starts
// nothing itself. Time comes from a Clock and fire times from FireTimes, so every policy is
// tested on a fake clock:
// - a firing is due when its fire time has come; however many fire times passed meanwhile
//   (runner down, machine asleep), it fires once and the next one is computed from now;
// - a schedule seen for the first time fires its missed firings once: its first fire time
//   after its last firing (or its creation) is due at once when it has passed;
// - overlap: a due firing of a schedule whose run is still running is skipped (reported);
// - retries: the tables whose iterations failed on a transient error run again after
//   retryBase * 2^(attempt-1), up to the schedule's retries; a regular firing that comes
//   first takes their place (it runs those tables anyway);
// - timeouts: an iteration running longer than its schedule's timeout is reported overdue;
// - clock steps: fire times are wall-clock times, checked against the wall clock on every
//   call. A step forward makes the firings it jumps over due, once (as missed firings). A step
//   back plans every schedule again from the new now, so none waits out the step; the instant
//   a schedule fired last is never planned again right away, so the step never fires it twice. A last firing
//   recorded in the future (by a runner whose clock was ahead) counts as now. Back-offs and timeouts are
//   durations, measured on the clock's monotonic side, which no step moves.
// Not thread-safe; lives on the runner's thread.
class Scheduler {
public:
    struct Options {
        std::chrono::milliseconds retryBase{30000};
        std::chrono::milliseconds retryCap{600000};
    };
    Scheduler(const Clock &clock, const FireTimes &fireTimes, Options options);
    Scheduler(const Clock &clock, const FireTimes &fireTimes)
        : Scheduler(clock, fireTimes, Options()) {}

    // The schedules as the workspace has them now: new ones are taken in, changed ones (cron,
    // zone, resumed) get their next fire time from now, removed and paused ones fire no more.
    void update(const QList<ScheduleSpec> &schedules);

    // The firings due now, each at most once. Marks their schedules running.
    QList<Firing> takeDue();
    // The firings skipped for overlap since the last call.
    QList<SkippedFiring> takeSkipped();
    // The earliest instant something becomes due (a fire time or a retry); invalid if none.
    QDateTime nextWakeUp() const;
    // When the schedule fires next (invalid: paused, unknown, or never again).
    QDateTime nextFireTime(const QString &schedule) const;

    void runStarted(const QString &schedule, qint64 runId);
    // A run of `schedule` still open from before (fired by the runner this one took over from):
    // the schedule is running until runFinished(), so its firings meanwhile are skipped.
    void adoptRun(const QString &schedule, qint64 runId);
    // The run of `schedule` is over (finished, or failed to start: pass a run without
    // iterations). Returns the retry it leads to, if any.
    std::optional<Firing> runFinished(const QString &schedule, const RunRecord &run);
    bool isRunning(const QString &schedule) const;

    void iterationStarted(const QString &schedule, qint64 iterationId);
    void iterationEnded(qint64 iterationId);
    // Iterations running longer than their schedule's timeout; each reported once.
    QList<qint64> takeOverdue();

    // The back-off before retry `attempt` (1-based).
    std::chrono::milliseconds retryDelay(int attempt) const;

private:
    struct State {
        ScheduleSpec spec;
        QDateTime nextFire;
        QDateTime lastPlanned; // the fire time fired last (or the anchor): never planned again next
        bool running = false;
        qint64 runId = 0;
        int attempt = 0; // the attempt of the run in flight or pending
        std::optional<Firing> pendingRetry;
        qint64 retryDueElapsedMs = 0; // when pendingRetry is due, on the monotonic clock
    };
    struct RunningIteration {
        QString schedule;
        qint64 startedElapsedMs = 0;
        bool reported = false;
    };

    const Clock &m_clock;
    const FireTimes &m_fireTimes;
    // The first fire time after `after` that is not `lastPlanned` again.
    QDateTime planAfter(const State &state, const QDateTime &after) const;
    // A monotonic deadline as a wall-clock time, for nextWakeUp.
    QDateTime wallTimeOf(qint64 elapsedMs) const;

    Options m_options;
    QHash<QString, State> m_states;
    QHash<qint64, RunningIteration> m_iterations;
    QList<SkippedFiring> m_skipped;
    QDateTime m_lastNow; // the wall clock at the last takeDue: a later one before it is a step back
};

} // namespace tidemark
