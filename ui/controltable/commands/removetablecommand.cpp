// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/removetablecommand.h"

#include "model/models/controltablemodel.h"
#include "model/storage/workspace.h"
#include "ui/common/tablenaming.h"

namespace tidemark {

RemoveTableCommand::RemoveTableCommand(const Context &context, const TableSpec &spec, QUndoCommand *parent)
    : ControlTableCommand(context, QObject::tr("Remove table %1").arg(tableName(spec)), parent)
    , m_spec(spec) {}

void RemoveTableCommand::redo() {
    m_context.model->removeTable(m_spec.id);
    persist([id = m_spec.id](Workspace &ws) { ws.removeTable(id); });
}

void RemoveTableCommand::undo() {
    // Shown at once as it was; the reload brings the position it has in the workspace.
    m_context.model->upsertTable(m_spec);
    persistRestore(m_spec.id);
}

} // namespace tidemark
