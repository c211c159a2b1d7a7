// SPDX-License-Identifier: MIT
#pragma once

class QSettings;
class QString;
class QTableView;

namespace tidemark {

// The header context menu of a table view: one checkable entry per column (show / hide),
// "Fit columns to contents". `pinnedColumn` (the status) can never be hidden, neither from
// the menu nor by a restored state.
void installColumnMenu(QTableView *view, int pinnedColumn);

// Column widths, order and visibility under `key`, restored on the next open (a layout the
// view's ColumnFitter still fits to the room is not saved; a restored one stops the fitting).
void saveColumns(QSettings &settings, const QString &key, const QTableView *view);
void restoreColumns(const QSettings &settings, const QString &key, QTableView *view, int pinnedColumn);

} // namespace tidemark
