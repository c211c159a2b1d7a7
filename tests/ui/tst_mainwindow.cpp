// SPDX-License-Identifier: MIT
// The window from the keyboard: open a workspace, run with F5, pause with the checkbox and
// undo it with Ctrl+Z, filter with Ctrl+F, and read the failure notification.
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/runhistorymodel.h"
#include "model/storage/workspacelocation.h"
#include "tests/support/faultgate.h"
#include "tests/support/pgsession.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/history/historychart.h"
#include "ui/history/historypanel.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/run/cancelconsequences.h"
#include "ui/run/runnotifier.h"
#include "ui/run/runpanel.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QLockFile>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QUndoStack>
#include <QtTest>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <thread>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// Calls `react` when `target` receives an event of `type` (before the target handles it).
class EventWatch : public QObject {
public:
    EventWatch(QObject *target, QEvent::Type type, std::function<void()> react)
        : m_type(type)
        , m_react(std::move(react)) {
        target->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject *, QEvent *event) override {
        if (event->type() == m_type)
            m_react();
        return false;
    }

private:
    const QEvent::Type m_type;
    const std::function<void()> m_react;
};

// Four tables of 100,000 rows, opened in `window` set to run one table at a time.
void openWithQueuedTables(UiFixture &fixture, MainWindow &window) {
    for (int t = 0; t < 4; ++t) {
        const QString table = QStringLiteral("big_%1").arg(t);
        makeOrders(fixture.src, 100000, 1, table);
        fixture.addTable(UiFixture::draft(table, QStringLiteral("updated_at")));
    }
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QSignalSpy opened(&window, &MainWindow::workspaceOpened);
    window.openWorkspace(fixture.wsPath);
    QTRY_COMPARE(opened.size(), 1);
    QTRY_COMPARE(window.controlTable()->model()->rowCount(), 4);
    window.findChild<QSpinBox *>(QStringLiteral("concurrency"))->setValue(1);
}

// Calls `act` once, when the first table of the window's run reports running (with the
// tables run one at a time, the others are queued behind it then).
void whenFirstTableRuns(MainWindow &window, std::function<void()> act) {
    auto done = std::make_shared<bool>(false);
    QObject::connect(window.coordinator(), &RunCoordinator::iterationChanged, &window,
                     [done, act = std::move(act)](const IterationRecord &record) {
                         if (*done || record.status != IterationStatus::Running)
                             return;
                         *done = true;
                         act();
                     });
}

