// SPDX-License-Identifier: MIT
#include "model/engine/targetownership.h"

#include "model/common/error.h"

#include <algorithm>

namespace tidemark {
namespace {

bool ownedBy(const StateOwner &owner, const TargetState &claim) {
    return owner.workspaceId == claim.workspaceId && owner.tableId == claim.tableId;
}

} // namespace

QString describeOwner(const StateOwner &owner, const TargetState &claim) {
    if (owner.workspaceId == claim.workspaceId)
        return QStringLiteral("table %1 of this workspace").arg(owner.tableId);
    return QStringLiteral("table %1 of workspace %2 (id %3)")
        .arg(owner.tableId)
        .arg(owner.workspacePath.isEmpty() ? QStringLiteral("(path not recorded)") : owner.workspacePath,
             owner.workspaceId);
}

namespace {

// The error to report when another table owns the target; nullopt when this claim may write.
std::optional<QString> ownershipConflict(TargetWriter &target, const TargetState &claim,
                                         const QString &targetDisplay) {
    const std::optional<StateOwner> owner = target.readTargetOwner(claim.targetTable);
    if (!owner || ownedBy(*owner, claim))
        return std::nullopt;
    return QStringLiteral(
               "target '%1' belongs to %2: nothing written (one target table takes one table's rows; "
               "`run --adopt` takes it over, e.g. after a migration)")
        .arg(targetDisplay, describeOwner(*owner, claim));
}

} // namespace

void requireTargetOwnership(TargetWriter &target, const TargetState &claim, const QString &targetDisplay) {
    if (const std::optional<QString> conflict = ownershipConflict(target, claim, targetDisplay))
        throw Error(*conflict);
}

void explainFailedStateWrite(TargetWriter &target, const TargetState &claim, const QString &targetDisplay) {
    std::optional<QString> conflict;
    try {
        conflict = ownershipConflict(target, claim, targetDisplay);
    } catch (const Error &) {
        return; // reading the owner failed too: the caller's own error says more
    }
    if (conflict)
        throw Error(*conflict);
}

std::optional<Adoption> adoptTarget(TargetWriter &target, const TargetState &claim,
                                    qint64 workspaceGeneration, const QString &onlyFromWorkspace) {
    try {
        const std::optional<TargetState> own = target.beginStateWrite(claim.workspaceId, claim.tableId);
        const std::optional<StateOwner> owner = target.readTargetOwner(claim.targetTable);
        if (!owner || ownedBy(*owner, claim)) {
            target.rollback();
            return std::nullopt;
        }
        if (!onlyFromWorkspace.isEmpty() && owner->workspaceId != onlyFromWorkspace)
            throw Error(QStringLiteral("the target belongs to %1, not to the workspace copied: left to it")
                            .arg(describeOwner(*owner, claim)));
        // The owner's row moves as a whole: its position is what the target holds.
        std::optional<TargetState> previous = target.readState(owner->workspaceId, owner->tableId);
        TargetState adopted = claim;
        if (previous)
            adopted.position = previous->position;
        adopted.generation =
            std::max({own ? own->generation : 0, previous ? previous->generation : 0, workspaceGeneration}) +
            1;
        target.clearState(owner->workspaceId, owner->tableId);
        target.writeState(adopted);
        target.commit();
        return Adoption{*owner, adopted};
    } catch (...) {
        try {
            target.rollback();
        } catch (const Error &) {
        }
        throw;
    }
}

} // namespace tidemark
