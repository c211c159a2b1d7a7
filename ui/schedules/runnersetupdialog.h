// SPDX-License-Identifier: MIT
#pragma once

#include "model/schedule/runnerservicesetup.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QPlainTextEdit;

namespace tidemark {

// "Set up runner…": first shows what RunnerServiceSetup will write and run (its plan, and the
// unit file's text); Set Up does it and shows each command, what it printed and the outcome, or
// how to do it by hand when systemd --user is not there. Closing it never waits for systemctl.
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
    QDialogButtonBox *m_buttons;
};

} // namespace tidemark
