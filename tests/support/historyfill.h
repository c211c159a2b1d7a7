// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QString>

namespace tidemark::test {

// A long history written straight into a workspace (one transaction, prepared inserts: a
// thousand runs in a blink), so the paging tests need no thousand real runs. Run r (1..runs)
// started at historyRunStart(r) and copied the tables t (1..tables) for which historyCopies(r, t);
// its iteration of table t wrote historyRowsWritten(r, t) rows, read that many plus t, skipped
// t, took 100 * t ms and ended historyIterationStatus(r, t), with one log line. Run r's status
// is what its iterations give. The tables' rows are not created: a history needs none.
void fillHistory(const QString &workspacePath, int runs, int tables);

// Run starts go up a minute per run, except every 10th run, which started an hour before the run
// ten before it (a clock that was wrong, another host): the history's order is by start, not id.
QDateTime historyRunStart(int run);
bool historyCopies(int run, int table);
qint64 historyRowsWritten(int run, int table);
// "failed" for table 1 every 7th run, "no_new_rows" for table 2 every 5th run, else "succeeded".
QString historyIterationStatus(int run, int table);

} // namespace tidemark::test
