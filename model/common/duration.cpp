// SPDX-License-Identifier: MIT
#include "model/common/duration.h"

#include "model/common/error.h"

#include <QRegularExpression>

#include <algorithm>

namespace tidemark {

qint64 parseDurationMs(const QString &text, const QString &what) {
    static const QRegularExpression pattern(QStringLiteral("^([0-9]{1,9})(ms|[smhd]?)$"));
    const QRegularExpressionMatch match = pattern.match(text.trimmed());
    if (!match.hasMatch())
        throw ValidationError(
            QStringLiteral("%1: '%2' is not a duration such as 500ms, 30s, 15m, 2h or 1d").arg(what, text));
    const qint64 amount = match.captured(1).toLongLong();
    const QString unit = match.captured(2);
    const qint64 factor = unit == QLatin1String("ms")  ? 1
                          : unit == QLatin1String("m") ? 60'000
                          : unit == QLatin1String("h") ? 3'600'000
                          : unit == QLatin1String("d") ? 86'400'000
                                                       : 1000;
    if (amount <= 0)
        throw ValidationError(QStringLiteral("%1: '%2' must be longer than zero").arg(what, text));
    return amount * factor;
}

QString durationText(qint64 ms) {
    struct Unit {
        qint64 factor;
        const char *suffix;
    };
    for (const Unit unit :
         {Unit{86'400'000, "d"}, Unit{3'600'000, "h"}, Unit{60'000, "m"}, Unit{1000, "s"}}) {
        if (ms > 0 && ms % unit.factor == 0)
            return QString::number(ms / unit.factor) + QLatin1String(unit.suffix);
    }
    return QStringLiteral("%1ms").arg(ms);
}

QString formatAge(qint64 seconds) {
    seconds = std::max<qint64>(seconds, 0);
    if (seconds < 120)
        return QStringLiteral("%1s").arg(seconds);
    if (seconds < 2 * 3600)
        return QStringLiteral("%1 min").arg(seconds / 60);
    if (seconds < 2 * 86400)
        return QStringLiteral("%1 h").arg(seconds / 3600);
    return QStringLiteral("%1 days").arg(seconds / 86400);
}

} // namespace tidemark
