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
    const qint64 id = currentId(spec.id);
    if (auto shown = m_context.model->table(id)) {
        // Keep what the edit does not own: the watermark may have moved since.
        TableSpec updated = spec;
        updated.id = id;
        updated.lastWatermark = shown->lastWatermark;
        updated.lastTiebreak = shown->lastTiebreak;
        m_context.model->upsertTable(updated);
    }
    persist([spec, aliases = m_context.aliases](Workspace &ws) {
        TableSpec updated = spec;
        updated.id = aliases->resolve(spec.id);
        ws.updateTable(updated);
    });
}

void EditTableCommand::redo() {
    apply(m_after);
}

void EditTableCommand::undo() {
    apply(m_before);
}

} // namespace tidemark
