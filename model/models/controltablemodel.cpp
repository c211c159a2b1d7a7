// SPDX-License-Identifier: MIT
#include "model/models/controltablemodel.h"

#include "model/domain/runrecord.h"
#include "model/domain/sourcezone.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/timeconvention.h"

#include <algorithm>
#include <utility>

namespace tidemark {

namespace {

QVariant watermarkRaw(const Watermark &watermark) {
    switch (watermark.type()) {
    case WatermarkType::Integer:
        return watermark.toInteger();
    case WatermarkType::Timestamp:
        return watermark.micros();
    case WatermarkType::None:
        break;
    }
    return {};
}

} // namespace

ControlTableModel::ControlTableModel(QObject *parent)
    : QAbstractTableModel(parent) {
    TimeConvention::follow(this, {NextRun});
}

int ControlTableModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_tables.size());
}

int ControlTableModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ControlTableModel::displayValue(const TableSpec &spec, int column) const {
    switch (column) {
    case Id:
        return QString::number(spec.id);
    case Active:
        return spec.active ? tr("active") : tr("paused");
    case Source:
        return spec.sourceDisplay();
    case Target:
        return spec.targetDisplay();
    case WatermarkColumn:
        if (spec.watermarkColumn.isEmpty())
            return QString();
        return spec.watermarkType == WatermarkType::None
                   ? spec.watermarkColumn
                   : QStringLiteral("%1 (%2)").arg(spec.watermarkColumn,
                                                   watermarkTypeName(spec.watermarkType));
    case Tiebreak:
        return spec.tiebreakColumn;
    case Keys:
        return spec.keyColumns.join(QStringLiteral(", "));
    case Mode:
        return writeModeName(spec.mode);
    case Lookback:
        return spec.lookback;
    case LastWatermark:
        return spec.lastWatermark.isNull() ? tr("(none)")
                                           : shownWatermark(spec.lastWatermark, spec.sourceTimezone);
    case LastStatus:
        return m_stalled.contains(spec.id) ? tr("Stalled") : statusLabel(m_lastStatus.value(spec.id));
    case NextRun: {
        const auto next = m_nextRuns.constFind(spec.id);
        if (next == m_nextRuns.cend() || (!next->at.isValid() && !next->missed.isValid()))
            return QStringLiteral("—");
        // A firing nobody fired is shown, not rolled forward past (MissedFirings).
        return next->missed.isValid() ? tr("missed since %1").arg(formatTimeWithZone(next->missed))
                                      : formatTimeWithZone(next->at);
    }
    }
    return {};
}

