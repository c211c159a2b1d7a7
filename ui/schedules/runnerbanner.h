// SPDX-License-Identifier: MIT
#pragma once

#include "model/schedule/runnerstatus.h"

#include <QFrame>
#include <optional>

class QLabel;
class QPushButton;

namespace tidemark {

// "No runner: schedules do not fire", across the top of the Schedules dock and of Add Schedule,
// with the button that sets one up (setUpRequested). Shown while the workspace has no live
// runner; hidden while one beats, or while nothing is known yet.
class RunnerBanner : public QFrame {
    Q_OBJECT
public:
    explicit RunnerBanner(QWidget *parent = nullptr);

    void setStatus(const std::optional<RunnerStatus> &status);
    QLabel *text() const { return m_text; }
    QPushButton *setUpButton() const { return m_setUp; }

signals:
    void setUpRequested();

private:
    QLabel *m_text;
    QPushButton *m_setUp;
};

} // namespace tidemark
