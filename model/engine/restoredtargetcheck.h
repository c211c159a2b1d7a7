// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"

#include <QObject>
#include <QString>
#include <optional>

namespace tidemark {

class RemoteTask;
class RemoteWorkQueue;
class Workspace;

// Who owns `spec`'s target table as the target database records it (docs/design.md, "The target is
// the lock"), when that is not `spec` itself: "table 5 of workspace /path (id …)" or "table 5 of
// this workspace". nullopt when the target is this table's or nobody's (no state recorded yet).
// Only reads the target, through `task` (run it on a RemoteWorkQueue); throws Error naming the
// connection when the target cannot be read.
std::optional<QString> otherTargetOwner(Workspace &workspace, const TableSpec &spec, RemoteTask &task);

// How a table came (back) to the target it writes into now.
enum class TargetReturn {
    Restored, // Undo of "Remove table", Redo of "Add table"
    Moved,    // an edit, or its Undo, pointed the table at another target
};

// What to tell the operator about such a table whose target another table owns now.
QString restoredTargetOwnedText(const TableSpec &spec, const QString &owner,
                                TargetReturn how = TargetReturn::Restored);

// Checks a table just restored or moved onto a target against that target's owner record, on
// the remote-work threads with a Workspace of its own: the target may have been taken over
// (`run --adopt`) from another workspace meanwhile, which only the target database knows. One
// lane per table; replies on the checker's thread, never blocking it.
class RestoredTargetCheck : public QObject {
    Q_OBJECT
public:
    explicit RestoredTargetCheck(const QString &workspacePath, QObject *parent = nullptr);

    void check(qint64 tableId, TargetReturn how = TargetReturn::Restored);

signals:
    // The target belongs to another table now, or it could not be checked: one line naming
    // the table, its target and the other owner (or the error).
    void problemFound(qint64 tableId, const QString &message);

private:
    QString m_workspacePath;
    RemoteWorkQueue *m_remote;
};

} // namespace tidemark
