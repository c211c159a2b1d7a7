// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"

#include <QDialog>
#include <QPointer>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace tidemark {

class WatermarkHistoryModel;
class WorkspaceGateway;

// Every change of one table's watermark (Tables › Watermark History…): when, old → new, the
// cause, the run and the host, newest first, sortable by any column. Read through the
// gateway, so the GUI thread never waits on the workspace. Modeless; Refresh reads it again.
class WatermarkHistoryDialog : public QDialog {
    Q_OBJECT
public:
    WatermarkHistoryDialog(WorkspaceGateway *gateway, const TableSpec &table, QWidget *parent = nullptr);

    WatermarkHistoryModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }

public slots:
    void reload();

signals:
    void loaded(int changes);

private:
    QPointer<WorkspaceGateway> m_gateway; // gone when another workspace is opened
    TableSpec m_table;
    WatermarkHistoryModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_view;
    QLabel *m_status;
};

} // namespace tidemark
