// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>

namespace tidemark {

// Where the scheduler reads the time: the system's in the runner, a fake one in tests, so the
// policies (overlap, missed firings, retry back-off, timeouts) are tested without waiting.
class Clock {
public:
    virtual ~Clock() = default;
    virtual QDateTime now() const = 0; // UTC
};

class SystemClock : public Clock {
public:
    QDateTime now() const override { return QDateTime::currentDateTimeUtc(); }
};

// Moves only when told to.
class FakeClock : public Clock {
public:
    explicit FakeClock(const QDateTime &start)
        : m_now(start.toUTC()) {}
    QDateTime now() const override { return m_now; }
    void set(const QDateTime &now) { m_now = now.toUTC(); }
    void advanceMs(qint64 ms) { m_now = m_now.addMSecs(ms); }

private:
    QDateTime m_now;
};

} // namespace tidemark
