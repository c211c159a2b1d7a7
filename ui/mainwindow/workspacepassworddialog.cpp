// SPDX-License-Identifier: MIT
#include "ui/mainwindow/workspacepassworddialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tidemark {

WorkspacePasswordDialog::WorkspacePasswordDialog(const ServerWorkspaceAddress &address, bool refused,
                                                 const QString &keychainProblem, QWidget *parent)
    : QDialog(parent)
    , m_password(new QLineEdit(this))
    , m_keep(new QCheckBox(tr("&Remember this password in the system keychain"), this)) {
    setWindowTitle(tr("Workspace Password"));
    auto *layout = new QVBoxLayout(this);
    layout->setSizeConstraint(QLayout::SetFixedSize); // a prompt, not a window to resize
    if (refused) {
        auto *refusal = new QLabel(tr("The server refused that password."), this);
        refusal->setObjectName(QStringLiteral("passwordRefused"));
        refusal->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
        layout->addWidget(refusal);
    }
    auto *question = new QLabel(this);
    question->setObjectName(QStringLiteral("passwordQuestion"));
    question->setWordWrap(true);
    question->setTextFormat(Qt::PlainText);
    question->setText(tr("Enter the password of user %1 on the PostgreSQL server %2:%3 (database %4, "
                         "workspace %5).")
                          .arg(address.user.isEmpty() ? tr("(your login name)") : address.user, address.host)
                          .arg(address.port)
                          .arg(address.database, address.schema));
    question->setMinimumWidth(360);
    layout->addWidget(question);
    m_password->setObjectName(QStringLiteral("workspacePassword"));
    m_password->setEchoMode(QLineEdit::Password);
    m_keep->setObjectName(QStringLiteral("keepInKeychain"));
    if (keychainProblem.isEmpty()) {
        m_keep->setToolTip(tr("Otherwise the window forgets it when it quits. tidemark-cli finds a "
                              "remembered password too."));
    } else {
        m_keep->setEnabled(false);
        m_keep->setToolTip(tr("No system keychain here: %1").arg(keychainProblem));
    }
    auto *form = new QFormLayout;
    form->addRow(tr("&Password:"), m_password);
    form->addRow(QString(), m_keep);
    layout->addLayout(form);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Open"));
    buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    connect(m_password, &QLineEdit::textChanged, this, [buttons](const QString &text) {
        buttons->button(QDialogButtonBox::Ok)->setEnabled(!text.isEmpty());
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    m_password->setFocus();
}

QString WorkspacePasswordDialog::password() const {
    return m_password->text();
}

bool WorkspacePasswordDialog::keepInKeychain() const {
    return m_keep->isEnabled() && m_keep->isChecked();
}

} // namespace tidemark
