// SPDX-License-Identifier: MIT
#pragma once

#include "model/schedule/runnerstatus.h"

#include <QTimer>
#include <QWidget>
#include <optional>

class QAction;
class QLabel;

namespace tidemark {

// The status bar's word on the workspace's runner: "Runner: running on HOST (pid N), last beat
// 3s ago", "Runner: stopped (…)", or "No runner" with a "Set up runner…" link (`setupAction`)
// while none is running. Shows the heartbeat it was last given (the window reads it off the GUI
// thread when the workspace changes) and re-words its age every second without reading again.
class RunnerStatusWidget : public QWidget {
    Q_OBJECT
public:
    RunnerStatusWidget(QAction *setupAction, QWidget *parent = nullptr);

    // No workspace open: shows nothing.
    void clear();
    void setHeartbeat(const std::optional<RunnerHeartbeat> &heartbeat);
    RunnerStatus status() const { return m_status; }
    // A heartbeat was read (setHeartbeat) since the last clear().
    bool isKnown() const { return m_known; }

signals:
    // The state changed: a heartbeat read, the workspace closed, or a beat that expired.
    void stateChanged();

public:
    QLabel *label() const { return m_label; }
    // "Set up runner…", a link that triggers the setup action; empty while a runner runs.
    QLabel *setupLink() const { return m_setup; }

private:
    void refresh();

    QLabel *m_label;
    QLabel *m_setup;
    QAction *m_setupAction;
    QTimer m_ageTimer;
    bool m_known = false;
    std::optional<RunnerHeartbeat> m_heartbeat;
    RunnerStatus m_status;
};

} // namespace tidemark
