// SPDX-License-Identifier: MIT
#pragma once

#include "model/schedule/runnerservicesetup.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;

namespace tidemark {

// "Set up runner…": runs RunnerServiceSetup for the workspace at once and shows what it runs
// and what that printed, then the outcome, or how to do it by hand when systemd --user is not
// there. Closing it never waits for systemctl.
class RunnerSetupDialog : public QDialog {
    Q_OBJECT
public:
    RunnerSetupDialog(const QString &workspacePath, const QString &cliPath, QWidget *parent = nullptr);

    RunnerServiceSetup *setup() const { return m_setup; }
    QPlainTextEdit *transcript() const { return m_transcript; }
    QLabel *outcome() const { return m_outcome; }

    // tidemark-cli beside this program, else on PATH.
    static QString cliPath();

signals:
    void setupFinished(const tidemark::RunnerSetupResult &result);

private:
    RunnerServiceSetup *m_setup;
    QPlainTextEdit *m_transcript;
    QLabel *m_outcome;
};

} // namespace tidemark