int cancelledCount(const RunRecord &run) {
    int cancelled = 0;
    for (const IterationRecord &it : run.iterations)
        cancelled += it.status == IterationStatus::Cancelled ? 1 : 0;
    return cancelled;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void standardShortcuts() {
        MainWindow window;
        const auto shortcut = [&](const char *name) {
            auto *action = window.findChild<QAction *>(QLatin1String(name));
            return action ? action->shortcuts() : QList<QKeySequence>{};
        };
        QVERIFY(shortcut("actionNewWorkspace").contains(QKeySequence(Qt::CTRL | Qt::Key_N)));
        QVERIFY(shortcut("actionOpenWorkspace").contains(QKeySequence(Qt::CTRL | Qt::Key_O)));
        QVERIFY(shortcut("actionRunAll").contains(QKeySequence(Qt::Key_F5)));
        QVERIFY(shortcut("actionRunSelected").contains(QKeySequence(Qt::SHIFT | Qt::Key_F5)));
        QCOMPARE(shortcut("actionCancelRun"),
                 QList<QKeySequence>{QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X)});
        QVERIFY(shortcut("actionFind").contains(QKeySequence(Qt::CTRL | Qt::Key_F)));
        QVERIFY(shortcut("actionRemoveTable").contains(QKeySequence(Qt::Key_Delete)));
        QVERIFY(shortcut("actionUndo").contains(QKeySequence(Qt::CTRL | Qt::Key_Z)));
        QVERIFY(shortcut("actionRedo").contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
        // Nothing to act on without a workspace.
        QVERIFY(!window.findChild<QAction *>(QStringLiteral("actionRunAll"))->isEnabled());
    }

    // The title names the workspace from the moment it is asked for, before the window is
    // shown (so the native window is created with it: see MainWindow::openWorkspace); a file
    // that cannot be opened gives the title back.
    void titledWhenOpeningStarts() {
        UiFixture fixture;
        MainWindow window;
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        window.openWorkspace(fixture.wsPath);
        // A server workspace is titled by its schema, database and server.
        const QString title = serverWorkspaces()
                                  ? QStringLiteral("%1 in tidemark on 127.0.0.1:%2 — Tidemark")
                                        .arg(WorkspaceLocation::resolve(fixture.wsPath).schema(), pgPort())
                                  : QStringLiteral("%1 — Tidemark").arg(QFileInfo(fixture.wsPath).fileName());
        QCOMPARE(window.windowTitle(), title);
        window.show();
        QTRY_COMPARE(opened.size(), 1);
        QCOMPARE(window.windowTitle(), title);

        const QString bad = fixture.filePath(QStringLiteral("not-a-workspace.tidemark"));
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not SQLite");
        file.close();
        QSignalSpy failed(&window, &MainWindow::workspaceFailed);
        window.openWorkspace(bad);
        QCOMPARE(window.windowTitle(), QStringLiteral("not-a-workspace.tidemark — Tidemark"));
        QTRY_COMPARE(failed.size(), 1);
        QCOMPARE(window.windowTitle(), title);
        QCOMPARE(window.workspacePath(), fixture.wsPath);
    }

    void runFromTheKeyboard() {
        UiFixture fixture;
        makeOrders(fixture.src, 200);
        makeOrders(fixture.src, 20, 1, QStringLiteral("gone"));
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        fixture.addTable(UiFixture::draft(QStringLiteral("gone"), QStringLiteral("updated_at")));
        execSql(fixture.src, QStringLiteral("DROP TABLE gone"));

        MainWindow window;
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        window.openWorkspace(fixture.wsPath);
        QTRY_COMPARE(opened.size(), 1);
        QTRY_COMPARE(QSettings().value(QStringLiteral("workspace/recent")).toStringList().value(0),
                     fixture.wsPath);
        ControlTableModel *tables = window.controlTable()->model();
        QTRY_COMPARE(tables->rowCount(), 2);

        // F5 runs every active table; the failure is notified, naming the table.
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        QTest::keyClick(&window, Qt::Key_F5);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        const RunRecord run = finished.first().at(0).value<RunRecord>();
        const auto [title, message] = RunNotifier::describe(run);
        QVERIFY(title.contains(QStringLiteral("failed")));
        QVERIFY(message.contains(QStringLiteral("src:gone")));
        QVERIFY(!message.contains(QStringLiteral("src:orders")));
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("src:gone")));
        const IterationGridModel *grid = window.runPanel()->liveModel();
        QCOMPARE(grid->summary().count(IterationStatus::Succeeded), 1);
        QCOMPARE(grid->summary().count(IterationStatus::Failed), 1);
        // Selecting the failed row shows its error beside the grid.
        QTableView *gridView = window.runPanel()->view();
        for (int row = 0; row < gridView->model()->rowCount(); ++row) {
            if (gridView->model()->index(row, IterationGridModel::Source).data().toString() ==
                QStringLiteral("src:gone"))
                gridView->selectRow(row);
        }
        auto *error = window.findChild<QLabel *>(QStringLiteral("iterationError"));
        QVERIFY(error);
        QVERIFY(error->text().contains(QStringLiteral("gone")));
        QVERIFY(!error->isHidden());

        // The history lists it and the control table shows the last status.
        QTRY_COMPARE(window.historyPanel()->model()->rowCount(), 1);
        QTRY_COMPARE(tables->index(0, ControlTableModel::LastStatus).data().toString(),
                     QStringLiteral("Succeeded"));

        // Pause with the checkbox, undo with Ctrl+Z, redo with Ctrl+Shift+Z.
        QVERIFY(
            tables->setData(tables->index(0, ControlTableModel::Active), Qt::Unchecked, Qt::CheckStateRole));
        QCOMPARE(tables->tableAt(0).active, false);
        QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier);
        QCOMPARE(tables->tableAt(0).active, true);
        QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(tables->tableAt(0).active, false);
        window.gateway()->waitForIdle();
        QCOMPARE(fixture.open()->table(tables->tableAt(0).id)->active, false);

        // Ctrl+F puts the cursor in the filter.
        QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
        auto *filter = window.findChild<QLineEdit *>(QStringLiteral("controlTableFilter"));
        QTRY_VERIFY(filter->hasFocus());
        QTest::keyClicks(filter, QStringLiteral("gone"));
        QCOMPARE(window.controlTable()->view()->model()->rowCount(), 1);
        filter->clear();

        // Shift+F5 runs only the selected table: the paused one ends skipped.
        window.controlTable()->view()->setFocus();
        window.controlTable()->view()->selectRow(0);
        QTest::keyClick(&window, Qt::Key_F5, Qt::ShiftModifier);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
        const RunRecord second = finished.last().at(0).value<RunRecord>();
        QCOMPARE(second.iterations.size(), 1);
        QCOMPARE(second.iterations.first().status, IterationStatus::Skipped);
    }

    // Esc was a window-wide "Cancel Run": pressing it to leave the filter box threw away a copy.
    // Now Esc does nothing to a run, and Cancel Run (Ctrl+Shift+X) asks first when a table copied
    // in one transaction would roll back, saying what happens to each table.
    void escapeNeverCancelsAndCancelRunAsks() {
        UiFixture fixture;
        makeOrders(fixture.src, 500, 1, QStringLiteral("first"));
        makeOrders(fixture.src, 300, 1, QStringLiteral("second"));
        fixture.addTable(UiFixture::draft(QStringLiteral("first"), QStringLiteral("updated_at")));
        fixture.addTable(UiFixture::draft(QStringLiteral("second"), QStringLiteral("updated_at")));
        MainWindow window;
        openInWindow(fixture, window, 2);
        QVERIFY(!QTest::currentTestFailed());
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        window.findChild<QSpinBox *>(QStringLiteral("concurrency"))->setValue(1);
        auto *runState = window.findChild<QLabel *>(QStringLiteral("runState"));
        const auto confirmation = [&] {
            return window.findChild<QMessageBox *>(QStringLiteral("cancelRunConfirmation"));
        };

        // The first table holds as it starts writing: a whole-window copy, which would roll back.
        FaultGate firstTableWrote("before_write_transaction", 1);
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.runAll();
        QTRY_VERIFY_WITH_TIMEOUT(firstTableWrote.reached(), 60000);

        QTest::keyClick(&window, Qt::Key_Escape);
        auto *filter = window.findChild<QLineEdit *>(QStringLiteral("controlTableFilter"));
        QVERIFY(filter);
        window.findChild<QAction *>(QStringLiteral("actionFind"))->trigger();
        QTRY_VERIFY(filter->hasFocus());
        QTest::keyClicks(filter, QStringLiteral("fir"));
        QTest::keyClick(filter, Qt::Key_Escape);
        QCoreApplication::processEvents();
        QVERIFY(!confirmation());
        QVERIFY2(!runState->text().contains(QLatin1String("Cancelling")), qPrintable(runState->text()));
        QVERIFY(window.coordinator()->isRunning());

        // Cancel Run asks, naming each table and what becomes of it; "Keep Running" keeps it.
        QTest::keyClick(&window, Qt::Key_X, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_VERIFY(confirmation());
        const QString text = confirmation()->informativeText();
        QVERIFY2(text.contains(QLatin1String("Rolled back")) &&
                     text.contains(QStringLiteral("src:first → dst:first")),
                 qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("Not started")) &&
                     text.contains(QStringLiteral("src:second → dst:second")),
                 qPrintable(text));
        QCOMPARE(confirmation()->defaultButton()->objectName(), QStringLiteral("keepRunning"));
        confirmation()->defaultButton()->click();
        QTRY_VERIFY(!confirmation());
        QVERIFY2(!runState->text().contains(QLatin1String("Cancelling")), qPrintable(runState->text()));
        QVERIFY(window.coordinator()->isRunning());

        // The question closed; the window takes the keys again once it is active.
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_X, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_VERIFY(confirmation());
        confirmation()->findChild<QPushButton *>(QStringLiteral("confirmCancelRun"))->click();
        QTRY_VERIFY2(runState->text().contains(QLatin1String("Cancelling")), qPrintable(runState->text()));
        firstTableWrote.release();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        const RunRecord run = finished.first().at(0).value<RunRecord>();
        QCOMPARE(run.status, QStringLiteral("cancelled"));
        QVERIFY(!window.findChild<QAction *>(QStringLiteral("actionCancelRun"))->isEnabled());
    }

    // The quit dialog said "the target and the watermarks stay as they were" for every table,
    // but a table committing each batch keeps its committed batches and its watermark.
    void cancelConsequencesNameEachKind() {
        TableSpec whole;
        whole.id = 1;
        TableSpec perBatch;
        perBatch.id = 2;
        perBatch.commitPerBatch = true;
        const auto iteration = [](qint64 tableId, const QString &name, IterationStatus status) {
            IterationRecord it;
            it.tableId = tableId;
            it.source = QStringLiteral("src:") + name;
            it.target = QStringLiteral("dst:") + name;
            it.status = status;
            return it;
        };
        const CancelConsequences both({iteration(1, QStringLiteral("orders"), IterationStatus::Running),
                                       iteration(2, QStringLiteral("events"), IterationStatus::Running)},
                                      {whole, perBatch});
        QVERIFY(both.losesRows());
        const QStringList paragraphs = both.text().split(QStringLiteral("\n\n"));
        QCOMPARE(paragraphs.size(), 2);
        QVERIFY2(paragraphs[0].startsWith(QLatin1String("Rolled back")) &&
                     paragraphs[0].contains(QStringLiteral("src:orders → dst:orders")) &&
                     paragraphs[0].contains(QLatin1String("target and watermark stay as they were")),
                 qPrintable(paragraphs[0]));
        QVERIFY2(paragraphs[1].startsWith(QLatin1String("Kept up to the last committed batch")) &&
                     paragraphs[1].contains(QStringLiteral("src:events → dst:events")) &&
                     paragraphs[1].contains(QLatin1String("watermark stays at the last of them")),
                 qPrintable(paragraphs[1]));

        // Only per-batch tables running: nothing committed is lost, so Cancel Run does not ask.
        const CancelConsequences batched({iteration(2, QStringLiteral("events"), IterationStatus::Running),
                                          iteration(1, QStringLiteral("orders"), IterationStatus::Succeeded)},
                                         {whole, perBatch});
        QVERIFY(!batched.losesRows());
        QVERIFY(!batched.text().contains(QLatin1String("Rolled back")));
    }

    // Help › Keyboard Shortcuts lists what the keys do, and no key is given to two actions.
    void shortcutListIsExact() {
        MainWindow window;
        window.findChild<QAction *>(QStringLiteral("actionKeyboardShortcuts"))->trigger();
        auto *list = window.findChild<QTableWidget *>(QStringLiteral("shortcutsTable"));
        QVERIFY(list);
        QHash<QString, QString> actionOfKey;
        QString cancelKeys;
        for (int row = 0; row < list->rowCount(); ++row) {
            const QString action = list->item(row, 0)->text();
            const QStringList keys = list->item(row, 1)->text().split(QStringLiteral(", "));
            if (action == QLatin1String("Cancel Run"))
                cancelKeys = list->item(row, 1)->text();
            for (const QString &key : keys) {
                QVERIFY2(key != QLatin1String("Esc"), qPrintable(action));
                QVERIFY2(!actionOfKey.contains(key),
                         qPrintable(QStringLiteral("%1 is listed for %2 and %3")
                                        .arg(key, actionOfKey.value(key), action)));
                actionOfKey.insert(key, action);
            }
        }
        QCOMPARE(cancelKeys,
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X).toString(QKeySequence::NativeText));
        // Every key of every action is listed, and only those.
        int keys = 0;
        for (const QAction *action : window.findChildren<QAction *>()) {
            for (const QKeySequence &key : action->shortcuts()) {
                ++keys;
                QVERIFY2(actionOfKey.contains(key.toString(QKeySequence::NativeText)),
                         qPrintable(action->objectName()));
            }
        }
        QCOMPARE(actionOfKey.size(), keys);
        list->window()->close();
    }

    void closingHidesBeforeSavingSettings() {
        // Quitting takes the window off the screen first: writing the settings file (synced to
        // disk) came before, with the window showing and not answering.
        QSettings().remove(QStringLiteral("window"));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        std::optional<bool> savedWhenHidden;
        EventWatch hides(&window, QEvent::Hide,
                         [&] { savedWhenHidden = QSettings().contains(QStringLiteral("window/geometry")); });
        QVERIFY(window.close());
        QVERIFY(savedWhenHidden.has_value());
        QVERIFY2(!*savedWhenHidden, "the settings were written before the window was hidden");
        QVERIFY(QSettings().contains(QStringLiteral("window/geometry")));
    }

    void openingRecordsTheRecentWorkspaceOffTheGuiThread() {
        // Recording the opened workspace among the recent ones ends in a sync of the settings
        // file: on the GUI thread, a busy disk held the window for 400 ms. Here another thread
        // holds the settings file's lock (as another process writing it would) while the
        // workspace opens: the window must finish opening, answering, with the write still
        // waiting for the lock. A window that writes on its GUI thread is held until the lock
        // is given up (after 10 s at most), and then finds the settings written.
        UiFixture fixture;
        MainWindow window;
        const QString settingsFile = QSettings().fileName();
        const auto written = [&settingsFile, &fixture] {
            QFile file(settingsFile); // not QSettings: its in-process cache waits for the writer
            return file.open(QIODevice::ReadOnly) && file.readAll().contains(fixture.wsPath.toUtf8());
        };
        QVERIFY(!written());
        std::promise<bool> locked;
        std::promise<void> release;
        std::thread holder([&settingsFile, &locked, released = release.get_future()] {
            QLockFile lock(settingsFile + QStringLiteral(".lock"));
            locked.set_value(lock.tryLock(0));
            released.wait_for(std::chrono::seconds(10));
        });
        {
            // Given up at the end of this block, or at a failure's return.
            const auto letGo = qScopeGuard([&release, &holder] {
                release.set_value();
                holder.join();
            });
            QVERIFY(locked.get_future().get());
            QSignalSpy opened(&window, &MainWindow::workspaceOpened);
            window.openWorkspace(fixture.wsPath);
            QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 15000);
            QVERIFY2(!written(), "the settings were written on the GUI thread, through the lock");
            const QList<QAction *> recent = [&window] {
                for (QMenu *menu : window.findChildren<QMenu *>())
                    if (menu->title() == QStringLiteral("Open &Recent"))
                        return menu->actions();
                return QList<QAction *>();
            }();
            QVERIFY(!recent.isEmpty());
            QCOMPARE(recent.constFirst()->text(), QDir::toNativeSeparators(fixture.wsPath));
        }
        QTRY_VERIFY(written());
    }

    void closingMidRunCancelsThenCloses() {
        // Closing the window while a run copies must not wait on the GUI thread (the
        // coordinator's destructor waited for the pool): it cancels, stays open and answering
        // ("cancelling…"), and closes by itself once the run has finished.
        UiFixture fixture;
        MainWindow window;
        openWithQueuedTables(fixture, window);
        QVERIFY(!QTest::currentTestFailed());

        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        bool closed = false;
        bool accepted = true;
        bool runningAfterClose = false;
        bool visibleAfterClose = false;
        QStringList labelsAfterClose;
        // Looked at as close() returns: a cancel that ends the run at once closes the window
        // before the wait below comes back.
        whenFirstTableRuns(window, [&] {
            closed = true;
            accepted = window.close();
            runningAfterClose = window.coordinator()->isRunning();
            visibleAfterClose = window.isVisible();
            for (const QLabel *label : window.statusBar()->findChildren<QLabel *>())
                labelsAfterClose << label->text();
        });
        window.runAll();
        QTRY_VERIFY_WITH_TIMEOUT(closed, 120000);
        QVERIFY2(!accepted, "the window closed while its run was still going");
        QVERIFY(runningAfterClose);
        QVERIFY(visibleAfterClose);
        QVERIFY2(labelsAfterClose.join(QLatin1Char('|')).contains(QStringLiteral("Cancelling")),
                 qPrintable(labelsAfterClose.join(QLatin1Char('|'))));
        // A second close while it rolls back changes nothing.
        if (window.coordinator()->isRunning())
            QVERIFY(!window.close());

        QTRY_VERIFY_WITH_TIMEOUT(!window.isVisible(), 120000);
        QCOMPARE(finished.size(), 1);
        const RunRecord run = finished.first().at(0).value<RunRecord>();
        QCOMPARE(run.status, QStringLiteral("cancelled"));
        QVERIFY(cancelledCount(run) >= 3);
        // Nothing is left running in the workspace.
        QVERIFY(!window.coordinator()->isRunning());
        const QList<RunRecord> runs = fixture.open()->runs();
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs.first().status, QStringLiteral("cancelled"));
    }

    void cancelledIsCancelledAndPausedIsSkipped() {
        // A cancelled run was announced as failed (status bar and tray, every table under
        // "Failed"), and a paused table waiting its turn was listed as cancelled.
        UiFixture fixture;
        QList<qint64> ids;
        for (int t = 0; t < 4; ++t) {
            const QString table = QStringLiteral("big_%1").arg(t);
            makeOrders(fixture.src, 100000, 1, table);
            ids << fixture.addTable(UiFixture::draft(table, QStringLiteral("updated_at")));
        }
        fixture.open()->setActive(ids.last(), false);
        MainWindow window;
        openInWindow(fixture, window, 4);
        QVERIFY(!QTest::currentTestFailed());
        window.findChild<QSpinBox *>(QStringLiteral("concurrency"))->setValue(1);

        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        whenFirstTableRuns(window, [&] { window.cancelRun(); });
        window.runAll();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 120000);
        const RunRecord run = finished.first().at(0).value<RunRecord>();
        QCOMPARE(run.status, QStringLiteral("cancelled"));
        QCOMPARE(run.iterations.last().tableId, ids.last());
        QCOMPARE(run.iterations.last().status, IterationStatus::Skipped);
        QVERIFY(cancelledCount(run) >= 2);

        const auto [title, message] = RunNotifier::describe(run);
        QVERIFY2(title.contains(QStringLiteral("cancelled")) && !title.contains(QStringLiteral("failed")),
                 qPrintable(title));
        QVERIFY2(!message.contains(QStringLiteral("Failed")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("Cancelled: src:big_")), qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("Skipped: src:big_3")), qPrintable(message));
        const QString status = window.statusBar()->currentMessage();
        QVERIFY2(status.contains(QStringLiteral("cancelled")) && !status.contains(QStringLiteral("failed")),
                 qPrintable(status));
        QCOMPARE(window.findChild<QLabel *>(QStringLiteral("runState"))->text(),
                 QStringLiteral("Run %1 cancelled").arg(run.id));

        // Each cancelled row shows what it kept, not what it read before rolling back.
        const QAbstractItemModel *grid = window.runPanel()->view()->model();
        for (int row = 0; row < grid->rowCount(); ++row) {
            const auto cell = [&](int column, int role = Qt::DisplayRole) {
                return grid->index(row, column).data(role);
            };
            if (cell(IterationGridModel::Status, StatusRole).toInt() != int(IterationStatus::Cancelled))
                continue;
            const qint64 kept = cell(IterationGridModel::RowsWritten, RawRole).toLongLong() +
                                cell(IterationGridModel::RowsSkipped, RawRole).toLongLong();
            QCOMPARE(cell(IterationGridModel::RowsRead).toString(), formatCount(kept));
            QVERIFY(cell(IterationGridModel::Progress, ProgressRole).toDouble() <= kept / 100000.0);
        }
    }

    void cancelledIterationShowsWhatItKept() {
        // The record of an iteration that read the whole window and was cancelled before its
        // commit: it read 3,000,000 rows and kept none.
        RunRecord run;
        run.id = 9;
        run.status = QStringLiteral("cancelled");
        IterationRecord cancelled;
        cancelled.id = 1;
        cancelled.runId = 9;
        cancelled.tableId = 1;
        cancelled.source = QStringLiteral("src:big");
        cancelled.target = QStringLiteral("dst:big");
        cancelled.status = IterationStatus::Cancelled;
        cancelled.rowsRead = 3000000;
        cancelled.windowRows = 3000000;
        cancelled.error = QStringLiteral("cancelled by the user");
        run.iterations << cancelled;
        MainWindow window;
        window.show();
        window.runPanel()->showPastRun(run);
        const QAbstractItemModel *grid = window.runPanel()->view()->model();
        QCOMPARE(grid->index(0, IterationGridModel::RowsRead).data().toString(), QStringLiteral("0"));
        QCOMPARE(grid->index(0, IterationGridModel::Progress).data(ProgressRole).toDouble(), 0.0);
        QCOMPARE(grid->index(0, IterationGridModel::Progress).data().toString(),
                 QStringLiteral("rolled back, 0 of 3,000,000 kept"));
        QVERIFY(grid->index(0, IterationGridModel::RowsRead)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("3,000,000 rows were read, then rolled back")));
        QVERIFY(window.findChild<QLabel *>(QStringLiteral("runSummary"))
                    ->text()
                    .contains(QStringLiteral("0 rows read, 0 written")));
    }

    void historyFollowsTheWindowsOwnRun() {
        // The history read the window's own run when it started and when it ended: in between
        // its row said "Read 0" beside a grid that had copied half a million rows.
        UiFixture fixture;
        makeOrders(fixture.src, 500, 1, QStringLiteral("first"));
        makeOrders(fixture.src, 300, 1, QStringLiteral("second"));
        fixture.addTable(UiFixture::draft(QStringLiteral("first"), QStringLiteral("updated_at")));
        fixture.addTable(UiFixture::draft(QStringLiteral("second"), QStringLiteral("updated_at")));
        MainWindow window;
        openInWindow(fixture, window, 2);
        QVERIFY(!QTest::currentTestFailed());
        window.findChild<QSpinBox *>(QStringLiteral("concurrency"))->setValue(1);

        FaultGate secondTableWrites("before_write_transaction", 2);
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.runAll();
        QTRY_VERIFY_WITH_TIMEOUT(secondTableWrites.reached(), 60000);
        const qint64 runId = window.coordinator()->currentRunId();
        RunHistoryModel *history = window.historyPanel()->model();
        const auto figure = [&](int column) {
            const int row = history->rowOfRun(runId);
            return row < 0 ? QString() : history->index(row, column).data().toString();
        };
        QTRY_COMPARE_WITH_TIMEOUT(figure(RunHistoryModel::RowsWritten), QStringLiteral("500"), 10000);
        QCOMPARE(figure(RunHistoryModel::RowsRead), QStringLiteral("500"));
        QCOMPARE(figure(RunHistoryModel::Status), QStringLiteral("Running"));
        QVERIFY(window.coordinator()->isRunning());

        secondTableWrites.release();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(figure(RunHistoryModel::RowsWritten), QStringLiteral("800"), 10000);
        QTRY_COMPARE(figure(RunHistoryModel::Status), QStringLiteral("Succeeded"));
    }

    // Opening froze the window for 10 s at 5,000 tables and quitting took 53 s: each row came
    // and went with its own signal, and each signal rebuilt the history's table filter and
    // chart. Now the rows arrive in one block and leave in one.
    void manyTablesComeAndGoInOneBlock() {
        constexpr int kTables = 3000;
        UiFixture fixture;
        makeOrders(fixture.src, 1);
        {
            const TableSpec spec =
                fixture.prepared(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
            auto ws = fixture.open();
            for (int t = 0; t < kTables; ++t)
                ws->addTable(spec);
        }
        auto *window = new MainWindow;
        ControlTableModel *tables = window->controlTable()->model();
        QSignalSpy inserted(tables, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(tables, &QAbstractItemModel::rowsRemoved);
        openInWindow(fixture, *window, kTables);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(inserted.size(), 1);
        QTRY_COMPARE(window->controlTable()->view()->model()->rowCount(), kTables);

        // A reload that finds the same tables says nothing.
        QSignalSpy changed(tables, &QAbstractItemModel::dataChanged);
        QSignalSpy loaded(window->gateway(), &WorkspaceGateway::tablesLoaded);
        window->controlTable()->reload();
        QTRY_COMPARE(loaded.size(), 1);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(removed.size(), 0);
        QCOMPARE(changed.size(), 0);

        QVERIFY(window->close());
        delete window;
        QCOMPARE(removed.size(), 1);
    }

    void dryRunLeavesTheTablesStatusAlone() {
        // A dry run overwrote each table's "Last run" and read like a real run.
        UiFixture fixture;
        makeOrders(fixture.src, 50);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        const CliResult first = runCli({QStringLiteral("-w"), fixture.wsPath, QStringLiteral("run")});
        QVERIFY2(first.exitCode == 0, qPrintable(first.describe()));
        makeOrders(fixture.src, 10, 51);

        MainWindow window;
        openInWindow(fixture, window, 1);
        QVERIFY(!QTest::currentTestFailed());
        ControlTableModel *tables = window.controlTable()->model();
        QTRY_COMPARE(tables->index(0, ControlTableModel::LastStatus).data().toString(),
                     QStringLiteral("Succeeded"));
        const QString watermark = tables->index(0, ControlTableModel::LastWatermark).data().toString();

        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        QSignalSpy tablesLoaded(window.gateway(), &WorkspaceGateway::tablesLoaded);
        QTest::keyClick(&window, Qt::Key_F5, Qt::ControlModifier);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        const RunRecord run = finished.first().at(0).value<RunRecord>();
        QVERIFY(run.dryRun);
        QCOMPARE(run.status, QStringLiteral("dry_run"));
        QCOMPARE(run.iterations.first().status, IterationStatus::DryRun);

        const QAbstractItemModel *grid = window.runPanel()->view()->model();
        QCOMPARE(grid->index(0, IterationGridModel::Progress).data().toString(),
                 QStringLiteral("would copy 10"));
        QCOMPARE(grid->index(0, IterationGridModel::RowsWritten).data().toString(), QStringLiteral("—"));
        const QString tip = grid->index(0, IterationGridModel::Progress).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.startsWith(QStringLiteral("would copy 10 rows (window 2025-01-01T00:50:00")) &&
                     tip.contains(QStringLiteral(" → 2025-01-01T01:00:00")) &&
                     tip.endsWith(QStringLiteral("); nothing written")),
                 qPrintable(tip));
        QVERIFY2(window.findChild<QLabel *>(QStringLiteral("runState"))
                     ->text()
                     .contains(QStringLiteral("would copy 10 rows; nothing written")),
                 qPrintable(window.findChild<QLabel *>(QStringLiteral("runState"))->text()));
        QVERIFY(window.findChild<QLabel *>(QStringLiteral("runSummary"))
                    ->text()
                    .contains(QStringLiteral("dry run: would copy 10 rows; nothing written")));

        // The control table was read again after the run, and still shows the real last run.
        QTRY_VERIFY_WITH_TIMEOUT(!tablesLoaded.isEmpty(), 30000);
        window.gateway()->waitForIdle();
        QCoreApplication::processEvents();
        QCOMPARE(tables->index(0, ControlTableModel::LastStatus).data().toString(),
                 QStringLiteral("Succeeded"));
        QCOMPARE(tables->index(0, ControlTableModel::LastWatermark).data().toString(), watermark);
        QCOMPARE(fixture.open()->lastIterationStatus(id), QStringLiteral("succeeded"));

        // History: a dry run, not a failure; the chart leaves it out.
        QTRY_COMPARE(window.historyPanel()->model()->rowCount(), 2);
        RunHistoryModel *history = window.historyPanel()->model();
        const int row = history->rowOfRun(run.id);
        QCOMPARE(history->index(row, RunHistoryModel::Status).data().toString(), QStringLiteral("Dry run"));
        QVERIFY(history->index(row, RunHistoryModel::Problems).data().toString().isEmpty());
        QTRY_COMPARE(window.historyPanel()->chart()->pointCount(), 1);
        history->setFilter(0, QStringLiteral("failed"));
        QCOMPARE(history->rowCount(), 0);
        window.gateway()->waitForIdle();
        QTRY_VERIFY(history->isComplete());
        QCOMPARE(window.historyPanel()->sortModel()->rowCount(), 0);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
