// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QStackedWidget;
class QTableWidget;

namespace tidemark {

class WorkspaceGateway;

// Lists the workspace's connections and adds, tests and removes them. SQLite connections pick
// a file; PostgreSQL ones take host, port, database, user and SSL mode, and the *name* of an
// environment variable holding the password. A password itself is never asked for or stored
// (libpq's ~/.pgpass or service file work as well).
class ConnectionsDialog : public QDialog {
    Q_OBJECT
public:
    ConnectionsDialog(WorkspaceGateway *gateway, QWidget *parent = nullptr);

    // The PostgreSQL form as a libpq conninfo string (values quoted as libpq expects).
    QString postgresConninfo() const;

signals:
    void connectionsChanged();

private:
    void reload();
    void addConnection();
    void removeSelected();
    void testSelected();
    void browseSqlite();
    void setMessage(const QString &message, bool error);
    ConnectionSpec formSpec() const;

    WorkspaceGateway *m_gateway;
    QList<ConnectionSpec> m_connections;
    QTableWidget *m_list;
    QLineEdit *m_name;
    QComboBox *m_kind;
    QStackedWidget *m_pages;
    QLineEdit *m_sqlitePath;
    QLineEdit *m_host;
    QSpinBox *m_port;
    QLineEdit *m_dbname;
    QLineEdit *m_user;
    QComboBox *m_sslmode;
    QLineEdit *m_passwordEnv;
    QLabel *m_message;
};

} // namespace tidemark
