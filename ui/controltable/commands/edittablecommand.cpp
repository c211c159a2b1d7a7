// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/edittablecommand.h"

#include "model/models/controltablemodel.h"
#include "model/storage/workspace.h"

namespace tidemark {

EditTableCommand::EditTableCommand(const Context &context, const TableSpec &before, const TableSpec &after,
                                   QUndoCommand *parent)
    : ControlTableCommand(context, QObject::tr("Edit table %1").arg(after.sourceDisplay()), parent)
    , m_before(before)
    , m_after(after) {}

void EditTableCommand::apply(const TableSpec &spec) {
    if (auto shown = m_context.model->table(spec.id)) {
        // Keep what the edit does not own: the watermark may have moved since.
        TableSpec updated = spec;
        updated.lastWatermark = shown->lastWatermark;
        updated.lastTiebreak = shown->lastTiebreak;
        m_context.model->upsertTable(updated);
    }
    persist([spec](Workspace &ws) { ws.updateTable(spec); });
}

void EditTableCommand::redo() {
    apply(m_after);
}

void EditTableCommand::undo() {
    apply(m_before);
}

} // namespace tidemark
