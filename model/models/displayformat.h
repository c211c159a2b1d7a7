// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QDateTime>
#include <QString>

namespace tidemark {

// Formatting shared by the item models: one place decides how a count, a duration or a time
// looks, so the grid, the history and the CSV export agree.
QString formatCount(qint64 value);           // "1,234,567"
QString formatDuration(qint64 milliseconds); // "850 ms", "12.4 s", "3 min 05 s", "1 h 02 min"
// Times in the zone TimeConvention::current() chooses (the machine's or UTC):
QString formatTime(const QDateTime &time);         // "2026-11-30 03:00:00", empty when invalid
QString formatTimeWithZone(const QDateTime &time); // "2026-11-30 03:00:00 CET": the same, zone named
QDateTime toDisplayZone(const QDateTime &time);    // the instant in that zone (to format otherwise)
QString displayZoneName();                         // that zone: "Europe/Berlin", "UTC"
QString zonedLabel(const QString &label);          // "Started" -> "Started (Europe/Berlin)"
// "No new rows" for NoNewRows, "Dry run" for DryRun, ... (sentence case for people).
QString statusLabel(IterationStatus status);
QString statusLabel(const QString &statusName); // run statuses ("running", "failed", ...)

} // namespace tidemark
