// SPDX-License-Identifier: MIT
#include "model/models/displayformat.h"

#include "model/models/timeconvention.h"

#include <QLocale>

namespace tidemark {

QString formatCount(qint64 value) {
    // A fixed locale keeps numbers readable and identical across machines (and in CSV exports).
    static const QLocale locale(QLocale::English, QLocale::UnitedStates);
    return locale.toString(value);
}

QString formatDuration(qint64 ms) {
    if (ms < 0)
        ms = 0;
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    if (ms < 60'000)
        return QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    const qint64 seconds = ms / 1000;
    if (seconds < 3600)
        return QStringLiteral("%1 min %2 s").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1 h %2 min")
        .arg(seconds / 3600)
        .arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QDateTime toDisplayZone(const QDateTime &time) {
    return time.isValid() ? time.toTimeZone(TimeConvention::current().zone()) : QDateTime();
}

QString formatTime(const QDateTime &time) {
    if (!time.isValid())
        return {};
    return toDisplayZone(time).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString displayZoneName() {
    return TimeConvention::current().zoneName();
}

QString formatTimeWithZone(const QDateTime &time) {
    if (!time.isValid())
        return {};
    const QDateTime shown = toDisplayZone(time);
    return shown.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) + QLatin1Char(' ') +
           (TimeConvention::current().isUtc() ? QStringLiteral("UTC") : shown.timeZoneAbbreviation());
}

QString zonedLabel(const QString &label) {
    return QStringLiteral("%1 (%2)").arg(label, displayZoneName());
}

QString statusLabel(IterationStatus status) {
    switch (status) {
    case IterationStatus::Queued:
        return QStringLiteral("Queued");
    case IterationStatus::Running:
        return QStringLiteral("Running");
    case IterationStatus::Succeeded:
        return QStringLiteral("Succeeded");
    case IterationStatus::NoNewRows:
        return QStringLiteral("No new rows");
    case IterationStatus::Warning:
        return QStringLiteral("Warning");
    case IterationStatus::Failed:
        return QStringLiteral("Failed");
    case IterationStatus::Cancelled:
        return QStringLiteral("Cancelled");
    case IterationStatus::Skipped:
        return QStringLiteral("Skipped");
    case IterationStatus::DryRun:
        return QStringLiteral("Dry run");
    case IterationStatus::Interrupted:
        return QStringLiteral("Interrupted");
    }
    return {};
}

QString statusLabel(const QString &statusName) {
    if (statusName.isEmpty())
        return {};
    if (const auto status = iterationStatusFromName(statusName))
        return statusLabel(*status);
    QString label = statusName;
    label.replace(QLatin1Char('_'), QLatin1Char(' '));
    label[0] = label[0].toUpper();
    return label;
}

} // namespace tidemark
