// SPDX-License-Identifier: MIT
#include "model/models/timeconvention.h"

#include <QAbstractItemModel>

namespace tidemark {

TimeConvention &TimeConvention::current() {
    static TimeConvention convention;
    return convention;
}

void TimeConvention::setUtc(bool utc) {
    if (m_utc.exchange(utc) != utc)
        emit changed();
}

QTimeZone TimeConvention::zone() const {
    return isUtc() ? QTimeZone::utc() : QTimeZone::systemTimeZone();
}

QString TimeConvention::zoneName() const {
    return isUtc() ? QStringLiteral("UTC") : localZoneName();
}

QString TimeConvention::localZoneName() {
    return QString::fromUtf8(QTimeZone::systemTimeZoneId());
}

void TimeConvention::follow(QAbstractItemModel *model, const QList<int> &columns) {
    connect(&current(), &TimeConvention::changed, model, [model, columns] {
        const int columnCount = model->columnCount();
        if (columnCount > 0)
            emit model->headerDataChanged(Qt::Horizontal, 0, columnCount - 1);
        const int rows = model->rowCount();
        if (rows == 0)
            return;
        for (const int column : columns)
            emit model->dataChanged(model->index(0, column), model->index(rows - 1, column),
                                    {Qt::DisplayRole, Qt::ToolTipRole});
    });
}

} // namespace tidemark
