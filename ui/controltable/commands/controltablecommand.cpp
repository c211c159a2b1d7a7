// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/controltablecommand.h"

#include "model/storage/workspace.h"
#include "ui/common/workspacegateway.h"

#include <QPointer>

namespace tidemark {

ControlTableCommand::ControlTableCommand(const Context &context, const QString &text, QUndoCommand *parent)
    : QUndoCommand(text, parent)
    , m_context(context) {}

void ControlTableCommand::persist(std::function<void(Workspace &)> write, std::function<void()> written) {
    WorkspaceGateway *gateway = m_context.gateway;
    gateway->markTablesStale();
    gateway->submit(
        gateway, std::move(write),
        [gateway, written = std::move(written)] {
            gateway->reloadTables();
            if (written)
                written();
        },
        [gateway](const QString &error) {
            emit gateway->errorOccurred(error);
            gateway->reloadTables();
        });
}

void ControlTableCommand::persistRestore(qint64 id) {
    // Undo restores at once and the target is asked afterwards, not first: asking first would
    // make Undo wait on a remote connect (seconds for a server that does not answer) and refuse
    // it while the target is down, and a restored table cannot write where it no longer owns
    // the target (every run checks the owner inside its target transaction). So the table
    // comes back as it was, and the window says so right after when another table owns its
    // target now.
    persist([id](Workspace &ws) { ws.restoreTable(id); }, thenCheckTarget(id, TargetReturn::Restored));
}

std::function<void()> ControlTableCommand::thenCheckTarget(qint64 id, TargetReturn how) const {
    return [check = QPointer<RestoredTargetCheck>(m_context.restoredTargetCheck), id, how] {
        if (check)
            check->check(id, how);
    };
}

} // namespace tidemark
