// SPDX-License-Identifier: MIT
#include "ui/mainwindow/serverworkspacedialog.h"

#include "model/credentials/credentialstore.h"
#include "model/domain/connectionspec.h"
#include "model/engine/remotework.h"
#include "model/storage/workspace.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tidemark {

ServerWorkspaceDialog::ServerWorkspaceDialog(const ServerWorkspaceAddress &start, QWidget *parent)
    : QDialog(parent)
    , m_remote(new RemoteWorkQueue(this))
    , m_host(new QLineEdit(start.host, this))
    , m_port(new QSpinBox(this))
    , m_database(new QLineEdit(start.database, this))
    , m_user(new QLineEdit(start.user, this))
    , m_schema(new QLineEdit(start.schema, this))
    , m_sslmode(new QComboBox(this))
    , m_location(new QLineEdit(this))
    , m_test(new QPushButton(tr("&Test"), this))
    , m_message(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this)) {
    setWindowTitle(tr("Open Server Workspace"));
    m_port->setRange(1, 65535);
    m_port->setValue(start.port);
    m_user->setPlaceholderText(qEnvironmentVariable("USER"));
    m_sslmode->addItems(postgresSslModes());
    m_sslmode->setCurrentText(start.sslmode);
    m_location->setReadOnly(true);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_host->setObjectName(QStringLiteral("serverHost"));
    m_port->setObjectName(QStringLiteral("serverPort"));
    m_database->setObjectName(QStringLiteral("serverDatabase"));
    m_user->setObjectName(QStringLiteral("serverUser"));
    m_schema->setObjectName(QStringLiteral("serverSchema"));
    m_sslmode->setObjectName(QStringLiteral("serverSslmode"));
    m_location->setObjectName(QStringLiteral("serverLocation"));
    m_test->setObjectName(QStringLiteral("serverTest"));
    m_message->setObjectName(QStringLiteral("serverMessage"));

    auto *intro = new QLabel(tr("A workspace a team shares lives in a schema of a PostgreSQL database. "
                                "The password comes from PGPASSWORD, ~/.pgpass, a service file or the "
                                "system keychain; when none holds it, Open asks for it."),
                             this);
    intro->setWordWrap(true);
    auto *form = new QFormLayout;
    form->addRow(tr("&Host:"), m_host);
    form->addRow(tr("&Port:"), m_port);
    form->addRow(tr("&Database:"), m_database);
    form->addRow(tr("&User:"), m_user);
    form->addRow(tr("&Schema:"), m_schema);
    form->addRow(tr("T&LS mode:"), m_sslmode);
    form->addRow(tr("Address:"), m_location);
    m_buttons->addButton(m_test, QDialogButtonBox::ActionRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addStretch();
    layout->addWidget(m_buttons);
    resize(560, sizeHint().height());

    for (QLineEdit *edit : {m_host, m_database, m_user, m_schema})
        connect(edit, &QLineEdit::textChanged, this, &ServerWorkspaceDialog::addressChanged);
    connect(m_port, &QSpinBox::valueChanged, this, &ServerWorkspaceDialog::addressChanged);
    connect(m_sslmode, &QComboBox::currentTextChanged, this, &ServerWorkspaceDialog::addressChanged);
    connect(m_test, &QPushButton::clicked, this, &ServerWorkspaceDialog::test);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    addressChanged();
    (m_database->text().isEmpty() ? m_database : m_host)->setFocus();
}

ServerWorkspaceAddress ServerWorkspaceDialog::address() const {
    ServerWorkspaceAddress address;
    address.host = m_host->text();
    address.port = m_port->value();
    address.database = m_database->text();
    address.user = m_user->text();
    address.schema = m_schema->text();
    address.sslmode = m_sslmode->currentText();
    return address;
}

void ServerWorkspaceDialog::addressChanged() {
    m_remote->cancel(QStringLiteral("test")); // a result for other parts would mislead
    const ServerWorkspaceAddress current = address();
    const QString problem = current.problem();
    m_location->setText(problem.isEmpty() ? current.location() : QString());
    m_test->setEnabled(problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Open)->setEnabled(problem.isEmpty());
    setMessage(problem, false);
}

void ServerWorkspaceDialog::test() {
    const ServerWorkspaceAddress tested = address();
    setMessage(tr("Opening the workspace in schema %1 of %2 on %3…")
                   .arg(tested.schema.trimmed(), tested.database.trimmed(), tested.host.trimmed()),
               false);
    m_remote->submit(
        QStringLiteral("test"),
        [location = tested.location()](RemoteTask &) {
            try {
                return int(withKeychainPassword([&] { return Workspace::open(location); })->tables().size());
            } catch (const WorkspacePasswordError &error) {
                if (error.reason() == WorkspacePasswordError::Reason::Refused)
                    throw;
                throw Error(tr("The server asks for a password that PGPASSWORD, ~/.pgpass and the system "
                               "keychain do not hold: Open asks for it."));
            }
        },
        [this, tested](int tables) {
            setMessage(tr("The workspace in schema %1 of %2 opens: %n table(s).", nullptr, tables)
                           .arg(tested.schema.trimmed(), tested.database.trimmed()),
                       false);
        },
        [this](const QString &error) {
            // libpq's lines ("… Connection refused\n\tIs the server running …") as sentences.
            static const QRegularExpression lineBreak(QStringLiteral("\\s*\\n\\s*"));
            setMessage(QString(error.trimmed()).replace(lineBreak, QStringLiteral(". ")), true);
        });
}

void ServerWorkspaceDialog::setMessage(const QString &message, bool error) {
    m_message->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
    m_message->setText(message);
}

} // namespace tidemark
