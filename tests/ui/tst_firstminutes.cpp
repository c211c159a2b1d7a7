// SPDX-License-Identifier: MIT
// A newcomer's first minutes with the window: the welcome page with no workspace, the last
// workspace reopened, a missing path offered for creation, the "No runner" banner, missed
// firings shown as missed, the tray's menu, and one count for the same iteration in the grid,
// the run header, the history and the CLI.

#include "model/domain/runrecord.h"
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/runhistorymodel.h"
#include "model/models/schedulelistmodel.h"
#include "model/schedule/firetimes.h"
#include "model/schedule/tablenextruns.h"
#include "model/storage/serverworkspaceaddress.h"
#include "tests/ui/uifixture.h"
#include "ui/backfill/backfilldialog.h"
#include "ui/common/workspacegateway.h"
#include "ui/connections/connectionsdialog.h"
#include "ui/controltable/tabledialog.h"
#include "ui/history/historypanel.h"
#include "ui/mainwindow/welcomepage.h"
#include "ui/mainwindow/windowtray.h"
#include "ui/run/runpanel.h"
#include "ui/schedules/runnerbanner.h"
#include "ui/schedules/runnersetupdialog.h"
#include "ui/schedules/scheduledialog.h"
#include "ui/schedules/schedulespanel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableView>
#include <QUndoStack>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

void setRecent(const QStringList &paths, bool reopenLast = true) {
    QSettings settings;
    settings.setValue(QStringLiteral("workspace/recent"), paths);
    settings.setValue(QStringLiteral("workspace/reopenLast"), reopenLast);
    settings.remove(QStringLiteral("window/state")); // docks as a first start has them
}

QDockWidget *dock(MainWindow &window, const char *name) {
    return window.findChild<QDockWidget *>(QString::fromLatin1(name));
}

// The widgets Tab visits in `dialog`, once round from its first: shown, enabled, taking focus.
QList<QWidget *> tabChain(QWidget *dialog) {
    QList<QWidget *> chain;
    for (QWidget *w = dialog->nextInFocusChain(); w != dialog && chain.size() < 500;
         w = w->nextInFocusChain())
        if (dialog->isAncestorOf(w) && w->isVisible() && w->isEnabled() &&
            (w->focusPolicy() & Qt::TabFocus) &&
            !w->focusProxy() && // a spin box or an editable combo box: its line edit takes the focus
            QRect(w->mapTo(dialog, QPoint()), w->size()).intersects(dialog->rect())) // not a hidden dock tab
            chain << w;
    return chain;
}

// Where Tab goes against the reading order of `dialog` (a line down, or right along a line),
// as "from -> to" by object name or text; empty when it never does. The chain is a ring: it is
// read from the widget at the top left.
QStringList tabOutOfOrder(QWidget *dialog) {
    const auto name = [](const QWidget *w) {
        if (!w->objectName().isEmpty())
            return w->objectName();
        if (const auto *button = qobject_cast<const QAbstractButton *>(w))
            return button->text();
        return QString::fromLatin1(w->metaObject()->className());
    };
    QList<QWidget *> chain = tabChain(dialog);
    const auto first = std::min_element(chain.begin(), chain.end(), [dialog](QWidget *a, QWidget *b) {
        const QPoint pa = a->mapTo(dialog, QPoint()), pb = b->mapTo(dialog, QPoint());
        return std::pair(pa.y(), pa.x()) < std::pair(pb.y(), pb.x());
    });
    std::rotate(chain.begin(), first, chain.end());
    QStringList wrong;
    for (qsizetype i = 1; i < chain.size(); ++i) {
        const QRect a(chain.at(i - 1)->mapTo(dialog, QPoint()), chain.at(i - 1)->size());
        const QRect b(chain.at(i)->mapTo(dialog, QPoint()), chain.at(i)->size());
        const bool sameLine = b.top() < a.bottom() && a.top() < b.bottom();
        const bool inOrder = sameLine ? b.left() >= a.right() : b.top() >= a.center().y();
        if (!inOrder)
            wrong << name(chain.at(i - 1)) + QStringLiteral(" -> ") + name(chain.at(i));
    }
    return wrong;
}

} // namespace

