// SPDX-License-Identifier: MIT
#pragma once

#include <QIcon>
#include <QStyledItemDelegate>

class QTableView;

namespace tidemark {

// The icon of a status name ("succeeded", "no_new_rows", ...) from the app's resources;
// a null icon for an empty or unknown name.
QIcon statusIcon(const QString &statusName);

// Paints a status cell as icon + word, from StatusNameRole (icon) and DisplayRole (word), and
// tints the background of failed and warning rows so they stand out in any column it paints.
// Stateless: it reads everything from the index.
class StatusDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

// The default delegate of grids whose rows carry StatusRole: failed rows get a red tint,
// warnings an amber one, so they stand out whichever column the eye is on.
class StatusRowDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

// A StatusRowDelegate for a figure with a remark after it ("0 (+1,200 pending)"): a narrow
// cell cuts the remark (whole in the tooltip), never the figure.
class FigureDelegate : public StatusRowDelegate {
    Q_OBJECT
public:
    using StatusRowDelegate::StatusRowDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

// The width of a StatusDelegate column that shows every status whole.
int statusColumnWidth(const QTableView *view, int column);

// Applies the failed/warning tint to `option` from the row's StatusRole.
void tintByStatus(QStyleOptionViewItem *option, const QModelIndex &index);

} // namespace tidemark
