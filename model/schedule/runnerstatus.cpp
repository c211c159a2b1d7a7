// SPDX-License-Identifier: MIT
#include "model/schedule/runnerstatus.h"

#include "model/common/duration.h"

#include <QCoreApplication>

namespace tidemark {

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
