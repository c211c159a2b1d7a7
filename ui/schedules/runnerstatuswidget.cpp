// SPDX-License-Identifier: MIT
#include "ui/schedules/runnerstatuswidget.h"

#include "model/models/displayformat.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace tidemark {

RunnerStatusWidget::RunnerStatusWidget(QAction *setupAction, QWidget *parent)
    : QWidget(parent)
    , m_label(new QLabel(this))
    , m_setup(new QToolButton(this)) {
    m_label->setObjectName(QStringLiteral("runnerState"));
    m_setup->setObjectName(QStringLiteral("setUpRunnerButton"));
    m_setup->setDefaultAction(setupAction);
    m_setup->setAutoRaise(true);
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
}

void RunnerStatusWidget::setHeartbeat(const std::optional<RunnerHeartbeat> &heartbeat) {
    m_known = true;
    m_heartbeat = heartbeat;
    refresh();
}

void RunnerStatusWidget::refresh() {
    m_status = RunnerStatus::of(m_heartbeat, QDateTime::currentDateTimeUtc());
    m_label->setText(m_known ? m_status.text : QString());
    m_label->setToolTip(m_heartbeat
                            ? tr("tidemark-cli serve %1, started %2")
                                  .arg(m_heartbeat->version, formatTimeWithZone(m_heartbeat->startedAt))
                            : QString());
    m_setup->setVisible(m_known && m_status.state != RunnerStatus::State::Running);
    // Only an age to keep current: a running runner's, or a stopped one's.
    if (m_known && m_heartbeat)
        m_ageTimer.start();
    else
        m_ageTimer.stop();
}

} // namespace tidemark