class TestFirstMinutes : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    // No workspace: a welcome page with the ways in and the recent workspaces, not empty panes.
    void welcomeStateWithoutAWorkspace() {
        UiFixture fixture;
        const QString missing = fixture.filePath(QStringLiteral("gone.tidemark"));
        setRecent({fixture.wsPath, missing}, false);
        MainWindow window;
        window.show();
        QVERIFY(window.isWelcomeShown());
        WelcomePage *welcome = window.welcomePage();
        QVERIFY(welcome->isVisible());
        QVERIFY(dock(window, "historyDock")->isHidden());
        QVERIFY(dock(window, "schedulesDock")->isHidden());
        for (const char *button :
             {"actionNewWorkspaceButton", "actionOpenWorkspaceButton", "actionOpenDemoButton"}) {
            auto *push = welcome->findChild<QPushButton *>(QString::fromLatin1(button));
            QVERIFY2(push && push->isVisible(), button);
        }
        QVERIFY(welcome->findChild<QPushButton *>(QStringLiteral("actionNewWorkspaceButton"))->isEnabled());
        QVERIFY(welcome->findChild<QPushButton *>(QStringLiteral("actionOpenWorkspaceButton"))->isEnabled());
        // The demo is there in a source checkout, or the button says why not.
        auto *demo = welcome->findChild<QPushButton *>(QStringLiteral("actionOpenDemoButton"));
        QVERIFY(demo->isEnabled() || demo->toolTip().contains(QStringLiteral("make-demo.sh")));

        QListWidget *recent = welcome->recentList();
        QCOMPARE(recent->count(), 2);
        const QString shown = serverWorkspaces()
                                  ? ServerWorkspaceAddress::fromLocation(fixture.wsPath).displayName() +
                                        QStringLiteral(" — server workspace")
                                  : QStringLiteral("ws.tidemark — ");
        QVERIFY2(recent->item(0)->text().startsWith(shown), qPrintable(recent->item(0)->text()));
        QVERIFY(recent->item(1)->text().endsWith(QStringLiteral("(missing)")));

        // A recent workspace opens with Enter; the panes and docks come back.
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        recent->setFocus();
        recent->setCurrentRow(0);
        emit recent->itemActivated(recent->item(0));
        QTRY_COMPARE(opened.size(), 1);
        QVERIFY(!window.isWelcomeShown());
        QVERIFY(!dock(window, "historyDock")->isHidden());
        QVERIFY(!dock(window, "schedulesDock")->isHidden());
        QCOMPARE(window.workspacePath(), fixture.wsPath);
    }

    // The last workspace reopens on start unless the setting says not to; its file must be there.
    void theLastWorkspaceReopensOnStart() {
        UiFixture fixture;
        setRecent({fixture.wsPath}, true);
        {
            MainWindow window;
            QSignalSpy opened(&window, &MainWindow::workspaceOpened);
            window.openOnStart(QString());
            window.show();
            QTRY_COMPARE(opened.size(), 1);
            QCOMPARE(window.workspacePath(), fixture.wsPath);
            QVERIFY(!window.isWelcomeShown());
        }
        {
            MainWindow window;
            auto *reopen = window.welcomePage()->findChild<QCheckBox *>(QStringLiteral("reopenLastCheck"));
            QVERIFY(reopen && reopen->isChecked());
            reopen->setChecked(false); // the setting, from the welcome page
            QVERIFY(!window.findChild<QAction *>(QStringLiteral("actionReopenLast"))->isChecked());
        }
        QTRY_COMPARE(QSettings().value(QStringLiteral("workspace/reopenLast")).toBool(), false);
        {
            MainWindow window;
            QSignalSpy opened(&window, &MainWindow::workspaceOpened);
            window.openOnStart(QString());
            window.show();
            QTest::qWait(500);
            QCOMPARE(opened.size(), 0);
            QVERIFY(window.isWelcomeShown());
        }
        // Named on the command line, a workspace opens whatever the setting.
        setRecent({}, true);
        MainWindow window;
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        window.openOnStart(fixture.wsPath);
        QTRY_COMPARE(opened.size(), 1);
    }

    // A path with no workspace: the window offers to create one there, and opens it.
    void aMissingPathOffersToCreateTheWorkspace() {
        UiFixture fixture;
        setRecent({});
        const QString path = fixture.filePath(QStringLiteral("new-one.tidemark"));
        MainWindow window;
        window.show();
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        window.openWorkspace(path);
        QMessageBox *question = nullptr;
        QTRY_VERIFY((question = window.findChild<QMessageBox *>(QStringLiteral("createWorkspaceQuestion"))));
        QVERIFY(question->text().contains(path));
        QVERIFY(!QFileInfo::exists(path));
        question->findChild<QPushButton *>(QStringLiteral("createWorkspace"))->click();
        QTRY_COMPARE(opened.size(), 1);
        QCOMPARE(window.workspacePath(), path);
        QVERIFY(QFileInfo::exists(path));
        QCOMPARE(fixture.open()->tables().size(), 0); // the fixture's own is untouched
        QVERIFY(Workspace::open(path)->tables().isEmpty());
    }

    // No live runner: the Schedules dock and Add Schedule say schedules do not fire, with the
    // button that sets one up; a runner that beats takes the banner away.
    void runnerBannerSaysSchedulesDoNotFire() {
        UiFixture fixture;
        setRecent({});
        MainWindow window;
        openInWindow(fixture, window, 0);
        SchedulesPanel *panel = window.schedulesPanel();
        RunnerBanner *banner = panel->runnerBanner();
        QTRY_VERIFY(!banner->isHidden());
        QVERIFY(banner->text()->text().contains(QStringLiteral("No runner: schedules do not fire.")));

        panel->addSchedule();
        QTRY_VERIFY(panel->openDialog() != nullptr);
        RunnerBanner *dialogBanner = panel->openDialog()->runnerBanner();
        QVERIFY(!dialogBanner->isHidden());
        QVERIFY(dialogBanner->text()->text().contains(QStringLiteral("No runner: schedules do not fire.")));
        // Its button opens Set Up Runner, which only shows what it would do until asked.
        dialogBanner->setUpButton()->click();
        RunnerSetupDialog *setup = nullptr;
        QTRY_VERIFY((setup = window.findChild<RunnerSetupDialog *>()) != nullptr);
        setup->reject();
        panel->openDialog()->reject();

        QProcess serve;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TIDEMARK_TEST_RUNNER_HEARTBEAT_MS"), QStringLiteral("300"));
        serve.setProcessEnvironment(env);
        serve.start(cliPath(), {QStringLiteral("--workspace"), fixture.wsPath, QStringLiteral("serve")});
        QVERIFY(serve.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(banner->isHidden(), 20000);
        serve.terminate();
        QVERIFY(serve.waitForFinished(15000));
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isHidden(), 20000);
    }

    // The control table's "Next run" says the same as the Schedules dock: a table whose firing
    // was missed shows it missed, not the next firing.
    void controlTableShowsMissedFirings() {
        const auto utc = [](const char *text) {
            return QDateTime::fromString(QString::fromLatin1(text), Qt::ISODate);
        };
        const QDateTime now = utc("2026-12-06T10:02:00Z");
        ScheduleSpec unfired;
        unfired.name = QStringLiteral("unfired");
        unfired.cron = QStringLiteral("*/5 * * * *");
        unfired.timeZone = QStringLiteral("UTC");
        unfired.createdAt = now.addSecs(-3600);
        unfired.tableIds = {1};
        ScheduleSpec fired = unfired;
        fired.name = QStringLiteral("fired");
        fired.lastFiredAt = utc("2026-12-06T10:00:00Z");
        fired.tableIds = {2};
        QList<TableSpec> tables;
        for (const qint64 id : {1, 2}) {
            TableSpec table;
            table.id = id;
            table.sourceConnection = QStringLiteral("src");
            table.sourceTable = QStringLiteral("t%1").arg(id);
            table.targetConnection = QStringLiteral("dst");
            table.targetTable = table.sourceTable;
            table.active = true;
            tables << table;
        }
        const TableNextRuns runs = nextRunsByTable({unfired, fired}, tables, now, CronFireTimes());
        QCOMPARE(runs.byTable.value(1).missed, utc("2026-12-06T09:05:00Z"));
        QCOMPARE(runs.byTable.value(1).missedBy, QStringList{QStringLiteral("unfired")});
        QVERIFY(!runs.byTable.value(2).missed.isValid());
        QCOMPARE(runs.byTable.value(2).at, utc("2026-12-06T10:05:00Z"));
        QCOMPARE(runs.lookAgainAt, utc("2026-12-06T10:05:00Z"));

        // Just fired, the next firing is not missed yet: looked at again once it would be.
        fired.lastFiredAt = utc("2026-12-06T10:05:00Z");
        const TableNextRuns later =
            nextRunsByTable({fired}, tables, utc("2026-12-06T10:06:00Z"), CronFireTimes());
        QVERIFY(!later.byTable.value(2).missed.isValid());
        QCOMPARE(later.lookAgainAt, utc("2026-12-06T10:10:00Z"));
        const TableNextRuns overdue =
            nextRunsByTable({fired}, tables, utc("2026-12-06T10:11:00Z"), CronFireTimes());
        QVERIFY(!overdue.byTable.value(2).missed.isValid()); // within a runner's tick
        QCOMPARE(overdue.lookAgainAt, utc("2026-12-06T10:12:01Z"));

        ControlTableModel model;
        model.setTables(tables);
        model.setNextRuns(runs.byTable);
        const QModelIndex missedCell = model.index(0, ControlTableModel::NextRun);
        QCOMPARE(missedCell.data().toString(),
                 QStringLiteral("missed since ") + formatTimeWithZone(utc("2026-12-06T09:05:00Z")));
        const QString tip = missedCell.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("not fired")) && tip.contains(QStringLiteral("unfired")) &&
                     tip.contains(QStringLiteral("Set Up Runner")),
                 qPrintable(tip));
        QCOMPARE(model.index(1, ControlTableModel::NextRun).data().toString(),
                 formatTimeWithZone(utc("2026-12-06T10:05:00Z")));
    }

    // The tray's menu: Show (raises the window), Run All, Quit: the window's own actions.
    void trayMenuShowsRunsAndQuits() {
        setRecent({});
        MainWindow window;
        QMenu *menu = window.tray()->menu();
        QStringList texts;
        for (QAction *action : menu->actions())
            if (!action->isSeparator())
                texts << QString(action->text()).remove(QLatin1Char('&'));
        QCOMPARE(texts, (QStringList{QStringLiteral("Show Tidemark"), QStringLiteral("Run All Active"),
                                     QStringLiteral("Quit")}));
        QCOMPARE(menu->actions().at(1), window.findChild<QAction *>(QStringLiteral("actionRunAll")));
        QCOMPARE(menu->actions().last(), window.findChild<QAction *>(QStringLiteral("actionQuit")));
        QVERIFY(!window.isVisible());
        menu->actions().first()->trigger();
        QVERIFY(window.isVisible());
        window.showMinimized();
        window.tray()->showWindow();
        QVERIFY(!(window.windowState() & Qt::WindowMinimized));
    }

    // Tab follows the layout in the window: the toolbar, down the control table's pane, the run's,
    // then the docks below (the history's filter row left to right, then its list).
    void windowTabsInReadingOrder() {
        UiFixture fixture;
        setRecent({});
        makeOrders(fixture.src, 3);
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        MainWindow window;
        window.resize(1024, 768);
        openInWindow(fixture, window, 1);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QStringList wrong = tabOutOfOrder(&window);
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QStringLiteral(", "))));

        // An empty workspace: its first-steps buttons between the filter and the table.
        UiFixture empty;
        MainWindow fresh;
        fresh.resize(1024, 768);
        openInWindow(empty, fresh, 0);
        QVERIFY(QTest::qWaitForWindowExposed(&fresh));
        wrong = tabOutOfOrder(&fresh);
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QStringLiteral(", "))));
    }

    // Tab follows the layout in the dialogs a newcomer meets first: down the form, left to right
    // along a line, the buttons last.
    void dialogsTabInReadingOrder() {
        UiFixture fixture;
        makeOrders(fixture.src, 3);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        const TableSpec spec = *fixture.open()->table(id);
        WorkspaceGateway gateway(fixture.wsPath);
        const auto check = [](QDialog &dialog) {
            dialog.resize(dialog.sizeHint());
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            const QStringList wrong = tabOutOfOrder(&dialog);
            QVERIFY2(wrong.isEmpty(), qPrintable(QString::fromLatin1(dialog.metaObject()->className()) +
                                                 QStringLiteral(": ") + wrong.join(QStringLiteral(", "))));
            QVERIFY(tabChain(&dialog).size() > 3);
        };
        {
            TableDialog dialog(&gateway, std::nullopt);
            check(dialog);
        }
        {
            TableDialog dialog(&gateway, spec);
            check(dialog);
        }
        {
            ScheduleDialog dialog({spec});
            check(dialog);
        }
        {
            BackfillDialog dialog(spec, fixture.wsPath);
            check(dialog);
        }
        {
            ConnectionsDialog dialog(&gateway);
            check(dialog);
            auto *kind = dialog.findChild<QComboBox *>();
            kind->setCurrentIndex(kind->findText(QStringLiteral("PostgreSQL")));
            check(dialog);
        }
    }

    // Run Selected runs the selected rows the filter shows, not those it hides.
    void runSelectedActsOnTheVisibleSelection() {
        UiFixture fixture;
        setRecent({});
        makeOrders(fixture.src, 10);
        makeOrders(fixture.src, 10, 1, QStringLiteral("events"));
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        const qint64 events =
            fixture.addTable(UiFixture::draft(QStringLiteral("events"), QStringLiteral("updated_at")));
        MainWindow window;
        openInWindow(fixture, window, 2);
        QTableView *tables = window.controlTable()->view();
        tables->selectAll();
        QCOMPARE(window.controlTable()->selectedIds().size(), 2);
        window.findChild<QLineEdit *>(QStringLiteral("controlTableFilter"))
            ->setText(QStringLiteral("events"));
        QCOMPARE(tables->model()->rowCount(), 1);
        QCOMPARE(window.controlTable()->selectedIds(), QList<qint64>{events});
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.runSelected();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        const RunRecord run = finished.first().at(0).value<RunRecord>();
        QCOMPARE(run.iterations.size(), 1);
        QCOMPARE(run.iterations.first().tableId, events);
    }

    // Spare width goes to the names and watermarks, not to the last column.
    void spareWidthGoesToNames() {
        UiFixture fixture;
        setRecent({});
        const QString longName = QStringLiteral("customer_order_lines_archive_2024_q4");
        makeOrders(fixture.src, 5, 1, longName);
        TableDraft draft = UiFixture::draft(longName, QStringLiteral("updated_at"));
        draft.spec.targetTable = longName + QStringLiteral("_copy");
        fixture.addTable(draft);
        MainWindow window;
        window.resize(1440, 900);
        openInWindow(fixture, window, 1);
        QTableView *tables = window.controlTable()->view();
        // QTableView's own is protected: the view's, through its base.
        const int needed =
            static_cast<QAbstractItemView *>(tables)->sizeHintForColumn(ControlTableModel::Source);
        QTRY_VERIFY2(
            tables->columnWidth(ControlTableModel::Source) >= std::min(needed, 140 * 3),
            qPrintable(
                QStringLiteral("%1 < %2").arg(tables->columnWidth(ControlTableModel::Source)).arg(needed)));
        QVERIFY(tables->columnWidth(ControlTableModel::Target) > 140);

        // The same in the Schedules dock: a long name takes the room, the last column does not.
        ScheduleSpec schedule;
        schedule.name = QStringLiteral("nightly_customer_order_lines_archive");
        schedule.cron = QStringLiteral("15 2 * * 1-5");
        schedule.timeZone = QStringLiteral("UTC");
        fixture.open()->addSchedule(schedule);
        QUndoStack undo;
        WorkspaceGateway gateway(fixture.wsPath);
        SchedulesPanel panel(&undo);
        panel.setGateway(&gateway);
        panel.resize(1400, 300);
        panel.show();
        panel.reload();
        QTableView *schedules = panel.view();
        QTRY_COMPARE(schedules->model()->rowCount(), 1);
        const int nameNeeded =
            static_cast<QAbstractItemView *>(schedules)->sizeHintForColumn(ScheduleListModel::Name);
        QVERIFY(nameNeeded > 120);
        QTRY_COMPARE(schedules->columnWidth(ScheduleListModel::Name), std::min(nameNeeded, 120 * 3));
    }

    // One count everywhere: for the same iteration, the grid, the run header, the history and
    // the CLI (text and JSON) show the same rows read and written.
    void oneCountEverywhere() {
        UiFixture fixture;
        setRecent({});
        makeOrders(fixture.src, 2345);
        makeOrders(fixture.src, 678, 1, QStringLiteral("events"));
        makeOrders(fixture.src, 20, 1, QStringLiteral("gone"));
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        fixture.addTable(UiFixture::draft(QStringLiteral("events"), QStringLiteral("updated_at")));
        fixture.addTable(UiFixture::draft(QStringLiteral("gone"), QStringLiteral("updated_at")));
        execSql(fixture.src, QStringLiteral("DROP TABLE gone"));

        MainWindow window;
        openInWindow(fixture, window, 3);
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.runAll();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        const qint64 runId = finished.first().at(0).value<RunRecord>().id;

        // The CLI's record of the run.
        const CliResult json =
            runCli({QStringLiteral("--workspace"), fixture.wsPath, QStringLiteral("history"),
                    QStringLiteral("--run"), QString::number(runId), QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, qPrintable(json.describe()));
        const QJsonArray runs = parseJsonArray(json.out);
        QCOMPARE(runs.size(), 1);
        QHash<QString, std::pair<qint64, qint64>> cli; // source -> read, written
        for (const QJsonValue &value : runs.at(0).toObject().value(QStringLiteral("iterations")).toArray()) {
            const QJsonObject it = value.toObject();
            cli.insert(it.value(QStringLiteral("source")).toString(),
                       {it.value(QStringLiteral("rows_read_kept")).toInteger(),
                        it.value(QStringLiteral("rows_written")).toInteger()});
        }
        QCOMPARE(cli.size(), 3);
        const CliResult text =
            runCli({QStringLiteral("--workspace"), fixture.wsPath, QStringLiteral("history"),
                    QStringLiteral("--run"), QString::number(runId)});
        QVERIFY2(text.exitCode == 0, qPrintable(text.describe()));

        // The grid, iteration by iteration, against the CLI.
        QTableView *grid = window.runPanel()->view();
        QCOMPARE(grid->model()->rowCount(), 3);
        qint64 read = 0;
        qint64 written = 0;
        for (int row = 0; row < grid->model()->rowCount(); ++row) {
            const QString source = grid->model()->index(row, IterationGridModel::Source).data().toString();
            const qint64 gridRead =
                grid->model()->index(row, IterationGridModel::RowsRead).data(RawRole).toLongLong();
            const qint64 gridWritten =
                grid->model()->index(row, IterationGridModel::RowsWritten).data(RawRole).toLongLong();
            QVERIFY2(cli.contains(source), qPrintable(source));
            QCOMPARE(gridRead, cli.value(source).first);
            QCOMPARE(gridWritten, cli.value(source).second);
            QCOMPARE(grid->model()->index(row, IterationGridModel::RowsRead).data().toString(),
                     formatCount(gridRead));
            // The CLI's table has the same figures on the iteration's line.
            const QRegularExpression figures(QStringLiteral("\\s%1\\s+%2\\s").arg(gridRead).arg(gridWritten));
            bool onALine = false;
            for (const QString &line : text.out.split(QLatin1Char('\n')))
                onALine =
                    onALine || (line.contains(source + QStringLiteral(" -> ")) && line.contains(figures));
            QVERIFY2(onALine, qPrintable(source + QStringLiteral("\n") + text.out));
            read += gridRead;
            written += gridWritten;
        }
        QCOMPARE(read, qint64(2345 + 678));
        QCOMPARE(written, qint64(2345 + 678));

        // The run header and the history's row say the same totals.
        auto *summary = window.findChild<QLabel *>(QStringLiteral("runSummary"));
        QTRY_VERIFY2(
            summary->text().contains(
                QStringLiteral("%1 rows read, %2 written").arg(formatCount(read), formatCount(written))),
            qPrintable(summary->text()));
        RunHistoryModel *history = window.historyPanel()->model();
        int historyRow = -1;
        QTRY_VERIFY([&] {
            for (int row = 0; row < history->rowCount(); ++row)
                if (history->index(row, 0).data(RunIdRole).toLongLong() == runId &&
                    history->index(row, RunHistoryModel::RowsRead).data().toString() == formatCount(read))
                    historyRow = row;
            return historyRow >= 0;
        }());
        QCOMPARE(history->index(historyRow, RunHistoryModel::RowsWritten).data().toString(),
                 formatCount(written));
    }

    // While a run goes on, the grid's rows, the run header and the history's row of the run
    // change together: whenever they are shown, they say the same count.
    void oneCountWhileItRuns() {
        UiFixture fixture;
        setRecent({});
        makeOrders(fixture.src, 60000);
        TableDraft draft = UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
        draft.spec.commitPerBatch = true; // committed batch by batch: figures move while it runs
        draft.spec.batchSize = 200;
        fixture.addTable(draft);
        MainWindow window;
        openInWindow(fixture, window, 1);
        RunHistoryModel *history = window.historyPanel()->model();
        auto *summary = window.findChild<QLabel *>(QStringLiteral("runSummary"));
        int checked = 0;
        QStringList mismatches;
        connect(window.runPanel(), &RunPanel::liveFiguresShown, this, [&](qint64 runId) {
            const QAbstractItemModel *grid = window.runPanel()->view()->model();
            if (grid->rowCount() != 1)
                return;
            const QString read = grid->index(0, IterationGridModel::RowsRead).data().toString();
            if (read == QStringLiteral("0"))
                return;
            for (int row = 0; row < history->rowCount(); ++row) {
                if (history->index(row, 0).data(RunIdRole).toLongLong() != runId)
                    continue;
                ++checked;
                const QString shown = history->index(row, RunHistoryModel::RowsRead).data().toString();
                if (shown != read || !summary->text().contains(read + QStringLiteral(" rows read")))
                    mismatches << QStringLiteral("grid %1, history %2, header \"%3\"")
                                      .arg(read, shown, summary->text());
            }
        });
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.runAll();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 120000);
        QVERIFY2(mismatches.isEmpty(), qPrintable(mismatches.join(QLatin1Char('\n'))));
        QVERIFY2(checked >= 2, qPrintable(QStringLiteral("compared %1 times while it ran").arg(checked)));
    }
};

QTEST_MAIN(TestFirstMinutes)
#include "tst_firstminutes.moc"
