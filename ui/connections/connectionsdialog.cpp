// SPDX-License-Identifier: MIT
#include "ui/connections/connectionsdialog.h"

#include "model/common/error.h"
#include "model/credentials/credentialstore.h"
#include "model/domain/connectionspec.h"
#include "model/engine/remotework.h"
#include "model/engine/sourcecatalog.h"
#include "model/engine/tablesetup.h"
#include "model/storage/workspace.h"
#include "ui/common/workspacegateway.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace tidemark {

namespace {

// libpq conninfo values: quoted when empty or holding spaces, with \ and ' escaped.
QString conninfoValue(const QString &value) {
    if (!value.isEmpty() && !value.contains(QLatin1Char(' ')) && !value.contains(QLatin1Char('\'')) &&
        !value.contains(QLatin1Char('\\')))
        return value;
    QString escaped = value;
    escaped.replace(QLatin1String("\\"), QLatin1String("\\\\"));
    escaped.replace(QLatin1String("'"), QLatin1String("\\'"));
    return QLatin1Char('\'') + escaped + QLatin1Char('\'');
}

// Reads back what postgresConninfo() writes (keyword=value, values optionally '…' with \ escapes).
QList<QPair<QString, QString>> conninfoPairs(const QString &conninfo) {
    QList<QPair<QString, QString>> pairs;
    qsizetype i = 0;
    const qsizetype n = conninfo.size();
    while (i < n) {
        while (i < n && conninfo.at(i).isSpace())
            ++i;
        const qsizetype eq = conninfo.indexOf(QLatin1Char('='), i);
        if (i >= n || eq < 0)
            break;
        const QString key = conninfo.mid(i, eq - i).trimmed();
        i = eq + 1;
        while (i < n && conninfo.at(i).isSpace())
            ++i;
        QString value;
        if (i < n && conninfo.at(i) == QLatin1Char('\'')) {
            for (++i; i < n && conninfo.at(i) != QLatin1Char('\''); ++i) {
                if (conninfo.at(i) == QLatin1Char('\\') && i + 1 < n)
                    ++i;
                value += conninfo.at(i);
            }
            ++i;
        } else {
            while (i < n && !conninfo.at(i).isSpace())
                value += conninfo.at(i++);
        }
        pairs.append({key, value});
    }
    return pairs;
}

} // namespace

