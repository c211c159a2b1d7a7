// SPDX-License-Identifier: MIT
#include "model/schedule/runnerstatus.h"

#include <QCoreApplication>

#include <algorithm>

namespace tidemark {

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

RunnerStatus RunnerStatus::of(const std::optional<RunnerHeartbeat> &heartbeat, const QDateTime &now) {
    const auto tr = [](const char *text) {
        return QCoreApplication::translate("tidemark::RunnerStatus", text);
    };
    if (!heartbeat)
        return {State::None, tr("No runner")};
    const QString age = formatAge(heartbeat->lastBeatAt.secsTo(now));
    if (heartbeat->expiresAt.isValid() && now < heartbeat->expiresAt)
        return {State::Running, tr("Runner: running on %1 (pid %2), last beat %3 ago")
                                    .arg(heartbeat->host)
                                    .arg(heartbeat->pid)
                                    .arg(age)};
    return {State::Stopped, tr("Runner: stopped (last beat %1 ago on %2)").arg(age, heartbeat->host)};
}

} // namespace tidemark
