// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "ui/controltable/commands/controltablecommand.h"

#include <atomic>

namespace tidemark {

// Adds a table (already validated by prepareTable); undo removes it again.
class AddTableCommand : public ControlTableCommand {
public:
    AddTableCommand(const Context &context, const TableSpec &spec, QUndoCommand *parent = nullptr);
    void redo() override;
    void undo() override;

    // The id the first redo got (0 until the worker has added it); later commands use it.
    qint64 firstId() const { return m_firstId->load(); }

private:
    TableSpec m_spec;
    std::shared_ptr<std::atomic<qint64>> m_firstId;
};

} // namespace tidemark