ConnectionsDialog::ConnectionsDialog(WorkspaceGateway *gateway, QWidget *parent)
    : QDialog(parent)
    , m_gateway(gateway)
    , m_remote(new RemoteWorkQueue(this))
    , m_list(new QTableWidget(0, 3, this))
    , m_name(new QLineEdit(this))
    , m_kind(new QComboBox(this))
    , m_pages(new QStackedWidget(this))
    , m_sqlitePath(new QLineEdit(this))
    , m_host(new QLineEdit(this))
    , m_port(new QSpinBox(this))
    , m_dbname(new QLineEdit(this))
    , m_user(new QLineEdit(this))
    , m_sslmode(new QComboBox(this))
    , m_passwordEnv(new QLineEdit(this))
    , m_password(new QLineEdit(this))
    , m_savePassword(new QCheckBox(tr("Save in system keychain"), this))
    , m_saveChanges(new QPushButton(tr("Save changes"), this))
    , m_forgetPassword(new QPushButton(tr("Forget password"), this))
    , m_cancelTest(new QPushButton(tr("Cancel test"), this))
    , m_message(new QLabel(this)) {
    setWindowTitle(tr("Connections"));
    resize(720, 520);
    m_list->setHorizontalHeaderLabels({tr("Name"), tr("Kind"), tr("Endpoint")});
    m_list->horizontalHeader()->setStretchLastSection(true);
    m_list->verticalHeader()->hide();
    m_list->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);

    m_kind->addItem(tr("SQLite file"), int(ConnectionKind::Sqlite));
    m_kind->addItem(tr("PostgreSQL"), int(ConnectionKind::Postgres));
    m_kind->addItem(tr("MySQL / MariaDB"), int(ConnectionKind::Mysql));

    auto *sqlitePage = new QWidget(this);
    auto *sqliteForm = new QFormLayout(sqlitePage);
    auto *browse = new QPushButton(tr("Browse…"), this);
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_sqlitePath);
    pathRow->addWidget(browse);
    sqliteForm->addRow(tr("Database file:"), pathRow);
    connect(browse, &QPushButton::clicked, this, &ConnectionsDialog::browseSqlite);

    auto *pgPage = new QWidget(this);
    auto *pgForm = new QFormLayout(pgPage);
    m_host->setPlaceholderText(QStringLiteral("localhost"));
    m_port->setRange(1, 65535);
    m_port->setValue(5432);
    m_sslmode->addItems(postgresSslModes());
    m_passwordEnv->setPlaceholderText(tr("e.g. TIDEMARK_PG_PASSWORD (empty = ~/.pgpass or no password)"));
    pgForm->addRow(tr("Host:"), m_host);
    pgForm->addRow(tr("Port:"), m_port);
    pgForm->addRow(tr("Database:"), m_dbname);
    pgForm->addRow(tr("User:"), m_user);
    pgForm->addRow(tr("SSL mode:"), m_sslmode);
    m_name->setObjectName(QStringLiteral("name"));
    m_host->setObjectName(QStringLiteral("host"));
    m_dbname->setObjectName(QStringLiteral("database"));
    m_port->setObjectName(QStringLiteral("port"));
    m_user->setObjectName(QStringLiteral("user"));
    m_sqlitePath->setObjectName(QStringLiteral("sqlitePath"));
    m_message->setObjectName(QStringLiteral("message"));
    m_list->setObjectName(QStringLiteral("connections"));
    m_password->setObjectName(QStringLiteral("password"));
    m_password->setEchoMode(QLineEdit::Password);
    // Typed, it is what Test logs in with; kept (in the keychain only) when the box is ticked.
    m_password->setPlaceholderText(tr("Test uses it; kept only in the system keychain, if ticked"));
    m_savePassword->setObjectName(QStringLiteral("savePassword"));
    auto *passwordRow = new QHBoxLayout;
    passwordRow->addWidget(m_password, 1);
    passwordRow->addWidget(m_savePassword);
    pgForm->addRow(tr("Password:"), passwordRow);
    pgForm->addRow(tr("Password variable:"), m_passwordEnv);
    auto *passwordNote =
        new QLabel(tr("Passwords are never stored in the workspace. A password variable, "
                      "when set, wins over the keychain; without either, ~/.pgpass is used."),
                   this);
    passwordNote->setObjectName(QStringLiteral("passwordNote"));
    passwordNote->setWordWrap(true);
    pgForm->addRow(QString(), passwordNote);
    // The box is offered only where a keychain answers (not over SSH, in a container, under a
    // service manager): asked off the GUI thread, as the keychain may take seconds to answer.
    m_remote->submit(
        QStringLiteral("keychain"), [](RemoteTask &) { return CredentialStore::unavailableReason(); },
        [this, passwordNote](const QString &problem) {
            if (problem.isEmpty())
                return;
            m_savePassword->setChecked(false);
            m_savePassword->hide();
            m_password->setPlaceholderText(tr("Test uses it; it is not kept (no system keychain here)"));
            passwordNote->setText(tr("No system keychain here (%1), so no password is kept. A saved "
                                     "connection finds its password in its password variable "
                                     "(--password-env) or in ~/.pgpass.")
                                      .arg(problem));
        });
    m_pages->addWidget(sqlitePage);
    m_pages->addWidget(pgPage);
    // Both servers take the same settings; the port follows the kind while it shows the other's default.
    connect(m_kind, &QComboBox::currentIndexChanged, this, [this] {
        const auto kind = ConnectionKind(m_kind->currentData().toInt());
        m_pages->setCurrentIndex(kind == ConnectionKind::Sqlite ? 0 : 1);
        if (kind == ConnectionKind::Mysql && m_port->value() == 5432)
            m_port->setValue(3306);
        else if (kind == ConnectionKind::Postgres && m_port->value() == 3306)
            m_port->setValue(5432);
    });

    auto *form = new QFormLayout;
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Kind:"), m_kind);
    auto *add = new QPushButton(tr("Add connection"), this);
    add->setObjectName(QStringLiteral("addConnection"));
    m_saveChanges->setObjectName(QStringLiteral("saveChanges"));
    m_saveChanges->setEnabled(false);
    m_forgetPassword->setObjectName(QStringLiteral("forgetPassword"));
    m_forgetPassword->setEnabled(false);
    connect(m_saveChanges, &QPushButton::clicked, this, &ConnectionsDialog::saveChanges);
    connect(m_forgetPassword, &QPushButton::clicked, this, &ConnectionsDialog::forgetPassword);
    connect(m_list, &QTableWidget::itemSelectionChanged, this, &ConnectionsDialog::loadSelected);
    auto *remove = new QPushButton(tr("Remove"), this);
    remove->setObjectName(QStringLiteral("removeConnection"));
    auto *test = new QPushButton(tr("Test"), this);
    connect(add, &QPushButton::clicked, this, &ConnectionsDialog::addConnection);
    connect(remove, &QPushButton::clicked, this, &ConnectionsDialog::removeSelected);
    connect(test, &QPushButton::clicked, this, &ConnectionsDialog::testSelected);
    auto *testForm = new QPushButton(tr("Test"), this);
    testForm->setObjectName(QStringLiteral("testForm"));
    testForm->setToolTip(tr("Connect with the form's settings, before adding or saving: with the typed "
                            "password if there is one, else the password variable, the stored password "
                            "or ~/.pgpass"));
    connect(testForm, &QPushButton::clicked, this, &ConnectionsDialog::testForm);
    m_cancelTest->setObjectName(QStringLiteral("cancelTest"));
    m_cancelTest->setEnabled(false);
    connect(m_cancelTest, &QPushButton::clicked, this, &ConnectionsDialog::cancelTest);
    auto *listButtons = new QHBoxLayout;
    listButtons->addWidget(test);
    listButtons->addWidget(remove);
    listButtons->addWidget(m_forgetPassword);
    listButtons->addStretch();
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_list, 1);
    layout->addLayout(listButtons);
    layout->addWidget(new QLabel(tr("<b>Connection</b> (select one above to edit it)"), this));
    layout->addLayout(form);
    layout->addWidget(m_pages);
    auto *formButtons = new QHBoxLayout;
    formButtons->addWidget(testForm);
    formButtons->addWidget(m_cancelTest);
    formButtons->addStretch();
    formButtons->addWidget(m_saveChanges);
    formButtons->addWidget(add);
    layout->addLayout(formButtons);
    layout->addWidget(m_message);
    layout->addWidget(close);
    // Tab follows the layout: the list and its buttons, the form down its page, then its buttons.
    const QList<QWidget *> tabOrder{m_list,           test,       remove,
                                    m_forgetPassword, m_name,     m_kind,
                                    m_sqlitePath,     browse,     m_host,
                                    m_port,           m_dbname,   m_user,
                                    m_sslmode,        m_password, m_savePassword,
                                    m_passwordEnv,    testForm,   m_cancelTest,
                                    m_saveChanges,    add,        close->button(QDialogButtonBox::Close)};
    for (qsizetype i = 1; i < tabOrder.size(); ++i)
        setTabOrder(tabOrder.at(i - 1), tabOrder.at(i));
    reload();
}

