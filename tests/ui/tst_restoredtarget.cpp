// SPDX-License-Identifier: MIT
// Undo of "Remove table" (and Redo of "Add table", and Undo of an edit) in the window when another
// table has taken the target meanwhile: in this workspace the change is refused naming both
// tables; when the target database records another owner (another workspace took it over), the
// table comes back and the window says whose the target is now.
#include "model/engine/remotework.h"
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/controltable/commands/addtablecommand.h"
#include "ui/controltable/commands/edittablecommand.h"
#include "ui/controltable/commands/removetablecommand.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/mainwindow/mainwindow.h"

#include <QSignalSpy>
#include <QStatusBar>
#include <QUndoStack>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// Runs `request` on `workspacePath` and waits for the run to end.
RunRecord runOnce(const QString &workspacePath, const RunRequest &request = {}) {
    RunCoordinator coordinator(workspacePath);
    QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
    if (!coordinator.start(request))
        return {};
    if (!finished.wait(60000) && finished.isEmpty())
        return {};
    return finished.last().at(0).value<RunRecord>();
}

// Removes the window's one table through its undo stack, as the Remove action does.
void removeShownTable(MainWindow &window) {
    ControlTablePanel *panel = window.controlTable();
    QCOMPARE(panel->model()->rowCount(), 1);
    panel->undoStack()->push(new RemoveTableCommand(panel->commandContext(), panel->model()->tableAt(0)));
    QTRY_COMPARE(panel->model()->rowCount(), 0);
    window.gateway()->waitForIdle(); // the row goes at once; the workspace follows
}

// Points the window's one table at dst:orders_copy through its undo stack, as the Edit dialog does.
void moveShownTableToOrdersCopy(MainWindow &window) {
    ControlTablePanel *panel = window.controlTable();
    const TableSpec before = panel->model()->tableAt(0);
    TableSpec after = before;
    after.targetTable = QStringLiteral("orders_copy");
    panel->undoStack()->push(new EditTableCommand(panel->commandContext(), before, after));
    window.gateway()->waitForIdle();
}

void addConnection(Workspace &workspace, const QString &name, const QString &path) {
    ConnectionSpec spec;
    spec.name = name;
    spec.path = path;
    workspace.addConnection(spec);
}

