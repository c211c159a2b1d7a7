// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QDialog>
#include <QPointer>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;

namespace tidemark {

class RejectedRowsModel;
class WorkspaceGateway;

// The rows one iteration rejected (the run grid's "Rejected Rows…"): key, error and values,
// fetched a page at a time through the gateway as the list scrolls; the selected row whole
// below; Export CSV… writes all of them on a worker thread (the list need not be loaded).
// Modeless.
class RejectedRowsDialog : public QDialog {
    Q_OBJECT
public:
    RejectedRowsDialog(WorkspaceGateway *gateway, const IterationRecord &iteration,
                       QWidget *parent = nullptr);

    RejectedRowsModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLabel *statusLabel() const { return m_status; }

public slots:
    void exportCsv();
    // Writes the CSV to `path` off the GUI thread; exportFinished tells how it went.
    void exportCsvTo(const QString &path);

signals:
    void countLoaded(qint64 total);
    void exportFinished(bool ok, const QString &message);

private:
    void requestPage(qint64 iterationId, qint64 afterId, int limit);
    void showSelected();
    void updateSummary();

    QPointer<WorkspaceGateway> m_gateway; // gone when another workspace is opened
    IterationRecord m_iteration;
    RejectedRowsModel *m_model;
    QTableView *m_view;
    QPlainTextEdit *m_details;
    QLabel *m_summary;
    QLabel *m_status;
    QPushButton *m_export;
    qint64 m_total = -1; // unknown until counted
};

} // namespace tidemark