QString ControlTableModel::nextRunToolTip(const TableSpec &spec) const {
    const auto next = m_nextRuns.constFind(spec.id);
    if (next == m_nextRuns.cend())
        return spec.active ? tr("No active schedule runs this table")
                           : tr("Paused: schedules skip this table");
    QStringList lines;
    if (next->missed.isValid())
        lines << tr("Due at %1 by schedule %2 and not fired: no runner fired it (Run › Set Up Runner…).",
                    nullptr, int(next->missedBy.size()))
                     .arg(formatTimeWithZone(next->missed), next->missedBy.join(QStringLiteral(", ")));
    if (next->at.isValid())
        lines << tr("Next run by schedule %1 at %2 (%3 UTC)", nullptr, int(next->schedules.size()))
                     .arg(next->schedules.join(QStringLiteral(", ")), formatTimeWithZone(next->at),
                          next->at.toUTC().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    return lines.join(QLatin1Char('\n'));
}

QVariant ControlTableModel::rawValue(const TableSpec &spec, int column) const {
    switch (column) {
    case Id:
        return spec.id;
    case Active:
        return spec.active;
    case Source:
        return spec.sourceDisplay();
    case Target:
        return spec.targetDisplay();
    case WatermarkColumn:
        return spec.watermarkColumn;
    case Tiebreak:
        return spec.tiebreakColumn;
    case Keys:
        return spec.keyColumns;
    case Mode:
        return int(spec.mode);
    case Lookback:
        return spec.lookback;
    case LastWatermark:
        return watermarkRaw(spec.lastWatermark);
    case LastStatus:
        return m_lastStatus.value(spec.id);
    case NextRun: {
        const TableNextRun next = m_nextRuns.value(spec.id);
        return next.missed.isValid() ? next.missed : next.at;
    }
    }
    return {};
}

QVariant ControlTableModel::data(const QModelIndex &index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TableSpec &spec = m_tables.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        // The active column shows its checkbox only; the word is in the tooltip.
        return column == Active ? QVariant() : displayValue(spec, column);
    case Qt::EditRole:
    case RawRole:
        return rawValue(spec, column);
    case Qt::CheckStateRole:
        if (column == Active)
            return spec.active ? Qt::Checked : Qt::Unchecked;
        return {};
    case Qt::ToolTipRole:
        if (column == Active)
            return spec.active ? tr("Active: copied by every run") : tr("Paused: shown, not run");
        if (column == LastWatermark && !spec.lastWatermark.isNull())
            return tr("Stored as %1").arg(spec.lastWatermark.nativeText());
        if (column == NextRun)
            return nextRunToolTip(spec);
        if (column == LastStatus && m_stalled.contains(spec.id))
            return tr("Stalled: %1\nLast run: %2")
                .arg(m_stalled.value(spec.id), statusLabel(m_lastStatus.value(spec.id)));
        return displayValue(spec, column);
    case Qt::TextAlignmentRole:
        if (column == Id)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case TableIdRole:
        return spec.id;
    case StatusRole:
        if (column == LastStatus) {
            const auto status = iterationStatusFromName(lastStatusShown(spec.id));
            return status ? int(*status) : -1;
        }
        return {};
    case StatusNameRole:
        return column == LastStatus ? lastStatusShown(spec.id) : QVariant();
    }
    return {};
}

QVariant ControlTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Id:
        return tr("Id");
    case Active:
        return tr("Active");
    case Source:
        return tr("Source");
    case Target:
        return tr("Target");
    case WatermarkColumn:
        return tr("Watermark column");
    case Tiebreak:
        return tr("Tiebreak");
    case Keys:
        return tr("Keys");
    case Mode:
        return tr("Mode");
    case Lookback:
        return tr("Lookback");
    case LastWatermark:
        return tr("Last watermark");
    case LastStatus:
        return tr("Last run");
    case NextRun:
        return tr("Next run");
    }
    return {};
}

Qt::ItemFlags ControlTableModel::flags(const QModelIndex &index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemNeverHasChildren;
    if (index.column() == Active)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

bool ControlTableModel::setData(const QModelIndex &index, const QVariant &value, int role) {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    if (index.column() != Active || role != Qt::CheckStateRole)
        return false;
    const TableSpec &spec = m_tables.at(index.row());
    const bool active = value.toInt() == Qt::Checked;
    if (active == spec.active)
        return false;
    emit activeChangeRequested(spec.id, active);
    return true;
}

void ControlTableModel::setTables(const QList<TableSpec> &tables,
                                  const QHash<qint64, QString> &lastStatuses) {
    replaceTables(tables, lastStatuses);
}

QHash<qint64, QString> ControlTableModel::applyRead(const TablesRead &read) {
    QList<qint64> ids = read.changedIds + std::exchange(m_editedIds, {});
    const bool follows = m_readNumber > 0 && read.since == m_readNumber;
    QHash<qint64, QString> replaced = m_lastStatus;
    if (!follows || !changeRowsOf(std::move(ids), read))
        replaced = replaceTables(read.tables, read.lastStatuses);
    m_readNumber = read.number;
    return replaced;
}

bool ControlTableModel::changeRowsOf(QList<qint64> ids, const TablesRead &read) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    QList<std::pair<int, const TableSpec *>> changes;
    changes.reserve(ids.size());
    for (qint64 id : std::as_const(ids)) {
        const auto incoming = std::lower_bound(read.tables.cbegin(), read.tables.cend(), id,
                                               [](const TableSpec &t, qint64 value) { return t.id < value; });
        const int row = rowOfId(id);
        const bool arrives = incoming != read.tables.cend() && incoming->id == id;
        if (arrives != (row >= 0))
            return false;
        if (row >= 0)
            changes.append({row, &*incoming});
    }
    const QHash<qint64, QString> oldStatus = std::exchange(m_lastStatus, read.lastStatuses);
    QList<int> changed;
    for (const auto &[row, spec] : std::as_const(changes)) {
        if (!sameTableSpec(m_tables.at(row), *spec) ||
            oldStatus.value(spec->id) != m_lastStatus.value(spec->id)) {
            m_tables[row] = *spec;
            changed.append(row);
        }
    }
    emitRowsChanged(changed);
    return true;
}