void ConnectionsDialog::setMessage(const QString &message, bool error) {
    m_message->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
    m_message->setText(message);
}

void ConnectionsDialog::reload() {
    m_gateway->submit(
        this, [](Workspace &ws) { return ws.connections(); },
        [this](const QList<ConnectionSpec> &connections) {
            m_connections = connections;
            m_list->setRowCount(int(connections.size()));
            for (int row = 0; row < connections.size(); ++row) {
                const ConnectionSpec &c = connections.at(row);
                m_list->setItem(row, 0, new QTableWidgetItem(c.name));
                m_list->setItem(row, 1, new QTableWidgetItem(connectionKindName(c.kind)));
                m_list->setItem(row, 2, new QTableWidgetItem(c.describe()));
            }
        },
        [this](const QString &error) { setMessage(error, true); });
}

void ConnectionsDialog::browseSqlite() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("SQLite database"), m_sqlitePath->text(),
                                     tr("SQLite databases (*.db *.sqlite *.sqlite3);;All files (*)"));
    if (!path.isEmpty())
        m_sqlitePath->setText(path);
}

QString ConnectionsDialog::postgresConninfo() const {
    QStringList parts;
    const auto add = [&parts](const char *key, const QString &value) {
        if (!value.trimmed().isEmpty())
            parts << QStringLiteral("%1=%2").arg(QLatin1String(key), conninfoValue(value.trimmed()));
    };
    add("host", m_host->text());
    add("port", QString::number(m_port->value()));
    add("dbname", m_dbname->text());
    add("user", m_user->text());
    add("sslmode", m_sslmode->currentText());
    if (!m_extraConninfo.isEmpty())
        parts << m_extraConninfo;
    return parts.join(QLatin1Char(' '));
}

