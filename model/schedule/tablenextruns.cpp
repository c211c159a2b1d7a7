// SPDX-License-Identifier: MIT
#include "model/schedule/tablenextruns.h"

#include "model/schedule/firetimes.h"
#include "model/schedule/missedfirings.h"

#include <QSet>

namespace tidemark {

namespace {

// Keeps the earliest `at` in (`earliest`, `names`), with every schedule due then.
void keepEarliest(QDateTime &earliest, QStringList &names, const QDateTime &at, const QString &schedule) {
    if (!earliest.isValid() || at < earliest) {
        earliest = at;
        names = {schedule};
    } else if (at == earliest && !names.contains(schedule)) {
        names.append(schedule);
    }
}

void keepEarliest(QDateTime &earliest, const QDateTime &at) {
    if (at.isValid() && (!earliest.isValid() || at < earliest))
        earliest = at;
}

} // namespace

TableNextRuns nextRunsByTable(const QList<ScheduleSpec> &schedules, const QList<TableSpec> &tables,
                              const QDateTime &now, const FireTimes &fireTimes) {
    QSet<qint64> active;
    for (const TableSpec &table : tables)
        if (table.active)
            active.insert(table.id);

    TableNextRuns result;
    for (const ScheduleSpec &schedule : schedules) {
        if (!schedule.active)
            continue;
        const QDateTime next = fireTimes.nextAfter(schedule, now);
        const MissedFirings missed = MissedFirings::of(schedule, now, fireTimes);
        if (!next.isValid() && !missed.first.isValid())
            continue;
        keepEarliest(result.lookAgainAt, next);
        keepEarliest(result.lookAgainAt, missed.decidedAt);
        const auto offer = [&](qint64 tableId) {
            TableNextRun &run = result.byTable[tableId];
            if (next.isValid())
                keepEarliest(run.at, run.schedules, next, schedule.name);
            if (missed.first.isValid())
                keepEarliest(run.missed, run.missedBy, missed.first, schedule.name);
        };
        if (schedule.tableIds.isEmpty()) {
            for (const qint64 id : std::as_const(active))
                offer(id);
        } else {
            for (const qint64 id : schedule.tableIds)
                if (active.contains(id))
                    offer(id);
        }
    }
    return result;
}

} // namespace tidemark