void ControlTableModel::emitRowsChanged(const QList<int> &rows) {
    for (qsizetype first = 0; first < rows.size();) {
        qsizetype last = first;
        while (last + 1 < rows.size() && rows.at(last + 1) == rows.at(last) + 1)
            ++last;
        emit dataChanged(index(rows.at(first), 0), index(rows.at(last), ColumnCount - 1));
        first = last + 1;
    }
}

QHash<qint64, QString> ControlTableModel::replaceTables(const QList<TableSpec> &tables,
                                                        const QHash<qint64, QString> &lastStatuses) {
    m_readNumber = 0;
    m_editedIds.clear();
    QList<TableSpec> incoming = tables;
    const auto byId = [](const TableSpec &a, const TableSpec &b) {
        return a.id < b.id;
    };
    if (!std::is_sorted(incoming.cbegin(), incoming.cend(), byId))
        std::sort(incoming.begin(), incoming.end(), byId);
    QHash<qint64, QString> oldStatus = std::exchange(m_lastStatus, lastStatuses);
    if (m_tables.isEmpty() && !incoming.isEmpty()) {
        // The first read (a workspace just opened): the list is taken as it is, one block,
        // without making and then overwriting a row per table (10,000 on the GUI thread).
        beginInsertRows({}, 0, int(incoming.size()) - 1);
        m_tables = std::move(incoming);
        endInsertRows();
        return oldStatus;
    }

    // Views, proxies and the history's table filter react to every signal: 10,000 tables must
    // come and go in a few signals (one block per contiguous run of rows), not one per row.
    removeRowsMissingFrom(incoming);
    // The current rows are now a subset of the incoming ones, both sorted by id: walk them
    // together, inserting each run of new ids as one block.
    int row = 0;
    int changedFrom = -1;
    const auto flushChanged = [this, &changedFrom](int end) {
        if (changedFrom >= 0)
            emit dataChanged(index(changedFrom, 0), index(end - 1, ColumnCount - 1));
        changedFrom = -1;
    };
    for (qsizetype next = 0; next < incoming.size();) {
        if (row < m_tables.size() && m_tables.at(row).id == incoming.at(next).id) {
            const TableSpec &spec = incoming.at(next);
            if (!sameTableSpec(m_tables.at(row), spec) ||
                oldStatus.value(spec.id) != m_lastStatus.value(spec.id)) {
                m_tables[row] = spec;
                if (changedFrom < 0)
                    changedFrom = row;
            } else {
                flushChanged(row);
            }
            ++row;
            ++next;
            continue;
        }
        flushChanged(row);
        qsizetype end = next;
        while (end < incoming.size() && (row >= m_tables.size() || incoming.at(end).id < m_tables.at(row).id))
            ++end;
        const int count = int(end - next);
        beginInsertRows({}, row, row + count - 1);
        m_tables.insert(row, count, TableSpec());
        std::copy(incoming.cbegin() + next, incoming.cbegin() + end, m_tables.begin() + row);
        endInsertRows();
        row += count;
        next = end;
    }
    flushChanged(row);
    return oldStatus;
}

void ControlTableModel::removeRowsMissingFrom(const QList<TableSpec> &incoming) {
    // From the bottom, so the rows above keep their numbers; `incoming` is sorted by id.
    const auto wanted = [&incoming](qint64 id) {
        const auto it = std::lower_bound(incoming.cbegin(), incoming.cend(), id,
                                         [](const TableSpec &t, qint64 value) { return t.id < value; });
        return it != incoming.cend() && it->id == id;
    };
    for (int last = int(m_tables.size()) - 1; last >= 0;) {
        if (wanted(m_tables.at(last).id)) {
            --last;
            continue;
        }
        int first = last;
        while (first > 0 && !wanted(m_tables.at(first - 1).id))
            --first;
        beginRemoveRows({}, first, last);
        m_tables.remove(first, last - first + 1);
        endRemoveRows();
        last = first - 1;
    }
}

