// SPDX-License-Identifier: MIT
#include "model/models/runhistorymodel.h"

#include "model/common/csv.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/timeconvention.h"

#include <algorithm>

namespace tidemark {

namespace {

qint64 runDurationMs(const RunRecord &run) {
    if (run.startedAt.isValid() && run.finishedAt.isValid())
        return run.startedAt.msecsTo(run.finishedAt);
    qint64 total = 0;
    for (const IterationRecord &it : run.iterations)
        total = std::max(total, it.durationMs);
    return total;
}

template <typename Field> qint64 sum(const RunRecord &run, Field field) {
    qint64 total = 0;
    for (const IterationRecord &it : run.iterations)
        total += it.*field;
    return total;
}

QString problems(const RunRecord &run) {
    QStringList parts;
    for (const IterationRecord &it : run.iterations) {
        if (it.status == IterationStatus::Failed || it.status == IterationStatus::Warning ||
            it.status == IterationStatus::Cancelled || it.status == IterationStatus::Interrupted)
            parts << QStringLiteral("%1 (%2)").arg(it.source, statusLabel(it.status).toLower());
    }
    return parts.join(QStringLiteral(", "));
}

bool newerFirst(const RunRecord &a, const RunRecord &b) {
    if (a.startedAt != b.startedAt)
        return a.startedAt > b.startedAt;
    return a.id > b.id;
}

} // namespace

RunHistoryModel::RunHistoryModel(QObject *parent)
    : QAbstractTableModel(parent) {
    TimeConvention::follow(this, {Started});
}

int RunHistoryModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_runs.size());
}

int RunHistoryModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunHistoryModel::displayValue(const RunRecord &run, int column) const {
    switch (column) {
    case Id:
        return QString::number(run.id);
    case Started:
        return formatTime(run.startedAt);
    case Trigger:
        return run.dryRun ? tr("%1 (dry run)").arg(run.trigger) : run.trigger;
    case Status:
        return statusLabel(run.status);
    case Duration:
        return run.finishedAt.isValid() ? formatDuration(runDurationMs(run)) : QString();
    case Tables:
        return QString::number(run.iterations.size());
    case RowsRead:
        return formatCount(sum(run, &IterationRecord::rowsRead));
    case RowsWritten:
        return formatCount(sum(run, &IterationRecord::rowsWritten));
    case RowsSkipped:
        return formatCount(sum(run, &IterationRecord::rowsSkipped));
    case Problems:
        return problems(run);
    }
    return {};
}

QVariant RunHistoryModel::rawValue(const RunRecord &run, int column) const {
    switch (column) {
    case Id:
        return run.id;
    case Started:
        return run.startedAt;
    case Trigger:
        return run.trigger;
    case Status:
        return run.status;
    case Duration:
        return runDurationMs(run);
    case Tables:
        return int(run.iterations.size());
    case RowsRead:
        return sum(run, &IterationRecord::rowsRead);
    case RowsWritten:
        return sum(run, &IterationRecord::rowsWritten);
    case RowsSkipped:
        return sum(run, &IterationRecord::rowsSkipped);
    case Problems:
        return problems(run);
    }
    return {};
}

QVariant RunHistoryModel::data(const QModelIndex &index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunRecord &run = m_runs.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        return displayValue(run, index.column());
    case RawRole:
        return rawValue(run, index.column());
    case ExportRole:
        if (index.column() != Duration)
            return {};
        return run.finishedAt.isValid() ? csvSeconds(runDurationMs(run)) : QString();
    case RunIdRole:
        return run.id;
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

void RunHistoryModel::setRuns(const QList<RunRecord> &runs) {
    beginResetModel();
    m_runs = runs;
    std::stable_sort(m_runs.begin(), m_runs.end(), newerFirst);
    endResetModel();
}

void RunHistoryModel::upsertRuns(const QList<RunRecord> &runs) {
    for (const RunRecord &run : runs) {
        const int row = rowOfRun(run.id);
        if (row >= 0) {
            m_runs[row] = run;
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
            continue;
        }
        const auto at = std::lower_bound(m_runs.begin(), m_runs.end(), run, newerFirst);
        const int position = int(at - m_runs.begin());
        beginInsertRows({}, position, position);
        m_runs.insert(position, run);
        endInsertRows();
    }
}

int RunHistoryModel::rowOfRun(qint64 runId) const {
    for (int row = 0; row < m_runs.size(); ++row) {
        if (m_runs.at(row).id == runId)
            return row;
    }
    return -1;
}

RunHistoryFilterModel::RunHistoryFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent) {
    setSortRole(RawRole);
}

