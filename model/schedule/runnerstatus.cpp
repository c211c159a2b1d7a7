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
    RunnerStatus status;
    if (!heartbeat) {
        status.text = tr("No runner");
        return status;
    }
    const QString age = formatAge(heartbeat->lastBeatAt.secsTo(now));
    if (heartbeat->expiresAt.isValid() && now < heartbeat->expiresAt) {
        status.state = State::Running;
        status.text = tr("Runner: running on %1 (pid %2), last beat %3 ago")
                          .arg(heartbeat->host)
                          .arg(heartbeat->pid)
                          .arg(age);
    } else {
        status.state = State::Stopped;
        status.text = tr("Runner: stopped (last beat %1 ago on %2)").arg(age, heartbeat->host);
    }
    // A runner that beats but whose last firing failed is not healthy: it says so in the same line.
    const FiringOutcome &firing = heartbeat->lastFiring;
    if (firing.failed()) {
        status.lastFiringFailed = true;
        status.text += tr("; last firing FAILED (schedule '%1', %2 ago)")
                           .arg(firing.schedule, formatAge(firing.at.secsTo(now)));
        status.firingError = firing.error;
    }
    return status;
}

} // namespace tidemark
