// SPDX-License-Identifier: MIT
#pragma once

#include "ui/controltable/commands/tableidaliases.h"

#include <QUndoCommand>
#include <functional>
#include <memory>

namespace tidemark {

class ControlTableModel;
class Workspace;
class WorkspaceGateway;

// What every control-table command needs: the model, to show the change at once; the
// gateway, to write it in order off the GUI thread; the id aliases. After each write the
// control table is reloaded, which also puts the model right if the write failed.
class ControlTableCommand : public QUndoCommand {
public:
    struct Context {
        WorkspaceGateway *gateway = nullptr;
        ControlTableModel *model = nullptr;
        std::shared_ptr<TableIdAliases> aliases;
    };

    ControlTableCommand(const Context &context, const QString &text, QUndoCommand *parent = nullptr);

protected:
    // Runs `write` on the gateway's worker, then reloads the control table.
    void persist(std::function<void(Workspace &)> write);
    qint64 currentId(qint64 id) const { return m_context.aliases->resolve(id); }

    Context m_context;
};

} // namespace tidemark
