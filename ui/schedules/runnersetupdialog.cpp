// SPDX-License-Identifier: MIT
#include "ui/schedules/runnersetupdialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
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
    , m_outcome(new QLabel(this)) {
    setObjectName(QStringLiteral("runnerSetupDialog"));
    setWindowTitle(tr("Set up runner"));
    auto *intro =
        new QLabel(tr("A runner (tidemark-cli serve) fires this workspace's schedules. It is set up "
                      "as a systemd user service, %1:")
                       .arg(m_setup->unitName()),
                   this);
    intro->setWordWrap(true);
    m_transcript->setObjectName(QStringLiteral("runnerSetupTranscript"));
    m_transcript->setReadOnly(true);
    m_transcript->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_outcome->setObjectName(QStringLiteral("runnerSetupOutcome"));
    m_outcome->setWordWrap(true);
    m_outcome->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_outcome->setText(tr("Working…"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_transcript, 1);
    layout->addWidget(m_outcome);
    layout->addWidget(buttons);
    resize(640, 360);

    connect(m_setup, &RunnerServiceSetup::progress, m_transcript, &QPlainTextEdit::appendPlainText);
    connect(m_setup, &RunnerServiceSetup::finished, this, [this](const RunnerSetupResult &result) {
        switch (result.outcome) {
        case RunnerSetupResult::Outcome::Enabled:
            m_outcome->setText(tr("Done. %1").arg(result.howTo));
            break;
        case RunnerSetupResult::Outcome::Failed:
            m_outcome->setText(tr("systemd did not start the runner (see above). %1").arg(result.howTo));
            break;
        case RunnerSetupResult::Outcome::NoSystemd:
            m_outcome->setText(tr("systemd --user is not available here. %1").arg(result.howTo));
            break;
        }
        emit setupFinished(result);
    });
    QMetaObject::invokeMethod(m_setup, &RunnerServiceSetup::start, Qt::QueuedConnection);
}

} // namespace tidemark
