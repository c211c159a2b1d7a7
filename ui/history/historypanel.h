// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"
#include "model/models/runhistorymodel.h"

#include <QWidget>
#include <atomic>
#include <memory>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QTimer;

namespace tidemark {

class ControlTableModel;
class HistoryChart;
class RunHistoryModel;
class TableChoiceModel;
class WorkspaceGateway;

// Past runs, newest first, fetched a page at a time as the list scrolls; filtered (in the
// workspace's SQL) by table and status, saying which table and how many runs; the chosen
// table's trend chart; CSV export of the runs shown. Selecting a run reads it (its iterations,
// not their logs) and emits runSelected (the window shows its iterations in the run grid).
class HistoryPanel : public QWidget {
    Q_OBJECT
public:
    // `tables` names the tables in the table filter (the control table's model).
    explicit HistoryPanel(ControlTableModel *tables, QWidget *parent = nullptr);

    void setGateway(WorkspaceGateway *gateway);
    RunHistoryModel *model() const { return m_model; }
    // What the view shows: the model sorted as the user asked (newest first until then).
    QSortFilterProxyModel *sortModel() const { return m_sort; }
    QTableView *view() const { return m_view; }
    QSplitter *splitter() const { return m_splitter; }
    HistoryChart *chart() const { return m_chart; }
    QString countText() const;

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
    void requestPage(const RunPageRequest &request);
    void updateChart();
    void loadChart();
    void holdTableFilter();
    void restoreTableFilter();
    void applyFilters();
    void updateCount();
    void recount(RunPageQuery query, bool filterChanged);
    void showRun(qint64 runId);
    qint64 tableFilter() const;

    ControlTableModel *m_tables;
    WorkspaceGateway *m_gateway = nullptr;
    RunHistoryModel *m_model;
    QSortFilterProxyModel *m_sort;
    TableChoiceModel *m_tableChoices;
    QTableView *m_view;
    QComboBox *m_tableFilter;
    QComboBox *m_statusFilter;
    QLabel *m_count;
    HistoryChart *m_chart;
    QSplitter *m_splitter;
    QTimer *m_chartTimer;
    qint64 m_heldTable = 0;     // the table filter's table while its combo box's rows change
    qint64 m_runCount = 0;      // how many runs the filter takes; -1 while counting
    qint64 m_countedTable = -1; // the filter m_runCount counts
    QString m_countedStatus;
    // The reads a newer one makes pointless: set when the newer one is asked.
    std::shared_ptr<std::atomic_bool> m_countSuperseded;
    std::shared_ptr<std::atomic_bool> m_runSuperseded;
};

} // namespace tidemark
