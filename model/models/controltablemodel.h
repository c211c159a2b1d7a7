// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "model/models/tablesread.h"
#include "model/schedule/tablenextruns.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>

namespace tidemark {

// The control table as a table model: one row per TableSpec, in id order. It holds a copy of
// what the workspace said last (it never reads the database itself; the window reloads it off
// the GUI thread and hands the result to setTables()). Editing the active checkbox does not
// change the row: it emits activeChangeRequested() so the change goes through the undo stack.
// GUI thread only.
class ControlTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Id,
        Active,
        Source,
        Target,
        WatermarkColumn,
        Tiebreak,
        Keys,
        Mode,
        Lookback,
        LastWatermark,
        LastStatus,
        NextRun,
        ColumnCount
    };

    explicit ControlTableModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

    // Replaces the content with a fresh read of the workspace, keyed by id: rows that stay
    // get dataChanged when they differ, new ids are inserted, gone ids removed, so selection
    // and scroll position survive a reload. Each contiguous run of inserted, removed or
    // changed rows is one signal: the first read of 10,000 tables is one rowsInserted, and
    // setTables({}) one rowsRemoved.
    void setTables(const QList<TableSpec> &tables, const QHash<qint64, QString> &lastStatuses = {});
    // Takes in the workspace's next read of a sequence. When its changes count from the read
    // taken in last (TablesRead::since),
    // only the tables it names as changed (and those edited here since) are looked at: a run
    // that moves a few watermarks costs a few rows, not a pass over 10,000. Otherwise (a first
    // read, a read missed, tables added or removed) as setTables(). Returns the statuses it
    // let go of, for the caller to free off the GUI thread.
    QHash<qint64, QString> applyRead(const TablesRead &read);

    // Local edits applied at once (the undo commands), before the workspace confirms them.
    void upsertTable(const TableSpec &spec);
    void removeTable(qint64 id);
    void setActive(qint64 id, bool active);
    void setLastStatus(qint64 id, const QString &statusName);
    // Each table's next scheduled run (nextRunsByTable); a table without one shows "—". Emits
    // dataChanged for the rows whose next run moved.
    void setNextRuns(const QHash<qint64, TableNextRun> &nextRuns);
    // The stalled tables (stalledTables), each with its reason: their "Last run" cell says
    // "stalled", as a warning, and its tooltip why. Emits dataChanged for the rows that changed.
    void setStalled(const QHash<qint64, QString> &reasons);
    bool anyStaleAfter() const; // whether a table has a --stale-after (else none can stall)

    int rowOfId(qint64 id) const; // -1 when absent; a binary search (rows are in id order)
    const TableSpec &tableAt(int row) const { return m_tables.at(row); }
    std::optional<TableSpec> table(qint64 id) const;
    QList<TableSpec> tables() const { return m_tables; }

signals:
    // The user ticked or cleared the active checkbox of table `id`.
    void activeChangeRequested(qint64 id, bool active);

private:
    // setTables(), returning the statuses replaced.
    QHash<qint64, QString> replaceTables(const QList<TableSpec> &tables,
                                         const QHash<qint64, QString> &lastStatuses);
    // applyRead() when `ids` are all the rows that may differ and none comes or goes; false
    // (nothing done) when one does.
    bool changeRowsOf(QList<qint64> ids, const TablesRead &read);
    void emitRowsChanged(const QList<int> &rows);                 // rows in increasing order
    void removeRowsMissingFrom(const QList<TableSpec> &incoming); // incoming sorted by id
    void emitRowChanged(int row);
    QVariant displayValue(const TableSpec &spec, int column) const;
    QVariant rawValue(const TableSpec &spec, int column) const;
    QString nextRunToolTip(const TableSpec &spec) const;
    QString lastStatusShown(qint64 id) const;

    QList<TableSpec> m_tables;
    QHash<qint64, QString> m_lastStatus;
    QHash<qint64, TableNextRun> m_nextRuns;
    QHash<qint64, QString> m_stalled; // id -> why
    quint64 m_readNumber = 0;         // of the read taken in last; 0 after setTables()
    QList<qint64> m_editedIds;        // edited here since that read
};

} // namespace tidemark
