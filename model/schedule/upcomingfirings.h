// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"

#include <QDateTime>
#include <QList>

namespace tidemark {

// The schedule's first fire times strictly after `after` (UTC), at most `count`: fewer when it
// stops firing. Its cron expression in its zone, as the runner fires it.
QList<QDateTime> fireTimesAfter(const ScheduleSpec &spec, QDateTime after, int count);
// When an active schedule fires next; invalid for a paused one or one that never fires again.
QDateTime nextRunAt(const ScheduleSpec &spec);

} // namespace tidemark
