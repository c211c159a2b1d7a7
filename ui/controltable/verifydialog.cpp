// SPDX-License-Identifier: MIT
#include "ui/controltable/verifydialog.h"

#include "model/engine/verifyservice.h"
#include "ui/common/tablenaming.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tidemark {

VerifyDialog::VerifyDialog(const QString &workspacePath, const TableSpec &table, QWidget *parent)
    : QDialog(parent)
    , m_table(table)
    , m_service(new VerifyService(workspacePath, this))
    , m_status(new QLabel(this))
    , m_findings(new QPlainTextEdit(this))
    , m_verify(new QPushButton(tr("Verify Again"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this)) {
    setObjectName(QStringLiteral("verifyDialog"));
    setWindowTitle(tr("Verify — %1").arg(tableName(table)));
    m_status->setObjectName(QStringLiteral("verifyStatus"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::PlainText);
    m_findings->setObjectName(QStringLiteral("verifyFindings"));
    m_findings->setReadOnly(true);
    m_verify->setObjectName(QStringLiteral("verifyAgain"));
    m_cancel->setObjectName(QStringLiteral("verifyCancel"));
    connect(m_verify, &QPushButton::clicked, this, &VerifyDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &VerifyDialog::cancel);
    connect(m_service, &VerifyService::finished, this, &VerifyDialog::showResult);
    connect(m_service, &VerifyService::failed, this,
            [this](const QString &error) { showEnded(tr("Could not verify this table."), error); });
    connect(m_service, &VerifyService::cancelled, this,
            [this] { showEnded(tr("Cancelled: nothing was compared to the end."), QString()); });

    auto *intro = new QLabel(tr("Compares the target's rows with the source's, up to the table's watermark: "
                                "rows missing in the target, rows only in the target, and rows whose "
                                "values changed."),
                             this);
    intro->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_verify, QDialogButtonBox::ActionRole);
    buttons->addButton(m_cancel, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_status);
    layout->addWidget(m_findings, 1);
    layout->addWidget(buttons);
    resize(640, 360);
    start();
}

QString VerifyDialog::findingsText() const {
    return m_findings->toPlainText();
}

void VerifyDialog::start() {
    if (m_service->isBusy())
        return;
    m_status->setText(tr("Verifying… reading both sides (Cancel stops it)."));
    m_status->setStyleSheet(QString());
    m_findings->clear();
    m_verify->setEnabled(false);
    m_cancel->setEnabled(true);
    m_service->start(m_table.id);
}

void VerifyDialog::cancel() {
    if (!m_service->isBusy())
        return;
    m_service->cancel();
    m_cancel->setEnabled(false);
    m_status->setText(tr("Cancelling…"));
}

void VerifyDialog::showResult(const VerifyResult &result) {
    const bool matches = result.matches;
    showEnded(matches ? tr("Matches: the target holds the same rows as the source.")
                      : tr("Differs: the target does not match the source."),
              verifyFindings(result).join(QLatin1Char('\n')));
    m_status->setStyleSheet(matches ? QStringLiteral("color: #1b5e20; font-weight: bold;")
                                    : QStringLiteral("color: #b00020; font-weight: bold;"));
}

void VerifyDialog::showEnded(const QString &status, const QString &details) {
    m_status->setText(status);
    m_status->setStyleSheet(QString());
    m_findings->setPlainText(details);
    m_verify->setEnabled(true);
    m_cancel->setEnabled(false);
    emit verifyFinished();
}

} // namespace tidemark
