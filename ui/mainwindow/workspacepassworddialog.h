// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/serverworkspaceaddress.h"

#include <QDialog>

class QCheckBox;
class QLineEdit;

namespace tidemark {

// Asked when a server workspace's server wants a password that libpq's own sources (PGPASSWORD,
// ~/.pgpass, a service file) and the system keychain do not hold, or refused the one given. The
// window then uses it for every connection to that server until it quits, and keeps it in the
// keychain when asked to.
class WorkspacePasswordDialog : public QDialog {
    Q_OBJECT
public:
    // `refused`: the last password given was refused. `keychainProblem`: why no keychain can keep
    // it here (empty: one can).
    WorkspacePasswordDialog(const ServerWorkspaceAddress &address, bool refused,
                            const QString &keychainProblem, QWidget *parent = nullptr);
    QString password() const;
    bool keepInKeychain() const;

private:
    QLineEdit *m_password;
    QCheckBox *m_keep;
};

} // namespace tidemark
