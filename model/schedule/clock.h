// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <chrono>

namespace tidemark {

// Where the scheduler reads the time: the system's in the runner, a fake one in tests, so the
// policies (overlap, missed firings, retry back-off, timeouts, clock steps) are tested without
// waiting. Two clocks, because they answer two questions: now() is the wall clock that cron
// times are read on, and it may step (NTP, a hand correction); elapsedMs() only ever moves
// forward at the pace of real time, so a duration (a back-off, a timeout) measured on it is
// never stretched or cut by a step of the wall clock.
class Clock {
public:
    virtual ~Clock() = default;
    virtual QDateTime now() const = 0; // UTC
    // Milliseconds since an arbitrary fixed point; never goes back.
    virtual qint64 elapsedMs() const = 0;
};

class SystemClock : public Clock {
public:
    QDateTime now() const override { return QDateTime::currentDateTimeUtc(); }
    qint64 elapsedMs() const override {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }
};

// Moves only when told to.
class FakeClock : public Clock {
public:
    explicit FakeClock(const QDateTime &start)
        : m_now(start.toUTC()) {}
    QDateTime now() const override { return m_now; }
    qint64 elapsedMs() const override { return m_elapsedMs; }
    // Time passes: both clocks move (a set() backwards only steps the wall clock).
    void set(const QDateTime &now) {
        const qint64 delta = m_now.msecsTo(now.toUTC());
        m_now = now.toUTC();
        if (delta > 0)
            m_elapsedMs += delta;
    }
    void advanceMs(qint64 ms) {
        m_now = m_now.addMSecs(ms);
        m_elapsedMs += ms;
    }
    // The wall clock steps (forwards or back) while no time passes.
    void stepMs(qint64 ms) { m_now = m_now.addMSecs(ms); }

private:
    QDateTime m_now;
    qint64 m_elapsedMs = 0;
};

} // namespace tidemark
