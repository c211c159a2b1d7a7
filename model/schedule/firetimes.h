// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"

#include <QDateTime>

namespace tidemark {

// When a schedule fires next: the cron expression in its zone for the runner, a table of
// instants in tests.
class FireTimes {
public:
    virtual ~FireTimes() = default;
    // The first fire time strictly after `after` (UTC); invalid when it never fires again or
    // the schedule cannot be evaluated (the reason is logged).
    virtual QDateTime nextAfter(const ScheduleSpec &schedule, const QDateTime &after) const = 0;
};

// CronExpression evaluated in the schedule's IANA zone.
class CronFireTimes : public FireTimes {
public:
    QDateTime nextAfter(const ScheduleSpec &schedule, const QDateTime &after) const override;
};

} // namespace tidemark
