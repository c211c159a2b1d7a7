// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSplitter;
class QTableView;

namespace tidemark {

class ControlTableModel;
class HistoryChart;
class RunHistoryFilterModel;
class RunHistoryModel;
class WorkspaceGateway;

// Past runs, newest first, filterable by table and status; the chosen table's trend chart;
// CSV export of the runs shown. Selecting a run emits runSelected (the window shows its
// iterations in the run grid).
class HistoryPanel : public QWidget {
    Q_OBJECT
public:
    // `tables` names the tables in the table filter (the control table's model).
    explicit HistoryPanel(ControlTableModel *tables, QWidget *parent = nullptr);

    void setGateway(WorkspaceGateway *gateway);
    RunHistoryModel *model() const { return m_model; }
    RunHistoryFilterModel *filterModel() const { return m_filter; }
    QTableView *view() const { return m_view; }
    QSplitter *splitter() const { return m_splitter; }
    HistoryChart *chart() const { return m_chart; }

public slots:
    void reload();
    // Runs read again because they changed: updated or inserted in place.
    void mergeRuns(const QList<tidemark::RunRecord> &runs);
    void exportCsv();
    // Writes the runs shown (filters applied) as CSV; false with statusMessage on failure.
    bool exportCsvTo(const QString &path);
    void selectNewest();

signals:
    void runSelected(const tidemark::RunRecord &run);
    void statusMessage(const QString &message);

private:
    void refillTableFilter();
    void updateChart();
    void applyFilters();

    ControlTableModel *m_tables;
    WorkspaceGateway *m_gateway = nullptr;
    RunHistoryModel *m_model;
    RunHistoryFilterModel *m_filter;
    QTableView *m_view;
    QComboBox *m_tableFilter;
    QComboBox *m_statusFilter;
    QLabel *m_count;
    HistoryChart *m_chart;
    QSplitter *m_splitter;
};

} // namespace tidemark
