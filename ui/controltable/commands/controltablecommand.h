// SPDX-License-Identifier: MIT
#pragma once

#include "model/engine/restoredtargetcheck.h"

#include <QUndoCommand>
#include <functional>
#include <memory>

namespace tidemark {

class ControlTableModel;
class Workspace;
class WorkspaceGateway;

// What every control-table command needs: the model, to show the change at once; the
// gateway, to write it in order off the GUI thread. A table keeps its id through every command
// (removing archives it, undo restores it), so later commands on the stack can name it by id.
// After each write the control table is reloaded, which also puts the model right if the
// write failed.
class ControlTableCommand : public QUndoCommand {
public:
    struct Context {
        WorkspaceGateway *gateway = nullptr;
        ControlTableModel *model = nullptr;
        // Asks a restored table's target who owns it (none: not asked).
        RestoredTargetCheck *restoredTargetCheck = nullptr;
    };

    ControlTableCommand(const Context &context, const QString &text, QUndoCommand *parent = nullptr);

protected:
    // Runs `write` on the gateway's worker, then reloads the control table; `written` runs on
    // this thread once the write succeeded.
    void persist(std::function<void(Workspace &)> write, std::function<void()> written = {});
    // persist(), restoring table `id`. The workspace refuses a table whose target another live
    // table writes into; the target's own owner record is asked after the restore.
    void persistRestore(qint64 id);
    // A `written` for persist(): asks table `id`'s target whether another workspace's table owns it.
    std::function<void()> thenCheckTarget(qint64 id, TargetReturn how) const;

    Context m_context;
};

} // namespace tidemark
