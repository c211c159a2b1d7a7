// SPDX-License-Identifier: MIT
#include "model/models/rejectedrowsmodel.h"

#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/timeconvention.h"

#include <QJsonDocument>

namespace tidemark {

namespace {

// The stored JSON, indented for a tooltip; the text as it is when it is not JSON.
QString indentedJson(const QString &text) {
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8());
    return document.isNull() ? text : QString::fromUtf8(document.toJson(QJsonDocument::Indented)).trimmed();
}

QString oneLine(QString text) {
    return text.replace(QLatin1Char('\n'), QLatin1Char(' ')).replace(QLatin1Char('\r'), QLatin1Char(' '));
}

} // namespace

RejectedRowsModel::RejectedRowsModel(QObject *parent)
    : QAbstractTableModel(parent) {
    TimeConvention::follow(this, {Time});
}

int RejectedRowsModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RejectedRowsModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RejectedRowsModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const RejectedRow &row = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Time:
            return formatTime(row.at);
        case Key:
            return oneLine(row.rowKey);
        case Error:
            return oneLine(row.error);
        case Values:
            return oneLine(row.rowData);
        }
        break;
    case Qt::ToolTipRole:
        switch (index.column()) {
        case Key:
            return indentedJson(row.rowKey);
        case Error:
            return row.error;
        case Values:
            return indentedJson(row.rowData);
        }
        break;
    case RawRole:
        switch (index.column()) {
        case Time:
            return row.at;
        case Key:
            return row.rowKey;
        case Error:
            return row.error;
        case Values:
            return row.rowData;
        }
        break;
    case RunIdRole:
        return row.runId;
    case TableIdRole:
        return row.tableId;
    case ErrorRole:
        return row.error;
    }
    return {};
}

QVariant RejectedRowsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Time:
        return zonedLabel(tr("Rejected at"));
    case Key:
        return tr("Key");
    case Error:
        return tr("Error");
    case Values:
        return tr("Values");
    }
    return {};
}

bool RejectedRowsModel::canFetchMore(const QModelIndex &parent) const {
    return !parent.isValid() && m_requester && !m_pending && !m_complete;
}

void RejectedRowsModel::fetchMore(const QModelIndex &parent) {
    if (!canFetchMore(parent))
        return;
    m_pending = true;
    m_requester(m_iterationId, lastId(), kPageSize);
}

void RejectedRowsModel::setIteration(qint64 iterationId, PageRequester requester) {
    beginResetModel();
    m_rows.clear();
    m_iterationId = iterationId;
    m_requester = std::move(requester);
    m_pending = false;
    m_complete = false;
    endResetModel();
}

void RejectedRowsModel::appendPage(qint64 iterationId, qint64 afterId, const QList<RejectedRow> &rows) {
    if (iterationId != m_iterationId || !m_pending || afterId != lastId())
        return;
    if (!rows.isEmpty()) {
        beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + rows.size() - 1));
        m_rows.append(rows);
        endInsertRows();
    }
    // Only now: a view asking for more while the rows went in would ask after the wrong row.
    m_pending = false;
    m_complete = rows.size() < kPageSize;
}

void RejectedRowsModel::pageFailed(qint64 iterationId) {
    if (iterationId != m_iterationId)
        return;
    m_pending = false;
    m_complete = true;
}

} // namespace tidemark
