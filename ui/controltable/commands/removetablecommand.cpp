// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/removetablecommand.h"

#include "model/models/controltablemodel.h"
#include "model/storage/workspace.h"

namespace tidemark {

RemoveTableCommand::RemoveTableCommand(const Context &context, const TableSpec &spec, QUndoCommand *parent)
    : ControlTableCommand(context, QObject::tr("Remove table %1").arg(spec.sourceDisplay()), parent)
    , m_spec(spec)
{
}

void RemoveTableCommand::redo()
{
    m_context.model->removeTable(currentId(m_spec.id));
    persist([id = m_spec.id, aliases = m_context.aliases](Workspace &ws) { ws.removeTable(aliases->resolve(id)); });
}

void RemoveTableCommand::undo()
{
    persist([spec = m_spec, aliases = m_context.aliases](Workspace &ws) {
        TableSpec restored = spec;
        restored.id = 0;
        const qint64 id = ws.addTable(restored);
        aliases->alias(aliases->resolve(spec.id), id);
        // Without its watermark the table would copy everything again on the next run.
        if (!spec.lastWatermark.isNull())
            ws.setWatermark(id, spec.lastWatermark, spec.lastTiebreak, QStringLiteral("edit"), 0);
        if (!spec.active)
            ws.setActive(id, false);
    });
}

} // namespace tidemark
