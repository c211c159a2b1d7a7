// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "model/domain/watermark.h"

#include <QString>
#include <QStringList>

namespace tidemark {

class Workspace;

// What in an edit makes the table's position meaningless: the position is a value of one column
// of one source table, and it describes what one target holds. A change of the source, the
// target, the watermark column or its type, or the tiebreak column (the position's second half)
// is named here, one phrase each ("the watermark column (updated_at -> id)"); an empty list means
// the position still holds and the edit may apply as it is.
QStringList positionChanges(const TableSpec &before, const TableSpec &after);

struct TableEditResult {
    QStringList positionChanges; // as positionChanges() named them
    bool positionReset = false;
    Watermark positionBefore; // with positionReset: where the table stood, and where it starts now
    Watermark positionAfter;
    // With a reset that moved the target: clearing the old target's state row failed (the edit
    // is done; that target stays owned by this table until its state row is cleared). Empty: fine.
    QString oldTargetWarning;
};

// Writes an edit of a live table (`after`, prepared by prepareTable from `before` and the
// options given) while holding the table's lease, so no run copies it meanwhile:
// - a table a run holds (a live lease, or an iteration of it queued or running) is refused with
//   ValidationError naming that run, and nothing changes;
// - an edit with positionChanges() is refused with ValidationError naming them, unless
//   `resetPosition`;
// - with `resetPosition` the edit works as `backfill --truncate` on the edited table: in one
//   transaction of the (new) target, the target table is emptied and its state row set to the
//   initial watermark with a new generation; then the workspace takes the edit and that position,
//   logged as a watermark change with cause "edit". When the target moved, the old target keeps
//   its rows and its state row for this table is cleared, so it is free for another table.
// A process that dies between the target commit and the workspace update leaves the old settings
// with the reset position, which their next run takes from the target (a full reload when the
// initial watermark is none); run the edit again. Throws Error when a database fails.
TableEditResult applyTableEdit(Workspace &workspace, const TableSpec &before, const TableSpec &after,
                               bool resetPosition);

} // namespace tidemark
