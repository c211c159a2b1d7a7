// SPDX-License-Identifier: MIT
#include "model/models/iterationgridmodel.h"

#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/timeconvention.h"

#include <algorithm>

namespace tidemark {

namespace {

bool sameProgress(const IterationRecord &a, const IterationRecord &b) {
    return a.status == b.status && a.startedAt == b.startedAt && a.finishedAt == b.finishedAt &&
           a.durationMs == b.durationMs && a.rowsRead == b.rowsRead && a.rowsWritten == b.rowsWritten &&
           a.rowsSkipped == b.rowsSkipped && a.rowsNullWatermark == b.rowsNullWatermark &&
           a.windowRows == b.windowRows && a.watermarkBefore == b.watermarkBefore &&
           a.watermarkAfter == b.watermarkAfter && a.windowLower == b.windowLower &&
           a.windowUpper == b.windowUpper && a.error == b.error && a.source == b.source &&
           a.target == b.target && a.rowsUnorderableWatermark == b.rowsUnorderableWatermark &&
           a.rowsDeleted == b.rowsDeleted && a.waiting == b.waiting && a.runner == b.runner;
}

const IterationStatus kSummaryOrder[] = {IterationStatus::Running,   IterationStatus::Queued,
                                         IterationStatus::Succeeded, IterationStatus::NoNewRows,
                                         IterationStatus::DryRun,    IterationStatus::Warning,
                                         IterationStatus::Failed,    IterationStatus::Cancelled,
                                         IterationStatus::Skipped,   IterationStatus::Interrupted};

} // namespace

QString dryRunText(const IterationRecord &record) {
    return QObject::tr("would copy %1 rows (window %2 → %3); nothing written")
        .arg(formatCount(record.rowsRead),
             record.windowLower.isEmpty() ? QObject::tr("the beginning") : record.windowLower,
             record.windowUpper.isEmpty() ? QObject::tr("the end") : record.windowUpper);
}

double iterationProgress(const IterationRecord &record) {
    switch (record.status) {
    case IterationStatus::Succeeded:
    case IterationStatus::Warning:
    case IterationStatus::DryRun:
        return 1.0;
    case IterationStatus::NoNewRows:
        return -1.0; // nothing to fill: "—", not a full "0 / 0" bar
    case IterationStatus::Skipped:
    case IterationStatus::Queued:
        return 0.0;
    default:
        break;
    }
    if (record.status == IterationStatus::Running && record.rowsRead == 0)
        return -1.0; // counting, waiting, or the database copying by itself: no fraction to show
    if (record.windowRows > 0)
        return qBound(0.0, double(rowsShownRead(record)) / double(record.windowRows), 1.0);
    if (isRolledBack(record))
        return 0.0;
    if (record.windowRows == 0)
        return isFinished(record.status) ? 1.0 : 0.0;
    return -1.0;
}

QString RunSummary::text() const {
    if (total == 0)
        return QObject::tr("No iterations");
    if (count(IterationStatus::DryRun) == total)
        return QObject::tr("%n table(s), dry run: would copy %1 rows; nothing written", nullptr, total)
            .arg(formatCount(rowsRead));
    QStringList parts;
    for (IterationStatus status : kSummaryOrder) {
        if (const int n = count(status))
            parts << QStringLiteral("%1 %2").arg(n).arg(statusLabel(status).toLower());
    }
    QString text = QObject::tr("%n table(s): %1 · %2 rows read, %3 written, %4 skipped", nullptr, total)
                       .arg(parts.join(QStringLiteral(", ")), formatCount(rowsRead), formatCount(rowsWritten),
                            formatCount(rowsSkipped));
    if (rowsDeleted > 0)
        text += QObject::tr(", %1 deleted").arg(formatCount(rowsDeleted));
    return text;
}

IterationGridModel::IterationGridModel(QObject *parent)
    : QAbstractTableModel(parent)
    , m_clock([] { return QDateTime::currentDateTimeUtc(); }) {
    m_ticker.setInterval(1000);
    connect(&m_ticker, &QTimer::timeout, this, &IterationGridModel::tick);
    TimeConvention::follow(this, {Started});
}

int IterationGridModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int IterationGridModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString IterationGridModel::runningProgress(const IterationRecord &record) const {
    const qint64 elapsed = elapsedMs(record);
    if (record.rowsRead == 0) {
        // Before the first batch, or a copy inside the database that reports only at its end.
        return record.windowRows > 0
                   ? tr("copying %1 rows · %2").arg(formatCount(record.windowRows), formatDuration(elapsed))
                   : tr("starting · %1").arg(formatDuration(elapsed));
    }
    QString text = record.windowRows > 0 ? QStringLiteral("%1 / %2").arg(formatCount(record.rowsRead),
                                                                         formatCount(record.windowRows))
                                         : formatCount(record.rowsRead);
    if (elapsed >= 1000) {
        const double perSecond = double(record.rowsRead) * 1000.0 / double(elapsed);
        text += tr(" · %1 rows/s").arg(formatCount(qint64(perSecond)));
        if (record.windowRows > record.rowsRead && perSecond > 0)
            text += tr(" · about %1 left")
                        .arg(formatDuration(
                            qint64(double(record.windowRows - record.rowsRead) * 1000.0 / perSecond)));
    }
    return text;
}

qint64 IterationGridModel::elapsedMs(const IterationRecord &record) const {
    if (record.status == IterationStatus::Running && record.startedAt.isValid())
        return qMax<qint64>(0, record.startedAt.msecsTo(m_clock()));
    return record.durationMs;
}

QVariant IterationGridModel::displayValue(const IterationRecord &record, int column) const {
    switch (column) {
    case Source:
        return record.source;
    case Target:
        return record.target;
    case Status:
        return statusLabel(record.status);
    case Started:
        return formatTime(record.startedAt);
    case Duration:
        if (!record.startedAt.isValid() && record.durationMs == 0)
            return QString();
        return formatDuration(elapsedMs(record));
    case RowsRead:
        return formatCount(rowsShownRead(record));
    case RowsWritten:
        if (record.status == IterationStatus::DryRun)
            return QStringLiteral("—");
        // Written is what the target holds; rows in the open transaction are said apart, and
        // so are the rows its reconcile removed (the source had deleted them).
        if (record.rowsPending > 0)
            return tr("%1 (+%2 pending)")
                .arg(formatCount(record.rowsWritten), formatCount(record.rowsPending));
        if (record.rowsDeleted > 0)
            return tr("%1 (%2 deleted)")
                .arg(formatCount(record.rowsWritten), formatCount(record.rowsDeleted));
        return formatCount(record.rowsWritten);
    case RowsSkipped:
        return formatCount(record.rowsSkipped);
    case Progress:
        if (record.status == IterationStatus::Queued && !record.waiting.isEmpty())
            return record.waiting; // "waiting: connection erp has 2 of 2 in use"
        if (record.status == IterationStatus::Skipped)
            return QStringLiteral("—");
        if (record.status == IterationStatus::DryRun)
            return tr("would copy %1").arg(formatCount(record.rowsRead));
        if (isRolledBack(record)) {
            const QString kept = formatCount(rowsShownRead(record));
            return record.windowRows > 0
                       ? tr("rolled back, %1 of %2 kept").arg(kept, formatCount(record.windowRows))
                       : tr("rolled back, %1 kept").arg(kept);
        }
        if (record.status == IterationStatus::NoNewRows || record.windowRows == 0)
            return QStringLiteral("—");
        if (record.status == IterationStatus::Running)
            return runningProgress(record);
        if (record.windowRows > 0)
            return QStringLiteral("%1 / %2").arg(formatCount(record.rowsRead),
                                                 formatCount(record.windowRows));
        return formatCount(record.rowsRead);
    case WatermarkBefore:
        return record.watermarkBefore.isEmpty() ? tr("(none)") : record.watermarkBefore;
    case WatermarkAfter:
        return record.watermarkAfter;
    }
    return {};
}

QVariant IterationGridModel::rawValue(const IterationRecord &record, int column) const {
    switch (column) {
    case Source:
        return record.source;
    case Target:
        return record.target;
    case Status:
        return int(record.status);
    case Started:
        return record.startedAt;
    case Duration:
        return elapsedMs(record);
    case RowsRead:
        return rowsShownRead(record);
    case RowsWritten:
        return record.rowsWritten;
    case RowsSkipped:
        return record.rowsSkipped;
    case Progress:
        return iterationProgress(record);
    case WatermarkBefore:
        return record.watermarkBefore;
    case WatermarkAfter:
        return record.watermarkAfter;
    }
    return {};
}

QVariant IterationGridModel::data(const QModelIndex &index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const IterationRecord &record = m_rows.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return displayValue(record, column);
    case RawRole:
        return rawValue(record, column);
    case Qt::ToolTipRole:
        if (isRolledBack(record) && (column == RowsRead || column == Progress) &&
            record.rowsRead > rowsShownRead(record))
            return tr("%1 rows were read, then rolled back: %2 kept")
                .arg(formatCount(record.rowsRead), formatCount(rowsShownRead(record)));
        if (record.status == IterationStatus::DryRun)
            return dryRunText(record);
        if (column == RowsWritten && record.rowsPending > 0)
            return tr("%1 rows committed to the target; %2 more written into its open transaction, which "
                      "commits them all at once or rolls them back")
                .arg(formatCount(record.rowsWritten), formatCount(record.rowsPending));
        if (!record.error.isEmpty())
            return record.error;
        if (record.status == IterationStatus::Queued && !record.waiting.isEmpty())
            return tr("Queued behind a cap (tidemark-cli workspace set, connection set, serve --slots): %1")
                .arg(record.waiting);
        if (column == Progress && record.windowRows < 0)
            return tr("Rows read so far (the window's row count is not known yet)");
        return displayValue(record, column);
    case Qt::TextAlignmentRole:
        switch (column) {
        case RowsRead:
        case RowsWritten:
        case RowsSkipped:
        case Duration:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return {};
        }
    case TableIdRole:
        return record.tableId;
    case RunIdRole:
        return record.runId;
    case StatusRole:
        return int(record.status);
    case StatusNameRole:
        return iterationStatusName(record.status);
    case ProgressRole:
        return iterationProgress(record);
    case ErrorRole:
        return record.error;
    }
    return {};
}

