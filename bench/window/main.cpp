// SPDX-License-Identifier: MIT
// The instrumented window (build/bench/tidemark-instrumented): the shipped window plus the hooks
// scripts/screenshots.sh and the window benches drive it through. Never installed.
#include "app/gui/windowmain.h"
#include "bench/window/screenshotstate.h"
#include "bench/window/windoweventlog.h"
#include "ui/mainwindow/mainwindow.h"

int main(int argc, char *argv[]) {
    return tidemark::runWindow(argc, argv, [](tidemark::MainWindow &window) {
        if (const QString state = qEnvironmentVariable("TIDEMARK_SCREENSHOT_STATE"); !state.isEmpty())
            new tidemark::ScreenshotState(&window, state);
        if (qEnvironmentVariableIsSet("TIDEMARK_BENCH_EVENTS"))
            new tidemark::WindowEventLog(&window, qEnvironmentVariable("TIDEMARK_BENCH_EVENTS"));
    });
}
