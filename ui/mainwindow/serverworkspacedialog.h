// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/serverworkspaceaddress.h"

#include <QDialog>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tidemark {

class RemoteWorkQueue;

// File › Open Server Workspace…: a team's workspace in a PostgreSQL database, named by host, port,
// database, user, schema and TLS mode rather than by a URI typed by hand. The address the parts
// make is shown as it will be opened (and kept in the recent list). Test opens the workspace off
// the GUI thread and says how many tables it holds, or why it cannot be opened; Open hands the
// address to the window. The password is never asked for here: libpq finds it (PGPASSWORD,
// ~/.pgpass, a service file) or the keychain holds it, else the window asks when it opens.
class ServerWorkspaceDialog : public QDialog {
    Q_OBJECT
public:
    explicit ServerWorkspaceDialog(const ServerWorkspaceAddress &start, QWidget *parent = nullptr);

    ServerWorkspaceAddress address() const;
    QString location() const { return address().location(); }

private:
    void addressChanged();
    void test();
    void setMessage(const QString &message, bool error);

    RemoteWorkQueue *m_remote;
    QLineEdit *m_host;
    QSpinBox *m_port;
    QLineEdit *m_database;
    QLineEdit *m_user;
    QLineEdit *m_schema;
    QComboBox *m_sslmode;
    QLineEdit *m_location;
    QPushButton *m_test;
    QLabel *m_message;
    QDialogButtonBox *m_buttons;
};

} // namespace tidemark