void RunHistoryFilterModel::setTableFilter(qint64 tableId) {
    if (m_tableId == tableId)
        return;
    m_tableId = tableId;
    invalidateFilter();
}

void RunHistoryFilterModel::setStatusFilter(const QString &statusName) {
    if (m_status == statusName)
        return;
    m_status = statusName;
    invalidateFilter();
}

bool RunHistoryFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const {
    const auto *history = qobject_cast<const RunHistoryModel *>(sourceModel());
    if (!history || sourceParent.isValid())
        return true;
    const RunRecord &run = history->runAt(sourceRow);
    if (m_tableId == 0)
        return m_status.isEmpty() || run.status == m_status ||
               std::any_of(run.iterations.cbegin(), run.iterations.cend(), [&](const IterationRecord &it) {
                   return iterationStatusName(it.status) == m_status;
               });
    return std::any_of(run.iterations.cbegin(), run.iterations.cend(), [&](const IterationRecord &it) {
        return it.tableId == m_tableId && (m_status.isEmpty() || iterationStatusName(it.status) == m_status);
    });
}

QList<TableTrendPoint> tableTrend(const QList<RunRecord> &runs, qint64 tableId) {
    QList<TableTrendPoint> points;
    for (const RunRecord &run : runs) {
        if (run.dryRun)
            continue; // a dry run writes nothing; it would read as a sudden drop to zero
        for (const IterationRecord &it : run.iterations) {
            if (it.tableId != tableId || it.status == IterationStatus::Queued ||
                it.status == IterationStatus::Running)
                continue;
            TableTrendPoint point;
            point.runId = run.id;
            point.startedAt = it.startedAt.isValid() ? it.startedAt : run.startedAt;
            point.rowsWritten = it.rowsWritten;
            point.durationMs = it.durationMs;
            point.status = it.status;
            points << point;
        }
    }
    std::sort(points.begin(), points.end(), [](const TableTrendPoint &a, const TableTrendPoint &b) {
        return a.startedAt != b.startedAt ? a.startedAt < b.startedAt : a.runId < b.runId;
    });
    return points;
}

namespace {

// Numbers and times go out raw (machine-readable: times with their offset, in the zone shown),
// durations in seconds, everything else as shown.
QString csvValue(const QModelIndex &index) {
    const QVariant exported = index.data(ExportRole);
    if (exported.isValid())
        return exported.toString();
    const QVariant raw = index.data(RawRole);
    switch (raw.typeId()) {
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::Double:
        return raw.toString();
    case QMetaType::QDateTime:
        return csvTime(raw.toDateTime(), TimeConvention::current().zone());
    default:
        return index.data().toString();
    }
}

} // namespace

QString modelToCsv(const QAbstractItemModel &model) {
    QString csv;
    QStringList fields;
    for (int column = 0; column < model.columnCount(); ++column) {
        const QVariant exported = model.headerData(column, Qt::Horizontal, ExportRole);
        fields << csvField(
            (exported.isValid() ? exported : model.headerData(column, Qt::Horizontal)).toString());
    }
    csv += fields.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    for (int row = 0; row < model.rowCount(); ++row) {
        fields.clear();
        for (int column = 0; column < model.columnCount(); ++column)
            fields << csvField(csvValue(model.index(row, column)));
        csv += fields.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    }
    return csv;
}

} // namespace tidemark
