// SPDX-License-Identifier: MIT
#include "ui/common/columnfitter.h"

#include "model/models/displayformat.h"

#include <QDateTime>
#include <QEvent>
#include <QFontMetricsF>
#include <QHeaderView>
#include <QScopedValueRollback>
#include <QStyle>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace tidemark {

namespace {

// The section the header stretches to the viewport's edge, or -1.
int stretchedSection(const QHeaderView *header) {
    if (!header->stretchLastSection())
        return -1;
    for (int visual = header->count() - 1; visual >= 0; --visual) {
        const int column = header->logicalIndex(visual);
        if (!header->isSectionHidden(column))
            return column;
    }
    return -1;
}

} // namespace

ColumnFitter::ColumnFitter(QTableView *view, int fill, int fillMinimum, int fillWanted, QList<int> optional)
    : QObject(view)
    , m_view(view)
    , m_viewport(view->viewport())
    , m_fill(fill)
    , m_fillMinimum(fillMinimum)
    , m_fillWanted(fillWanted)
    , m_optional(std::move(optional)) {
    QHeaderView *header = view->horizontalHeader();
    connect(header, &QHeaderView::sectionResized, this, [this, header](int column, int oldSize, int newSize) {
        // A drag on a handle. Hiding and showing come from the column menu (which says so);
        // the stretched last section follows the window.
        if (!m_fitting && oldSize > 0 && newSize > 0 && column != stretchedSection(header))
            keepUserLayout();
    });
    connect(header, &QHeaderView::sectionMoved, this, [this] {
        if (!m_fitting)
            keepUserLayout();
    });
    m_viewport->installEventFilter(this);
}

ColumnFitter *ColumnFitter::of(const QTableView *view) {
    return view->findChild<ColumnFitter *>(QString(), Qt::FindDirectChildrenOnly);
}

void ColumnFitter::keepUserLayout() {
    m_userLayout = true;
}

bool ColumnFitter::eventFilter(QObject *watched, QEvent *event) {
    // Nothing of the view is called before the event is known to be a resize: the viewport is
    // destroyed (and sent events) by the view's destructor, when the view is a QTableView no more.
    if (event->type() == QEvent::Resize && watched == m_viewport)
        fit();
    return QObject::eventFilter(watched, event);
}

void ColumnFitter::setGrowing(const QList<int> &columns) {
    for (int column : columns)
        m_growing.insert(column, m_view->horizontalHeader()->sectionSize(column));
    // What the cells need changes with the rows: laid out again once they have come in.
    auto *again = new QTimer(this);
    again->setSingleShot(true);
    again->setInterval(0);
    connect(again, &QTimer::timeout, this, &ColumnFitter::fit);
    QAbstractItemModel *model = m_view->model();
    const auto soon = [again] {
        again->start();
    };
    connect(model, &QAbstractItemModel::rowsInserted, again, soon);
    connect(model, &QAbstractItemModel::rowsRemoved, again, soon);
    connect(model, &QAbstractItemModel::modelReset, again, soon);
    connect(model, &QAbstractItemModel::layoutChanged, again, soon);
}

void ColumnFitter::grow(int spare) {
    QHeaderView *header = m_view->horizontalHeader();
    QHash<int, int> wants; // column -> the pixels it would take
    int wanted = 0;
    for (auto it = m_growing.cbegin(); it != m_growing.cend(); ++it) {
        if (header->isSectionHidden(it.key()))
            continue;
        const int need = std::min(static_cast<const QAbstractItemView *>(m_view)->sizeHintForColumn(it.key()),
                                  it.value() * kMaxGrowth) -
                         it.value();
        if (need > 0) {
            wants.insert(it.key(), need);
            wanted += need;
        }
    }
    if (wanted <= 0)
        return;
    for (auto it = wants.cbegin(); it != wants.cend(); ++it) {
        const int given = wanted <= spare ? it.value() : int(qint64(spare) * it.value() / wanted);
        header->resizeSection(it.key(), m_growing.value(it.key()) + given);
    }
}

int ColumnFitter::widthBeforeFill() const {
    const QHeaderView *header = m_view->horizontalHeader();
    int width = 0;
    for (int visual = 0; visual < header->visualIndex(m_fill); ++visual) {
        const int column = header->logicalIndex(visual);
        if (!header->isSectionHidden(column))
            width += header->sectionSize(column);
    }
    return width;
}

void ColumnFitter::fit() {
    if (m_userLayout || m_fitting || m_view->viewport()->width() <= 0)
        return;
    const QScopedValueRollback fitting(m_fitting, true);
    QHeaderView *header = m_view->horizontalHeader();
    const int room = m_view->viewport()->width();
    for (auto it = m_growing.cbegin(); it != m_growing.cend(); ++it)
        header->resizeSection(it.key(), it.value());
    for (int column : std::as_const(m_optional))
        header->showSection(column);
    for (int column : std::as_const(m_optional)) {
        if (widthBeforeFill() + m_fillWanted <= room)
            break;
        header->hideSection(column);
    }
    const int fillWidth =
        std::clamp(room - widthBeforeFill(), m_fillMinimum, std::max(m_fillMinimum, m_fillWanted));
    header->resizeSection(m_fill, fillWidth);
    if (m_growing.isEmpty())
        return;
    // What the columns take at their own widths: the last one, stretched to the viewport's edge
    // by the header, counts at its title's.
    const int stretched = stretchedSection(header);
    int used = widthBeforeFill() + fillWidth;
    for (int visual = header->visualIndex(m_fill) + 1; visual < header->count(); ++visual) {
        const int column = header->logicalIndex(visual);
        if (!header->isSectionHidden(column))
            used += column == stretched ? header->sectionSizeHint(column) : header->sectionSize(column);
    }
    if (room > used)
        grow(room - used);
}

int widthForSamples(const QTableView *view, int column, const QStringList &samples, int iconWidth) {
    // QCommonStyle's item layout: the text and the icon each have this margin on both sides.
    const int margin = view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
    const int icon = iconWidth > 0 ? iconWidth + 2 * margin : 0;
    const int gridLine = view->showGrid() ? 1 : 0; // the cell gives it up on its right
    // The style lays the text out in fractional pixels: a hinted font can come out a pixel wider
    // than QFontMetrics' rounded advance.
    const QFontMetricsF metrics(view->font());
    int width = view->horizontalHeader()->sectionSizeHint(column);
    for (const QString &sample : samples)
        width = std::max(width, int(std::ceil(metrics.horizontalAdvance(sample))) + 1 + 2 * margin + icon +
                                    gridLine);
    return width;
}

QString widestTime() {
    return formatTime(QDateTime(QDate(2028, 12, 28), QTime(20, 48, 48)));
}

QString widestZonedTime() {
    // formatTimeWithZone's zone, as long as abbreviations get (the display zone's may be shorter).
    return widestTime() + QStringLiteral(" AEDT");
}

QString widestCount() {
    return formatCount(99'999'999);
}

QString widestDuration() {
    return formatDuration(59 * 60'000 + 58'000);
}

} // namespace tidemark
