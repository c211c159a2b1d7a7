// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/removetablecommand.h"

#include "model/models/controltablemodel.h"
#include "model/storage/workspace.h"

namespace tidemark {

RemoveTableCommand::RemoveTableCommand(const Context &context, const TableSpec &spec, QUndoCommand *parent)
    : ControlTableCommand(context, QObject::tr("Remove table %1").arg(spec.sourceDisplay()), parent)
    , m_spec(spec) {}

void RemoveTableCommand::redo() {
    m_context.model->removeTable(currentId(m_spec.id));
    persist([id = m_spec.id, aliases = m_context.aliases](Workspace &ws) {
        ws.removeTable(aliases->resolve(id));
    });
}

void RemoveTableCommand::undo() {
    persist([spec = m_spec, aliases = m_context.aliases](Workspace &ws) {
        TableSpec restored = spec;
        restored.id = 0;
        // The new id has no state row in the target, and reconcile trusts the initial
        // watermark then: start it where the removed table had got to, or the next run would
        // copy everything again (and an append target would hold it twice).
        if (!spec.lastWatermark.isNull())
            restored.initialWatermark = spec.lastWatermark;
        const qint64 id = ws.addTable(restored);
        aliases->alias(aliases->resolve(spec.id), id);
        if (!spec.lastWatermark.isNull())
            ws.setWatermark(id, spec.lastWatermark, spec.lastTiebreak, QStringLiteral("edit"), 0);
        if (!spec.active)
            ws.setActive(id, false);
    });
}

} // namespace tidemark
