// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "ui/controltable/commands/controltablecommand.h"

#include <atomic>

namespace tidemark {

// Adds a table (already validated by prepareTable); undo removes (archives) it, and redo
// restores that same table rather than adding another.
class AddTableCommand : public ControlTableCommand {
public:
    AddTableCommand(const Context &context, const TableSpec &spec, QUndoCommand *parent = nullptr);
    void redo() override;
    void undo() override;

    // The id the first redo got (0 until the worker has added it).
    qint64 addedId() const { return m_addedId->load(); }

private:
    TableSpec m_spec;
    std::shared_ptr<std::atomic<qint64>> m_addedId; // written on the gateway's worker
};

} // namespace tidemark
