// SPDX-License-Identifier: MIT
#include "model/models/runhistorymodel.h"

#include "model/common/csv.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/timeconvention.h"

#include <QThreadPool>

#include <algorithm>
#include <utility>

namespace tidemark {

namespace {

constexpr qsizetype kProblemsShown = 10;

// The first `shown` problems (all when negative), then how many more. A cancelled run of 10,000
// tables has as many problems: a cell shows a few, and a view lays out and elides every
// character of its text on each paint.
QString problemsText(const RunOverview &run, qsizetype shown = -1) {
    const qsizetype count = run.problems.size();
    const qsizetype listed = shown < 0 ? count : qMin(shown, count);
    QStringList parts;
    for (qsizetype i = 0; i < listed; ++i)
        parts << QStringLiteral("%1 (%2)").arg(run.problems.at(i).first,
                                               statusLabel(run.problems.at(i).second).toLower());
    QString text = parts.join(QStringLiteral(", "));
    if (listed < count)
        text += QObject::tr(" and %1 more").arg(formatCount(count - listed));
    return text;
}

QString triggerText(const RunOverview &run) {
    if (run.run.dryRun)
        return RunHistoryModel::tr("%1 (dry run)").arg(run.run.trigger);
    if (run.run.kind == QLatin1String(kRunKindRangeBackfill))
        return RunHistoryModel::tr("%1 (range backfill)").arg(run.run.trigger);
    return run.run.trigger;
}

std::optional<RunSort> sortOfColumn(int column) {
    switch (column) {
    case RunHistoryModel::Id:
        return RunSort::Id;
    case RunHistoryModel::Started:
        return RunSort::Started;
    case RunHistoryModel::Status:
        return RunSort::Status;
    case RunHistoryModel::Duration:
        return RunSort::Duration;
    case RunHistoryModel::RowsRead:
        return RunSort::RowsRead;
    case RunHistoryModel::RowsWritten:
        return RunSort::RowsWritten;
    default:
        return std::nullopt;
    }
}

} // namespace

RunHistoryModel::RunHistoryModel(QObject *parent)
    : QAbstractTableModel(parent) {
    TimeConvention::follow(this, {Started});
}

int RunHistoryModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RunHistoryModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunHistoryModel::displayValue(const RunOverview &run, int column) const {
    switch (column) {
    case Id:
        return QString::number(run.run.id);
    case Started:
        return formatTime(run.run.startedAt);
    case Trigger:
        return triggerText(run);
    case Status:
        return statusLabel(run.status);
    case Duration:
        return run.finishedAt.isValid() ? formatDuration(run.durationMs) : QString();
    case Tables:
        return QString::number(run.tables);
    case RowsRead:
        return formatCount(run.rowsReadKept);
    case RowsWritten:
        // As the grid says it: the rows the iterations' reconcile removed are said apart.
        return run.rowsDeleted > 0
                   ? tr("%1 (%2 deleted)").arg(formatCount(run.rowsWritten), formatCount(run.rowsDeleted))
                   : formatCount(run.rowsWritten);
    case RowsSkipped:
        return formatCount(run.rowsSkipped);
    case Problems:
        return problemsText(run, kProblemsShown);
    }
    return {};
}

QVariant RunHistoryModel::rawValue(const RunOverview &run, int column) const {
    switch (column) {
    case Id:
        return run.run.id;
    case Started:
        return run.run.startedAt;
    case Trigger:
        return run.run.trigger;
    case Status:
        return run.status;
    case Duration:
        return run.durationMs;
    case Tables:
        return run.tables;
    case RowsRead:
        return run.rowsRead;
    case RowsWritten:
        return run.rowsWritten;
    case RowsSkipped:
        return run.rowsSkipped;
    case Problems:
        return problemsText(run);
    }
    return {};
}

QVariant RunHistoryModel::data(const QModelIndex &index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunOverview &run = m_rows.at(index.row());
    switch (role) {
    case Qt::ToolTipRole:
        if (index.column() == RowsRead && run.rowsRead > run.rowsReadKept)
            return tr("%1 rows were read, then rolled back by the cancelled or failed iterations: %2 kept")
                .arg(formatCount(run.rowsRead), formatCount(run.rowsReadKept));
        if (index.column() == Trigger && !run.run.startedBy.isEmpty())
            return tr("%1, started by %2 on %3").arg(triggerText(run), run.run.startedBy, run.run.host);
        return displayValue(run, index.column());
    case Qt::DisplayRole:
        return displayValue(run, index.column());
    case RawRole:
        return rawValue(run, index.column());
    case RunIdRole:
        return run.run.id;
    case StatusNameRole:
        return run.status;
    case StatusRole:
        if (const auto status = iterationStatusFromName(run.status))
            return int(*status);
        return -1;
    case Qt::TextAlignmentRole:
        switch (index.column()) {
        case Id:
        case Duration:
        case Tables:
        case RowsRead:
        case RowsWritten:
        case RowsSkipped:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return {};
        }
    }
    return {};
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Horizontal && role == ExportRole && section == Duration)
        return tr("Duration (s)");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Id:
        return tr("Run");
    case Started:
        return zonedLabel(tr("Started"));
    case Trigger:
        return tr("Trigger");
    case Status:
        return tr("Status");
    case Duration:
        return tr("Duration");
    case Tables:
        return tr("Tables");
    case RowsRead:
        return tr("Read");
    case RowsWritten:
        return tr("Written");
    case RowsSkipped:
        return tr("Skipped");
    case Problems:
        return tr("Problems");
    }
    return {};
}

