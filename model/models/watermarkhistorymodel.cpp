// SPDX-License-Identifier: MIT
#include "model/models/watermarkhistorymodel.h"

#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/timeconvention.h"

namespace tidemark {

namespace {

// Integer watermarks sort as numbers; timestamps and dates sort as their (ISO) text.
QVariant sortableValue(const QString &text) {
    bool isInteger = false;
    const qint64 number = text.toLongLong(&isInteger);
    return isInteger ? QVariant(number) : QVariant(text);
}

} // namespace

WatermarkHistoryModel::WatermarkHistoryModel(QObject *parent)
    : QAbstractTableModel(parent) {
    TimeConvention::follow(this, {Time});
}

int WatermarkHistoryModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_changes.size());
}

int WatermarkHistoryModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString WatermarkHistoryModel::causeLabel(const QString &cause) {
    if (cause == QLatin1String("run"))
        return tr("Run");
    if (cause == QLatin1String("backfill"))
        return tr("Backfill");
    if (cause == QLatin1String("reconcile"))
        return tr("Reconcile");
    if (cause == QLatin1String("edit"))
        return tr("Hand edit");
    if (cause == QLatin1String("adopt"))
        return tr("Adopted from the target");
    if (cause == QLatin1String("remove"))
        return tr("Table removed");
    if (cause == QLatin1String("restore"))
        return tr("Table restored");
    return cause;
}

QVariant WatermarkHistoryModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= m_changes.size())
        return {};
    const WatermarkChange &change = m_changes.at(index.row());
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case Time:
            return formatTime(change.at);
        case OldValue:
            return change.oldValue.isEmpty() ? tr("(none)") : change.oldValue;
        case NewValue:
            return change.newValue.isEmpty() ? tr("(none)") : change.newValue;
        case Cause:
            return causeLabel(change.cause);
        case Run:
            return change.runId > 0 ? QString::number(change.runId) : QString();
        case By:
            return change.by;
        case Host:
            return change.host;
        }
    }
    if (role == RawRole) {
        switch (index.column()) {
        case Time:
            return change.at;
        case OldValue:
            return sortableValue(change.oldValue);
        case NewValue:
            return sortableValue(change.newValue);
        case Cause:
            return change.cause;
        case Run:
            return change.runId;
        case By:
            return change.by;
        case Host:
            return change.host;
        }
    }
    if (role == TableIdRole)
        return change.tableId;
    if (role == RunIdRole)
        return change.runId;
    if (role == Qt::TextAlignmentRole && index.column() == Run)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant WatermarkHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Time:
        return zonedLabel(tr("Time"));
    case OldValue:
        return tr("Old watermark");
    case NewValue:
        return tr("New watermark");
    case Cause:
        return tr("Cause");
    case Run:
        return tr("Run");
    case By:
        return tr("By");
    case Host:
        return tr("Host");
    }
    return {};
}

void WatermarkHistoryModel::setChanges(const QList<WatermarkChange> &changes) {
    beginResetModel();
    m_changes = changes;
    endResetModel();
}

} // namespace tidemark
