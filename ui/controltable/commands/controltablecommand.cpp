// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/controltablecommand.h"

#include "model/storage/workspace.h"
#include "ui/common/workspacegateway.h"

namespace tidemark {

ControlTableCommand::ControlTableCommand(const Context &context, const QString &text, QUndoCommand *parent)
    : QUndoCommand(text, parent)
    , m_context(context) {}

void ControlTableCommand::persist(std::function<void(Workspace &)> write) {
    WorkspaceGateway *gateway = m_context.gateway;
    gateway->markTablesStale();
    gateway->submit(
        gateway, std::move(write), [gateway] { gateway->reloadTables(); },
        [gateway](const QString &error) {
            emit gateway->errorOccurred(error);
            gateway->reloadTables();
        });
}

} // namespace tidemark
