// SPDX-License-Identifier: MIT
#include "app/cli/terminationsignals.h"

#include <atomic>
#include <csignal>

namespace tidemark::cli {

namespace {

std::atomic_int g_signal{0};

extern "C" void onTerminationSignal(int signal) {
    g_signal.store(signal);
    // A second signal while the run rolls back kills the process the usual way.
    std::signal(signal, SIG_DFL);
}

} // namespace

int pendingSignal() {
    return g_signal.load();
}

int takePendingSignal() {
    return g_signal.exchange(0);
}

void catchTerminationSignals() {
    g_signal.store(0);
    std::signal(SIGINT, onTerminationSignal);
    std::signal(SIGTERM, onTerminationSignal);
}

void restoreTerminationSignals() {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
}

} // namespace tidemark::cli
