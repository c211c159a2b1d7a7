// SPDX-License-Identifier: MIT
#include "ui/schedules/runnerbanner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace tidemark {

RunnerBanner::RunnerBanner(QWidget *parent)
    : QFrame(parent)
    , m_text(new QLabel(this))
    , m_setUp(new QPushButton(tr("Set Up Runner…"), this)) {
    setObjectName(QStringLiteral("runnerBanner"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setStyleSheet(QStringLiteral("#runnerBanner { background: #fff4ce; border: 1px solid #e0b400; }"
                                 "#runnerBanner QLabel { color: #3d2e00; }"));
    m_text->setObjectName(QStringLiteral("runnerBannerText"));
    m_text->setWordWrap(true);
    m_setUp->setObjectName(QStringLiteral("runnerBannerSetUp"));
    connect(m_setUp, &QPushButton::clicked, this, &RunnerBanner::setUpRequested);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_setUp);
    hide();
}

void RunnerBanner::setStatus(const std::optional<RunnerStatus> &status) {
    if (!status || status->state == RunnerStatus::State::Running)
        return hide();
    QString text = tr("<b>No runner: schedules do not fire.</b>");
    if (status->state == RunnerStatus::State::Stopped)
        text += QLatin1Char(' ') + status->text.toHtmlEscaped() + QLatin1Char('.');
    text += QLatin1Char(' ') +
            tr("A runner (tidemark-cli serve) fires them; until one runs, due firings are missed.");
    m_text->setText(text);
    show();
}

} // namespace tidemark
