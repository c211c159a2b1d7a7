// SPDX-License-Identifier: MIT
// The window at 1024×768: every toolbar action on screen, the essential columns of the three
// views visible, and columns shown, hidden and fitted from the header's menu and remembered
// (with the splitters) on the next open.
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/itemroles.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/runhistorymodel.h"
#include "model/storage/workspacelocation.h"
#include "tests/ui/uifixture.h"
#include "ui/common/columnfitter.h"
#include "ui/common/workspacegateway.h"
#include "ui/connections/connectionsdialog.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/controltable/tabledialog.h"
#include "ui/history/historychart.h"
#include "ui/history/historypanel.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/run/iterationdetails.h"
#include "ui/run/progressdelegate.h"
#include "ui/run/runpanel.h"

#include <QAbstractAxis>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QMenu>
#include <QMessageBox>
#include <QProxyStyle>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QUndoStack>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

void addOrders(UiFixture &fixture) {
    makeOrders(fixture.src, 10);
    fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
}

// Whether `column` is shown and starts inside the viewport with at least `minimum` pixels of
// it visible (or all of it, when narrower).
bool onScreen(const QTableView *view, int column, int minimum = 40) {
    const QHeaderView *header = view->horizontalHeader();
    if (header->isSectionHidden(column))
        return false;
    const int left = header->sectionViewportPosition(column);
    const int wanted = std::min(minimum, header->sectionSize(column));
    return left >= 0 && left + wanted <= view->viewport()->width();
}

QString describeColumns(const QTableView *view) {
    const QHeaderView *header = view->horizontalHeader();
    QStringList parts;
    for (int c = 0; c < header->count(); ++c)
        parts << QStringLiteral("%1@%2+%3%4")
                     .arg(view->model()->headerData(c, Qt::Horizontal).toString())
                     .arg(header->sectionViewportPosition(c))
                     .arg(header->sectionSize(c))
                     .arg(header->isSectionHidden(c) ? QStringLiteral("(hidden)") : QString());
    return QStringLiteral("viewport %1: ").arg(view->viewport()->width()) + parts.join(QLatin1Char(' '));
}

// Whether every row's text in `column` is shown whole, not elided: the section is as wide as the
// text in the view's font with the cell's margins (QCommonStyle's: the focus frame's and one
// pixel, each side) and the grid line.
bool textWhole(const QTableView *view, int column, QString *why) {
    const int margin = view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        const QString text = view->model()->index(row, column).data().toString();
        const int needed =
            view->fontMetrics().horizontalAdvance(text) + 2 * margin + (view->showGrid() ? 1 : 0);
        if (view->columnWidth(column) < needed) {
            *why = QStringLiteral("\"%1\" needs %2 px, the column has %3")
                       .arg(text)
                       .arg(needed)
                       .arg(view->columnWidth(column));
            return false;
        }
    }
    return true;
}

// By name, so that this suite also builds against the window before the layout work.
QTableView *historyView(const MainWindow &window) {
    return window.findChild<QTableView *>(QStringLiteral("historyView"));
}

// Opens the header's context menu of `view` and returns it.
QMenu *openColumnMenu(QTableView *view) {
    QHeaderView *header = view->horizontalHeader();
    if (header->contextMenuPolicy() != Qt::CustomContextMenu)
        return nullptr;
    emit header->customContextMenuRequested(QPoint(10, header->height() / 2));
    return view->findChild<QMenu *>(QStringLiteral("columnMenu"));
}

QAction *menuAction(QMenu *menu, const QString &text) {
    for (QAction *action : menu->actions()) {
        if (action->text() == text)
            return action;
    }
    return nullptr;
}

// The texts the chart's scene draws outside its legend (its title, axis titles and labels), or
// (`legend`) in it, as shown: an elided one ends in "...". Apart, as the legend names the series
// as the axes' titles may.
QStringList chartTexts(QChart *chart, bool legend = false) {
    QStringList texts;
    if (!chart->scene())
        return texts;
    for (QGraphicsItem *item : chart->scene()->items()) {
        if (const auto *text = dynamic_cast<QGraphicsTextItem *>(item);
            text && text->isVisible() && chart->legend()->isAncestorOf(item) == legend)
            texts << text->toPlainText();
    }
    return texts;
}

