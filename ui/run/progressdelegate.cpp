// SPDX-License-Identifier: MIT
#include "ui/run/progressdelegate.h"

#include "model/domain/runrecord.h"
#include "model/models/itemroles.h"
#include "ui/common/statusdelegate.h"

#include <QApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QRegularExpression>
#include <QStyleOptionProgressBar>

namespace tidemark {

namespace {

const QString kSeparator = QStringLiteral(" · ");

// 379,000 as "379k", 1,250,000 as "1.3M": three significant figures at most.
QString roundedCount(qint64 value) {
    static const std::pair<qint64, const char *> units[] = {
        {1'000'000'000'000, "T"}, {1'000'000'000, "G"}, {1'000'000, "M"}, {1'000, "k"}};
    for (const auto &[size, unit] : units) {
        if (value < size)
            continue;
        const double scaled = double(value) / double(size);
        QString number = QString::number(scaled, 'f', scaled < 10 ? 1 : 0);
        if (number.endsWith(QLatin1String(".0")))
            number.chop(2);
        return number + QLatin1String(unit);
    }
    return QString::number(value);
}

// The model's counts (formatCount: digits grouped by commas) rounded, and "about" dropped.
QString rounded(const QString &text) {
    static const QRegularExpression count(QStringLiteral(R"(\b\d{1,3}(?:,\d{3})+\b)"));
    QString result;
    qsizetype from = 0;
    for (const QRegularExpressionMatch &match : count.globalMatch(text)) {
        result += text.mid(from, match.capturedStart() - from);
        result += roundedCount(match.captured().remove(QLatin1Char(',')).toLongLong());
        from = match.capturedEnd();
    }
    result += text.mid(from);
    return result.replace(QStringLiteral("about "), QString());
}

bool isRate(const QString &part) {
    return part.endsWith(QLatin1String("/s"));
}

} // namespace

QString ProgressDelegate::shownText(const QString &text, const QFontMetrics &metrics, int width) {
    const QString short_ = rounded(text);
    QStringList parts = short_.split(kSeparator);
    parts.erase(std::remove_if(parts.begin() + 1, parts.end(), isRate), parts.end());
    for (const QString &candidate : {text, short_, parts.join(kSeparator)}) {
        if (metrics.horizontalAdvance(candidate) <= width)
            return candidate;
    }
    // Words, not figures (why a queued iteration waits): cut, the tooltip has all of it.
    return metrics.elidedText(parts.first(), Qt::ElideRight, width);
}

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
    bar.text = shownText(index.data(Qt::DisplayRole).toString(), option.fontMetrics, bar.rect.width() - 8);
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
