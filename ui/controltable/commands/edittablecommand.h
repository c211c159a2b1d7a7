// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "ui/controltable/commands/controltablecommand.h"

namespace tidemark {

// Changes a table's configuration (not its watermark: that is the backfill's business).
class EditTableCommand : public ControlTableCommand {
public:
    EditTableCommand(const Context &context, const TableSpec &before, const TableSpec &after,
                     QUndoCommand *parent = nullptr);
    void redo() override;
    void undo() override;

private:
    void apply(const TableSpec &spec, const TableSpec &previous);

    TableSpec m_before;
    TableSpec m_after;
};

} // namespace tidemark
