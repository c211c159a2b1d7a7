// SPDX-License-Identifier: MIT
#include "model/engine/restoredtargetcheck.h"

#include "model/common/error.h"
#include "model/connectors/statetable.h"
#include "model/engine/remotework.h"
#include "model/engine/targetownership.h"
#include "model/storage/workspace.h"

namespace tidemark {

std::optional<QString> otherTargetOwner(Workspace &workspace, const TableSpec &spec, RemoteTask &task) {
    const auto connection = workspace.connection(spec.targetConnection);
    if (!connection)
        throw Error(QStringLiteral("connection '%1' does not exist").arg(spec.targetConnection));
    const std::shared_ptr<Connector> target = task.open(*connection);
    TargetState claim;
    claim.workspaceId = workspace.workspaceId();
    claim.tableId = spec.id;
    claim.targetTable = stateTargetKey(target->parseTableName(spec.targetTable));
    const std::optional<StateOwner> owner = target->readTargetOwner(claim.targetTable);
    if (!owner || (owner->workspaceId == claim.workspaceId && owner->tableId == spec.id))
        return std::nullopt;
    return describeOwner(*owner, claim);
}

QString restoredTargetOwnedText(const TableSpec &spec, const QString &owner, TargetReturn how) {
    const QString text =
        how == TargetReturn::Restored
            ? QObject::tr("Table %1 (%2 → %3) is back, but its target now belongs to %4: its runs write "
                          "nothing there until it takes the target back (tidemark-cli run --adopt --table "
                          "%1) or you remove it again.")
            : QObject::tr("Table %1 (%2 → %3) now writes into %3, but that target belongs to %4: its runs "
                          "write nothing there until it takes the target over (tidemark-cli run --adopt "
                          "--table %1) or you point it elsewhere.");
    return text.arg(spec.id).arg(spec.sourceDisplay(), spec.targetDisplay(), owner);
}

RestoredTargetCheck::RestoredTargetCheck(const QString &workspacePath, QObject *parent)
    : QObject(parent)
    , m_workspacePath(workspacePath)
    , m_remote(new RemoteWorkQueue(this)) {
    setObjectName(QStringLiteral("restoredTargetCheck"));
}

void RestoredTargetCheck::check(qint64 tableId, TargetReturn how) {
    // The text is made on the remote thread, where the table's spec is read.
    m_remote->submit(
        QStringLiteral("restored/%1").arg(tableId),
        [path = m_workspacePath, tableId, how](RemoteTask &task) -> QString {
            auto workspace = Workspace::open(path);
            const std::optional<TableSpec> spec = workspace->table(tableId);
            if (!spec)
                return QString(); // removed again meanwhile: nothing to say
            try {
                const std::optional<QString> owner = otherTargetOwner(*workspace, *spec, task);
                return owner ? restoredTargetOwnedText(*spec, *owner, how) : QString();
            } catch (const Error &error) {
                task.throwIfCancelled();
                const QString text =
                    how == TargetReturn::Restored
                        ? QObject::tr("Table %1 (%2 → %3) is back; whether another table owns its target "
                                      "now could not be checked (its next run checks again): %4")
                        : QObject::tr("Table %1 (%2 → %3) now writes into %3; whether another table owns "
                                      "that target could not be checked (its next run checks again): %4");
                return text.arg(spec->id).arg(spec->sourceDisplay(), spec->targetDisplay(), error.message());
            }
        },
        [this, tableId](const QString &message) {
            if (!message.isEmpty())
                emit problemFound(tableId, message);
        },
        [this, tableId](const QString &error) {
            emit problemFound(tableId, QObject::tr("Whether another table owns the target of table %1 now "
                                                   "could not be checked: %2")
                                           .arg(tableId)
                                           .arg(error));
        });
}

} // namespace tidemark