QVariant IterationGridModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Source:
        return tr("Source");
    case Target:
        return tr("Target");
    case Status:
        return tr("Status");
    case Started:
        return zonedLabel(tr("Started"));
    case Duration:
        return tr("Duration");
    case RowsRead:
        return tr("Read");
    case RowsWritten:
        return tr("Written");
    case RowsSkipped:
        return tr("Skipped");
    case Progress:
        return tr("Progress");
    case WatermarkBefore:
        return tr("Watermark before");
    case WatermarkAfter:
        return tr("Watermark after");
    }
    return {};
}

Qt::ItemFlags IterationGridModel::flags(const QModelIndex &index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemNeverHasChildren;
}

void RunSummary::add(const IterationRecord &record, int sign) {
    counts[record.status] += sign;
    rowsRead += sign * rowsShownRead(record);
    rowsWritten += sign * record.rowsWritten;
    rowsSkipped += sign * record.rowsSkipped;
    rowsDeleted += sign * record.rowsDeleted;
}

void IterationGridModel::setRow(int row, IterationRecord record) {
    m_summary.add(m_rows.at(row), -1);
    m_summary.add(record, +1);
    m_rows[row] = std::move(record);
}

void IterationGridModel::reset(qint64 runId, const QList<IterationRecord> &rows, bool live) {
    beginResetModel();
    m_runId = runId;
    m_live = live;
    m_rows = rows;
    m_rowOfTable.clear();
    m_summary = {};
    for (int row = 0; row < m_rows.size(); ++row) {
        m_rowOfTable.insert(m_rows.at(row).tableId, row);
        m_summary.add(m_rows.at(row), +1);
    }
    m_summary.total = int(m_rows.size());
    endResetModel();
    updateTicking();
    emit summaryChanged();
}

