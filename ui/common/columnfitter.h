// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QStringList>

class QTableView;
class QWidget;

namespace tidemark {

// Lays a table view's columns out for the room it has, until the user lays them out
// (resizes, moves, shows or hides one) or a layout of theirs is restored: the columns up to
// `fill` (in visual order) stay on screen and `fill` takes the room they leave, between
// `fillMinimum` and `fillWanted` pixels. While that room is under `fillWanted`, the `optional`
// columns are hidden, first ones first, and shown again once the view is wide enough. Columns
// after `fill` stay a scroll away. The fitter is the view's child.
class ColumnFitter : public QObject {
    Q_OBJECT
public:
    ColumnFitter(QTableView *view, int fill, int fillMinimum, int fillWanted, QList<int> optional);

    // Room left over once every column has its width goes to `columns` (names, watermarks), each
    // up to what its cells need (at most kMaxGrowth times its width now), not to the last column.
    // Laid out again as rows come and go.
    void setGrowing(const QList<int> &columns);
    static constexpr int kMaxGrowth = 3;

    // The user's own layout is shown (restored, or changed from the header): fitting stops.
    void keepUserLayout();
    bool isFitting() const { return !m_userLayout; }

    // The fitter of `view`, if it has one.
    static ColumnFitter *of(const QTableView *view);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void fit();
    int widthBeforeFill() const;
    void grow(int spare);

    QTableView *m_view;
    QWidget *m_viewport; // the view's, as it was when the fitter was made
    int m_fill;
    int m_fillMinimum;
    int m_fillWanted;
    QList<int> m_optional;
    QHash<int, int> m_growing; // column -> its width before growing
    bool m_userLayout = false;
    bool m_fitting = false; // the fitter's own resizes are not the user's
};

// The width `column` of `view` needs to show each of `samples` whole, in the view's font with
// the cell's margins (and an icon `iconWidth` pixels wide before the text), and never less
// than its title.
int widthForSamples(const QTableView *view, int column, const QStringList &samples, int iconWidth = 0);

// Cells at their widest, as displayformat.h writes them, to size columns by.
QString widestTime();      // a time of day in the last days of a year
QString widestZonedTime(); // the same, its zone named
QString widestCount();     // 99,999,999 rows
QString widestDuration();  // an hour less a second

} // namespace tidemark
