// SPDX-License-Identifier: MIT
#include "ui/schedules/runnerstatuswidget.h"

#include "model/models/displayformat.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>

namespace tidemark {

RunnerStatusWidget::RunnerStatusWidget(QAction *setupAction, QWidget *parent)
    : QWidget(parent)
    , m_label(new QLabel(this))
    , m_setup(new QLabel(this))
    , m_setupAction(setupAction) {
    m_label->setObjectName(QStringLiteral("runnerState"));
    m_setup->setObjectName(QStringLiteral("setUpRunnerLink"));
    m_setup->setTextFormat(Qt::RichText);
    m_setup->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    m_setup->setToolTip(setupAction->toolTip());
    connect(m_setup, &QLabel::linkActivated, setupAction, &QAction::trigger);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_setup);
    m_ageTimer.setInterval(1000);
    connect(&m_ageTimer, &QTimer::timeout, this, &RunnerStatusWidget::refresh);
    clear();
}

void RunnerStatusWidget::clear() {
    m_known = false;
    m_heartbeat.reset();
    refresh();
    emit stateChanged();
}

void RunnerStatusWidget::setHeartbeat(const std::optional<RunnerHeartbeat> &heartbeat) {
    m_known = true;
    m_heartbeat = heartbeat;
    refresh();
    emit stateChanged();
}

void RunnerStatusWidget::refresh() {
    const RunnerStatus::State before = m_status.state;
    m_status = RunnerStatus::of(m_heartbeat, QDateTime::currentDateTimeUtc());
    m_label->setText(m_known ? m_status.text : QString());
    // A failed firing is the one thing here that needs a look: it stands out.
    m_label->setStyleSheet(m_known && m_status.lastFiringFailed ? QStringLiteral("color: #b00020;")
                                                                : QString());
    QString tip = m_heartbeat ? tr("tidemark-cli serve %1, started %2")
                                    .arg(m_heartbeat->version, formatTimeWithZone(m_heartbeat->startedAt))
                              : QString();
    if (m_status.lastFiringFailed)
        tip += QLatin1Char('\n') + tr("Last firing failed: %1").arg(m_status.firingError);
    m_label->setToolTip(tip);
    // A link that empties rather than a button that hides: showing or hiding a widget in a
    // window under the mouse asks the X server where the pointer is and waits for the answer,
    // behind whatever it is still drawing (up to 75 ms while the window opens).
    m_setup->setText(m_known && m_status.state != RunnerStatus::State::Running
                         ? QStringLiteral("<a href=\"setup\">%1</a>")
                               .arg(QString(m_setupAction->text()).remove(QLatin1Char('&')).toHtmlEscaped())
                         : QString());
    // Only an age to keep current: a running runner's, or a stopped one's.
    if (m_known && m_heartbeat)
        m_ageTimer.start();
    else
        m_ageTimer.stop();
    if (before != m_status.state) // a beat that expired while nothing was read
        emit stateChanged();
}

} // namespace tidemark
