// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"
#include "model/models/runhistorymodel.h"

#include <QWidget>
#include <atomic>
#include <memory>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTableView;
class QTimer;

namespace tidemark {

class ControlTableModel;
class HistoryChart;
class HistoryExport;
class RunHistoryModel;
class TableChoiceModel;
class WorkspaceGateway;

// Past runs, newest first, fetched a page at a time as the list scrolls; filtered (in the
// workspace's SQL) by table and status, saying which table and how many runs; the chosen
// table's trend chart; CSV export of every run the filter takes (read a page at a time, with
// progress and cancel). Selecting a run reads it (its iterations,
// not their logs) and emits runSelected (the window shows its iterations in the run grid).
class HistoryPanel : public QWidget {
    Q_OBJECT
public:
    // `tables` names the tables in the table filter (the control table's model).
    explicit HistoryPanel(ControlTableModel *tables, QWidget *parent = nullptr);

    void setGateway(WorkspaceGateway *gateway);
    RunHistoryModel *model() const { return m_model; }
    // What the view shows: the model, in the order the workspace read it (a header click sorts
    // every run in SQL, not the rows read so far).
    QAbstractItemModel *sortModel() const;
    QTableView *view() const { return m_view; }
    QSplitter *splitter() const { return m_splitter; }
    HistoryChart *chart() const { return m_chart; }
    QString countText() const;

public slots:
    void reload();
    // Runs read again because they changed: updated or inserted in place.
    void mergeRuns(const QList<tidemark::RunRecord> &runs);
    // A run's row takes the figures of these iterations (the window's own run, as it goes).
    void updateRunFigures(qint64 runId, const QList<tidemark::IterationRecord> &iterations);
    void exportCsv();
    // Starts writing every run the filters take, in the order shown, as CSV to `path`;
    // exportFinished tells how it went. False when it cannot start (no workspace, an export
    // already running).
    bool exportCsvTo(const QString &path);
    void cancelExport();
    void selectNewest();

signals:
    void runSelected(const tidemark::RunRecord &run);
    void statusMessage(const QString &message);
    void exportFinished(bool ok, const QString &message);

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
    void exportDone(bool ok, bool cancelled, qint64 written, const QString &error);
    void sortClicked(int column, Qt::SortOrder order);
    void showSort(int column, Qt::SortOrder order);

    ControlTableModel *m_tables;
    WorkspaceGateway *m_gateway = nullptr;
    RunHistoryModel *m_model;
    TableChoiceModel *m_tableChoices;
    QTableView *m_view;
    QComboBox *m_tableFilter;
    QComboBox *m_statusFilter;
    QLabel *m_count;
    HistoryChart *m_chart;
    QSplitter *m_splitter;
    QTimer *m_chartTimer;
    QPushButton *m_exportButton;
    QProgressBar *m_exportProgress;
    QPushButton *m_exportCancel;
    HistoryExport *m_export = nullptr; // the export running, if any
    qint64 m_heldTable = 0;            // the table filter's table while its combo box's rows change
    qint64 m_runCount = 0;             // how many runs the filter takes; -1 while counting
    qint64 m_countedTable = -1;        // the filter m_runCount counts
    QString m_countedStatus;
    // The reads a newer one makes pointless: set when the newer one is asked.
    std::shared_ptr<std::atomic_bool> m_countSuperseded;
    std::shared_ptr<std::atomic_bool> m_runSuperseded;
};

} // namespace tidemark
