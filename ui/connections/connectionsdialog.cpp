// SPDX-License-Identifier: MIT
#include "ui/connections/connectionsdialog.h"

#include "model/engine/tablesetup.h"
#include "model/storage/workspace.h"
#include "ui/common/workspacegateway.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
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

} // namespace

ConnectionsDialog::ConnectionsDialog(WorkspaceGateway *gateway, QWidget *parent)
    : QDialog(parent)
    , m_gateway(gateway)
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
    for (const char *mode : {"prefer", "disable", "allow", "require", "verify-ca", "verify-full"})
        m_sslmode->addItem(QString::fromLatin1(mode));
    m_passwordEnv->setPlaceholderText(tr("e.g. TIDEMARK_PG_PASSWORD (empty = ~/.pgpass or no password)"));
    pgForm->addRow(tr("Host:"), m_host);
    pgForm->addRow(tr("Port:"), m_port);
    pgForm->addRow(tr("Database:"), m_dbname);
    pgForm->addRow(tr("User:"), m_user);
    pgForm->addRow(tr("SSL mode:"), m_sslmode);
    pgForm->addRow(tr("Password variable:"), m_passwordEnv);
    pgForm->addRow(QString(), new QLabel(tr("Passwords are never stored in the workspace."), this));
    m_pages->addWidget(sqlitePage);
    m_pages->addWidget(pgPage);
    connect(m_kind, &QComboBox::currentIndexChanged, m_pages, &QStackedWidget::setCurrentIndex);

    auto *form = new QFormLayout;
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Kind:"), m_kind);
    auto *add = new QPushButton(tr("Add connection"), this);
    auto *remove = new QPushButton(tr("Remove"), this);
    auto *test = new QPushButton(tr("Test"), this);
    connect(add, &QPushButton::clicked, this, &ConnectionsDialog::addConnection);
    connect(remove, &QPushButton::clicked, this, &ConnectionsDialog::removeSelected);
    connect(test, &QPushButton::clicked, this, &ConnectionsDialog::testSelected);
    auto *listButtons = new QHBoxLayout;
    listButtons->addWidget(test);
    listButtons->addWidget(remove);
    listButtons->addStretch();
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_list, 1);
    layout->addLayout(listButtons);
    layout->addWidget(new QLabel(tr("<b>New connection</b>"), this));
    layout->addLayout(form);
    layout->addWidget(m_pages);
    layout->addWidget(add, 0, Qt::AlignRight);
    layout->addWidget(m_message);
    layout->addWidget(close);
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
    if (spec.name.isEmpty())
        return setMessage(tr("Give the connection a name."), true);
    if (spec.kind == ConnectionKind::Sqlite && spec.path.isEmpty())
        return setMessage(tr("Choose the SQLite database file of %1.").arg(spec.name), true);
    m_gateway->submit(
        this, [spec](Workspace &ws) { return addCheckedConnection(ws, spec); },
        [this, name = spec.name](qint64) {
            setMessage(tr("Added connection %1.").arg(name), false);
            m_name->clear();
            reload();
            emit connectionsChanged();
        },
        [this](const QString &error) { setMessage(error, true); });
}

void ConnectionsDialog::removeSelected() {
    const int row = m_list->currentRow();
    if (row < 0 || row >= m_connections.size())
        return;
    const QString name = m_connections.at(row).name;
    m_gateway->submit(
        this, [name](Workspace &ws) { ws.removeConnection(name); },
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
    const ConnectionSpec spec = m_connections.at(row);
    setMessage(tr("Connecting to %1…").arg(spec.name), false);
    m_gateway->submit(
        this, [spec](Workspace &) { return countTables(spec); },
        [this, name = spec.name](int tables) {
            setMessage(tr("%1 works: %n table(s).", nullptr, tables).arg(name), false);
        },
        [this](const QString &error) { setMessage(error, true); });
}

} // namespace tidemark
