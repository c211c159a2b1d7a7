// SPDX-License-Identifier: MIT
#include "model/engine/workspacecopy.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/statetable.h"
#include "model/engine/targetownership.h"
#include "model/storage/workspace.h"

#include <QFileInfo>

namespace tidemark {
namespace {

// The copy's claim on one table's target: the state row the source workspace (`sourceId`) wrote
// moves to the copy's workspace id, with the position it holds. False when nobody owned the target
// (never written); an Error when another workspace owns it.
bool takeTargetOver(Workspace &copy, const QString &sourceId, const TableSpec &spec, QString &position) {
    const ConnectionSpec connection = copy.requireConnection(spec.targetConnection);
    if (connection.kind == ConnectionKind::Sqlite && !QFileInfo::exists(connection.path))
        return false; // never written: opening it would create the file
    std::unique_ptr<TargetWriter> target = openConnector(connection);
    TargetState claim{copy.workspaceId(), spec.id, Position(), 0, 0};
    claim.targetTable = stateTargetKey(target->parseTableName(spec.targetTable));
    claim.workspacePath = copy.path();
    const std::optional<Adoption> adoption = adoptTarget(*target, claim, spec.lastGeneration, sourceId);
    if (!adoption)
        return false;
    copy.followTargetState(spec.id, adoption->state.generation, adoption->state.position,
                           QStringLiteral("adopt"), 0);
    const Watermark at = adoption->state.position.watermark();
    position = at.isNull() ? QStringLiteral("(none)") : at.display();
    return true;
}

} // namespace

WorkspaceCopyReport copyWorkspace(Workspace &source, const QString &destination,
                                  const std::function<void(const QString &)> &progress) {
    source.markCopiedTo(destination);
    WorkspaceCopyReport report;
    try {
        report.rows = source.copyInto(destination, [&](const CopiedRows &copied) {
            progress(QStringLiteral("copied %1: %2 row(s)").arg(copied.table).arg(copied.rows));
        });
    } catch (const Error &) {
        source.unmarkCopied();
        throw;
    }
    std::unique_ptr<Workspace> copy = Workspace::open(destination);
    QList<TableSpec> tables = copy->tables();
    tables << copy->archivedTables(); // a removed table may be restored: its target stays its own
    for (const TableSpec &spec : std::as_const(tables)) {
        const QString name = QStringLiteral("table %1 (%2)").arg(spec.id).arg(spec.targetDisplay());
        try {
            QString position;
            if (!takeTargetOver(*copy, source.workspaceId(), spec, position))
                continue;
            report.takenOver << QStringLiteral("%1 at %2").arg(name, position);
            progress(QStringLiteral("took over the target of %1 at %2").arg(name, position));
        } catch (const Error &error) {
            report.notTakenOver << QStringLiteral("%1: %2").arg(name, error.message());
            progress(QStringLiteral("could not take over the target of %1: %2").arg(name, error.message()));
        }
    }
    return report;
}

} // namespace tidemark
