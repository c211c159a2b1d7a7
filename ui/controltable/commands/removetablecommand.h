// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "ui/controltable/commands/controltablecommand.h"

namespace tidemark {

// Removes a table; undo adds it back with its configuration and last watermark (under a new
// id, which the aliases carry to later commands; its initial watermark becomes the last one,
// since the target's state row belongs to the old id). The target's rows are never touched.
class RemoveTableCommand : public ControlTableCommand {
public:
    RemoveTableCommand(const Context &context, const TableSpec &spec, QUndoCommand *parent = nullptr);
    void redo() override;
    void undo() override;

private:
    TableSpec m_spec; // as it was when removed
};

} // namespace tidemark
