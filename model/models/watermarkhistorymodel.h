// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

#include <QAbstractTableModel>
#include <QList>

namespace tidemark {

// One table's watermark log (Workspace::watermarkChanges), one change per row, oldest first
// until a view sorts it: when, old → new, why (a run, a backfill, a reconcile, a hand edit,
// an adoption), which run and which host. Holds a copy of what the workspace said; the window
// reads it off the GUI thread. DisplayRole is text (times in local time, the zone in the
// header), RawRole the typed value to sort on. GUI thread only.
class WatermarkHistoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Time, OldValue, NewValue, Cause, Run, By, Host, ColumnCount };

    explicit WatermarkHistoryModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void setChanges(const QList<WatermarkChange> &changes);
    const WatermarkChange &changeAt(int row) const { return m_changes.at(row); }

    // "Run", "Backfill", "Hand edit", ... for a stored cause ("run", "backfill", "edit").
    static QString causeLabel(const QString &cause);

private:
    QList<WatermarkChange> m_changes;
};

} // namespace tidemark
