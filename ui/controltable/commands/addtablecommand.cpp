// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/addtablecommand.h"

#include "model/storage/workspace.h"

namespace tidemark {

AddTableCommand::AddTableCommand(const Context &context, const TableSpec &spec, QUndoCommand *parent)
    : ControlTableCommand(context, QObject::tr("Add table %1").arg(spec.sourceDisplay()), parent)
    , m_spec(spec)
    , m_firstId(std::make_shared<std::atomic<qint64>>(0)) {}

void AddTableCommand::redo() {
    // The row appears when the reload brings it with its new id.
    persist([spec = m_spec, firstId = m_firstId, aliases = m_context.aliases](Workspace &ws) {
        TableSpec toAdd = spec;
        toAdd.id = 0;
        const qint64 id = ws.addTable(toAdd);
        qint64 expected = 0;
        // Chain from the latest id, so commands made while the previous one was shown follow.
        if (!firstId->compare_exchange_strong(expected, id))
            aliases->alias(aliases->resolve(expected), id);
    });
}

void AddTableCommand::undo() {
    persist([firstId = m_firstId, aliases = m_context.aliases](Workspace &ws) {
        if (const qint64 id = firstId->load())
            ws.removeTable(aliases->resolve(id));
    });
}

} // namespace tidemark
