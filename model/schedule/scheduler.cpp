// SPDX-License-Identifier: MIT
#include "model/schedule/scheduler.h"

#include "model/schedule/clock.h"
#include "model/schedule/firetimes.h"
#include "model/schedule/transientfailure.h"

#include <algorithm>

namespace tidemark {

Scheduler::Scheduler(const Clock &clock, const FireTimes &fireTimes, Options options)
    : m_clock(clock)
    , m_fireTimes(fireTimes)
    , m_options(options) {}

void Scheduler::update(const QList<ScheduleSpec> &schedules) {
    const QDateTime now = m_clock.now();
    QSet<QString> seen;
    for (const ScheduleSpec &spec : schedules) {
        seen.insert(spec.name);
        auto it = m_states.find(spec.name);
        if (it == m_states.end()) {
            State state;
            state.spec = spec;
            if (spec.active) {
                // Missed firings since the last one (or since it was made) are due once, now. An
                // anchor in the future was written on a clock that ran ahead: waiting for it
                // would stall the schedule until this clock catches up.
                const QDateTime anchor = std::min(spec.lastFiredAt.isValid() ? spec.lastFiredAt
                                                  : spec.createdAt.isValid() ? spec.createdAt
                                                                             : now,
                                                  now);
                state.lastPlanned = anchor;
                state.nextFire = m_fireTimes.nextAfter(spec, anchor);
            }
            m_states.insert(spec.name, state);
            continue;
        }
        State &state = *it;
        const bool rescheduled = spec.cron != state.spec.cron || spec.timeZone != state.spec.timeZone ||
                                 spec.active != state.spec.active || spec.id != state.spec.id;
        state.spec = spec;
        if (!spec.active) {
            state.nextFire = QDateTime();
            state.pendingRetry.reset();
        } else if (rescheduled) {
            // A resumed schedule does not make up for the firings it missed while paused.
            state.lastPlanned = now;
            state.nextFire = m_fireTimes.nextAfter(spec, now);
        }
    }
    for (auto it = m_states.begin(); it != m_states.end();) {
        if (!seen.contains(it.key()))
            it = m_states.erase(it);
        else
            ++it;
    }
}

QList<Firing> Scheduler::takeDue() {
    const QDateTime now = m_clock.now();
    QStringList names = m_states.keys();
    std::sort(names.begin(), names.end());
    // The wall clock stepped back since the last look: every schedule plans from the new now,
    // or it would wait out the whole step.
    const bool steppedBack = m_lastNow.isValid() && now < m_lastNow;
    m_lastNow = now;
    QList<Firing> due;
    for (const QString &name : std::as_const(names)) {
        State &state = m_states[name];
        if (!state.spec.active)
            continue;
        if (steppedBack)
            state.nextFire = planAfter(state, now);
        if (state.nextFire.isValid() && state.nextFire <= now) {
            const QDateTime firedAt = state.nextFire;
            // However many fire times passed, one firing; the next is counted from now.
            state.lastPlanned = firedAt;
            state.nextFire = planAfter(state, now);
            if (state.running) {
                m_skipped.append(SkippedFiring{name, firedAt, state.runId});
                continue;
            }
            state.pendingRetry.reset();
            state.attempt = 0;
            state.running = true;
            state.runId = 0;
            due.append(Firing{name, firedAt, {}, 0});
            continue;
        }
        if (state.pendingRetry && !state.running && state.retryDueElapsedMs <= m_clock.elapsedMs()) {
            due.append(*state.pendingRetry);
            state.attempt = state.pendingRetry->attempt;
            state.pendingRetry.reset();
            state.running = true;
            state.runId = 0;
        }
    }
    return due;
}

QList<SkippedFiring> Scheduler::takeSkipped() {
    return std::exchange(m_skipped, {});
}

QDateTime Scheduler::nextWakeUp() const {
    QDateTime earliest;
    const auto consider = [&earliest](const QDateTime &at) {
        if (at.isValid() && (!earliest.isValid() || at < earliest))
            earliest = at;
    };
    for (const State &state : m_states) {
        if (!state.spec.active)
            continue;
        consider(state.nextFire);
        if (state.pendingRetry && !state.running)
            consider(wallTimeOf(state.retryDueElapsedMs));
    }
    for (const RunningIteration &iteration : m_iterations) {
        const auto state = m_states.constFind(iteration.schedule);
        if (state != m_states.cend() && state->spec.timeoutSeconds > 0 && !iteration.reported)
            consider(wallTimeOf(iteration.startedElapsedMs + qint64(state->spec.timeoutSeconds) * 1000));
    }
    return earliest;
}

QDateTime Scheduler::planAfter(const State &state, const QDateTime &after) const {
    QDateTime next = m_fireTimes.nextAfter(state.spec, after);
    if (next.isValid() && next == state.lastPlanned)
        next = m_fireTimes.nextAfter(state.spec, next);
    return next;
}

QDateTime Scheduler::wallTimeOf(qint64 elapsedMs) const {
    return m_clock.now().addMSecs(elapsedMs - m_clock.elapsedMs());
}

QDateTime Scheduler::nextFireTime(const QString &schedule) const {
    const auto state = m_states.constFind(schedule);
    return state != m_states.cend() && state->spec.active ? state->nextFire : QDateTime();
}

void Scheduler::runStarted(const QString &schedule, qint64 runId) {
    const auto state = m_states.find(schedule);
    if (state != m_states.end())
        state->runId = runId;
}

void Scheduler::adoptRun(const QString &schedule, qint64 runId) {
    const auto state = m_states.find(schedule);
    if (state == m_states.end())
        return;
    state->running = true;
    state->runId = runId;
}

std::optional<Firing> Scheduler::runFinished(const QString &schedule, const RunRecord &run) {
    for (auto it = m_iterations.begin(); it != m_iterations.end();) {
        if (it->schedule == schedule)
            it = m_iterations.erase(it);
        else
            ++it;
    }
    const auto it = m_states.find(schedule);
    if (it == m_states.end())
        return std::nullopt;
    State &state = *it;
    state.running = false;
    state.runId = 0;
    QList<qint64> transientFailures;
    for (const IterationRecord &iteration : run.iterations) {
        if (iteration.status == IterationStatus::Failed && isTransientFailure(iteration.error))
            transientFailures.append(iteration.tableId);
    }
    if (transientFailures.isEmpty() || state.attempt >= state.spec.retries || !state.spec.active) {
        state.attempt = 0;
        return std::nullopt;
    }
    const int attempt = state.attempt + 1;
    const qint64 delayMs = retryDelay(attempt).count();
    state.pendingRetry = Firing{schedule, m_clock.now().addMSecs(delayMs), transientFailures, attempt};
    state.retryDueElapsedMs = m_clock.elapsedMs() + delayMs;
    return state.pendingRetry;
}

bool Scheduler::isRunning(const QString &schedule) const {
    const auto state = m_states.constFind(schedule);
    return state != m_states.cend() && state->running;
}

void Scheduler::iterationStarted(const QString &schedule, qint64 iterationId) {
    if (!m_iterations.contains(iterationId))
        m_iterations.insert(iterationId, RunningIteration{schedule, m_clock.elapsedMs(), false});
}

void Scheduler::iterationEnded(qint64 iterationId) {
    m_iterations.remove(iterationId);
}

QList<qint64> Scheduler::takeOverdue() {
    const qint64 now = m_clock.elapsedMs();
    QList<qint64> overdue;
    for (auto it = m_iterations.begin(); it != m_iterations.end(); ++it) {
        const auto state = m_states.constFind(it->schedule);
        if (it->reported || state == m_states.cend() || state->spec.timeoutSeconds <= 0)
            continue;
        if (it->startedElapsedMs + qint64(state->spec.timeoutSeconds) * 1000 <= now) {
            it->reported = true;
            overdue.append(it.key());
        }
    }
    std::sort(overdue.begin(), overdue.end());
    return overdue;
}

std::chrono::milliseconds Scheduler::retryDelay(int attempt) const {
    std::chrono::milliseconds delay = m_options.retryBase;
    for (int i = 1; i < attempt && delay < m_options.retryCap; ++i)
        delay *= 2;
    return std::min(delay, m_options.retryCap);
}

} // namespace tidemark
