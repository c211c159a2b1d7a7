// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/alertsettings.h"

#include <QDateTime>
#include <QList>
#include <QString>

namespace tidemark {

// One schedule (docs/design.md, "Schedules and the runner"): a set of tables and when to run them.
struct ScheduleSpec {
    qint64 id = 0;
    QString name;           // unique in the workspace
    QString cron;           // as the user wrote it; parsed by CronExpression
    QString timeZone;       // IANA id
    QList<qint64> tableIds; // empty = every active table
    int concurrency = 2;
    int retries = 0;           // extra attempts of an iteration that failed on a transient error
    qint64 timeoutSeconds = 0; // per iteration; 0 = none
    bool active = true;
    QDateTime createdAt;
    QDateTime updatedAt;
    QDateTime lastFiredAt; // the last firing the runner started, invalid = never
    qint64 lastRunId = 0;  // 0 = none
    // The schedule's own alerts, sent for its runs besides the workspace's (AlertDispatcher);
    // empty = none.
    AlertSettings alerts;
};

// A schedule's --timeout: a duration (model/common/duration.h) of whole seconds.
qint64 parseDurationSeconds(const QString &text, const QString &what);

} // namespace tidemark
