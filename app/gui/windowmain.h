// SPDX-License-Identifier: MIT
#pragma once

#include <functional>

namespace tidemark {

class MainWindow;

// The window program: its command line (usage and version answered without a display), the
// log sinks, the window opened on the named workspace, the last one, or the welcome page.
// `instrument`, when given, is handed the window before it opens anything: the instrumented
// window of bench/ (screenshots, the window benches) hooks in there; the shipped one has none.
int runWindow(int argc, char *argv[], const std::function<void(MainWindow &)> &instrument = {});

} // namespace tidemark
