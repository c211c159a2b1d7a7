// SPDX-License-Identifier: MIT
#pragma once

#include <Qt>

namespace tidemark {

// Custom roles shared by every Tidemark item model, so views, proxies and delegates agree on
// them. DisplayRole is always formatted text; RawRole carries the typed value that proxies
// sort and filter on.
enum ItemRole {
    RawRole = Qt::UserRole + 1,
    TableIdRole,    // qint64: the control-table id of the row
    RunIdRole,      // qint64
    StatusRole,     // int: tidemark::IterationStatus, or -1 when the row has no status
    StatusNameRole, // QString: "succeeded", "no_new_rows", ... (empty = none)
    ProgressRole,   // double 0..1, or -1 when the window's row count is unknown
    ErrorRole,      // QString: the error message, empty = none
    // What a CSV export writes where RawRole would not do: a duration in seconds, every problem
    // of a run (its cell lists a few); on a horizontal header, the column's name with its unit
    // ("Duration (s)").
    ExportRole,
};

} // namespace tidemark
