// SPDX-License-Identifier: MIT
#include "model/engine/tableedit.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/domain/sourcezone.h"
#include "model/engine/backfill.h"
#include "model/storage/workspace.h"

#include <QFileInfo>

namespace tidemark {
namespace {

constexpr int kEditLeaseSeconds = 300;

// Holds the table's lease for the edit: a run that starts meanwhile finds it taken and skips the
// table, instead of copying with settings that change under it.
class EditLease {
public:
    EditLease(Workspace &workspace, qint64 tableId)
        : m_workspace(workspace)
        , m_tableId(tableId) {
        const LeaseAttempt lease = workspace.acquireLease(tableId, 0, kEditLeaseSeconds);
        if (!lease.acquired)
            throw ValidationError(QStringLiteral("table %1 is being copied by run %2 (host %3, pid %4); "
                                                 "change it when that run has ended")
                                      .arg(tableId)
                                      .arg(lease.holder->runId)
                                      .arg(lease.holder->host)
                                      .arg(lease.holder->pid));
        m_held = true;
        // A queued iteration has no lease yet, but its run has planned it with the settings it read.
        const IterationActivity activity = workspace.iterationActivity(std::nullopt);
        for (const IterationActivity::Open &open : activity.open) {
            if (open.tableId != tableId)
                continue;
            release(); // a throwing constructor runs no destructor
            throw ValidationError(QStringLiteral("table %1 has an iteration %2 in a run that has not ended; "
                                                 "change it when that run has ended")
                                      .arg(tableId)
                                      .arg(open.status));
        }
    }
    ~EditLease() { release(); }
    EditLease(const EditLease &) = delete;
    EditLease &operator=(const EditLease &) = delete;

private:
    void release() {
        if (!m_held)
            return;
        m_held = false;
        try {
            m_workspace.releaseLease(m_tableId, 0);
        } catch (const Error &) {
            // It expires on its own; the edit is done or refused already.
        }
    }

    Workspace &m_workspace;
    qint64 m_tableId;
    bool m_held = false;
};

QString shown(const QString &text) {
    return text.isEmpty() ? QStringLiteral("(none)") : text;
}

// Clears `spec`'s state row in its target, which then belongs to no table of this workspace.
// Nothing to clear in a SQLite file that does not exist, or a target without this table's row.
void clearTargetState(Workspace &workspace, const TableSpec &spec) {
    const std::optional<ConnectionSpec> connection = workspace.connection(spec.targetConnection);
    if (!connection)
        throw Error(QStringLiteral("connection '%1' does not exist").arg(spec.targetConnection));
    if (connection->kind == ConnectionKind::Sqlite && !QFileInfo::exists(connection->path))
        return;
    std::unique_ptr<Connector> target = openConnector(*connection);
    if (!target->readState(workspace.workspaceId(), spec.id))
        return;
    try {
        target->beginStateWrite(workspace.workspaceId(), spec.id);
        target->clearState(workspace.workspaceId(), spec.id);
        target->commit();
    } catch (const Error &) {
        try {
            target->rollback();
        } catch (const Error &) {
        }
        throw;
    }
}

} // namespace

QStringList positionChanges(const TableSpec &before, const TableSpec &after) {
    QStringList changes;
    if (before.sourceDisplay() != after.sourceDisplay())
        changes << QStringLiteral("the source (%1 -> %2)").arg(before.sourceDisplay(), after.sourceDisplay());
    if (before.targetDisplay() != after.targetDisplay())
        changes << QStringLiteral("the target (%1 -> %2)").arg(before.targetDisplay(), after.targetDisplay());
    if (before.watermarkColumn != after.watermarkColumn)
        changes << QStringLiteral("the watermark column (%1 -> %2)")
                       .arg(shown(before.watermarkColumn), shown(after.watermarkColumn));
    else if (before.watermarkType != after.watermarkType)
        changes << QStringLiteral("the watermark type (%1 -> %2)")
                       .arg(watermarkTypeName(before.watermarkType), watermarkTypeName(after.watermarkType));
    if (before.tiebreakColumn != after.tiebreakColumn)
        changes << QStringLiteral("the tiebreak column (%1 -> %2)")
                       .arg(shown(before.tiebreakColumn), shown(after.tiebreakColumn));
    return changes;
}

TableEditResult applyTableEdit(Workspace &workspace, const TableSpec &before, const TableSpec &after,
                               bool resetPosition) {
    TableEditResult result;
    result.positionChanges = positionChanges(before, after);
    const EditLease lease(workspace, before.id);
    if (!result.positionChanges.isEmpty() && !resetPosition)
        throw ValidationError(
            QStringLiteral("table %1: changing %2 makes its position (%3) meaningless; pass --reset-position "
                           "to empty the target and copy again from the initial watermark, or leave %4 as "
                           "it is")
                .arg(before.id)
                .arg(result.positionChanges.join(QStringLiteral(" and ")),
                     before.lastWatermark.isNull()
                         ? QStringLiteral("none yet")
                         : shownWatermark(before.lastWatermark, before.sourceTimezone),
                     result.positionChanges.size() == 1 ? QStringLiteral("it") : QStringLiteral("them")));
    if (!resetPosition) {
        workspace.updateTable(after);
        return result;
    }
    // The target first: a process dying after it leaves the old settings at the reset position
    // (see the header); the other order would leave the new settings at the old, meaningless one.
    BackfillResult reset;
    TableSpec edited = after;
    edited.lastGeneration = before.lastGeneration;
    const qint64 generation = resetTarget(workspace, edited, Position(after.initialWatermark),
                                          BackfillTargetAction::Truncate, reset);
    workspace.replaceTable(after, generation, Position(after.initialWatermark), QStringLiteral("edit"));
    result.positionReset = true;
    result.positionBefore = before.lastWatermark;
    result.positionAfter = after.initialWatermark;
    if (before.targetDisplay() != after.targetDisplay()) {
        try {
            clearTargetState(workspace, before);
        } catch (const Error &error) {
            result.oldTargetWarning =
                QStringLiteral(
                    "the old target %1 keeps its rows, and its state row for table %2 could not be "
                    "cleared (%3): no other table can write there until it is")
                    .arg(before.targetDisplay())
                    .arg(before.id)
                    .arg(error.message());
        }
    }
    return result;
}

} // namespace tidemark
