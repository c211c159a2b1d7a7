// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

class QString;

namespace tidemark {

class MainWindow;

// scripts/screenshots.sh names the state the window should show (TIDEMARK_SCREENSHOT_STATE) and
// takes the shot once the window prints "screenshot-ready" on stdout. The script prepares the
// workspace with the CLI beforehand (a backfill, a hand-edited target); the window only opens
// the view:
//   main               a run from the window, finished, the history shown
//   running            a run, mid-way through its streaming table (the demo's clicks)
//   watermark-history  Tables › Watermark History… of the first table
//   rejected-rows      a run, then Rejected Rows… of the iteration that rejected some
//   verify             Tables › Verify… of the first table, its result shown
//   schedules          the Schedules dock in front, a schedule selected
//   add-schedule       Schedules › Add… open (with the "No runner" banner when none runs)
//   runner-setup       Run › Set Up Runner…, showing what it would write and run
//   history-table      a run, then the history filtered to the first table (its chart)
//   welcome            no workspace: the welcome page (started without one)
// The screenshot fills the screen, whatever size the script's X server has. `window` owns the
// state, which the window enters once its workspace is open.
class ScreenshotState : public QObject {
    Q_OBJECT
public:
    ScreenshotState(MainWindow *window, const QString &state);
};

} // namespace tidemark
