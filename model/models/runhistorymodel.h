// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QAbstractTableModel>
#include <QList>
#include <QSortFilterProxyModel>

namespace tidemark {

// Past runs, newest first (by start time, then id), whatever order they were handed in.
// Holds a copy of what the workspace said last; the window reads the history off the GUI
// thread and calls setRuns(). GUI thread only.
class RunHistoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Id,
        Started,
        Trigger,
        Status,
        Duration,
        Tables,
        RowsRead,
        RowsWritten,
        RowsSkipped,
        Problems,
        ColumnCount
    };

    explicit RunHistoryModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

    void setRuns(const QList<RunRecord> &runs);
    // Replaces the runs it shows already (one dataChanged each) and inserts the others in
    // place: a few runs re-read without resetting the view (selection and scroll stay).
    void upsertRuns(const QList<RunRecord> &runs);
    const RunRecord &runAt(int row) const { return m_runs.at(row); }
    const QList<RunRecord> &runs() const { return m_runs; }
    int rowOfRun(qint64 runId) const;

private:
    QVariant displayValue(const RunRecord &run, int column) const;
    QVariant rawValue(const RunRecord &run, int column) const;

    QList<RunRecord> m_runs;
};

// Filters RunHistoryModel rows by table and status, sorts on RawRole. With a table only:
// runs that copied it. With a status only: runs whose own status, or one of whose iterations'
// status, is it. With both: runs where that table's iteration had that status.
class RunHistoryFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunHistoryFilterModel(QObject *parent = nullptr);

    void setTableFilter(qint64 tableId);             // 0 = any table
    void setStatusFilter(const QString &statusName); // empty = any status
    qint64 tableFilter() const { return m_tableId; }
    QString statusFilter() const { return m_status; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    qint64 m_tableId = 0;
    QString m_status;
};

// One point of a table's trend: what its iteration did in one run.
struct TableTrendPoint {
    qint64 runId = 0;
    QDateTime startedAt;
    qint64 rowsWritten = 0;
    qint64 durationMs = 0;
    IterationStatus status = IterationStatus::Queued;
};

// The table's iterations across `runs`, oldest first (for the history chart).
QList<TableTrendPoint> tableTrend(const QList<RunRecord> &runs, qint64 tableId);

// The model's rows as CSV (RFC 4180: quoted where needed, CRLF line ends), header first,
// using DisplayRole text; for exporting what a view shows (pass the proxy).
QString modelToCsv(const QAbstractItemModel &model);

} // namespace tidemark