ConnectionSpec ConnectionsDialog::formSpec() const {
    ConnectionSpec spec;
    spec.name = m_name->text().trimmed();
    spec.kind = ConnectionKind(m_kind->currentData().toInt());
    if (spec.kind == ConnectionKind::Sqlite) {
        spec.path = m_sqlitePath->text().trimmed();
    } else {
        spec.conninfo = postgresConninfo();
        spec.passwordEnv = m_passwordEnv->text().trimmed();
    }
    return spec;
}

void ConnectionsDialog::addConnection() {
    const ConnectionSpec spec = formSpec();
    if (const QString problem = formProblem(spec); !problem.isEmpty())
        return setMessage(problem, true);
    const QString password = passwordToStore();
    m_gateway->submit(
        this, [spec, password](Workspace &ws) { return addCheckedConnection(ws, spec, password); },
        [this, spec, stored = !password.isEmpty()](qint64) {
            saved(tr("Added connection %1.").arg(spec.name), spec, stored);
            m_name->clear();
        },
        [this](const QString &error) { setMessage(error, true); });
}

QString ConnectionsDialog::formProblem(const ConnectionSpec &spec) const {
    if (spec.name.isEmpty())
        return tr("Give the connection a name.");
    if (spec.kind == ConnectionKind::Sqlite && spec.path.isEmpty())
        return tr("Choose the SQLite database file of %1.").arg(spec.name);
    return QString();
}

void ConnectionsDialog::saved(const QString &what, const ConnectionSpec &spec, bool passwordStored) {
    QString text = what;
    if (passwordStored)
        text += QLatin1Char(' ') + tr("Its password is in the system keychain.");
    setMessage(text + missingFileNote(spec), false);
    m_password->clear();
    reload();
    emit connectionsChanged();
}

QString ConnectionsDialog::passwordToStore() const {
    if (ConnectionKind(m_kind->currentData().toInt()) == ConnectionKind::Sqlite ||
        !m_savePassword->isChecked())
        return QString();
    return m_password->text();
}

QString ConnectionsDialog::missingFileNote(const ConnectionSpec &spec) const {
    if (spec.kind != ConnectionKind::Sqlite || QFileInfo::exists(spec.path))
        return QString();
    return QLatin1Char(' ') + tr("The file %1 does not exist: as a source it has no tables to copy; as a "
                                 "target it will be created by the first run.")
                                  .arg(spec.path);
}

const ConnectionSpec *ConnectionsDialog::selected() const {
    const int row = m_list->currentRow();
    if (row < 0 || row >= m_connections.size() || !m_list->selectionModel()->hasSelection())
        return nullptr;
    return &m_connections.at(row);
}

void ConnectionsDialog::setReadOnly(const QString &why) {
    m_readOnly = why;
    for (const char *name : {"addConnection", "removeConnection", "saveChanges"}) {
        auto *button = findChild<QPushButton *>(QString::fromLatin1(name));
        button->setEnabled(false);
        button->setToolTip(why);
    }
}

void ConnectionsDialog::loadSelected() {
    const ConnectionSpec *spec = selected();
    m_saveChanges->setEnabled(spec != nullptr && m_readOnly.isEmpty());
    m_forgetPassword->setEnabled(spec && spec->kind != ConnectionKind::Sqlite);
    m_extraConninfo.clear();
    if (!spec)
        return;
    m_name->setText(spec->name);
    m_kind->setCurrentIndex(m_kind->findData(int(spec->kind)));
    m_password->clear();
    if (spec->kind == ConnectionKind::Sqlite) {
        m_sqlitePath->setText(spec->path);
        return;
    }
    m_host->clear();
    m_port->setValue(spec->kind == ConnectionKind::Mysql ? 3306 : 5432);
    m_dbname->clear();
    m_user->clear();
    m_sslmode->setCurrentIndex(0);
    m_passwordEnv->setText(spec->passwordEnv);
    QStringList extra;
    for (const auto &[key, value] : conninfoPairs(spec->conninfo)) {
        if (key == QLatin1String("host"))
            m_host->setText(value);
        else if (key == QLatin1String("port") && value.toInt() > 0)
            m_port->setValue(value.toInt());
        else if (key == QLatin1String("dbname"))
            m_dbname->setText(value);
        else if (key == QLatin1String("user"))
            m_user->setText(value);
        else if (key == QLatin1String("sslmode") && m_sslmode->findText(value) >= 0)
            m_sslmode->setCurrentIndex(m_sslmode->findText(value));
        else // kept as they are (service=…, options=…): the form has no field for them
            extra << QStringLiteral("%1=%2").arg(key, conninfoValue(value));
    }
    m_extraConninfo = extra.join(QLatin1Char(' '));
}