// The texts of a chart, its legend's too, that are elided.
QStringList elidedChartTexts(QChart *chart) {
    QStringList elided;
    for (const QString &text : chartTexts(chart) + chartTexts(chart, true)) {
        if (text.endsWith(QStringLiteral("...")) || text.endsWith(QChar(0x2026)))
            elided << text;
    }
    return elided;
}

// The text of every progress bar a widget using it paints.
class BarTextRecorder : public QProxyStyle {
public:
    void drawControl(ControlElement element, const QStyleOption *option, QPainter *painter,
                     const QWidget *widget) const override {
        if (const auto *bar = qstyleoption_cast<const QStyleOptionProgressBar *>(option);
            bar && element == CE_ProgressBar)
            texts << bar->text;
        QProxyStyle::drawControl(element, option, painter, widget);
    }
    mutable QStringList texts;
};

// The text and elide mode of every item view cell a widget using it paints.
class CellTextRecorder : public QProxyStyle {
public:
    void drawControl(ControlElement element, const QStyleOption *option, QPainter *painter,
                     const QWidget *widget) const override {
        if (const auto *item = qstyleoption_cast<const QStyleOptionViewItem *>(option);
            item && element == CE_ItemViewItem)
            cells.insert(item->text, item->textElideMode);
        QProxyStyle::drawControl(element, option, painter, widget);
    }
    mutable QHash<QString, Qt::TextElideMode> cells;
};

} // namespace

