// SPDX-License-Identifier: MIT
#include "ui/common/statusdelegate.h"

#include "model/domain/runrecord.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "ui/common/columnfitter.h"
#include "ui/common/resources.h"

#include <QFile>
#include <QHash>
#include <QTableView>

namespace tidemark {

QIcon statusIcon(const QString &statusName) {
    static QHash<QString, QIcon> cache;
    ensureResources();
    if (statusName.isEmpty())
        return {};
    auto it = cache.find(statusName);
    if (it == cache.end()) {
        const QString path = QStringLiteral(":/icons/status-%1.svg").arg(statusName);
        it = cache.insert(statusName, QFile::exists(path) ? QIcon(path) : QIcon());
    }
    return *it;
}

void tintByStatus(QStyleOptionViewItem *option, const QModelIndex &index) {
    const QVariant status = index.siblingAtColumn(0).data(StatusRole);
    if (!status.isValid())
        return;
    const auto value = IterationStatus(status.toInt());
    if (value == IterationStatus::Failed)
        option->backgroundBrush = QColor(220, 50, 47, 45);
    else if (value == IterationStatus::Warning)
        option->backgroundBrush = QColor(230, 160, 0, 40);
    else if (value == IterationStatus::Cancelled || value == IterationStatus::Interrupted)
        option->backgroundBrush = QColor(128, 128, 128, 30);
}

namespace {
constexpr int kIconSize = 16;
} // namespace

int statusColumnWidth(const QTableView *view, int column) {
    QStringList labels;
    for (int status = int(IterationStatus::Queued); status <= int(IterationStatus::Interrupted); ++status)
        labels << statusLabel(IterationStatus(status));
    // Failed is written in bold.
    QFont bold = view->font();
    bold.setBold(true);
    const int boldExtra = QFontMetrics(bold).horizontalAdvance(statusLabel(IterationStatus::Failed)) -
                          view->fontMetrics().horizontalAdvance(statusLabel(IterationStatus::Failed));
    return widthForSamples(view, column, labels, kIconSize + std::max(0, boldExtra));
}

void StatusDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    const QIcon icon = statusIcon(index.data(StatusNameRole).toString());
    if (!icon.isNull()) {
        option->icon = icon;
        option->features |= QStyleOptionViewItem::HasDecoration;
        option->decorationSize = QSize(kIconSize, kIconSize);
    }
    tintByStatus(option, index);
    if (index.data(StatusRole).toInt() == int(IterationStatus::Failed))
        option->font.setBold(true);
}

void StatusRowDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const {
    QStyledItemDelegate::initStyleOption(option, index);
    tintByStatus(option, index);
}

void FigureDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const {
    StatusRowDelegate::initStyleOption(option, index);
    option->textElideMode = Qt::ElideRight;
}

} // namespace tidemark
