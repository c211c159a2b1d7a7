// SPDX-License-Identifier: MIT
#include "ui/run/progressdelegate.h"

#include "model/domain/runrecord.h"
#include "model/models/itemroles.h"
#include "ui/common/statusdelegate.h"

#include <QApplication>
#include <QPainter>
#include <QStyleOptionProgressBar>

namespace tidemark {

namespace {

// "379,000 / 1,000,000 · 42,863 rows/s · about 14.5 s left" drops its last parts, whole, when
// the bar is too narrow for them: the rows copied matter most, a cut-off estimate not at all.
QString fittedText(const QString &text, const QFontMetrics &metrics, int width) {
    const QString separator = QStringLiteral(" · ");
    QStringList parts = text.split(separator);
    while (parts.size() > 1 && metrics.horizontalAdvance(parts.join(separator)) > width)
        parts.removeLast();
    return parts.join(separator);
}

} // namespace

void ProgressDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                             const QModelIndex &index) const {
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    tintByStatus(&background, index);
    background.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    const double progress = index.data(ProgressRole).toDouble();
    QStyleOptionProgressBar bar;
    bar.rect = option.rect.adjusted(2, 2, -2, -2);
    bar.state = option.state | QStyle::State_Horizontal;
    bar.direction = option.direction;
    bar.fontMetrics = option.fontMetrics;
    // No fraction: busy while the iteration runs (minimum == maximum), else an empty bar.
    const bool busy = progress < 0 && index.data(StatusRole).toInt() == int(IterationStatus::Running);
    bar.minimum = 0;
    bar.maximum = busy ? 0 : 1000;
    bar.progress = progress < 0 ? 0 : int(progress * 1000);
    bar.text = fittedText(index.data(Qt::DisplayRole).toString(), option.fontMetrics, bar.rect.width() - 8);
    bar.textVisible = true;
    bar.textAlignment = Qt::AlignCenter;
    style->drawControl(QStyle::CE_ProgressBar, &bar, painter, widget);
}

QSize ProgressDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const {
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setWidth(qMax(size.width() + 16, 140));
    return size;
}

} // namespace tidemark
