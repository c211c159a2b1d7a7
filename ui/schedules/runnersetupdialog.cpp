// SPDX-License-Identifier: MIT
#include "ui/schedules/runnersetupdialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace tidemark {

QString RunnerSetupDialog::cliPath() {
    const QString beside = QStandardPaths::findExecutable(QStringLiteral("tidemark-cli"),
                                                          {QCoreApplication::applicationDirPath()});
    if (!beside.isEmpty())
        return beside;
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("tidemark-cli"));
    return onPath.isEmpty() ? QStringLiteral("/usr/bin/tidemark-cli") : onPath;
}

RunnerSetupDialog::RunnerSetupDialog(const QString &workspacePath, const QString &cliPath, QWidget *parent)
    : QDialog(parent)
    , m_setup(new RunnerServiceSetup(workspacePath, cliPath, this))
    , m_transcript(new QPlainTextEdit(this))
    , m_outcome(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this)) {
    setObjectName(QStringLiteral("runnerSetupDialog"));
    setWindowTitle(tr("Set up runner"));
    auto *intro =
        new QLabel(tr("A runner (tidemark-cli serve) fires this workspace's schedules. It is set up "
                      "as a systemd user service, %1.")
                       .arg(m_setup->unitName()),
                   this);
    intro->setWordWrap(true);
    intro->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_transcript->setObjectName(QStringLiteral("runnerSetupTranscript"));
    m_transcript->setReadOnly(true);
    m_transcript->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_outcome->setObjectName(QStringLiteral("runnerSetupOutcome"));
    m_outcome->setWordWrap(true);
    m_outcome->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_outcome);
    layout->addWidget(m_transcript, 1);
    layout->addWidget(m_buttons);
    resize(680, 420);

    // First what it will do, word for word; nothing is written or run until Set Up is pressed.
    const QStringList plan = m_setup->plan();
    if (plan.isEmpty()) {
        m_outcome->setText(
            tr("systemd --user is not available here, so nothing can be set up from the window."));
        m_transcript->setPlainText(m_setup->manualCommands().join(QLatin1Char('\n')));
    } else {
        m_outcome->setText(tr("Set Up will do this, in this order; if a step fails, what it did is undone:"));
        QString preview = plan.join(QLatin1Char('\n'));
        if (m_setup->writesUnitFile())
            preview +=
                tr("\n\nThe file it writes, %1:\n\n%2").arg(m_setup->userUnitPath(), m_setup->userUnitText());
        m_transcript->setPlainText(preview);
        QPushButton *start = m_buttons->addButton(tr("Set Up"), QDialogButtonBox::AcceptRole);
        start->setObjectName(QStringLiteral("runnerSetupStart"));
        start->setDefault(true);
        connect(start, &QPushButton::clicked, this, [this, start] {
            start->setEnabled(false);
            m_transcript->clear();
            m_outcome->setText(tr("Working…"));
            m_setup->start();
        });
    }

    connect(m_setup, &RunnerServiceSetup::progress, m_transcript, &QPlainTextEdit::appendPlainText);
    connect(m_setup, &RunnerServiceSetup::finished, this, [this](const RunnerSetupResult &result) {
        switch (result.outcome) {
        case RunnerSetupResult::Outcome::Enabled:
            m_outcome->setText(tr("Done. %1").arg(result.howTo));
            break;
        case RunnerSetupResult::Outcome::Failed:
            m_outcome->setText(tr("systemd did not start the runner (see below); nothing was left behind. %1")
                                   .arg(result.howTo));
            break;
        case RunnerSetupResult::Outcome::NoSystemd:
            m_outcome->setText(tr("systemd --user is not available here. %1").arg(result.howTo));
            break;
        }
        m_buttons->setStandardButtons(QDialogButtonBox::Close);
        emit setupFinished(result);
    });
}

} // namespace tidemark
