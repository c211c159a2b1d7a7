// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"

#include <QDateTime>

namespace tidemark {

class FireTimes;

// The firings of a schedule that came due since it last fired (or was created or changed) and
// were not fired: nobody was there to fire them. A live runner fires within a tick of the time,
// so a firing counts as missed only once it is this long overdue.
struct MissedFirings {
    static constexpr qint64 kOverdueSeconds = 120;
    static constexpr int kMaxCounted = 100;

    QDateTime first;     // UTC; the first firing due and not fired; invalid = none missed
    int count = 0;       // how many came due since `first`, counted up to kMaxCounted
    QDateTime decidedAt; // UTC; when the first firing not yet missed would count as missed
                         // (a view looks again then); invalid when nothing is due

    // `schedule`'s missed firings as of `now`; none for a paused schedule.
    static MissedFirings of(const ScheduleSpec &schedule, const QDateTime &now, const FireTimes &fireTimes);
};

} // namespace tidemark
