// SPDX-License-Identifier: MIT
// The control table in the window: its dialogs, the undoable commands against the workspace, and
// reloads through the gateway. The model alone: tests/models/tst_controltablemodel.cpp.
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/itemroles.h"
#include "model/models/nextruncolumn.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/controltable/commands/addtablecommand.h"
#include "ui/controltable/commands/edittablecommand.h"
#include "ui/controltable/commands/removetablecommand.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/controltable/tabledialog.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFutureWatcher>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSemaphore>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QUndoStack>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

void selectData(QComboBox *combo, const QVariant &data) {
    const int index = combo->findData(data);
    QVERIFY2(index >= 0, qPrintable(data.toString()));
    combo->setCurrentIndex(index);
}

void selectColumn(QComboBox *combo, const QString &column) {
    for (int i = 0; i < combo->count(); ++i) {
        if (combo->itemData(i, Qt::UserRole + 1).toString() == column) {
            combo->setCurrentIndex(i);
            return;
        }
    }
    QFAIL(qPrintable(QStringLiteral("no column %1 in %2").arg(column, combo->objectName())));
}

} // namespace

class TestControlTablePanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    // However many reloads are asked for while the worker is busy, one read answers them all.
    void reloadsAskedWhileAReadIsQueuedJoinIt() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        WorkspaceGateway gateway(fixture.wsPath);
        QList<TablesRead> reads;
        connect(&gateway, &WorkspaceGateway::tablesLoaded, this,
                [&reads](const TablesRead &read) { reads << read; });
        gateway.reloadTables();
        QTRY_COMPARE(reads.size(), 1);

        QSemaphore busy;
        gateway.submitRead(
            this, [&busy](Workspace &) { return busy.tryAcquire(1, 30000); }, [](bool) {});
        for (int i = 0; i < 5; ++i)
            gateway.reloadTables();
        busy.release();
        QTRY_COMPARE(reads.size(), 2);
        gateway.waitForIdle();
        QCoreApplication::processEvents();
        QCOMPARE(reads.size(), 2);
        QCOMPARE(reads.last().number, 2u); // one read for the five requests
        QCOMPARE(gateway.tablesReadsJoined(), 4);
        QCOMPARE(reads.last().tables.size(), 1);

        // A write queued meanwhile: a later request does not join the read queued before it.
        gateway.submitRead(
            this, [&busy](Workspace &) { return busy.tryAcquire(1, 30000); }, [](bool) {});
        gateway.reloadTables();
        gateway.markTablesStale();
        gateway.reloadTables();
        busy.release();
        QTRY_COMPARE(reads.size(), 3);
        gateway.waitForIdle();
        QCoreApplication::processEvents();
        QCOMPARE(reads.size(), 3);
        QCOMPARE(reads.last().number, 4u); // the first one's reply was dropped, and folded
        QCOMPARE(reads.last().since, 2u);
        QCOMPARE(gateway.tablesReadsJoined(), 4);
    }

    void undoRedoAgainstTheWorkspace() {
        UiFixture fixture;
        QVERIFY(fixture.isValid());
        makeOrders(fixture.src, 50);
        makeOrders(fixture.src, 20, 1, QStringLiteral("items"));

        WorkspaceGateway gateway(fixture.wsPath);
        ControlTablePanel panel;
        QAbstractItemModelTester tester(panel.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.setGateway(&gateway);
        ControlTableModel *model = panel.model();
        QUndoStack *stack = panel.undoStack();
        const auto workspaceTables = [&] {
            gateway.waitForIdle();
            return fixture.open()->tables();
        };

        // Add: the row appears once the workspace has it.
        const TableSpec orders =
            fixture.prepared(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        stack->push(new AddTableCommand(panel.commandContext(), orders));
        QTRY_COMPARE(model->rowCount(), 1);
        const qint64 ordersId = model->tableAt(0).id;
        QVERIFY(ordersId > 0);
        QCOMPARE(model->tableAt(0).watermarkType, WatermarkType::Timestamp);
        QCOMPARE(workspaceTables().size(), 1);

        // Pause with the checkbox: shown at once, written through, undoable.
        QVERIFY(
            model->setData(model->index(0, ControlTableModel::Active), Qt::Unchecked, Qt::CheckStateRole));
        QCOMPARE(model->tableAt(0).active, false);
        QCOMPARE(stack->count(), 2);
        QCOMPARE(workspaceTables().first().active, false);
        stack->undo();
        QCOMPARE(model->tableAt(0).active, true);
        QCOMPARE(workspaceTables().first().active, true);
        stack->redo();
        QCOMPARE(workspaceTables().first().active, false);

        // Edit: to merge on the primary key.
        TableDraft mergeDraft =
            UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"), WriteMode::Merge);
        mergeDraft.spec.lookback = QStringLiteral("1h");
        mergeDraft.spec.active = false; // the edit dialog carries the active flag too
        mergeDraft.spec.id = ordersId;  // and the table's id: its own target is no conflict
        TableSpec merged = fixture.prepared(mergeDraft);
        merged.id = ordersId;
        stack->push(new EditTableCommand(panel.commandContext(), *fixture.open()->table(ordersId), merged));
        QCOMPARE(model->tableAt(0).mode, WriteMode::Merge);
        QCOMPARE(workspaceTables().first().mode, WriteMode::Merge);
        QCOMPARE(workspaceTables().first().lookback, QStringLiteral("1h"));
        stack->undo();
        QCOMPARE(model->tableAt(0).mode, WriteMode::Append);
        QCOMPARE(workspaceTables().first().mode, WriteMode::Append);
        QCOMPARE(workspaceTables().first().lookback, QString());
        stack->redo();
        QCOMPARE(workspaceTables().first().mode, WriteMode::Merge);

        // Remove a table that has copied up to a position; undo brings back the same table:
        // same id, watermark and tiebreak, so the target's state row still matches it.
        const Watermark position = *Watermark::timestamp(orderTimestamp(30));
        fixture.open()->setWatermark(ordersId, position, qint64(30), QStringLiteral("run"), 0);
        panel.reload();
        QTRY_COMPARE(model->tableAt(0).lastWatermark, position);
        const TableSpec beforeRemoval = *fixture.open()->table(ordersId);
        stack->push(new RemoveTableCommand(panel.commandContext(), model->tableAt(0)));
        QVERIFY(stack->undoText().contains(QStringLiteral("src:orders")));
        QCOMPARE(model->rowCount(), 0);
        QCOMPARE(workspaceTables().size(), 0);
        QCOMPARE(fixture.open()->archivedTables().size(), 1);
        stack->undo();
        QTRY_COMPARE(model->rowCount(), 1);
        const TableSpec restored = workspaceTables().first();
        QCOMPARE(restored.id, ordersId);
        QCOMPARE(model->tableAt(0).id, ordersId);
        QCOMPARE(restored.lastWatermark, position);
        QCOMPARE(restored.lastTiebreak, QVariant(qint64(30)));
        QCOMPARE(restored.initialWatermark, beforeRemoval.initialWatermark);
        QCOMPARE(restored.mode, WriteMode::Merge);
        QCOMPARE(restored.active, false);

        // Walk the whole stack back and forth: every command finds the table under its one id.
        while (stack->canUndo())
            stack->undo();
        QTRY_COMPARE(model->rowCount(), 0);
        QCOMPARE(workspaceTables().size(), 0);
        while (stack->canRedo())
            stack->redo();
        QCOMPARE(workspaceTables().size(), 0); // the last command removed it
        stack->undo();
        QTRY_COMPARE(model->rowCount(), 1);
        const TableSpec again = workspaceTables().first();
        QCOMPARE(again.id, ordersId);
        QCOMPARE(again.mode, WriteMode::Merge);
        QCOMPARE(again.active, false);
        QCOMPARE(again.lastWatermark, position);
        QCOMPARE(again.lastTiebreak, QVariant(qint64(30)));
        QTRY_COMPARE(model->tableAt(0).id, again.id);
    }

    void undoneRemovalCopiesRowsTiedAtTheWatermark() {
        // Rows sharing the last watermark, after the last tiebreak, arrive while the table is
        // removed: after the undo, the next run copies exactly those.
        UiFixture fixture;
        const QString tied = orderTimestamp(1);
        execSql(
            fixture.src,
            QStringLiteral("CREATE TABLE events (id INTEGER PRIMARY KEY, updated_at TIMESTAMP NOT NULL)"));
        for (int id = 1; id <= 5; ++id)
            execSql(fixture.src, QStringLiteral("INSERT INTO events VALUES (?1, ?2)"), {id, tied});
        TableDraft draft = UiFixture::draft(QStringLiteral("events"), QStringLiteral("updated_at"));
        draft.spec.tiebreakColumn = QStringLiteral("id");
        const qint64 id = fixture.addTable(draft);
        RunCoordinator coordinator(fixture.wsPath);
        QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
        QVERIFY(coordinator.start({}));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(countRows(fixture.dst, QStringLiteral("events")), 5);
        QCOMPARE(fixture.open()->table(id)->lastTiebreak.toLongLong(), 5);

        WorkspaceGateway gateway(fixture.wsPath);
        ControlTablePanel panel;
        panel.setGateway(&gateway);
        QTRY_COMPARE(panel.model()->rowCount(), 1);
        panel.undoStack()->push(new RemoveTableCommand(panel.commandContext(), panel.model()->tableAt(0)));
        QTRY_COMPARE(panel.model()->rowCount(), 0);
        for (int late = 6; late <= 8; ++late)
            execSql(fixture.src, QStringLiteral("INSERT INTO events VALUES (?1, ?2)"), {late, tied});
        panel.undoStack()->undo();
        QTRY_COMPARE(panel.model()->rowCount(), 1);
        gateway.waitForIdle();

        QVERIFY(coordinator.start({}));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
        const RunRecord run = finished.last().at(0).value<RunRecord>();
        QCOMPARE(run.iterations.size(), 1);
        QCOMPARE(run.iterations.first().status, IterationStatus::Succeeded);
        QCOMPARE(countRows(fixture.dst, QStringLiteral("events")), 8);
        QCOMPARE(
            queryValue(fixture.dst, QStringLiteral("SELECT count(DISTINCT id) FROM events")).toLongLong(), 8);
        QCOMPARE(run.iterations.first().rowsWritten, 3);
        // The same table, not a copy of it under a new id.
        QCOMPARE(run.iterations.first().tableId, id);
        QCOMPARE(panel.model()->tableAt(0).id, id);
    }

    void undoneRemovalDoesNotCopyAgain() {
        // Copy a table, remove it, undo the removal: the next run copies only the new rows,
        // so an append target holds each row once.
        UiFixture fixture;
        makeOrders(fixture.src, 50);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        RunCoordinator coordinator(fixture.wsPath);
        QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
        QVERIFY(coordinator.start({}));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(countRows(fixture.dst, QStringLiteral("orders")), 50);
        makeOrders(fixture.src, 10, 51);

        WorkspaceGateway gateway(fixture.wsPath);
        ControlTablePanel panel;
        panel.setGateway(&gateway);
        QTRY_COMPARE(panel.model()->rowCount(), 1);
        QCOMPARE(panel.model()->tableAt(0).id, id);
        panel.undoStack()->push(new RemoveTableCommand(panel.commandContext(), panel.model()->tableAt(0)));
        QTRY_COMPARE(panel.model()->rowCount(), 0);
        panel.undoStack()->undo();
        QTRY_COMPARE(panel.model()->rowCount(), 1);
        gateway.waitForIdle();

        QVERIFY(coordinator.start({}));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
        const RunRecord run = finished.last().at(0).value<RunRecord>();
        QCOMPARE(run.iterations.size(), 1);
        QCOMPARE(run.iterations.first().status, IterationStatus::Succeeded);
        QCOMPARE(run.iterations.first().rowsWritten, 10);
        QCOMPARE(countRows(fixture.dst, QStringLiteral("orders")), 60);
    }

    void dialogExplainsInvalidCombinations() {
        UiFixture fixture;
        makeOrders(fixture.src, 10);
        makeOrders(fixture.src, 10, 1, QStringLiteral("no_key"), false);
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        auto *sourceTable = dialog.findChild<QComboBox *>(QStringLiteral("sourceTable"));
        auto *mode = dialog.findChild<QComboBox *>(QStringLiteral("mode"));
        auto *watermark = dialog.findChild<QComboBox *>(QStringLiteral("watermark"));
        auto *lookback = dialog.findChild<QLineEdit *>(QStringLiteral("lookback"));
        auto *keys = dialog.findChild<QListWidget *>(QStringLiteral("keys"));
        auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY(sourceTable && mode && watermark && lookback && keys && ok);
        auto *sourceConnection = dialog.findChild<QComboBox *>(QStringLiteral("sourceConnection"));
        QTRY_COMPARE(sourceConnection->count(), 2);
        selectData(sourceConnection, QStringLiteral("src"));
        selectData(dialog.findChild<QComboBox *>(QStringLiteral("targetConnection")), QStringLiteral("dst"));

        // The source's tables are listed from the live connection.
        QTRY_VERIFY2(sourceTable->findText(QStringLiteral("no_key")) >= 0,
                     qPrintable(dialog.findChild<QLabel *>(QStringLiteral("busy"))->text()));
        QVERIFY(sourceTable->findText(QStringLiteral("orders")) >= 0);
        sourceTable->setCurrentText(QStringLiteral("orders"));
        QTRY_VERIFY(dialog.columnsLoaded());
        QCOMPARE(watermark->currentData(Qt::UserRole + 1).toString(), QStringLiteral("updated_at"));
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join('\n')));
        QVERIFY(ok->isEnabled());

        // Lookback with append is explained before saving.
        lookback->setText(QStringLiteral("2h"));
        QVERIFY(!dialog.problems().isEmpty());
        QVERIFY(dialog.problems().join(' ').contains(QStringLiteral("lookback"), Qt::CaseInsensitive));
        QVERIFY(!ok->isEnabled());
        selectData(mode, int(WriteMode::Merge));
        QVERIFY2(dialog.problems().isEmpty(),
                 qPrintable(dialog.problems().join('\n'))); // orders has a primary key

        // A text column cannot order a watermark.
        selectColumn(watermark, QStringLiteral("customer"));
        QVERIFY(dialog.problems().join(' ').contains(QStringLiteral("customer")));
        QVERIFY(!ok->isEnabled());
        selectColumn(watermark, QStringLiteral("updated_at"));

        // Merge on a table without a primary key needs key columns.
        sourceTable->setCurrentText(QStringLiteral("no_key"));
        QTRY_VERIFY(dialog.columnsLoaded());
        selectColumn(watermark, QStringLiteral("updated_at"));
        QVERIFY(dialog.problems().join(' ').contains(QStringLiteral("key"), Qt::CaseInsensitive));
        QVERIFY(!ok->isEnabled());
        for (int i = 0; i < keys->count(); ++i) {
            if (keys->item(i)->data(Qt::UserRole + 1).toString() == QStringLiteral("id"))
                keys->item(i)->setCheckState(Qt::Checked);
        }
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join('\n')));

        // OK validates against the source and closes with the prepared spec.
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.accept();
        QTRY_COMPARE(accepted.size(), 1);
        QCOMPARE(dialog.preparedSpec().sourceTable, QStringLiteral("no_key"));
        QCOMPARE(dialog.preparedSpec().mode, WriteMode::Merge);
        QCOMPARE(dialog.preparedSpec().keyColumns, QStringList{QStringLiteral("id")});
        QCOMPARE(dialog.preparedSpec().watermarkType, WatermarkType::Timestamp);
    }

    void dialogEditsAnExistingTable() {
        UiFixture fixture;
        makeOrders(fixture.src, 10);
        TableDraft draft =
            UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"), WriteMode::Merge);
        draft.spec.lookback = QStringLiteral("2h");
        draft.spec.maxSkipped = 7;
        const qint64 id = fixture.addTable(draft);
        const TableSpec existing = *fixture.open()->table(id);

        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, existing);
        QTRY_VERIFY(dialog.columnsLoaded());
        const TableSpec shown = dialog.draft().spec;
        QCOMPARE(shown.id, id);
        QCOMPARE(shown.sourceConnection, QStringLiteral("src"));
        QCOMPARE(shown.targetConnection, QStringLiteral("dst"));
        QCOMPARE(shown.sourceTable, QStringLiteral("orders"));
        QCOMPARE(shown.mode, WriteMode::Merge);
        QCOMPARE(shown.watermarkColumn, QStringLiteral("updated_at"));
        QCOMPARE(shown.keyColumns, existing.keyColumns);
        QCOMPARE(shown.lookback, QStringLiteral("2h"));
        QCOMPARE(shown.maxSkipped, 7);
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join('\n')));

        dialog.findChild<QLineEdit *>(QStringLiteral("lookback"))->setText(QStringLiteral("30m"));
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.accept();
        QTRY_COMPARE(accepted.size(), 1);
        QCOMPARE(dialog.preparedSpec().id, id);
        QCOMPARE(dialog.preparedSpec().lookback, QStringLiteral("30m"));
    }

    void dialogShowsWhatTheSourceRefuses() {
        UiFixture fixture;
        makeOrders(fixture.src, 10);
        WorkspaceGateway gateway(fixture.wsPath);
        TableDialog dialog(&gateway, std::nullopt);
        auto *initial = dialog.findChild<QLineEdit *>(QStringLiteral("initialWatermark"));
        auto *sourceConnection = dialog.findChild<QComboBox *>(QStringLiteral("sourceConnection"));
        QTRY_COMPARE(sourceConnection->count(), 2);
        selectData(sourceConnection, QStringLiteral("src"));
        selectData(dialog.findChild<QComboBox *>(QStringLiteral("targetConnection")), QStringLiteral("dst"));
        // Even the only table is the user's to choose.
        auto *sourceTable = dialog.findChild<QComboBox *>(QStringLiteral("sourceTable"));
        QTRY_VERIFY(sourceTable->findText(QStringLiteral("orders")) >= 0);
        sourceTable->setCurrentText(QStringLiteral("orders"));
        QTRY_VERIFY(dialog.columnsLoaded());
        initial->setText(QStringLiteral("not a time"));
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.accept();
        // prepareTable refuses it off the GUI thread; the dialog stays open and says why.
        QTRY_VERIFY(!dialog.problems().isEmpty());
        QCOMPARE(accepted.size(), 0);
        QVERIFY(!dialog.problems().first().isEmpty());
    }
};

QTEST_MAIN(TestControlTablePanel)
#include "tst_controltablepanel.moc"
