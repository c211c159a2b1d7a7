// SPDX-License-Identifier: MIT
#include "ui/history/tablechoicemodel.h"

#include "model/models/controltablemodel.h"
#include "model/models/itemroles.h"
#include "ui/common/tablenaming.h"

namespace tidemark {

TableChoiceModel::TableChoiceModel(ControlTableModel *tables, QObject *parent)
    : QAbstractListModel(parent)
    , m_tables(tables) {
    // Row r of the control table is row r + 1 here.
    connect(tables, &QAbstractItemModel::rowsAboutToBeInserted, this,
            [this](const QModelIndex &, int first, int last) { beginInsertRows({}, first + 1, last + 1); });
    connect(tables, &QAbstractItemModel::rowsInserted, this, [this] { endInsertRows(); });
    connect(tables, &QAbstractItemModel::rowsAboutToBeRemoved, this,
            [this](const QModelIndex &, int first, int last) { beginRemoveRows({}, first + 1, last + 1); });
    connect(tables, &QAbstractItemModel::rowsRemoved, this, [this] { endRemoveRows(); });
    connect(tables, &QAbstractItemModel::modelAboutToBeReset, this, [this] { beginResetModel(); });
    connect(tables, &QAbstractItemModel::modelReset, this, [this] { endResetModel(); });
    connect(tables, &QAbstractItemModel::layoutAboutToBeChanged, this, [this] { beginResetModel(); });
    connect(tables, &QAbstractItemModel::layoutChanged, this, [this] { endResetModel(); });
    connect(tables, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                emit dataChanged(index(topLeft.row() + 1), index(bottomRight.row() + 1));
            });
}

int TableChoiceModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : m_tables->rowCount() + 1;
}

QVariant TableChoiceModel::data(const QModelIndex &index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (index.row() == 0) {
        if (role == Qt::DisplayRole)
            return tr("All tables");
        return role == TableIdRole ? QVariant(qint64(0)) : QVariant();
    }
    const TableSpec &spec = m_tables->tableAt(index.row() - 1);
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole)
        return tableName(spec);
    return role == TableIdRole ? QVariant(spec.id) : QVariant();
}

int TableChoiceModel::rowOfTable(qint64 tableId) const {
    if (tableId == 0)
        return 0;
    const int row = m_tables->rowOfId(tableId);
    return row < 0 ? -1 : row + 1;
}

} // namespace tidemark
