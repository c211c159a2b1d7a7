// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;

namespace tidemark {

class RemoteWorkQueue;
class WorkspaceGateway;

// Lists the workspace's connections and adds, edits, tests and removes them. SQLite connections
// pick a file; PostgreSQL ones take host, port, database, user and SSL mode, and a password kept
// in the system keychain ("Save in system keychain"; never in the workspace) or the *name* of an
// environment variable holding it (libpq's ~/.pgpass or service file work as well). Selecting a
// connection loads it into the form: "Save changes" updates it, "Forget password" removes its
// keychain entry. Keychain and workspace work runs on the gateway's worker, off the GUI thread;
// a test connects on the dialog's RemoteWorkQueue (a slow server never holds up the workspace),
// can be cancelled, and is superseded by the next test.
class ConnectionsDialog : public QDialog {
    Q_OBJECT
public:
    ConnectionsDialog(WorkspaceGateway *gateway, QWidget *parent = nullptr);

    // The PostgreSQL form as a libpq conninfo string (values quoted as libpq expects).
    QString postgresConninfo() const;
    // A role that may read the connections but not change them (a server workspace's viewer or
    // operator): add, save and remove are greyed out, `why` as their tooltip. Testing and the
    // keychain (this machine's) stay.
    void setReadOnly(const QString &why);

signals:
    void connectionsChanged();

private:
    void reload();
    void addConnection();
    void saveChanges();
    void forgetPassword();
    void loadSelected();
    // The password to store: the field's text when "Save in system keychain" is ticked, else empty.
    QString passwordToStore() const;
    // Why the form cannot be saved yet, or empty.
    QString formProblem(const ConnectionSpec &spec) const;
    // After an add or change: says so (and whether the keychain got the password), reloads.
    void saved(const QString &what, const ConnectionSpec &spec, bool passwordStored);
    // "Its file … does not exist yet …" for a SQLite connection whose file is missing, else empty.
    QString missingFileNote(const ConnectionSpec &spec) const;
    void removeSelected();
    void testSelected();
    void testForm(); // the form as it stands, before adding or saving
    void test(const ConnectionSpec &spec);
    void cancelTest();
    void browseSqlite();
    void setMessage(const QString &message, bool error);
    ConnectionSpec formSpec() const;
    const ConnectionSpec *selected() const;

    WorkspaceGateway *m_gateway;
    RemoteWorkQueue *m_remote;
    QString m_readOnly; // why the connections cannot be changed; empty when they can
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
    QLineEdit *m_password;
    QCheckBox *m_savePassword;
    QPushButton *m_saveChanges;
    QPushButton *m_forgetPassword;
    QPushButton *m_cancelTest;
    QString m_extraConninfo; // keywords of the loaded connection the form has no field for
    QLabel *m_message;
};

} // namespace tidemark
