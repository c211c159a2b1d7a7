// SPDX-License-Identifier: MIT
#include "model/models/displayformat.h"

#include <QLocale>
#include <QTimeZone>

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

QString formatLocalTime(const QDateTime &utc) {
    if (!utc.isValid())
        return {};
    return utc.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString localZoneName() {
    return QString::fromUtf8(QTimeZone::systemTimeZoneId());
}

QString formatLocalTimeWithZone(const QDateTime &utc) {
    if (!utc.isValid())
        return {};
    const QDateTime local = utc.toLocalTime();
    return formatLocalTime(utc) + QLatin1Char(' ') + local.timeZoneAbbreviation();
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
