// SPDX-License-Identifier: MIT
#pragma once

#include "model/engine/faultpoint.h"

#include <QSemaphore>
#include <atomic>
#include <cstring>
#include <functional>

namespace tidemark::test {

// Blocks the `nth` iteration (1-based, in the order they reach it) that reaches fault point
// `point` until release(); the others pass. Set while it lives.
class FaultGate {
public:
    FaultGate(const char *point, int nth)
        : m_point(point)
        , m_nth(nth) {
        setFaultHook([this](const char *name) {
            if (std::strcmp(name, m_point) != 0 || ++m_seen != m_nth)
                return;
            m_reached.store(true);
            m_open.acquire();
        });
    }
    ~FaultGate() {
        release();
        setFaultHook({});
    }
    bool reached() const { return m_reached.load(); }
    void release() {
        if (!m_released.exchange(true))
            m_open.release();
    }

private:
    const char *m_point;
    const int m_nth;
    std::atomic_int m_seen{0};
    std::atomic_bool m_released{false};
    std::atomic_bool m_reached{false};
    QSemaphore m_open;
};

// Runs `action` once, on the thread that gets there, the first time the process reaches the fault
// point `point`; cleared on destruction. `action` may reach fault points itself: the hook has
// fired by then.
class InterleaveAt {
public:
    InterleaveAt(const char *point, std::function<void()> action) {
        setFaultHook([this, point, action = std::move(action)](const char *name) {
            if (m_fired || std::strcmp(name, point) != 0)
                return;
            m_fired = true;
            action();
        });
    }
    ~InterleaveAt() { setFaultHook({}); }
    bool fired() const { return m_fired; }

private:
    bool m_fired = false;
};

} // namespace tidemark::test
