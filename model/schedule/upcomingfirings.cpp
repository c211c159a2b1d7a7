// SPDX-License-Identifier: MIT
#include "model/schedule/upcomingfirings.h"

#include "model/schedule/firetimes.h"

namespace tidemark {

QList<QDateTime> fireTimesAfter(const ScheduleSpec &spec, QDateTime after, int count) {
    const CronFireTimes fireTimes;
    QList<QDateTime> times;
    while (times.size() < count) {
        after = fireTimes.nextAfter(spec, after);
        if (!after.isValid())
            break;
        times.append(after);
    }
    return times;
}

QDateTime nextRunAt(const ScheduleSpec &spec) {
    if (!spec.active)
        return {};
    const QList<QDateTime> next = fireTimesAfter(spec, QDateTime::currentDateTimeUtc(), 1);
    return next.isEmpty() ? QDateTime() : next.first();
}

} // namespace tidemark
