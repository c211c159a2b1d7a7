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

WorkspacePasswordDialog::WorkspacePasswordDialog(const QString &workspace, const QString &user, bool refused,
                                                 QWidget *parent)
    : QDialog(parent)
    , m_password(new QLineEdit(this))
    , m_keep(new QCheckBox(tr("&Keep it in the system keychain"), this)) {
    setWindowTitle(tr("Workspace Password"));
    auto *question = new QLabel(this);
    question->setObjectName(QStringLiteral("passwordQuestion"));
    question->setWordWrap(true);
    question->setTextFormat(Qt::PlainText);
    const QString who = user.isEmpty() ? tr("your user") : user;
    question->setText(
        refused ? tr("The server refused the password of %1 for %2. Type it again.").arg(who, workspace)
                : tr("The server of %1 asks for the password of %2.").arg(workspace, who));
    m_password->setObjectName(QStringLiteral("workspacePassword"));
    m_password->setEchoMode(QLineEdit::Password);
    m_keep->setObjectName(QStringLiteral("keepInKeychain"));
    m_keep->setToolTip(tr("Otherwise the window forgets it when it quits. The CLI finds a kept password "
                          "too; ~/.pgpass and PGPASSWORD work as well."));
    auto *form = new QFormLayout;
    form->addRow(tr("&Password:"), m_password);
    form->addRow(QString(), m_keep);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Open"));
    buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    connect(m_password, &QLineEdit::textChanged, this, [buttons](const QString &text) {
        buttons->button(QDialogButtonBox::Ok)->setEnabled(!text.isEmpty());
    });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(question);
    layout->addLayout(form);
    layout->addWidget(buttons);
    m_password->setFocus();
}

QString WorkspacePasswordDialog::password() const {
    return m_password->text();
}

bool WorkspacePasswordDialog::keepInKeychain() const {
    return m_keep->isChecked();
}

} // namespace tidemark
