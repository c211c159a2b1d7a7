// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"
#include "model/domain/tablespec.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QStringList>

namespace tidemark {

class FireTimes;

// When a control-table row is copied next by a schedule: the earliest next firing among the
// active schedules that run it, and which schedules fire then.
struct TableNextRun {
    QDateTime at;          // UTC
    QStringList schedules; // the schedules firing at `at`, by name
    bool operator==(const TableNextRun &) const = default;
};

// For each table a schedule runs, its next run after `now`. A schedule of every active table
// (no ids) runs each active table; a schedule with ids runs those that are active (a paused
// table is skipped by the run, so no schedule copies it). Paused schedules and schedules that
// never fire again run nothing. One nextAfter per schedule, then a pass over the tables.
QHash<qint64, TableNextRun> nextRunsByTable(const QList<ScheduleSpec> &schedules,
                                            const QList<TableSpec> &tables, const QDateTime &now,
                                            const FireTimes &fireTimes);

} // namespace tidemark
