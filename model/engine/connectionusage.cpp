// SPDX-License-Identifier: MIT
#include "model/engine/connectionusage.h"

#include "model/storage/workspace.h"

namespace tidemark {

QStringList tablesUsingConnection(Workspace &workspace, const QString &name, QList<qint64> *removed) {
    QStringList users;
    for (const bool archived : {false, true}) {
        for (const TableSpec &spec : archived ? workspace.archivedTables() : workspace.tables()) {
            if (spec.sourceConnection != name && spec.targetConnection != name)
                continue;
            users << QStringLiteral("%1table %2 (%3 -> %4)")
                         .arg(archived ? QStringLiteral("removed ") : QString())
                         .arg(spec.id)
                         .arg(spec.sourceDisplay(), spec.targetDisplay());
            if (archived && removed)
                removed->append(spec.id);
        }
    }
    return users;
}

} // namespace tidemark
