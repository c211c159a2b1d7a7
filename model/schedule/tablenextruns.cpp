// SPDX-License-Identifier: MIT
#include "model/schedule/tablenextruns.h"

#include "model/schedule/firetimes.h"

#include <QSet>

namespace tidemark {

QHash<qint64, TableNextRun> nextRunsByTable(const QList<ScheduleSpec> &schedules,
                                            const QList<TableSpec> &tables, const QDateTime &now,
                                            const FireTimes &fireTimes) {
    QSet<qint64> active;
    for (const TableSpec &table : tables)
        if (table.active)
            active.insert(table.id);

    QHash<qint64, TableNextRun> result;
    const auto offer = [&result](qint64 tableId, const QDateTime &at, const QString &schedule) {
        auto it = result.find(tableId);
        if (it == result.end())
            result.insert(tableId, {at, {schedule}});
        else if (at < it->at)
            *it = {at, {schedule}};
        else if (at == it->at && !it->schedules.contains(schedule))
            it->schedules.append(schedule);
    };
    for (const ScheduleSpec &schedule : schedules) {
        if (!schedule.active)
            continue;
        const QDateTime next = fireTimes.nextAfter(schedule, now);
        if (!next.isValid())
            continue;
        if (schedule.tableIds.isEmpty()) {
            for (const qint64 id : std::as_const(active))
                offer(id, next, schedule.name);
        } else {
            for (const qint64 id : schedule.tableIds)
                if (active.contains(id))
                    offer(id, next, schedule.name);
        }
    }
    return result;
}

} // namespace tidemark
