// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"
#include "model/schedule/missedfirings.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QList>

namespace tidemark {

// The workspace's schedules, one row each, with when each fires next (in its own zone and in
// UTC, evaluated against the clock given to setSchedules) and the status of its last run. A
// schedule whose firing came due and was not fired (no runner was there to fire it) shows that
// firing as missed instead of the next one: the list never rolls forward past what did not happen.
// Holds a copy of what the workspace said last; the window reads it off the GUI thread. GUI
// thread only.
class ScheduleListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // NextLocal: in the schedule's own zone; NextShown: in the window's (TimeConvention).
    enum Column { Name, Cron, Zone, Tables, NextLocal, NextShown, LastStatus, Active, ColumnCount };

    explicit ScheduleListModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // `lastStatuses`: a run's status by schedule name (absent = never ran).
    void setSchedules(const QList<ScheduleSpec> &schedules, const QHash<QString, QString> &lastStatuses,
                      const QDateTime &now);
    const ScheduleSpec &scheduleAt(int row) const { return m_rows.at(row).spec; }
    QList<ScheduleSpec> schedules() const;
    int rowOfSchedule(const QString &name) const;
    // The first firing that came due since the schedule last fired (or was created or changed)
    // and was not fired; invalid when none was missed.
    QDateTime missedAt(int row) const { return m_rows.at(row).missed.first; }

private:
    struct Row {
        ScheduleSpec spec;
        QDateTime next; // UTC; invalid = never (or cannot be evaluated)
        MissedFirings missed;
        QString lastStatus;
    };
    QVariant displayValue(const Row &row, int column) const;

    QList<Row> m_rows;
};

} // namespace tidemark
