// SPDX-License-Identifier: MIT
#pragma once

#include <QStyledItemDelegate>

namespace tidemark {

// Paints ProgressRole (0..1, or -1 unknown) as a progress bar with the cell's DisplayRole text
// ("120,000 / 200,000"). Stateless.
class ProgressDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace tidemark
