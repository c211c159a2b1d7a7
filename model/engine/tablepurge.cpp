// SPDX-License-Identifier: MIT
#include "model/engine/tablepurge.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/storage/workspace.h"

#include <QFileInfo>

namespace tidemark {

PurgeResult purgeRemovedTable(Workspace &workspace, qint64 tableId, bool confirm) {
    if (const std::optional<TableSpec> live = workspace.table(tableId))
        throw ValidationError(
            QStringLiteral("table %1 (%2 -> %3) is not removed: purge forgets only a removed "
                           "table (remove it first with 'table remove %1')")
                .arg(tableId)
                .arg(live->sourceDisplay(), live->targetDisplay()));
    const std::optional<TableSpec> spec = workspace.archivedTable(tableId);
    if (!spec)
        throw ValidationError(
            QStringLiteral("table %1 does not exist in workspace %2").arg(tableId).arg(workspace.path()));
    PurgeResult result;
    result.targetDisplay = spec->targetDisplay();
    const QString confirmHint = QStringLiteral("pass --yes to purge it anyway");

    const std::optional<ConnectionSpec> connection = workspace.connection(spec->targetConnection);
    std::unique_ptr<Connector> target;
    QString unreachable;
    if (!connection) {
        unreachable =
            QStringLiteral("its target connection '%1' no longer exists").arg(spec->targetConnection);
    } else if (connection->kind == ConnectionKind::Sqlite && !QFileInfo::exists(connection->path)) {
        // No file, no rows and no state row: nothing to release.
    } else {
        try {
            target = openConnector(*connection);
        } catch (const Error &error) {
            unreachable = error.message();
        }
    }
    if (!unreachable.isEmpty()) {
        if (!confirm)
            throw ValidationError(QStringLiteral("table %1: %2, so its state row in target %3 cannot be "
                                                 "cleared and the target stays taken for other tables; add "
                                                 "the connection again or make it reachable, or %4")
                                      .arg(tableId)
                                      .arg(unreachable, result.targetDisplay, confirmHint));
        result.warning = unreachable;
    }
    if (target) {
        const TableRef table = target->parseTableName(spec->targetTable);
        if (target->tableExists(table)) {
            WindowQuery all; // no watermark, no bounds: every row
            all.table = table;
            result.targetRows = target->countWindow(all);
        }
        if (result.targetRows > 0 && !confirm)
            throw ValidationError(QStringLiteral("table %1: its target %2 still holds %3 rows; purge keeps "
                                                 "them, and a new table writing there would add to them; "
                                                 "empty it first, or %4")
                                      .arg(tableId)
                                      .arg(result.targetDisplay)
                                      .arg(result.targetRows)
                                      .arg(confirmHint));
        if (target->readState(workspace.workspaceId(), tableId)) {
            try {
                target->beginStateWrite(workspace.workspaceId(), tableId);
                target->clearState(workspace.workspaceId(), tableId);
                target->commit();
            } catch (const Error &) {
                try {
                    target->rollback();
                } catch (const Error &) {
                }
                throw;
            }
            result.stateCleared = true;
        }
    }
    workspace.purgeTable(tableId);
    return result;
}

} // namespace tidemark
