// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "ui/controltable/commands/controltablecommand.h"

namespace tidemark {

// Removes (archives) a table; undo restores the same table: same id, configuration, position
// (watermark and tiebreak) and history, so the target's state row still matches it. The
// target's rows are never touched.
class RemoveTableCommand : public ControlTableCommand {
public:
    RemoveTableCommand(const Context &context, const TableSpec &spec, QUndoCommand *parent = nullptr);
    void redo() override;
    void undo() override;

private:
    TableSpec m_spec; // as it was when removed
};

} // namespace tidemark
