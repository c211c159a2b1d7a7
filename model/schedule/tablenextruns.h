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
// active schedules that run it, and which schedules fire then. A firing that came due and was
// not fired (MissedFirings) is kept apart, so the row shows it missed instead of rolling forward.
struct TableNextRun {
    QDateTime at;          // UTC; invalid when no schedule that runs it fires again
    QStringList schedules; // the schedules firing at `at`, by name
    QDateTime missed;      // UTC; the earliest firing that runs it and was missed, invalid = none
    QStringList missedBy;  // the schedules whose firing at `missed` was missed
    bool operator==(const TableNextRun &) const = default;
};

struct TableNextRuns {
    QHash<qint64, TableNextRun> byTable;
    QDateTime lookAgainAt; // UTC; the earliest time one of them changes, invalid = never
};

// For each table a schedule runs, its next run after `now` and its missed firings. A schedule of
// every active table (no ids) runs each active table; a schedule with ids runs those that are
// active (a paused table is skipped by the run, so no schedule copies it). Paused schedules run
// nothing. One nextAfter per schedule (and its missed firings), then a pass over the tables.
TableNextRuns nextRunsByTable(const QList<ScheduleSpec> &schedules, const QList<TableSpec> &tables,
                              const QDateTime &now, const FireTimes &fireTimes);

} // namespace tidemark
