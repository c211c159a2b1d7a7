// SPDX-License-Identifier: MIT
#include "model/domain/schedulespec.h"

#include "model/common/error.h"

#include <QRegularExpression>

namespace tidemark {

qint64 parseDurationSeconds(const QString &text, const QString &what) {
    static const QRegularExpression pattern(QStringLiteral("^([0-9]{1,9})([smhd]?)$"));
    const QRegularExpressionMatch match = pattern.match(text.trimmed());
    if (!match.hasMatch())
        throw ValidationError(
            QStringLiteral("%1: '%2' is not a duration like 30s, 15m, 2h or 1d").arg(what, text));
    const qint64 amount = match.captured(1).toLongLong();
    const QString unit = match.captured(2);
    const qint64 factor = unit == QLatin1String("m")   ? 60
                          : unit == QLatin1String("h") ? 3600
                          : unit == QLatin1String("d") ? 86400
                                                       : 1;
    if (amount <= 0)
        throw ValidationError(QStringLiteral("%1: '%2' must be longer than zero").arg(what, text));
    return amount * factor;
}

QString durationText(qint64 seconds) {
    if (seconds > 0 && seconds % 86400 == 0)
        return QStringLiteral("%1d").arg(seconds / 86400);
    if (seconds > 0 && seconds % 3600 == 0)
        return QStringLiteral("%1h").arg(seconds / 3600);
    if (seconds > 0 && seconds % 60 == 0)
        return QStringLiteral("%1m").arg(seconds / 60);
    return QStringLiteral("%1s").arg(seconds);
}

} // namespace tidemark
