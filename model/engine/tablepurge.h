// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark {

class Workspace;

struct PurgeResult {
    QString targetDisplay;     // "conn:table"
    qint64 targetRows = -1;    // rows the target table still holds (they stay); -1 none or not known
    bool stateCleared = false; // the target held this table's state row, and it is gone
    // Not empty when the target could not be reached (only with `confirm`): why its state row
    // may still be there.
    QString warning;
};

// `table purge`: forgets a removed table for good and releases its target, so that a new table
// may write there. What happens, in this order:
// - a live table is refused (ValidationError: remove it first);
// - the target's rows are never deleted: they are the user's data. When the target table still
//   holds rows, or the target cannot be reached (its connection gone, a server down), the purge
//   is refused without `confirm`: a new table writing there adds to those rows;
// - in one target transaction the table's tidemark_state row is deleted, so the target belongs to
//   no table (the next writer's ownership check finds no owner);
// - then the workspace forgets the table (Workspace::purgeTable), logged with cause "purge".
// A process dying in between leaves the table removed with no state row: purging again finishes.
PurgeResult purgeRemovedTable(Workspace &workspace, qint64 tableId, bool confirm);

} // namespace tidemark