class TestLayout : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void init() { QSettings().clear(); }

    void toolbarActionsOnScreenAt1024() {
        UiFixture fixture;
        addOrders(fixture);
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 1);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.size(), QSize(1024, 768));

        // The window's own toolbars; a dock's toolbar is laid out when its tab is shown.
        const QList<QToolBar *> toolbars = window.findChildren<QToolBar *>(Qt::FindDirectChildrenOnly);
        QVERIFY(!toolbars.isEmpty());
        QStringList seen;
        for (QToolBar *toolbar : toolbars) {
            QVERIFY(toolbar->isVisible());
            for (QAction *action : toolbar->actions()) {
                if (action->isSeparator())
                    continue;
                QWidget *widget = toolbar->widgetForAction(action);
                QVERIFY2(widget && widget->isVisible(), qPrintable(action->objectName() + " hidden (»)"));
                QVERIFY2(toolbar->rect().contains(widget->geometry()),
                         qPrintable(action->objectName() + " outside its toolbar"));
                seen << action->objectName();
            }
        }
        for (const char *name :
             {"actionResume", "actionBackfill", "actionUndo", "actionRedo", "actionRunAll"})
            QVERIFY2(seen.contains(QLatin1String(name)), name);
    }

    void essentialColumnsOnScreenAt1024() {
        UiFixture fixture;
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 0);
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        const QTableView *tables = window.controlTable()->view();
        for (int column :
             {ControlTableModel::Source, ControlTableModel::LastWatermark, ControlTableModel::LastStatus})
            QVERIFY2(onScreen(tables, column), qPrintable(describeColumns(tables)));

        const QTableView *grid = window.runPanel()->view();
        for (int column : {IterationGridModel::Status, IterationGridModel::RowsRead,
                           IterationGridModel::RowsWritten, IterationGridModel::RowsSkipped})
            QVERIFY2(onScreen(grid, column), qPrintable(describeColumns(grid)));
        // The watermarks are shown, and reachable by scrolling when the pane is narrow.
        QVERIFY(!grid->isColumnHidden(IterationGridModel::WatermarkBefore));
        QVERIFY(!grid->isColumnHidden(IterationGridModel::WatermarkAfter));

        const QTableView *history = historyView(window);
        for (int column : {RunHistoryModel::Status, RunHistoryModel::RowsRead, RunHistoryModel::RowsWritten})
            QVERIFY2(onScreen(history, column), qPrintable(describeColumns(history)));
    }

    // The demo's run at 1024×768: its 8 rows, their status, times, figures and progress on
    // screen in the grid, and the history's figures up to its problems beside the chart.
    void aRunOfEightTablesFitsAt1024() {
        UiFixture fixture;
        for (int table = 1; table <= 8; ++table) {
            const QString name = QStringLiteral("orders_%1").arg(table);
            makeOrders(fixture.src, 5, 1, name);
            fixture.addTable(UiFixture::draft(name, QStringLiteral("updated_at")));
        }
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 8);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.runAll();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);

        const QTableView *grid = window.runPanel()->view();
        QCOMPARE(grid->model()->rowCount(), 8);
        for (int row = 0; row < 8; ++row) {
            const QRect cell = grid->visualRect(grid->model()->index(row, IterationGridModel::Source));
            QVERIFY2(grid->viewport()->rect().contains(cell),
                     qPrintable(QStringLiteral("row %1 at y %2..%3, viewport %4 px high")
                                    .arg(row + 1)
                                    .arg(cell.top())
                                    .arg(cell.bottom())
                                    .arg(grid->viewport()->height())));
        }
        for (int column :
             {IterationGridModel::Status, IterationGridModel::Started, IterationGridModel::RowsRead,
              IterationGridModel::RowsWritten, IterationGridModel::RowsSkipped})
            QVERIFY2(onScreen(grid, column, grid->columnWidth(column)), qPrintable(describeColumns(grid)));
        QVERIFY2(onScreen(grid, IterationGridModel::Progress, 140), qPrintable(describeColumns(grid)));
        // Showing a run is not laying the columns out.
        QVERIFY(ColumnFitter::of(grid)->isFitting());
        QString why;
        QVERIFY2(textWhole(grid, IterationGridModel::Started, &why), qPrintable(why));
        QVERIFY2(textWhole(grid, IterationGridModel::RowsRead, &why), qPrintable(why));

        const QTableView *history = historyView(window);
        QTRY_VERIFY(history->model()->rowCount() > 0);
        for (int column : {RunHistoryModel::Status, RunHistoryModel::Started, RunHistoryModel::RowsRead,
                           RunHistoryModel::RowsWritten, RunHistoryModel::RowsSkipped})
            QVERIFY2(onScreen(history, column, history->columnWidth(column)),
                     qPrintable(describeColumns(history)));
        QVERIFY2(onScreen(history, RunHistoryModel::Problems,
                          history->horizontalHeader()->sectionSizeHint(RunHistoryModel::Problems)),
                 qPrintable(describeColumns(history)));
        QVERIFY2(textWhole(history, RunHistoryModel::Started, &why), qPrintable(why));
    }

    // The history chart at 1024×768: its value axes keep their titles and figures whole, the
    // legend its names.
    void chartAxisTitlesWholeAt1024() {
        UiFixture fixture;
        addOrders(fixture);
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 1);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.runAll();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        HistoryChart *chart = window.historyPanel()->chart();
        QTRY_VERIFY(chart->pointCount() > 0);
        // By their titles: a refresh replaces the chart and its axes.
        QStringList titles;
        for (const QAbstractAxis *axis : chart->chart()->axes(Qt::Vertical))
            titles << axis->titleText();
        QCOMPARE(titles.size(), 2);
        for (const QString &title : titles) {
            QVERIFY(!title.isEmpty());
            QTRY_VERIFY2(chartTexts(chart->chart()).contains(title),
                         qPrintable(QStringLiteral("\"%1\" not whole in a chart %2 px high: %3")
                                        .arg(title)
                                        .arg(chart->height())
                                        .arg(chartTexts(chart->chart()).join(QStringLiteral(" | ")))));
        }
        // Nor the axes' labels nor the legend's names: QtCharts had cut the figures of an axis to
        // "..." and the legend to "Failed / cancelled /...".
        QTRY_VERIFY2(elidedChartTexts(chart->chart()).isEmpty(),
                     qPrintable(elidedChartTexts(chart->chart()).join(QStringLiteral(" | "))));
    }

    // A running table's progress at 1024×768 shows the rows copied and the time left, its
    // figures rounded to make room; the rate gives way first.
    void progressShowsRowsAndTimeLeftAt1024() {
        UiFixture fixture; // with no workspace the welcome page stands in for the panels
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 0);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCoreApplication::processEvents();
        const QTableView *grid = window.runPanel()->view();
        const int width = grid->columnWidth(IterationGridModel::Progress);

        // The running text as the grid model spells it (tst_iterationgridmodel), in a cell of
        // that width painted by the grid's delegate.
        const QString full = QStringLiteral("379,000 / 1,000,000 · 42,863 rows/s · about 14.5 s left");
        QStandardItemModel model(1, 1);
        auto *item = new QStandardItem(full);
        item->setData(0.379, ProgressRole);
        item->setData(int(IterationStatus::Running), StatusRole);
        model.setItem(0, 0, item);
        QTableView cell;
        BarTextRecorder recorder;
        cell.setStyle(&recorder);
        cell.setFont(grid->font());
        cell.setModel(&model);
        cell.setItemDelegate(new ProgressDelegate(&cell));
        cell.setColumnWidth(0, width);
        cell.resize(width + 60, 80);
        cell.show();
        QVERIFY(QTest::qWaitForWindowExposed(&cell));
        recorder.texts.clear();
        cell.viewport()->grab();
        QVERIFY(!recorder.texts.isEmpty());
        const QString shown = recorder.texts.last();
        QVERIFY2(shown.contains(QStringLiteral("379")) && shown.contains(QStringLiteral("14.5 s left")),
                 qPrintable(QStringLiteral("a %1 px bar shows \"%2\"").arg(width).arg(shown)));

        // Wide enough, the whole text; the grid's tooltip has it whatever the width.
        cell.setColumnWidth(0, cell.fontMetrics().horizontalAdvance(full) + 40);
        cell.resize(cell.columnWidth(0) + 60, 80);
        recorder.texts.clear();
        cell.viewport()->grab();
        QVERIFY(!recorder.texts.isEmpty());
        QCOMPARE(recorder.texts.last(), full);
    }

    // A whole-window table's rows in its open transaction at 1024×768: the Written cell keeps
    // its figures and cuts the word after them (the tooltip has the whole sentence).
    void pendingRowsKeepTheirFiguresAt1024() {
        UiFixture fixture;
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 0);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        IterationGridModel *live = window.runPanel()->liveModel();
        IterationRecord record;
        record.runId = 9;
        record.tableId = 1;
        record.source = QStringLiteral("src:orders");
        record.target = QStringLiteral("dst:orders");
        live->beginRun(9, {record});
        record.status = IterationStatus::Running;
        record.startedAt = QDateTime::currentDateTimeUtc();
        record.windowRows = 300'000;
        record.rowsRead = 112'400;
        record.rowsPending = 112'400;
        live->updateIteration(record);
        QTableView *grid = window.runPanel()->view();
        const QString text = grid->model()->index(0, IterationGridModel::RowsWritten).data().toString();
        QCOMPARE(text, QStringLiteral("0 (+112,400 pending)"));
        CellTextRecorder recorder;
        grid->setStyle(&recorder);
        grid->viewport()->grab();
        grid->setStyle(nullptr);
        QVERIFY(recorder.cells.contains(text));
        QCOMPARE(recorder.cells.value(text), Qt::ElideRight);
        const QString shown = grid->fontMetrics().elidedText(
            text, Qt::ElideRight, grid->columnWidth(IterationGridModel::RowsWritten) - 8);
        QVERIFY2(shown.startsWith(QStringLiteral("0 (+112,400")), qPrintable(shown));
    }

    // Columns left out for a narrow window come back when it widens, until the user lays the
    // columns out: then they stay as the user left them.
    void fittedColumnsFollowTheWindowUntilTheUserLaysThemOut() {
        UiFixture fixture;
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 0);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTableView *grid = window.runPanel()->view();
        QVERIFY(grid->isColumnHidden(IterationGridModel::Target));
        window.resize(1800, 900);
        QTRY_VERIFY(!grid->isColumnHidden(IterationGridModel::Target));
        QVERIFY(!grid->isColumnHidden(IterationGridModel::Duration));
        QVERIFY(
            onScreen(grid, IterationGridModel::Progress, grid->columnWidth(IterationGridModel::Progress)));

        grid->horizontalHeader()->resizeSection(IterationGridModel::Source, 150);
        window.resize(1024, 768);
        QTRY_VERIFY(grid->viewport()->width() < 800);
        QVERIFY(!grid->isColumnHidden(IterationGridModel::Target));
        QCOMPARE(grid->columnWidth(IterationGridModel::Source), 150);
    }

    void columnMenuInEveryView() {
        UiFixture fixture;
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 0);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const std::pair<QTableView *, int> views[] = {
            {window.controlTable()->view(), ControlTableModel::LastStatus},
            {window.runPanel()->view(), IterationGridModel::Status},
            {historyView(window), RunHistoryModel::Status},
        };
        for (const auto &[view, statusColumn] : views) {
            QMenu *menu = openColumnMenu(view);
            QVERIFY2(menu, qPrintable(view->objectName()));
            const QString statusTitle = view->model()->headerData(statusColumn, Qt::Horizontal).toString();
            // The status column stays: its entry is checked and cannot be unchecked.
            QAction *status = menuAction(menu, statusTitle);
            QVERIFY(status && status->isChecked() && !status->isEnabled());
            // Hide the first column, then show it again.
            const QString firstTitle = view->model()->headerData(0, Qt::Horizontal).toString();
            QAction *first = menuAction(menu, firstTitle);
            QVERIFY(first && first->isChecked());
            first->trigger();
            QVERIFY(view->horizontalHeader()->isSectionHidden(0));
            menu->close();
            menu = openColumnMenu(view);
            first = menuAction(menu, firstTitle);
            QVERIFY(first && !first->isChecked());
            first->trigger();
            QVERIFY(!view->horizontalHeader()->isSectionHidden(0));
            // Fit to contents: a column squeezed to 5 pixels grows back to its title.
            view->setColumnWidth(statusColumn, 5);
            QAction *fit = menuAction(menu, QStringLiteral("Fit Columns to Contents"));
            QVERIFY(fit);
            fit->trigger();
            QVERIFY(view->columnWidth(statusColumn) > 5);
            menu->close();
        }
    }

    void columnsAndSplittersRemembered() {
        UiFixture fixture;
        QList<int> mainSizes;
        int sourceWidth = 0;
        {
            MainWindow window;
            window.resize(1024, 768);
            openInWindow(fixture, window, 0);
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QTableView *tables = window.controlTable()->view();
            QMenu *menu = openColumnMenu(tables);
            QVERIFY(menu);
            // The target (the keys and the mode may already make room at 1024 pixels).
            const int target = ControlTableModel::Target;
            menuAction(menu, tables->model()->headerData(target, Qt::Horizontal).toString())->trigger();
            menu->close();
            QVERIFY(tables->isColumnHidden(target));
            tables->setColumnWidth(ControlTableModel::Source, 97);
            window.runPanel()->view()->setColumnWidth(IterationGridModel::RowsRead, 91);
            historyView(window)->hideColumn(RunHistoryModel::Trigger);
            auto *splitter = window.findChild<QSplitter *>(QStringLiteral("mainSplitter"));
            splitter->setSizes({200, 400});
            mainSizes = splitter->sizes();
            sourceWidth = tables->columnWidth(ControlTableModel::Source);
            QVERIFY(window.close());
        }
        MainWindow again;
        again.resize(1024, 768);
        openInWindow(fixture, again, 0);
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QTableView *tables = again.controlTable()->view();
        QVERIFY(tables->isColumnHidden(ControlTableModel::Target));
        QCOMPARE(tables->columnWidth(ControlTableModel::Source), sourceWidth);
        QCOMPARE(again.runPanel()->view()->columnWidth(IterationGridModel::RowsRead), 91);
        QVERIFY(historyView(again)->isColumnHidden(RunHistoryModel::Trigger));
        // The upper pane is where the user put the handle; the lower one takes what the docks
        // below leave (the tabbed History/Schedules dock area is laid out again when shown).
        const QList<int> restored = again.findChild<QSplitter *>(QStringLiteral("mainSplitter"))->sizes();
        QCOMPARE(restored.size(), mainSizes.size());
        QVERIFY2(
            qAbs(restored[0] - mainSizes[0]) <= 10,
            qPrintable(QStringLiteral("upper pane: %1 px, saved %2 px").arg(restored[0]).arg(mainSizes[0])));
        QVERIFY(!tables->isColumnHidden(ControlTableModel::LastStatus));
    }

    void tabReachesEveryPanel() {
        UiFixture fixture;
        addOrders(fixture);
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 1);
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTableView *tables = window.controlTable()->view();
        tables->setFocus();
        QTRY_VERIFY(tables->hasFocus());
        QSet<QString> reached;
        for (int press = 0; press < 80; ++press) {
            QWidget *focus = QApplication::focusWidget();
            QVERIFY(focus);
            reached << focus->objectName();
            QTest::keyClick(focus, Qt::Key_Tab);
        }
        for (const char *name : {"controlTableView", "controlTableFilter", "iterationGrid", "historyView",
                                 "historyTableFilter", "concurrency"})
            QVERIFY2(reached.contains(QLatin1String(name)), name);
    }

    void pluralsAndUndoTexts() {
        UiFixture fixture;
        for (const char *name : {"a", "b"}) {
            makeOrders(fixture.src, 5, 1, QLatin1String(name));
            fixture.addTable(UiFixture::draft(QLatin1String(name), QStringLiteral("updated_at")));
        }
        MainWindow window;
        openInWindow(fixture, window, 2);
        QCOMPARE(tr("%n table(s)", nullptr, 1), QStringLiteral("1 table"));
        QCOMPARE(tr("%n table(s)", nullptr, 7), QStringLiteral("7 tables"));
        QCOMPARE(tr("%n table(s)", nullptr, 0), QStringLiteral("0 tables"));

        // Every undo text names the table as source → target, or counts them.
        QTableView *tables = window.controlTable()->view();
        QUndoStack *stack = window.controlTable()->undoStack();
        tables->selectAll();
        window.findChild<QAction *>(QStringLiteral("actionPause"))->trigger();
        QTRY_COMPARE(stack->undoText(), QStringLiteral("Pause 2 tables"));
        tables->clearSelection();
        tables->selectRow(0);
        const QString first = tables->model()->index(0, ControlTableModel::Source).data().toString() +
                              QStringLiteral(" → ") +
                              tables->model()->index(0, ControlTableModel::Target).data().toString();
        window.findChild<QAction *>(QStringLiteral("actionResume"))->trigger();
        QTRY_COMPARE(stack->undoText(), QStringLiteral("Resume table %1").arg(first));
        // The toolbar button keeps a short label, the tooltip names the command.
        auto *undo = window.findChild<QAction *>(QStringLiteral("actionUndo"));
        QCOMPARE(undo->iconText(), QStringLiteral("Undo"));
        QVERIFY(undo->toolTip().contains(first));
    }

    void helpMenu() {
        UiFixture fixture;
        MainWindow window;
        openInWindow(fixture, window, 0);

        for (const char *name : {"actionAbout", "actionKeyboardShortcuts", "actionLogFile"})
            QVERIFY2(window.findChild<QAction *>(QLatin1String(name)), name);
        window.findChild<QAction *>(QStringLiteral("actionAbout"))->trigger();
        auto *about = window.findChild<QMessageBox *>(QStringLiteral("aboutBox"));
        QVERIFY(about);
        QVERIFY(about->text().contains(QStringLiteral(TIDEMARK_VERSION)));
        QVERIFY(about->text().contains(QString::fromLatin1(qVersion())));
        QVERIFY(about->text().contains(QStringLiteral("MIT")));
        about->close();

        // The shortcuts dialog lists every action that has a shortcut, from the actions.
        window.findChild<QAction *>(QStringLiteral("actionKeyboardShortcuts"))->trigger();
        auto *list = window.findChild<QTableWidget *>(QStringLiteral("shortcutsTable"));
        QVERIFY(list);
        QStringList listed;
        for (int row = 0; row < list->rowCount(); ++row)
            listed << list->item(row, 1)->text();
        int withShortcut = 0;
        for (QAction *action : window.findChildren<QAction *>()) {
            if (action->shortcut().isEmpty())
                continue;
            ++withShortcut;
            const QString key = action->shortcut().toString(QKeySequence::NativeText);
            QVERIFY2(std::any_of(
                         listed.begin(), listed.end(),
                         [&](const QString &keys) { return keys.split(QStringLiteral(", ")).contains(key); }),
                     qPrintable(action->objectName() + QLatin1Char(' ') + key));
        }
        QVERIFY(withShortcut >= 15);
        QCOMPARE(list->rowCount(), withShortcut);
        list->window()->close();

        window.findChild<QAction *>(QStringLiteral("actionLogFile"))->trigger();
        auto *path = window.findChild<QLabel *>(QStringLiteral("logFilePath"));
        QVERIFY(path);
        QVERIFY2(
            path->text().contains(QDir::toNativeSeparators(WorkspaceLocation::logFileFor(fixture.wsPath))),
            qPrintable(path->text()));
        QVERIFY(window.findChild<QPushButton *>(QStringLiteral("openLogFolder")));
    }

    void f5WithoutTablesSaysWhy() {
        UiFixture fixture;
        MainWindow window;
        openInWindow(fixture, window, 0);
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_F5);
        QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("no tables")),
                 qPrintable(window.statusBar()->currentMessage()));
        QVERIFY(!window.coordinator()->isRunning());
    }

    void firstLaunchGuides() {
        UiFixture fixture;
        MainWindow window;
        openInWindow(fixture, window, 0);
        auto *steps = window.findChild<QWidget *>(QStringLiteral("firstSteps"));
        QVERIFY(steps);
        QTRY_VERIFY(steps->isVisible());
        QTest::mouseClick(window.findChild<QPushButton *>(QStringLiteral("firstStepsConnections")),
                          Qt::LeftButton);
        auto *connections = window.findChild<ConnectionsDialog *>();
        QVERIFY(connections && connections->isVisible());
        connections->close();
        QTest::mouseClick(window.findChild<QPushButton *>(QStringLiteral("firstStepsAddTable")),
                          Qt::LeftButton);
        auto *tableDialog = window.findChild<TableDialog *>();
        QVERIFY(tableDialog && tableDialog->isVisible());
        tableDialog->close();

        // Once the workspace has a table, the guide goes.
        addOrders(fixture);
        window.controlTable()->reload();
        QTRY_COMPARE(window.controlTable()->model()->rowCount(), 1);
        QVERIFY(!steps->isVisible());
    }

    // The first-steps bar is decided with the opening, before the tables are read, so it comes
    // with the window's first frame: an empty workspace has it when workspaceOpened is emitted
    // (the gateway's first read has not come back then); a workspace with tables has it neither
    // then nor once its tables are read.
    void firstStepsComeWithTheOpening() {
        for (const bool withTable : {false, true}) {
            UiFixture fixture;
            if (withTable)
                addOrders(fixture);
            MainWindow window;
            window.show();
            auto *steps = window.findChild<QWidget *>(QStringLiteral("firstSteps"));
            QVERIFY(steps);
            QList<bool> shownAtOpening;
            std::unique_ptr<QSignalSpy> tablesRead;
            connect(&window, &MainWindow::workspaceOpened, this, [&] {
                shownAtOpening << steps->isVisible();
                QCOMPARE(window.controlTable()->model()->rowCount(), 0); // not read yet
                tablesRead = std::make_unique<QSignalSpy>(window.gateway(), &WorkspaceGateway::tablesLoaded);
            });
            window.openWorkspace(fixture.wsPath);
            QTRY_COMPARE(shownAtOpening.size(), 1);
            QCOMPARE(shownAtOpening.constFirst(), !withTable);
            QTRY_VERIFY(tablesRead && tablesRead->size() == 1);
            QCOMPARE(window.controlTable()->model()->rowCount(), withTable ? 1 : 0);
            QCOMPARE(steps->isVisible(), !withTable);
        }
    }

    void longErrorsWrapInTheDetails() {
        IterationDetails details;
        details.resize(300, 500);
        details.show();
        QVERIFY(QTest::qWaitForWindowExposed(&details));
        IterationRecord record;
        record.source = QStringLiteral("src:orders");
        record.target = QStringLiteral("dst:orders");
        record.status = IterationStatus::Failed;
        record.error = QStringLiteral("cannot open /var/lib/tidemark/") + QString(200, QLatin1Char('x')) +
                       QStringLiteral("/target.db: no such file or directory");
        details.showIteration(record);
        auto *error = details.findChild<QLabel *>(QStringLiteral("iterationError"));
        QVERIFY(error && error->isVisible());
        // The label fits the pane (no forced width) and takes several lines.
        QVERIFY2(error->minimumSizeHint().width() <= 300,
                 qPrintable(QString::number(error->minimumSizeHint().width())));
        QVERIFY(error->width() <= details.width());
        QVERIFY(error->heightForWidth(280) >= 3 * error->fontMetrics().height());
        QCOMPARE(error->toolTip(), record.error);
    }
};

QTEST_MAIN(TestLayout)
#include "tst_layout.moc"
