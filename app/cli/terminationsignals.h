// SPDX-License-Identifier: MIT
#pragma once

namespace tidemark::cli {

// The SIGINT/SIGTERM received since the handlers were installed (0: none); polled on the event
// loop, because a signal handler may do nothing else. exchange: takes it.
int pendingSignal();
int takePendingSignal();
// Installs the handlers that set it, after clearing it; a second signal kills the usual way.
void catchTerminationSignals();
void restoreTerminationSignals();

// catchTerminationSignals() for as long as `run` lives: installed before the workspace is
// opened, so a signal during the set-up is never a silent kill.
class TerminationSignals {
public:
    TerminationSignals() { catchTerminationSignals(); }
    ~TerminationSignals() { restoreTerminationSignals(); }
    TerminationSignals(const TerminationSignals &) = delete;
    TerminationSignals &operator=(const TerminationSignals &) = delete;
};

} // namespace tidemark::cli
