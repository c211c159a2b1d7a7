// SPDX-License-Identifier: MIT
#include "model/schedule/missedfirings.h"

#include "model/schedule/firetimes.h"

namespace tidemark {

namespace {

// Since when the schedule should have fired: its last firing, else its creation, or its last
// change when that is later (a new cron or a resume starts counting afresh).
QDateTime dueSince(const ScheduleSpec &spec) {
    QDateTime since = spec.createdAt;
    for (const QDateTime &at : {spec.updatedAt, spec.lastFiredAt})
        if (at.isValid() && (!since.isValid() || at > since))
            since = at;
    return since;
}

} // namespace

MissedFirings MissedFirings::of(const ScheduleSpec &schedule, const QDateTime &now,
                                const FireTimes &fireTimes) {
    MissedFirings missed;
    const QDateTime since = dueSince(schedule);
    if (!schedule.active || !since.isValid())
        return missed;
    QDateTime due = fireTimes.nextAfter(schedule, since);
    if (!due.isValid())
        return missed;
    if (due.secsTo(now) <= kOverdueSeconds) {
        missed.decidedAt = due.addSecs(kOverdueSeconds + 1);
        return missed;
    }
    missed.first = due;
    while (due.isValid() && due < now && missed.count < kMaxCounted) {
        ++missed.count;
        due = fireTimes.nextAfter(schedule, due);
    }
    return missed;
}

} // namespace tidemark
