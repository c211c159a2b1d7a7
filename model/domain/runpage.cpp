// SPDX-License-Identifier: MIT
#include "model/domain/runpage.h"

#include <algorithm>

namespace tidemark {

bool isProblem(IterationStatus status) {
    return status == IterationStatus::Failed || status == IterationStatus::Warning ||
           status == IterationStatus::Cancelled || status == IterationStatus::Interrupted;
}

bool newerFirst(const RunCursor &a, const RunCursor &b) {
    if (a.startedAt != b.startedAt)
        return a.startedAt > b.startedAt;
    return a.runId > b.runId;
}

bool canSortRuns(RunSort by, qint64 tableId) {
    return tableId > 0 || by == RunSort::Started || by == RunSort::Id || by == RunSort::Status;
}

RunCursor cursorOf(const RunOverview &run, const RunOrder &order) {
    RunCursor cursor = run.cursor();
    switch (order.by) {
    case RunSort::Started:
    case RunSort::Id:
        break;
    case RunSort::Status:
        cursor.key = run.status;
        break;
    case RunSort::Duration:
        cursor.key = run.durationMs;
        break;
    case RunSort::RowsRead:
        cursor.key = run.rowsRead;
        break;
    case RunSort::RowsWritten:
        cursor.key = run.rowsWritten;
        break;
    }
    return cursor;
}

bool comesBefore(const RunOverview &a, const RunOverview &b, const RunOrder &order) {
    const RunCursor x = cursorOf(a, order);
    const RunCursor y = cursorOf(b, order);
    int compared = 0; // x's key against y's: -1, 0, 1
    if (order.by == RunSort::Started)
        compared = x.startedAt < y.startedAt ? -1 : x.startedAt > y.startedAt ? 1 : 0;
    else if (order.by == RunSort::Status)
        compared = x.key.toString().compare(y.key.toString()); // SQLite's BINARY collation
    else if (order.by != RunSort::Id)
        compared = x.key.toLongLong() < y.key.toLongLong()   ? -1
                   : x.key.toLongLong() > y.key.toLongLong() ? 1
                                                             : 0;
    if (compared == 0)
        compared = x.runId < y.runId ? -1 : x.runId > y.runId ? 1 : 0;
    return order.descending ? compared > 0 : compared < 0;
}

std::optional<RunOverview> overviewOf(const RunRecord &run, const RunPageQuery &query) {
    if (query.runId > 0 && run.id != query.runId)
        return std::nullopt;
    const auto counted = [&](const IterationRecord &it) {
        return query.tableId <= 0 || it.tableId == query.tableId;
    };
    const auto hasStatus = [&](const IterationRecord &it) {
        return counted(it) && iterationStatusName(it.status) == query.status;
    };
    if (query.tableId > 0 && std::none_of(run.iterations.cbegin(), run.iterations.cend(), counted))
        return std::nullopt;
    if (!query.status.isEmpty() && !(query.tableId <= 0 && run.status == query.status) &&
        std::none_of(run.iterations.cbegin(), run.iterations.cend(), hasStatus))
        return std::nullopt;

    RunOverview overview;
    overview.run = run;
    overview.run.iterations.clear();
    overview.status = run.status;
    overview.finishedAt = run.finishedAt;
    qint64 longest = 0;
    for (const IterationRecord &it : run.iterations) {
        if (!counted(it))
            continue;
        ++overview.tables;
        overview.rowsRead += it.rowsRead;
        overview.rowsReadKept += rowsShownRead(it);
        overview.rowsWritten += it.rowsWritten;
        overview.rowsSkipped += it.rowsSkipped;
        overview.rowsDeleted += it.rowsDeleted;
        longest = std::max(longest, it.durationMs);
        if (isProblem(it.status))
            overview.problems.append({it.source, it.status});
        if (query.tableId > 0) {
            overview.status = iterationStatusName(it.status);
            overview.finishedAt = it.finishedAt;
        }
    }
    overview.durationMs = query.tableId <= 0 && run.startedAt.isValid() && run.finishedAt.isValid()
                              ? run.startedAt.msecsTo(run.finishedAt)
                              : longest;
    return overview;
}

} // namespace tidemark
