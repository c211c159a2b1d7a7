// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/position.h"
#include "model/domain/tablespec.h"
#include "model/domain/watermark.h"

#include <QString>
#include <optional>

namespace tidemark {

class Workspace;

enum class BackfillTargetAction { Keep, DeleteNewer, Truncate };

struct BackfillRequest {
    qint64 tableId = 0;
    // The new watermark, as typed (ISO-8601 or an integer). Ignored by Truncate: a truncated
    // target reloads from the table's initial watermark (none = everything).
    QString fromText;
    BackfillTargetAction action = BackfillTargetAction::Keep;
    bool confirmDuplicates = false; // required for Keep on an append table
};

struct BackfillResult {
    Watermark before;
    Watermark after;
    qint64 rowsDeleted = 0; // DeleteNewer: rows removed; Truncate: -1 (not counted)
};

// Resets a table's watermark (docs/design.md, "Backfill"): takes the table's lease, changes the
// target and its tidemark_state row in one target transaction, then moves the workspace's
// watermark (recorded with cause "backfill"). Truncate reloads from the table's initial
// watermark (none = from the beginning). Throws ValidationError for refused requests
// (keep on append without confirmation, leased table, bad value) and Error otherwise.
BackfillResult runBackfill(Workspace &workspace, const BackfillRequest &request);
// The target half of a backfill, for a caller that holds the table's lease (runBackfill, an edit
// that resets the position): in one target transaction `spec`'s target is changed as `action`
// says and its tidemark_state row is set to `to` with a generation above every earlier one, so
// a run that read an older state loses its compare-and-set. Fills result.before/after/rowsDeleted
// and returns the generation written; the workspace is not touched (the caller follows it with
// Workspace::followTargetState, naming its cause). Throws Error; the target is rolled back.
qint64 resetTarget(Workspace &workspace, const TableSpec &spec, const Position &to,
                   BackfillTargetAction action, BackfillResult &result);
// The live table `tableId`; ValidationError when it does not exist or has no watermark to reset.
TableSpec backfillableTable(Workspace &workspace, qint64 tableId);

// `backfill ID --range FROM..TO` re-copies a range as a run of its own kind (RunRequest::range,
// CopyIteration::Options::range). Only a merge table can take it: its rule keeps the newer
// version of each key, whichever copy writes last. Why `spec` cannot, naming what to use
// instead; empty when it can.
QString rangeBackfillRefusal(const TableSpec &spec);
// backfillableTable, refused (ValidationError) unless rangeBackfillRefusal is empty.
TableSpec rangeBackfillableTable(Workspace &workspace, qint64 tableId);

// `table set-position`: moves a table's position to a watermark (and tiebreak) of the operator's
// choosing, keeping the target's rows, exactly as a backfill --keep does: under the table's
// lease, the state row changed in a target transaction, then the workspace follows (recorded
// with cause "set-position"). Moving back re-copies rows (an append table then holds them
// twice) and moving forward never copies the rows passed over, so either needs `confirmed`
// unless the table is a merge table moved back. Throws as runBackfill does.
struct SetPositionRequest {
    qint64 tableId = 0;
    QString watermarkText;
    QString tiebreakText; // empty: no tiebreak (the position's tiebreak sorts first)
    bool confirmed = false;
};
BackfillResult setPosition(Workspace &workspace, const SetPositionRequest &request);
// Moves `spec`'s position to `position` as setPosition() does, without its confirmations: under
// the table's lease (ValidationError naming the run that holds it), the target's rows kept, its
// state row changed in a target transaction, then the workspace follows, recorded with `cause`
// (`workspace apply`: "apply").
BackfillResult movePosition(Workspace &workspace, const TableSpec &spec, const Position &position,
                            const QString &cause);

// `table position`: where a table stands, as the workspace records it and as the target's state
// row (the truth, docs/design.md step 2) says; the next run reconciles the workspace to the target.
struct TablePosition {
    TableSpec table;
    Position workspace;
    std::optional<Position> target; // none: no state row yet (never copied), or unreadable
    qint64 generation = 0;          // the state row's backfill generation
    QString targetError;            // why the target could not be read (empty: it could)
};
TablePosition readPosition(Workspace &workspace, qint64 tableId);

} // namespace tidemark