void ControlTableModel::upsertTable(const TableSpec &spec) {
    m_editedIds.append(spec.id);
    const int row = rowOfId(spec.id);
    if (row >= 0) {
        m_tables[row] = spec;
        emitRowChanged(row);
        return;
    }
    const auto it = std::lower_bound(m_tables.cbegin(), m_tables.cend(), spec.id,
                                     [](const TableSpec &t, qint64 id) { return t.id < id; });
    const int at = int(it - m_tables.cbegin());
    beginInsertRows({}, at, at);
    m_tables.insert(at, spec);
    endInsertRows();
}

void ControlTableModel::removeTable(qint64 id) {
    m_editedIds.append(id);
    const int row = rowOfId(id);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_tables.removeAt(row);
    endRemoveRows();
    m_lastStatus.remove(id);
}

void ControlTableModel::setActive(qint64 id, bool active) {
    const int row = rowOfId(id);
    if (row < 0 || m_tables.at(row).active == active)
        return;
    m_editedIds.append(id);
    m_tables[row].active = active;
    emitRowChanged(row);
}

void ControlTableModel::setLastStatus(qint64 id, const QString &statusName) {
    const int row = rowOfId(id);
    if (row < 0 || m_lastStatus.value(id) == statusName)
        return;
    m_editedIds.append(id);
    m_lastStatus.insert(id, statusName);
    emit dataChanged(index(row, LastStatus), index(row, LastStatus));
}

void ControlTableModel::setNextRuns(const QHash<qint64, TableNextRun> &nextRuns) {
    const QHash<qint64, TableNextRun> old = std::exchange(m_nextRuns, nextRuns);
    // One signal for the span of rows whose next run moved (often all of them at once: a
    // schedule of every table fired), not one per row.
    int first = -1;
    int last = -1;
    for (int row = 0; row < m_tables.size(); ++row) {
        const qint64 id = m_tables.at(row).id;
        if (old.value(id) != m_nextRuns.value(id)) {
            if (first < 0)
                first = row;
            last = row;
        }
    }
    if (first >= 0)
        emit dataChanged(index(first, NextRun), index(last, NextRun));
}

void ControlTableModel::setStalled(const QHash<qint64, QString> &reasons) {
    const QHash<qint64, QString> old = std::exchange(m_stalled, reasons);
    for (int row = 0; row < m_tables.size(); ++row) {
        const qint64 id = m_tables.at(row).id;
        if (old.value(id) != m_stalled.value(id))
            emit dataChanged(index(row, LastStatus), index(row, LastStatus));
    }
}

bool ControlTableModel::anyStaleAfter() const {
    return std::any_of(m_tables.cbegin(), m_tables.cend(),
                       [](const TableSpec &spec) { return !spec.staleAfter.isEmpty(); });
}

// A stalled table's last run shows as a warning, whatever it ended as: the table is not fine.
QString ControlTableModel::lastStatusShown(qint64 id) const {
    return m_stalled.contains(id) ? iterationStatusName(IterationStatus::Warning) : m_lastStatus.value(id);
}

int ControlTableModel::rowOfId(qint64 id) const {
    // The rows are kept in id order.
    const auto it = std::lower_bound(m_tables.cbegin(), m_tables.cend(), id,
                                     [](const TableSpec &t, qint64 value) { return t.id < value; });
    return it != m_tables.cend() && it->id == id ? int(it - m_tables.cbegin()) : -1;
}

std::optional<TableSpec> ControlTableModel::table(qint64 id) const {
    const int row = rowOfId(id);
    if (row < 0)
        return std::nullopt;
    return m_tables.at(row);
}

void ControlTableModel::emitRowChanged(int row) {
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

} // namespace tidemark