void IterationGridModel::beginRun(qint64 runId, const QList<IterationRecord> &iterations) {
    reset(runId, iterations, true);
}

void IterationGridModel::updateIteration(const IterationRecord &record) {
    if (record.runId != m_runId || !m_live)
        return; // a late report from a run that is no longer shown
    const int row = m_rowOfTable.value(record.tableId, -1);
    if (row < 0)
        return;
    const IterationRecord &current = m_rows.at(row);
    if (sameProgress(current, record))
        return;
    const bool statusChanged = current.status != record.status;
    // Log lines arrive separately (appendLog); a progress report carries none of them.
    IterationRecord updated = record;
    if (updated.log.size() < current.log.size())
        updated.log = current.log;
    setRow(row, std::move(updated));
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    if (statusChanged)
        updateTicking();
    emit summaryChanged();
}

void IterationGridModel::appendLog(qint64 runId, qint64 tableId, const LogLine &line) {
    if (runId != m_runId || !m_live)
        return;
    const int row = m_rowOfTable.value(tableId, -1);
    if (row < 0)
        return;
    m_rows[row].log.append(line);
    emit logAppended(row, line);
}

void IterationGridModel::finishRun(const RunRecord &run) {
    if (run.id != m_runId || !m_live)
        return;
    // The final record is the truth (it has ids, final counts and every log line); keep rows
    // in place so selection survives.
    ChangedRows changed;
    for (const IterationRecord &record : run.iterations) {
        const int row = m_rowOfTable.value(record.tableId, -1);
        if (row < 0)
            continue;
        IterationRecord merged = record;
        if (merged.log.size() < m_rows.at(row).log.size())
            merged.log = m_rows.at(row).log;
        setRow(row, std::move(merged));
        changed.add(row);
    }
    changed.emitFor(this);
    m_live = false;
    updateTicking();
    emit summaryChanged();
}

