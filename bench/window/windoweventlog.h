// SPDX-License-Identifier: MIT
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <functional>

namespace tidemark {

class MainWindow;

// bench/window_scale.sh names a file (TIDEMARK_BENCH_EVENTS) where the window notes, one line
// each with the wall-clock time, what the bench cannot see through X: the tables and the history
// read and shown, a run started, finished or followed from another process. It also keeps the
// GUI thread's own stall figure beside the X ping probe's: a 10 ms timer that notes how late it
// fired whenever that is over 20 ms, and how much of that the thread spent waiting for a core.
// What the thread was doing meanwhile: every event delivered on the GUI thread passes an
// application-wide filter, and a gap of over 20 ms between two of them is noted with the event
// that began it ("busy G after TYPE to CLASS NAME"): that event's handling, or what it sent on
// inside, took the time. `window` owns the log; a file that cannot be opened notes nothing.
class WindowEventLog : public QObject {
    Q_OBJECT
public:
    WindowEventLog(MainWindow *window, const QString &path);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    std::function<void()> m_noteClose;
    std::function<void(const QString &)> m_note;
    QElapsedTimer m_sinceEvent;
    // The event that began the current stretch (kept cheaply: noted only after a long one).
    int m_lastType = 0;
    const char *m_lastClass = "";
    QString m_lastName;
};

} // namespace tidemark
