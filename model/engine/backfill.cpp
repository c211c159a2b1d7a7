// SPDX-License-Identifier: MIT
#include "model/engine/backfill.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/statetable.h"
#include "model/domain/runrecord.h"
#include "model/domain/sourcezone.h"
#include "model/engine/faultpoint.h"
#include "model/engine/targetownership.h"
#include "model/storage/workspace.h"

#include <algorithm>

namespace tidemark {
namespace {

constexpr int kLeaseSeconds = 300;

// Releases the table's lease however the backfill ends.
class LeaseGuard {
public:
    LeaseGuard(Workspace &workspace, qint64 tableId)
        : m_workspace(workspace)
        , m_tableId(tableId) {}
    ~LeaseGuard() {
        try {
            m_workspace.releaseLease(m_tableId, 0);
        } catch (const Error &) {
        }
    }

private:
    Workspace &m_workspace;
    qint64 m_tableId;
};

} // namespace

TableSpec backfillableTable(Workspace &workspace, qint64 tableId) {
    const auto spec = workspace.table(tableId);
    if (!spec)
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(tableId));
    if (spec->watermarkType == WatermarkType::None)
        throw ValidationError(QStringLiteral("table %1 (%2) has no watermark column to reset")
                                  .arg(spec->id)
                                  .arg(spec->sourceDisplay()));
    return *spec;
}

QString rangeBackfillRefusal(const TableSpec &spec) {
    if (spec.mode == WriteMode::Append)
        return QStringLiteral(
                   "table %1 (%2) is an append table: re-copying a range would add its rows a "
                   "second time; 'backfill %1 --from VALUE --delete-newer' copies everything after "
                   "VALUE again instead")
            .arg(spec.id)
            .arg(spec.sourceDisplay());
    if (spec.mode == WriteMode::Overwrite)
        return QStringLiteral(
                   "table %1 (%2) is an overwrite table: each run reloads the whole source, so there "
                   "is no range to re-copy; 'run --table %1' reloads it")
            .arg(spec.id)
            .arg(spec.sourceDisplay());
    return {};
}

TableSpec rangeBackfillableTable(Workspace &workspace, qint64 tableId) {
    const TableSpec spec = backfillableTable(workspace, tableId);
    if (const QString refusal = rangeBackfillRefusal(spec); !refusal.isEmpty())
        throw ValidationError(refusal);
    return spec;
}

qint64 resetTarget(Workspace &workspace, const TableSpec &spec, const Position &to,
                   BackfillTargetAction action, BackfillResult &result) {
    const Watermark from = to.watermark();
    std::unique_ptr<TargetWriter> target = openConnector(workspace.requireConnection(spec.targetConnection));
    // A backfill of a table never run creates its target file (the state row): no more open
    // than the source.
    target->setNewFileMode(targetFileMode(workspace.requireConnection(spec.sourceConnection)));
    const TableRef targetTable = target->parseTableName(spec.targetTable);
    const auto state = target->readState(workspace.workspaceId(), spec.id);
    result.before = state ? state->position.watermark() : spec.lastWatermark;
    result.after = from;
    qint64 generation = 0;
    try {
        // Waits for a copy of this table committing right now; then overrides whatever it wrote.
        const auto current = target->beginStateWrite(workspace.workspaceId(), spec.id);
        // Newer than any state the target or the workspace held (the workspace's may be higher
        // when the target lost its state row): every run that read an older state loses its
        // compare-and-set, and the workspace takes this one.
        generation = std::max(current ? current->generation : 0, spec.lastGeneration) + 1;
        TargetState reset{workspace.workspaceId(), spec.id, to, 0, generation};
        reset.targetTable = stateTargetKey(targetTable);
        reset.workspacePath = workspace.path();
        // A target another workspace or table owns is not ours to empty or to reset.
        requireTargetOwnership(*target, reset, spec.targetDisplay());
        if (target->tableExists(targetTable)) {
            if (action == BackfillTargetAction::DeleteNewer) {
                result.rowsDeleted = target->deleteNewerThan(targetTable, spec.watermarkColumn, from);
            } else if (action == BackfillTargetAction::Truncate) {
                target->deleteAll(targetTable);
                result.rowsDeleted = -1;
            }
        }
        target->writeState(reset);
        target->commit();
    } catch (const Error &) {
        try {
            target->rollback();
        } catch (const Error &) {
        }
        throw;
    }
    return generation;
}

