// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/addtablecommand.h"

#include "model/storage/workspace.h"
#include "ui/common/tablenaming.h"

namespace tidemark {

AddTableCommand::AddTableCommand(const Context &context, const TableSpec &spec, QUndoCommand *parent)
    : ControlTableCommand(context, QObject::tr("Add table %1").arg(tableName(spec)), parent)
    , m_spec(spec)
    , m_addedId(std::make_shared<std::atomic<qint64>>(0)) {}

void AddTableCommand::redo() {
    // Done again after its undo, it brings the same table back as Undo of "Remove table" does,
    // its target's owner asked again: the target may have been taken over meanwhile.
    if (const qint64 id = m_addedId->load()) {
        persistRestore(id);
        return;
    }
    // The row appears when the reload brings it with its id. Undone and done again before the
    // worker added it, the id is only known there (and the target was checked moments ago).
    persist([spec = m_spec, addedId = m_addedId](Workspace &ws) {
        if (const qint64 id = addedId->load()) {
            ws.restoreTable(id);
            return;
        }
        TableSpec toAdd = spec;
        toAdd.id = 0;
        addedId->store(ws.addTable(toAdd));
    });
}

void AddTableCommand::undo() {
    persist([addedId = m_addedId](Workspace &ws) {
        if (const qint64 id = addedId->load())
            ws.removeTable(id);
    });
}

} // namespace tidemark
