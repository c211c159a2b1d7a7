// SPDX-License-Identifier: MIT
#include "model/schedule/firetimes.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/schedule/cronexpression.h"

#include <QTimeZone>

namespace tidemark {

QDateTime CronFireTimes::nextAfter(const ScheduleSpec &schedule, const QDateTime &after) const {
    try {
        const QTimeZone zone(schedule.timeZone.toUtf8());
        if (!zone.isValid())
            throw ValidationError(QStringLiteral("unknown time zone '%1'").arg(schedule.timeZone));
        return CronExpression::parse(schedule.cron).nextAfter(after, zone);
    } catch (const Error &error) {
        // Validated when added; a zone the system lost since then stops only this schedule.
        logger("core.schedule")
            ->error("schedule '{}': cannot compute its next firing: {}", str(schedule.name),
                    str(error.message()));
        return QDateTime();
    }
}

} // namespace tidemark