void IterationGridModel::showRun(const RunRecord &run) {
    reset(run.id, run.iterations, false);
}

void IterationGridModel::followRun(const RunRecord &run) {
    bool sameRows = run.id == m_runId && !m_live && run.iterations.size() == m_rows.size();
    for (int row = 0; sameRows && row < m_rows.size(); ++row)
        sameRows = m_rows.at(row).tableId == run.iterations.at(row).tableId;
    if (!sameRows) {
        showRun(run);
        return;
    }
    ChangedRows changed;
    for (int row = 0; row < m_rows.size(); ++row) {
        if (sameProgress(m_rows.at(row), run.iterations.at(row)))
            continue;                        // the log lines it holds (read when it was opened) still stand
        setRow(row, run.iterations.at(row)); // its lines are read again when it is opened
        changed.add(row);
    }
    changed.emitFor(this);
    updateTicking();
    emit summaryChanged();
}

void IterationGridModel::setIterationLog(qint64 iterationId, const QList<LogLine> &lines) {
    for (int row = 0; row < m_rows.size(); ++row) {
        IterationRecord &record = m_rows[row];
        if (record.id != iterationId || record.log.size() == lines.size())
            continue;
        record.log = lines;
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
}

void IterationGridModel::clear() {
    reset(0, {}, false);
}

void IterationGridModel::tick() {
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).status == IterationStatus::Running)
            emit dataChanged(index(row, Duration), index(row, Progress)); // elapsed, rate, time left
    }
}

void IterationGridModel::ChangedRows::add(int row) {
    if (!spans.isEmpty() && spans.last().second == row - 1)
        spans.last().second = row;
    else
        spans.append({row, row});
}

void IterationGridModel::ChangedRows::emitFor(IterationGridModel *model) const {
    for (const auto &[first, last] : spans)
        emit model->dataChanged(model->index(first, 0), model->index(last, ColumnCount - 1));
}

void IterationGridModel::updateTicking() {
    // The running count is kept with the summary: no pass over 10,000 rows per update.
    const bool anyRunning = m_summary.count(IterationStatus::Running) > 0;
    if (anyRunning && !m_ticker.isActive())
        m_ticker.start();
    else if (!anyRunning)
        m_ticker.stop();
}

} // namespace tidemark
