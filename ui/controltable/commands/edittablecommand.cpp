// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/edittablecommand.h"

#include "model/models/controltablemodel.h"
#include "model/storage/workspace.h"
#include "ui/common/tablenaming.h"

namespace tidemark {

EditTableCommand::EditTableCommand(const Context &context, const TableSpec &before, const TableSpec &after,
                                   QUndoCommand *parent)
    : ControlTableCommand(context, QObject::tr("Edit table %1").arg(tableName(after)), parent)
    , m_before(before)
    , m_after(after) {}

void EditTableCommand::apply(const TableSpec &spec, const TableSpec &previous) {
    if (auto shown = m_context.model->table(spec.id)) {
        // Keep what the edit does not own: the watermark may have moved since.
        TableSpec updated = spec;
        updated.lastWatermark = shown->lastWatermark;
        updated.lastTiebreak = shown->lastTiebreak;
        m_context.model->upsertTable(updated);
    }
    // The workspace refuses a target another of its tables writes into; whether another
    // workspace's table owns it only the target knows, asked once the edit is written, as a
    // restore is (see persistRestore).
    const bool moved =
        spec.targetConnection != previous.targetConnection || spec.targetTable != previous.targetTable;
    persist([spec](Workspace &ws) { ws.updateTable(spec); },
            moved ? thenCheckTarget(spec.id, TargetReturn::Moved) : std::function<void()>());
}

void EditTableCommand::redo() {
    apply(m_after, m_before);
}

void EditTableCommand::undo() {
    apply(m_before, m_after);
}

} // namespace tidemark
