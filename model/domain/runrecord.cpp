// SPDX-License-Identifier: MIT
#include "model/domain/runrecord.h"

namespace tidemark {
namespace {

constexpr IterationStatus kAllStatuses[] = {
    IterationStatus::Queued,      IterationStatus::Running, IterationStatus::Succeeded,
    IterationStatus::NoNewRows,   IterationStatus::Warning, IterationStatus::Failed,
    IterationStatus::Cancelled,   IterationStatus::Skipped, IterationStatus::DryRun,
    IterationStatus::Interrupted,
};

} // namespace

QString iterationStatusName(IterationStatus status) {
    switch (status) {
    case IterationStatus::Queued:
        return QStringLiteral("queued");
    case IterationStatus::Running:
        return QStringLiteral("running");
    case IterationStatus::Succeeded:
        return QStringLiteral("succeeded");
    case IterationStatus::NoNewRows:
        return QStringLiteral("no_new_rows");
    case IterationStatus::Warning:
        return QStringLiteral("warning");
    case IterationStatus::Failed:
        return QStringLiteral("failed");
    case IterationStatus::Cancelled:
        return QStringLiteral("cancelled");
    case IterationStatus::Skipped:
        return QStringLiteral("skipped");
    case IterationStatus::DryRun:
        return QStringLiteral("dry_run");
    case IterationStatus::Interrupted:
        return QStringLiteral("interrupted");
    }
    return QString();
}

std::optional<IterationStatus> iterationStatusFromName(const QString &name) {
    for (const IterationStatus status : kAllStatuses) {
        if (iterationStatusName(status) == name)
            return status;
    }
    return std::nullopt;
}

bool isFailure(IterationStatus status) {
    return status == IterationStatus::Failed || status == IterationStatus::Cancelled ||
           status == IterationStatus::Interrupted;
}

bool isRolledBack(const IterationRecord &record) {
    return record.status == IterationStatus::Cancelled || record.status == IterationStatus::Failed ||
           record.status == IterationStatus::Interrupted;
}

qint64 rowsShownRead(const IterationRecord &record) {
    return isRolledBack(record) ? qMin(record.rowsRead, record.rowsWritten + record.rowsSkipped)
                                : record.rowsRead;
}

bool isFinished(IterationStatus status) {
    return status != IterationStatus::Queued && status != IterationStatus::Running;
}

QString runTriggerName(RunTrigger trigger) {
    switch (trigger) {
    case RunTrigger::Gui:
        return QStringLiteral("gui");
    case RunTrigger::Cli:
        return QStringLiteral("cli");
    case RunTrigger::Schedule:
        return QStringLiteral("schedule");
    }
    return QString();
}

QString deriveRunStatus(const QList<IterationStatus> &statuses, bool dryRun) {
    if (statuses.contains(IterationStatus::Failed))
        return iterationStatusName(IterationStatus::Failed);
    if (statuses.contains(IterationStatus::Cancelled))
        return iterationStatusName(IterationStatus::Cancelled);
    if (statuses.contains(IterationStatus::Warning))
        return iterationStatusName(IterationStatus::Warning);
    if (dryRun)
        return iterationStatusName(IterationStatus::DryRun);
    return iterationStatusName(IterationStatus::Succeeded);
}

QString isoUtc(const QDateTime &time) {
    if (!time.isValid())
        return QString();
    return time.toUTC().toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz'Z'"));
}

} // namespace tidemark
