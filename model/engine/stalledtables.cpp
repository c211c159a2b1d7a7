// SPDX-License-Identifier: MIT
#include "model/engine/stalledtables.h"

#include "model/domain/tablehealth.h"
#include "model/storage/workspace.h"

#include <algorithm>

namespace tidemark {

QHash<qint64, QString> stalledTables(Workspace &workspace, const QDateTime &now) {
    const QList<TableSpec> tables = workspace.tables();
    QHash<qint64, QString> stalled;
    if (std::none_of(tables.cbegin(), tables.cend(),
                     [](const TableSpec &spec) { return !spec.staleAfter.isEmpty(); }))
        return stalled;
    const QHash<qint64, IterationRecord> last = workspace.lastFinishedIterations();
    const QHash<qint64, QDateTime> movedAt = workspace.positionsMovedAt();
    for (const TableSpec &spec : tables) {
        const TableHealth health = tableHealth(spec, last.value(spec.id), movedAt.value(spec.id), now);
        if (health.name == QLatin1String("stalled"))
            stalled.insert(spec.id, health.reason);
    }
    return stalled;
}

} // namespace tidemark