namespace {

// The position a user typed, spelled so the source can compare it (SQLite compares text).
Watermark typedWatermark(Workspace &workspace, const TableSpec &spec, const QString &text,
                         const QString &option) {
    std::unique_ptr<SourceReader> source = openConnector(workspace.requireConnection(spec.sourceConnection));
    const TableRef sourceTable = source->parseTableName(spec.sourceTable);
    return SourceZone::parse(spec.sourceTimezone)
        .parseTyped(spec.watermarkType, text,
                    source->sampleWatermark(sourceTable, spec.watermarkColumn, spec.watermarkType), option);
}

// A tiebreak typed as text, of the kind the table's tiebreaks are (an integer when it has none
// yet and the text is one): SQLite orders an integer before any text, so the kind matters.
QVariant typedTiebreak(const TableSpec &spec, const QString &text) {
    if (text.isEmpty())
        return QVariant();
    bool isInteger = false;
    const qint64 integer = text.toLongLong(&isInteger);
    const bool textual = spec.lastTiebreak.isValid() && spec.lastTiebreak.typeId() == QMetaType::QString;
    return isInteger && !textual ? QVariant(integer) : QVariant(text);
}

BackfillResult commitPosition(Workspace &workspace, const TableSpec &spec, const Position &position,
                              BackfillTargetAction action, const QString &cause);

} // namespace

BackfillResult runBackfill(Workspace &workspace, const BackfillRequest &request) {
    const std::optional<TableSpec> spec = backfillableTable(workspace, request.tableId);
    if (request.action == BackfillTargetAction::Keep && spec->mode == WriteMode::Append &&
        !request.confirmDuplicates)
        throw ValidationError(
            QStringLiteral("table %1 (%2) is an append table: keeping its target rows while moving the "
                           "watermark back to %3 copies those rows twice; use --delete-newer or "
                           "--truncate, or --yes to accept the duplicates")
                .arg(spec->id)
                .arg(spec->sourceDisplay(), request.fromText));
    // Truncate is a full reload: from the initial watermark, whatever value was given.
    const Watermark from = request.action == BackfillTargetAction::Truncate
                               ? spec->initialWatermark
                               : typedWatermark(workspace, *spec, request.fromText, QStringLiteral("--from"));
    return commitPosition(workspace, *spec, Position(from), request.action, QStringLiteral("backfill"));
}

BackfillResult setPosition(Workspace &workspace, const SetPositionRequest &request) {
    const TableSpec spec = backfillableTable(workspace, request.tableId);
    const Position position(
        typedWatermark(workspace, spec, request.watermarkText, QStringLiteral("--watermark")),
        typedTiebreak(spec, request.tiebreakText));
    const Position current(spec.lastWatermark, spec.lastTiebreak);
    const bool back = position < current;
    if (!request.confirmed && position != current && (!back || spec.mode == WriteMode::Append))
        throw ValidationError(
            back ? QStringLiteral(
                       "table %1 (%2) is an append table: moving its position back to %3 keeps the "
                       "target's rows and copies the rows after %3 again (twice in the target); "
                       "use backfill %1 --from %3 --delete-newer, or --yes to accept the duplicates")
                       .arg(spec.id)
                       .arg(spec.sourceDisplay(), position.display())
                 : QStringLiteral("table %1 (%2): moving its position forward from %3 to %4 never copies the "
                                  "rows in between; --yes to do it")
                       .arg(spec.id)
                       .arg(spec.sourceDisplay(),
                            current.isNull() ? QStringLiteral("none") : current.display(),
                            position.display()));
    return commitPosition(workspace, spec, position, BackfillTargetAction::Keep,
                          QStringLiteral("set-position"));
}

BackfillResult movePosition(Workspace &workspace, const TableSpec &spec, const Position &position,
                            const QString &cause) {
    return commitPosition(workspace, spec, position, BackfillTargetAction::Keep, cause);
}

namespace {

BackfillResult commitPosition(Workspace &workspace, const TableSpec &tableSpec, const Position &position,
                              BackfillTargetAction action, const QString &cause) {
    const std::optional<TableSpec> spec = tableSpec;
    const LeaseAttempt lease = workspace.acquireLease(spec->id, 0, kLeaseSeconds);
    if (!lease.acquired)
        throw ValidationError(
            QStringLiteral("table %1 is being copied by run %2 (host %3, pid %4); try again when "
                           "that run has ended")
                .arg(spec->id)
                .arg(lease.holder->runId)
                .arg(lease.holder->host)
                .arg(lease.holder->pid));
    LeaseGuard guard(workspace, spec->id);

    BackfillResult result;
    const qint64 generation = resetTarget(workspace, *spec, position, action, result);
    faultPoint("before_backfill_follow");
    // Refused when a run that copied after this backfill moved the workspace on already.
    workspace.followTargetState(spec->id, generation, position, cause, 0);
    return result;
}

} // namespace

TablePosition readPosition(Workspace &workspace, qint64 tableId) {
    TablePosition result;
    result.table = backfillableTable(workspace, tableId);
    result.workspace = Position(result.table.lastWatermark, result.table.lastTiebreak);
    try {
        std::unique_ptr<TargetWriter> target =
            openConnector(workspace.requireConnection(result.table.targetConnection));
        if (const auto state = target->readState(workspace.workspaceId(), tableId)) {
            result.target = state->position;
            result.generation = state->generation;
        }
    } catch (const Error &error) {
        result.targetError = error.message();
    }
    return result;
}

} // namespace tidemark