Qt::ItemFlags RunHistoryModel::flags(const QModelIndex &index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemNeverHasChildren;
}

bool RunHistoryModel::canFetchMore(const QModelIndex &parent) const {
    return !parent.isValid() && m_source && !m_complete && !m_tail && !(m_head && m_head->replacesRows);
}

void RunHistoryModel::fetchMore(const QModelIndex &parent) {
    if (!canFetchMore(parent))
        return;
    RunPageQuery query = m_query;
    if (!m_rows.isEmpty())
        query.before = cursorOf(m_rows.last(), m_query.order);
    request(m_tail, query, false);
}

bool RunHistoryModel::canSort(int column, qint64 tableId) {
    const std::optional<RunSort> by = sortOfColumn(column);
    return by && canSortRuns(*by, tableId);
}

void RunHistoryModel::sort(int column, Qt::SortOrder order) {
    if (!canSort(column))
        return;
    const RunOrder wanted{*sortOfColumn(column), order == Qt::DescendingOrder};
    if (wanted == m_query.order)
        return;
    m_query.order = wanted;
    reset();
}

int RunHistoryModel::sortColumn() const {
    for (int column = 0; column < ColumnCount; ++column) {
        if (sortOfColumn(column) == m_query.order.by)
            return column;
    }
    return Started;
}

Qt::SortOrder RunHistoryModel::sortOrder() const {
    return m_query.order.descending ? Qt::DescendingOrder : Qt::AscendingOrder;
}

void RunHistoryModel::setPageSource(PageSource source, int pageSize) {
    m_source = std::move(source);
    m_pageSize = pageSize;
    reset();
}

void RunHistoryModel::setFilter(qint64 tableId, const QString &status) {
    if (m_query.tableId == tableId && m_query.status == status)
        return;
    m_query.tableId = tableId;
    m_query.status = status;
    const bool fallsBack = !canSortRuns(m_query.order.by, tableId);
    if (fallsBack)
        m_query.order = RunOrder();
    reset();
    if (fallsBack)
        emit sortChanged(sortColumn(), sortOrder());
}

void RunHistoryModel::reset() {
    supersede(m_head);
    supersede(m_tail);
    beginResetModel();
    QList<RunOverview> old = std::exchange(m_rows, {});
    m_ids.clear();
    m_complete = true; // until the first page is asked for below: a view fetches nothing meanwhile
    endResetModel();
    // Scrolled far, the old rows are many: freed on a worker, not in one stall of the GUI thread.
    if (old.size() > 10000)
        QThreadPool::globalInstance()->start([old = std::move(old)]() mutable { old.clear(); });
    if (m_source) {
        m_complete = false;
        request(m_head, m_query, true);
    }
}

void RunHistoryModel::refresh() {
    if (!m_source || (m_head && m_head->replacesRows))
        return; // what is coming is newer than a refresh could be
    supersede(m_head);
    request(m_head, m_query, false);
}

void RunHistoryModel::request(std::optional<Pending> &slot, const RunPageQuery &query, bool replacesRows) {
    RunPageRequest page;
    page.id = ++m_lastRequestId;
    page.query = query;
    page.query.limit = m_pageSize;
    slot = Pending{page.id, page.superseded, replacesRows};
    m_source(page);
}

void RunHistoryModel::supersede(std::optional<Pending> &slot) {
    if (slot)
        slot->superseded->store(true);
    slot.reset();
}

