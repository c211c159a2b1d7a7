// SPDX-License-Identifier: MIT
#include "model/models/schedulelistmodel.h"

#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/timeconvention.h"
#include "model/schedule/firetimes.h"

#include <QTimeZone>

namespace tidemark {

namespace {

QString tablesText(const QList<qint64> &ids) {
    if (ids.isEmpty())
        return ScheduleListModel::tr("all active");
    QStringList parts;
    for (qint64 id : ids)
        parts << QString::number(id);
    return parts.join(QStringLiteral(", "));
}

QString missedText(const QString &at, int count) {
    return count >= MissedFirings::kMaxCounted
               ? ScheduleListModel::tr("missed since %1 (%2+ firings)")
                     .arg(at)
                     .arg(MissedFirings::kMaxCounted)
               : ScheduleListModel::tr("missed since %1 (%n firing(s))", nullptr, count).arg(at);
}

} // namespace

ScheduleListModel::ScheduleListModel(QObject *parent)
    : QAbstractTableModel(parent) {
    TimeConvention::follow(this, {NextShown});
}

int ScheduleListModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ScheduleListModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ScheduleListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Name");
    case Cron:
        return tr("Cron");
    case Zone:
        return tr("Zone");
    case Tables:
        return tr("Tables");
    case NextLocal:
        return tr("Next run (its zone)");
    case NextShown:
        return zonedLabel(tr("Next run"));
    case LastStatus:
        return tr("Last status");
    case Active:
        return tr("Active");
    default:
        return {};
    }
}

QVariant ScheduleListModel::displayValue(const Row &row, int column) const {
    const ScheduleSpec &spec = row.spec;
    switch (column) {
    case Name:
        return spec.name;
    case Cron:
        return spec.cron;
    case Zone:
        return spec.timeZone;
    case Tables:
        return tablesText(spec.tableIds);
    case NextLocal:
        if (!spec.active)
            return tr("paused");
        if (row.missed.first.isValid())
            return missedText(row.missed.first.toTimeZone(QTimeZone(spec.timeZone.toUtf8()))
                                  .toString(QStringLiteral("yyyy-MM-dd HH:mm t")),
                              row.missed.count);
        if (!row.next.isValid())
            return tr("never");
        return row.next.toTimeZone(QTimeZone(spec.timeZone.toUtf8()))
            .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss t"));
    case NextShown:
        if (!spec.active || !row.next.isValid())
            return QString();
        if (row.missed.first.isValid())
            return missedText(formatTime(row.missed.first), row.missed.count);
        return formatTime(row.next);
    case LastStatus:
        return row.lastStatus.isEmpty() ? tr("never ran") : row.lastStatus;
    case Active:
        return spec.active ? tr("yes") : tr("paused");
    default:
        return {};
    }
}

QVariant ScheduleListModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return displayValue(row, index.column());
    case Qt::CheckStateRole:
        return index.column() == Active ? QVariant(row.spec.active ? Qt::Checked : Qt::Unchecked)
                                        : QVariant();
    case StatusNameRole:
        return row.lastStatus;
    case Qt::ToolTipRole:
        if ((index.column() == NextLocal || index.column() == NextShown) && row.missed.first.isValid())
            return tr("Due at %1 and not fired: no runner fired it (Run › Set Up Runner…). Due next at %2.")
                .arg(formatTimeWithZone(row.missed.first), formatTimeWithZone(row.next));
        return {};
    case RawRole:
        if (index.column() == NextLocal || index.column() == NextShown)
            return row.next;
        return displayValue(row, index.column());
    default:
        return {};
    }
}

void ScheduleListModel::setSchedules(const QList<ScheduleSpec> &schedules,
                                     const QHash<QString, QString> &lastStatuses, const QDateTime &now) {
    const CronFireTimes fireTimes;
    beginResetModel();
    m_rows.clear();
    for (const ScheduleSpec &spec : schedules) {
        m_rows.append({spec, fireTimes.nextAfter(spec, now), MissedFirings::of(spec, now, fireTimes),
                       lastStatuses.value(spec.name)});
    }
    endResetModel();
}

QList<ScheduleSpec> ScheduleListModel::schedules() const {
    QList<ScheduleSpec> specs;
    for (const Row &row : m_rows)
        specs.append(row.spec);
    return specs;
}

int ScheduleListModel::rowOfSchedule(const QString &name) const {
    for (int row = 0; row < m_rows.size(); ++row)
        if (m_rows.at(row).spec.name == name)
            return row;
    return -1;
}

} // namespace tidemark
