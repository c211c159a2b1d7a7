// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace tidemark {

class VerifyService;
struct VerifyResult;

// Tables › Verify…: compares one table's target with its source up to the watermark (the
// CLI's verify, through VerifyService, off the GUI thread) and says whether they match, with
// the counts and what differs. Starts when opened; Cancel stops a long comparison, Verify
// Again repeats it (after the target was repaired, say). Modeless.
class VerifyDialog : public QDialog {
    Q_OBJECT
public:
    VerifyDialog(const QString &workspacePath, const TableSpec &table, QWidget *parent = nullptr);

    QLabel *statusLabel() const { return m_status; }
    QString findingsText() const;
    QPushButton *verifyButton() const { return m_verify; }
    QPushButton *cancelButton() const { return m_cancel; }

public slots:
    void start();
    void cancel();

signals:
    // One per start(): matched, differed, failed or cancelled.
    void verifyFinished();

private:
    void showResult(const VerifyResult &result);
    void showEnded(const QString &status, const QString &details);

    TableSpec m_table;
    VerifyService *m_service;
    QLabel *m_status;
    QPlainTextEdit *m_findings;
    QPushButton *m_verify;
    QPushButton *m_cancel;
};

} // namespace tidemark
