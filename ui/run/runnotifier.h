// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QObject>

class QSystemTrayIcon;

namespace tidemark {

// Tells the user, outside the window, when a run ended failed, cancelled, with warnings or
// interrupted: a system tray / desktop notification naming the tables under what happened to
// each. Where there is no tray, notified() still fires and the window shows the message in its
// status bar. Runs that end in another process (the runner, a CLI run, a dead process's run
// closed as interrupted) go through runFinished() too when the window learns of them. The hook
// and the webhook are the core's AlertDispatcher.
class RunNotifier : public QObject {
    Q_OBJECT
public:
    explicit RunNotifier(QObject *parent = nullptr);

    // The title and text for `run`, or an empty title when nothing needs saying.
    static std::pair<QString, QString> describe(const RunRecord &run);

    // The icon messages go through (the window's tray); none: the notifier makes its own when one
    // is needed.
    void setTray(QSystemTrayIcon *tray) { m_tray = tray; }

public slots:
    void runFinished(const tidemark::RunRecord &run);

signals:
    void notified(const QString &title, const QString &message);

private:
    QSystemTrayIcon *m_tray = nullptr;
};

} // namespace tidemark
