// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QVariant>
#include <optional>
#include <utility>

namespace tidemark {

// What a history read orders its runs by, then by id: each one an index range in the workspace,
// so a page deep in a sorted history costs what the first one does.
enum class RunSort { Started, Id, Status, Duration, RowsRead, RowsWritten };

struct RunOrder {
    RunSort by = RunSort::Started;
    bool descending = true; // newest (largest, last in the alphabet) first

    bool operator==(const RunOrder &) const = default;
};

// Whether the workspace can order runs so: filtered to a table, by that table's iteration's
// figures too (an index each); unfiltered, a run's figures are sums over its iterations, which
// no index orders, so only by start, id and status.
bool canSortRuns(RunSort by, qint64 tableId);

// A place in the history: the runs strictly after this one in the read's order come next.
struct RunCursor {
    QDateTime startedAt;
    qint64 runId = 0;
    QVariant key = {}; // the order's value where it is not the start or the id (status name, figure)
};

// Which runs a history read returns, newest first. Keyset paging: pass the last run of a page
// as `before` to get the next one, so every page costs the same however deep it is.
struct RunPageQuery {
    int limit = 200; // <= 0: all
    std::optional<RunCursor> before;
    qint64 runId = 0; // > 0: that run only
    // > 0: the runs that copied this table, each carrying that table's iteration only (its
    // figures, its status), not the whole run's.
    qint64 tableId = 0;
    // Non-empty: with a table, the runs whose iteration of that table ended so; without, the
    // runs whose own status, or one of whose iterations' status, is it.
    QString status;
    RunOrder order; // canSortRuns(order.by, tableId), or the read throws
};

// A run as the history list shows it: the run without its iterations (a run may have a
// thousand) and its figures summed over them — or, filtered to one table, that table's
// iteration's figures and status.
struct RunOverview {
    RunRecord run;         // iterations left empty
    QString status;        // the run's, or the filtered table's iteration's
    QDateTime finishedAt;  // the run's, or the iteration's; invalid while it runs
    qint64 durationMs = 0; // finished - started; while running, its longest iteration so far
    int tables = 0;        // iterations counted
    qint64 rowsRead = 0;
    qint64 rowsReadKept = 0; // rowsShownRead summed: what the history shows as Read
    qint64 rowsWritten = 0;
    qint64 rowsSkipped = 0;
    qint64 rowsDeleted = 0; // target rows the iterations' reconcile deleted or marked
    // The iterations that went wrong (failed, warning, cancelled, interrupted): source, status.
    QList<std::pair<QString, IterationStatus>> problems;

    RunCursor cursor() const { return {run.startedAt, run.id}; }
};

// Whether an iteration's status is one a history row names as a problem.
bool isProblem(IterationStatus status);
// What Workspace::runOverviews reads for `run`, computed from the record (a run re-read whole
// because another process changed it); nullopt when the query leaves it out (`query.tableId`
// not copied, or `query.status` not matched). Its iterations need no log.
std::optional<RunOverview> overviewOf(const RunRecord &run, const RunPageQuery &query);
// Newest first: started_at descending, then id descending.
bool newerFirst(const RunCursor &a, const RunCursor &b);
// Where `run` stands in `order`: the cursor of the runs after it.
RunCursor cursorOf(const RunOverview &run, const RunOrder &order);
// Whether `a` comes before `b` in `order` (the workspace's order: the key, then the id).
bool comesBefore(const RunOverview &a, const RunOverview &b, const RunOrder &order);

} // namespace tidemark
