// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

#include <QDateTime>
#include <QString>
#include <optional>

namespace tidemark {

// What the window says about a workspace's runner, from its heartbeat row as last read.
struct RunnerStatus {
    enum class State {
        None,    // no runner recorded (never set up, or it stopped cleanly and released its row)
        Running, // its heartbeat has not expired
        Stopped, // its row is there but its heartbeat expired (killed, crashed, machine down)
    };
    State state = State::None;
    QString text;                  // "Runner: running on HOST (pid N), last beat 3s ago", ...
    bool lastFiringFailed = false; // its last firing could not start a run
    QString firingError;           // why, when it failed (long: a tooltip, not the status line)

    // `now` is UTC. Pure: the caller re-evaluates it as time passes, without reading again.
    static RunnerStatus of(const std::optional<RunnerHeartbeat> &heartbeat, const QDateTime &now);
};

} // namespace tidemark
