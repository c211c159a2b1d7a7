// SPDX-License-Identifier: MIT
#pragma once

#include <QStyledItemDelegate>

namespace tidemark {

// Paints ProgressRole (0..1, or -1 unknown) as a progress bar with the cell's DisplayRole text
// ("120,000 / 200,000"), shortened to what the bar has room for (the whole text is the cell's
// tooltip). Stateless.
class ProgressDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    // What a bar `width` pixels wide shows of `text` ("379,000 / 1,000,000 · 42,863 rows/s ·
    // about 14.5 s left"): the whole text when it fits; else its figures rounded ("379k / 1M ·
    // 43k rows/s · 14.5 s left"); then without the rate, as the rows and the time left matter
    // most; then the rows alone, cut to the width when even they do not fit.
    static QString shownText(const QString &text, const QFontMetrics &metrics, int width);
    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace tidemark