void ConnectionsDialog::saveChanges() {
    const ConnectionSpec *current = selected();
    if (!current)
        return setMessage(tr("Choose the connection to change."), true);
    ConnectionSpec spec = formSpec();
    spec.id = current->id;
    spec.maxConnections = current->maxConnections; // a command-line setting the form does not show
    if (const QString problem = formProblem(spec); !problem.isEmpty())
        return setMessage(problem, true);
    const QString password = passwordToStore();
    m_gateway->submit(
        this, [spec, password](Workspace &ws) { updateCheckedConnection(ws, spec, password); },
        [this, spec, stored = !password.isEmpty()] {
            saved(tr("Saved connection %1.").arg(spec.name), spec, stored);
        },
        [this](const QString &error) { setMessage(error, true); });
}

void ConnectionsDialog::forgetPassword() {
    const ConnectionSpec *current = selected();
    if (!current || current->kind == ConnectionKind::Sqlite)
        return setMessage(tr("Choose a PostgreSQL or MySQL connection."), true);
    const ConnectionSpec spec = *current;
    m_gateway->submit(
        this, [spec](Workspace &) { return CredentialStore::forgetPassword(spec); },
        [this, name = spec.name](bool removed) {
            setMessage(removed ? tr("Removed the password of %1 from the system keychain.").arg(name)
                               : tr("%1 had no password in the system keychain.").arg(name),
                       false);
        },
        [this](const QString &error) { setMessage(error, true); });
}

void ConnectionsDialog::removeSelected() {
    const int row = m_list->currentRow();
    if (row < 0 || row >= m_connections.size())
        return;
    const ConnectionSpec spec = m_connections.at(row);
    const QString name = spec.name;
    m_gateway->submit(
        this,
        [spec](Workspace &ws) {
            ws.removeConnection(spec.name);
            if (spec.kind == ConnectionKind::Sqlite)
                return;
            try {
                CredentialStore::forgetPassword(spec);
            } catch (const Error &) {
                // A keychain that does not answer must not undo the removal; the entry, if any,
                // is unreachable without the connection's id anyway.
            }
        },
        [this, name] {
            setMessage(tr("Removed connection %1.").arg(name), false);
            reload();
            emit connectionsChanged();
        },
        [this](const QString &error) { setMessage(error, true); });
}

void ConnectionsDialog::testSelected() {
    const int row = m_list->currentRow();
    if (row < 0 || row >= m_connections.size())
        return setMessage(tr("Choose a connection to test."), true);
    test(m_connections.at(row));
}

void ConnectionsDialog::testForm() {
    ConnectionSpec spec = formSpec();
    if (spec.name.isEmpty())
        spec.name = tr("the new connection");
    if (spec.kind == ConnectionKind::Sqlite && spec.path.isEmpty())
        return setMessage(tr("Choose the SQLite database file of %1.").arg(spec.name), true);
    // Opening a missing file would create it: say so instead of testing.
    if (const QString note = missingFileNote(spec); !note.isEmpty())
        return setMessage(note.trimmed(), true);
    if (const ConnectionSpec *current = selected(); current && current->name == spec.name)
        spec.keychainKey = current->keychainKey; // editing: its stored password counts
    if (spec.kind != ConnectionKind::Sqlite)
        spec.typedPassword = m_password->text();
    test(spec);
}

void ConnectionsDialog::test(const ConnectionSpec &spec) {
    setMessage(tr("Connecting to %1…").arg(spec.name), false);
    m_cancelTest->setEnabled(true);
    m_remote->submit(
        QStringLiteral("test"), [spec](RemoteTask &task) { return testConnection(spec, task); },
        [this, name = spec.name](const ConnectionCheck &check) {
            m_cancelTest->setEnabled(false);
            setMessage(tr("%1 works: %n table(s).", nullptr, check.tables).arg(name), false);
        },
        [this](const QString &error) {
            m_cancelTest->setEnabled(false);
            setMessage(error, true);
        });
}

void ConnectionsDialog::cancelTest() {
    if (!m_remote->isPending(QStringLiteral("test")))
        return;
    m_remote->cancel(QStringLiteral("test"));
    m_cancelTest->setEnabled(false);
    setMessage(tr("Test cancelled."), false);
}

} // namespace tidemark
