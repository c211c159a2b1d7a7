// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"

#include <QString>
#include <optional>

namespace tidemark {

// One target table takes one table's rows (once, two workspaces copying a keyless source into
// one target both "succeeded", and the target held every row twice). The target's state rows
// record which (workspace, table) owns each target table; a unique index lets only one row name
// it. `claim` is the row that wants to write: its workspaceId, tableId, targetTable
// (stateTargetKey()) and workspacePath.

// Inside the write transaction (after beginStateWrite): throws Error naming the owner when
// another workspace or table owns `claim.targetTable`. `targetDisplay` is "conn:table".
void requireTargetOwnership(TargetWriter &target, const TargetState &claim, const QString &targetDisplay);

// After writing the state row failed, outside the rolled-back transaction: when another table owns
// the target now (two first writers raced, both found no owner, and the unique index refused
// this one), throws that ownership error; otherwise returns and the caller rethrows its own.
void explainFailedStateWrite(TargetWriter &target, const TargetState &claim, const QString &targetDisplay);

// `run --adopt`: takes the target table over from whoever owns it (after a migration to a new
// workspace, say). In one target transaction the owner's row is removed and `claim`'s row takes
// its position with a generation above both rows' and `workspaceGeneration` (what the workspace
// shows for this table), so every run that read an older state loses its compare-and-set.
// Returns what was done, or nullopt when nobody else owned the target (nothing changed).
struct Adoption {
    StateOwner previousOwner;
    TargetState state; // as written
};
// `onlyFromWorkspace`, when given: the target is taken only from a table of that workspace; one
// another workspace owns is left alone (throws Error naming the owner).
std::optional<Adoption> adoptTarget(TargetWriter &target, const TargetState &claim,
                                    qint64 workspaceGeneration, const QString &onlyFromWorkspace = QString());
// "table 3 of workspace /path (id …)" or "table 3 of this workspace", as seen from `claim`.
QString describeOwner(const StateOwner &owner, const TargetState &claim);

} // namespace tidemark