void RunHistoryModel::pageLoaded(quint64 requestId, const QList<RunOverview> &page) {
    const bool full = page.size() >= m_pageSize;
    if (m_head && m_head->id == requestId) {
        const bool replacesRows = m_head->replacesRows;
        m_head.reset();
        // A full refresh page older than nothing shown leaves a gap below it: start over.
        const bool gap = full && !m_rows.isEmpty() && !m_ids.contains(page.last().run.id) &&
                         comesBefore(page.last(), m_rows.first(), m_query.order);
        if (!replacesRows && !gap) {
            for (const RunOverview &run : page)
                upsert(run);
            emit pageArrived();
            return;
        }
        supersede(m_tail); // its place is gone
        beginResetModel();
        m_rows = page;
        m_ids.clear();
        for (const RunOverview &run : page)
            m_ids.insert(run.run.id);
        m_complete = !full;
        endResetModel();
        emit pageArrived();
        return;
    }
    if (!m_tail || m_tail->id != requestId)
        return; // superseded: its filter or its place is gone
    QList<RunOverview> fresh;
    for (const RunOverview &run : page) {
        if (!m_ids.contains(run.run.id))
            fresh.append(run);
    }
    m_complete = !full;
    if (!fresh.isEmpty()) {
        // The tail stays pending until the rows are in: a fetch asked meanwhile (a view or tester
        // reacting to the insertion) would start from the old last row.
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + fresh.size() - 1));
        for (const RunOverview &run : fresh)
            m_ids.insert(run.run.id);
        m_rows.append(fresh);
        endInsertRows();
    }
    m_tail.reset();
    emit pageArrived();
}

void RunHistoryModel::pageFailed(quint64 requestId) {
    if (m_head && m_head->id == requestId)
        m_head.reset();
    else if (m_tail && m_tail->id == requestId)
        m_tail.reset();
    else
        return;
    m_complete = true; // no retry loop from the view; a refresh or a filter asks again
}

void RunHistoryModel::upsertRuns(const QList<RunRecord> &runs) {
    for (const RunRecord &run : runs) {
        if (const std::optional<RunOverview> overview = overviewOf(run, m_query))
            upsert(*overview);
    }
}

void RunHistoryModel::updateRunFigures(qint64 runId, const QList<IterationRecord> &iterations) {
    if (!m_ids.contains(runId))
        return;
    RunRecord run = m_rows.at(rowOfRun(runId)).run;
    run.iterations = iterations;
    if (const std::optional<RunOverview> overview = overviewOf(run, m_query))
        upsert(*overview);
}

void RunHistoryModel::upsert(const RunOverview &overview) {
    const int row = m_ids.contains(overview.run.id) ? rowOfRun(overview.run.id) : -1;
    if (row >= 0) {
        m_rows[row] = overview;
        if (inOrder(row)) {
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
            return;
        }
        // Sorted by a figure that changed (a run going on): it moves to its place, or out of
        // the pages read.
        beginRemoveRows({}, row, row);
        m_rows.removeAt(row);
        m_ids.remove(overview.run.id);
        endRemoveRows();
    }
    const auto at = std::lower_bound(
        m_rows.begin(), m_rows.end(), overview,
        [this](const RunOverview &a, const RunOverview &b) { return comesBefore(a, b, m_query.order); });
    const int position = int(at - m_rows.begin());
    if (position == m_rows.size() && !m_complete)
        return; // past the last page read: the page that holds it will bring it
    beginInsertRows({}, position, position);
    m_rows.insert(position, overview);
    m_ids.insert(overview.run.id);
    endInsertRows();
}

bool RunHistoryModel::inOrder(int row) const {
    const RunOverview &run = m_rows.at(row);
    return (row == 0 || comesBefore(m_rows.at(row - 1), run, m_query.order)) &&
           (row + 1 == m_rows.size() || comesBefore(run, m_rows.at(row + 1), m_query.order));
}

int RunHistoryModel::rowOfRun(qint64 runId) const {
    // From the top: what changes is recent.
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).run.id == runId)
            return row;
    }
    return -1;
}

QStringList RunHistoryModel::csvHeader() const {
    QStringList fields;
    for (int column = 0; column < ColumnCount; ++column) {
        const QVariant exported = headerData(column, Qt::Horizontal, ExportRole);
        fields << (exported.isValid() ? exported : headerData(column, Qt::Horizontal)).toString();
    }
    return fields;
}

QStringList RunHistoryModel::csvFields(const RunOverview &run, const QTimeZone &zone) {
    return {QString::number(run.run.id),
            csvTime(run.run.startedAt, zone),
            triggerText(run),
            statusLabel(run.status),
            run.finishedAt.isValid() ? csvSeconds(run.durationMs) : QString(),
            QString::number(run.tables),
            QString::number(run.rowsReadKept),
            QString::number(run.rowsWritten),
            QString::number(run.rowsSkipped),
            problemsText(run)};
}

} // namespace tidemark