// A second workspace at `path` copying the fixture's src:orders into the same target; its table's id.
qint64 addOtherWorkspace(const UiFixture &fixture, const QString &path) {
    auto other = Workspace::create(path);
    addConnection(*other, QStringLiteral("src"), fixture.src);
    addConnection(*other, QStringLiteral("dst"), fixture.dst);
    return other->addTable(
        prepareTable(*other, UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"))));
}

// A second workspace at `path` takes the fixture's target over (run --adopt); its table's id, or
// 0 when its run did not succeed.
qint64 otherWorkspaceTakesTheTargetOver(const UiFixture &fixture, const QString &path) {
    const qint64 theirs = addOtherWorkspace(fixture, path);
    RunRequest adopt;
    adopt.tableIds = {theirs};
    adopt.adopt = true;
    return runOnce(path, adopt).status == QStringLiteral("succeeded") ? theirs : 0;
}

} // namespace

class TestRestoredTarget : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void undoRefusedWhileAnotherTableWritesTheTarget() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        makeOrders(fixture.src, 5, 1, QStringLiteral("other"));
        const qint64 first =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        MainWindow window;
        openInWindow(fixture, window, 1);
        QVERIFY(!QTest::currentTestFailed());
        removeShownTable(window);
        QVERIFY(!QTest::currentTestFailed());

        // Meanwhile (another process, say) the removed table's connection goes, the same file
        // comes back under another name, and a second table is set up to write into it.
        qint64 second = 0;
        {
            auto ws = fixture.open();
            ws->removeConnection(QStringLiteral("dst"));
            addConnection(*ws, QStringLiteral("dst_again"), fixture.dst);
            TableDraft draft = UiFixture::draft(QStringLiteral("other"), QStringLiteral("updated_at"));
            draft.spec.targetConnection = QStringLiteral("dst_again");
            draft.spec.targetTable = QStringLiteral("orders");
            second = ws->addTable(prepareTable(*ws, draft));
            addConnection(*ws, QStringLiteral("dst"), fixture.dst);
        }
        window.controlTable()->reload();
        QTRY_COMPARE(window.controlTable()->model()->rowCount(), 1);

        window.controlTable()->undoStack()->undo();
        const QString refusal =
            QStringLiteral("table %1 (src:orders -> dst:orders) cannot be restored").arg(first);
        QTRY_VERIFY2(window.statusBar()->currentMessage().contains(refusal),
                     qPrintable(window.statusBar()->currentMessage()));
        QVERIFY2(window.statusBar()->currentMessage().contains(
                     QStringLiteral("table %1 (src:other -> dst_again:orders)").arg(second)),
                 qPrintable(window.statusBar()->currentMessage()));
        // Nothing came back: one writer of the target, in the workspace and in the window.
        auto ws = fixture.open();
        QVERIFY(ws->archivedTable(first));
        QCOMPARE(ws->tables().size(), 1);
        QTRY_COMPARE(window.controlTable()->model()->rowCount(), 1);
        QCOMPARE(window.controlTable()->model()->tableAt(0).id, second);
    }

    void undoSaysWhenAnotherWorkspaceOwnsTheTarget() {
        UiFixture fixture;
        makeOrders(fixture.src, 10, 1, QStringLiteral("orders"), false);
        const qint64 ours =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        QCOMPARE(runOnce(fixture.wsPath).status, QStringLiteral("succeeded"));

        MainWindow window;
        openInWindow(fixture, window, 1);
        QVERIFY(!QTest::currentTestFailed());
        removeShownTable(window);
        QVERIFY(!QTest::currentTestFailed());
        // While ours is removed, another workspace takes the target over.
        const QString otherPath = fixture.filePath(QStringLiteral("other.tidemark"));
        const qint64 theirs = otherWorkspaceTakesTheTargetOver(fixture, otherPath);
        QVERIFY(theirs > 0);

        window.statusBar()->clearMessage();
        window.controlTable()->undoStack()->undo();
        // The undo does what it says at once...
        QTRY_COMPARE(window.controlTable()->model()->rowCount(), 1);
        QTRY_VERIFY(fixture.open()->table(ours));
        // ...and the window says, naming both, that the target is the other table's now.
        const QString owner = QStringLiteral("table %1 of workspace %2").arg(theirs).arg(otherPath);
        QTRY_VERIFY2(window.statusBar()->currentMessage().contains(owner),
                     qPrintable(window.statusBar()->currentMessage()));
        QVERIFY2(
            window.statusBar()->currentMessage().contains(QStringLiteral("Table %1 (src:orders").arg(ours)),
            qPrintable(window.statusBar()->currentMessage()));
    }

    void redoOfAddSaysWhenAnotherWorkspaceOwnsTheTarget() {
        UiFixture fixture;
        makeOrders(fixture.src, 10, 1, QStringLiteral("orders"), false);
        MainWindow window;
        openInWindow(fixture, window, 0);
        QVERIFY(!QTest::currentTestFailed());
        ControlTablePanel *panel = window.controlTable();
        auto *add = new AddTableCommand(
            panel->commandContext(),
            fixture.prepared(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"))));
        panel->undoStack()->push(add);
        QTRY_COMPARE(panel->model()->rowCount(), 1);
        window.gateway()->waitForIdle();
        const qint64 ours = add->addedId();
        QVERIFY(ours > 0);
        QCOMPARE(runOnce(fixture.wsPath).status, QStringLiteral("succeeded"));
        panel->undoStack()->undo();
        QTRY_COMPARE(panel->model()->rowCount(), 0);
        window.gateway()->waitForIdle();

        // While ours is away, another workspace takes the target over.
        const QString otherPath = fixture.filePath(QStringLiteral("other.tidemark"));
        const qint64 theirs = otherWorkspaceTakesTheTargetOver(fixture, otherPath);
        QVERIFY(theirs > 0);

        window.statusBar()->clearMessage();
        panel->undoStack()->redo();
        // The same table comes back, and the window says whose its target is now.
        QTRY_COMPARE(panel->model()->rowCount(), 1);
        QCOMPARE(panel->model()->tableAt(0).id, ours);
        const QString owner = QStringLiteral("table %1 of workspace %2").arg(theirs).arg(otherPath);
        QTRY_VERIFY2(window.statusBar()->currentMessage().contains(owner),
                     qPrintable(window.statusBar()->currentMessage()));
    }

    void undoOfAnEditRefusedOntoATakenTarget() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        makeOrders(fixture.src, 5, 1, QStringLiteral("other"));
        const qint64 first =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        MainWindow window;
        openInWindow(fixture, window, 1);
        QVERIFY(!QTest::currentTestFailed());
        ControlTablePanel *panel = window.controlTable();
        moveShownTableToOrdersCopy(window);
        QCOMPARE(fixture.open()->table(first)->targetTable, QStringLiteral("orders_copy"));

        // Meanwhile another process sets a second table up to write where the first one did.
        const qint64 second =
            fixture.addTable(UiFixture::draft(QStringLiteral("other"), QStringLiteral("updated_at")));
        {
            auto ws = fixture.open();
            TableSpec moved = *ws->table(second);
            moved.targetTable = QStringLiteral("orders");
            ws->updateTable(moved);
        }
        panel->reload();
        QTRY_COMPARE(panel->model()->rowCount(), 2);

        panel->undoStack()->undo();
        const QString refusal =
            QStringLiteral("table %1 (src:orders -> dst:orders_copy) cannot write into dst:orders: table %2")
                .arg(first)
                .arg(second);
        QTRY_VERIFY2(window.statusBar()->currentMessage().contains(refusal),
                     qPrintable(window.statusBar()->currentMessage()));
        // The workspace and, once reloaded, the window keep the first table where it writes.
        QCOMPARE(fixture.open()->table(first)->targetTable, QStringLiteral("orders_copy"));
        QTRY_COMPARE(panel->model()->table(first)->targetTable, QStringLiteral("orders_copy"));
    }

    void undoOfAnEditSaysWhenAnotherWorkspaceOwnsTheTarget() {
        UiFixture fixture;
        makeOrders(fixture.src, 10, 1, QStringLiteral("orders"), false);
        const qint64 ours =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        QCOMPARE(runOnce(fixture.wsPath).status, QStringLiteral("succeeded"));
        MainWindow window;
        openInWindow(fixture, window, 1);
        QVERIFY(!QTest::currentTestFailed());
        ControlTablePanel *panel = window.controlTable();
        moveShownTableToOrdersCopy(window);
        QCOMPARE(fixture.open()->table(ours)->targetTable, QStringLiteral("orders_copy"));

        // While ours writes elsewhere, another workspace takes its old target over.
        const QString otherPath = fixture.filePath(QStringLiteral("other.tidemark"));
        const qint64 theirs = otherWorkspaceTakesTheTargetOver(fixture, otherPath);
        QVERIFY(theirs > 0);

        window.statusBar()->clearMessage();
        panel->undoStack()->undo();
        // The undo does what it says (the target is the lock: its runs would write nothing)...
        QTRY_COMPARE(panel->model()->table(ours)->targetTable, QStringLiteral("orders"));
        QTRY_COMPARE(fixture.open()->table(ours)->targetTable, QStringLiteral("orders"));
        // ...and the window says at once whose the target is now.
        const QString owner = QStringLiteral("table %1 of workspace %2").arg(theirs).arg(otherPath);
        QTRY_VERIFY2(window.statusBar()->currentMessage().contains(owner),
                     qPrintable(window.statusBar()->currentMessage()));
        QVERIFY2(
            window.statusBar()->currentMessage().contains(
                QStringLiteral("Table %1 (src:orders → dst:orders) now writes into dst:orders").arg(ours)),
            qPrintable(window.statusBar()->currentMessage()));
    }

    void undoSaysNothingWhenTheTargetIsStillItsOwn() {
        UiFixture fixture;
        makeOrders(fixture.src, 10);
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        QCOMPARE(runOnce(fixture.wsPath).status, QStringLiteral("succeeded"));
        MainWindow window;
        openInWindow(fixture, window, 1);
        QVERIFY(!QTest::currentTestFailed());
        removeShownTable(window);
        QVERIFY(!QTest::currentTestFailed());
        // The check runs on the remote-work threads: its queue says when it has answered.
        QObject *check = window.findChild<QObject *>(QStringLiteral("restoredTargetCheck"));
        QVERIFY(check);
        auto *queue = check->findChild<RemoteWorkQueue *>();
        QVERIFY(queue);
        QSignalSpy settled(queue, &RemoteWorkQueue::settled);
        window.statusBar()->clearMessage();
        window.controlTable()->undoStack()->undo();
        QTRY_COMPARE(window.controlTable()->model()->rowCount(), 1);
        QTRY_COMPARE(settled.size(), 1);
        QVERIFY2(window.statusBar()->currentMessage().isEmpty(),
                 qPrintable(window.statusBar()->currentMessage()));
    }
};

QTEST_MAIN(TestRestoredTarget)
#include "tst_restoredtarget.moc"
