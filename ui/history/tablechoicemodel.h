// SPDX-License-Identifier: MIT
#pragma once

#include <QAbstractListModel>

namespace tidemark {

class ControlTableModel;

// The history's table filter choices: "All tables", then each table of the control table as
// "source → target" (TableIdRole: its id, 0 for all). A live view of the control-table model,
// not a copy: a table added or removed is one row inserted or removed here, so the combo box
// using it is never cleared and refilled (with 10,000 tables that took seconds per insert).
class TableChoiceModel : public QAbstractListModel {
    Q_OBJECT
public:
    explicit TableChoiceModel(ControlTableModel *tables, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    // The row of that table (0: all tables; -1: none).
    int rowOfTable(qint64 tableId) const;

private:
    ControlTableModel *m_tables;
};

} // namespace tidemark
