// SPDX-License-Identifier: MIT
// The control table's model, headless: it builds and runs without the window
// (TIDEMARK_BUILD_GUI=OFF). The dialogs, commands and undo against it: tests/ui/tst_controltablepanel.cpp.
#include "model/domain/runrecord.h"
#include "model/models/controltablemodel.h"
#include "model/models/itemroles.h"
#include "model/models/nextruncolumn.h"
#include "tests/support/testsupport.h"

#include <QAbstractItemModelTester>
#include <QFutureWatcher>
#include <QSignalSpy>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

TableSpec spec(qint64 id, const QString &table, bool active = true) {
    TableSpec s;
    s.id = id;
    s.sourceConnection = QStringLiteral("src");
    s.sourceTable = table;
    s.targetConnection = QStringLiteral("dst");
    s.targetTable = table;
    s.watermarkColumn = QStringLiteral("updated_at");
    s.watermarkType = WatermarkType::Timestamp;
    s.active = active;
    return s;
}

// Tables 1..count, named t1..tcount.
QList<TableSpec> numberedSpecs(int count) {
    QList<TableSpec> tables;
    for (int id = 1; id <= count; ++id)
        tables << spec(id, QStringLiteral("t%1").arg(id));
    return tables;
}

} // namespace

class TestControlTableModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    // A stalled table's "Last run" is a warning that says so, its tooltip why, whatever its
    // last run ended as; once it moves again, the last run shows as before.
    void stalledShowsAsAWarningWithItsReason() {
        ControlTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        TableSpec watched = spec(1, QStringLiteral("orders"));
        watched.staleAfter = QStringLiteral("1h");
        QVERIFY(!model.anyStaleAfter());
        model.setTables({watched, spec(2, QStringLiteral("items"))},
                        {{1, QStringLiteral("no_new_rows")}, {2, QStringLiteral("succeeded")}});
        QVERIFY(model.anyStaleAfter());
        const auto at = [&](int row, int role) {
            return model.index(row, ControlTableModel::LastStatus).data(role);
        };

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        const QString why = QStringLiteral("its position has not moved since 2026-12-01T00:00:00.000Z");
        model.setStalled({{1, why}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(at(0, Qt::DisplayRole).toString(), QStringLiteral("Stalled"));
        QCOMPARE(at(0, StatusNameRole).toString(), QStringLiteral("warning"));
        QCOMPARE(at(0, StatusRole).toInt(), int(IterationStatus::Warning));
        const QString tip = at(0, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(why) && tip.contains(QStringLiteral("Last run: No new rows")), qPrintable(tip));
        QCOMPARE(at(1, Qt::DisplayRole).toString(), QStringLiteral("Succeeded"));

        model.setStalled({});
        QCOMPARE(changed.count(), 2);
        QCOMPARE(at(0, StatusNameRole).toString(), QStringLiteral("no_new_rows"));
        QVERIFY(at(0, Qt::DisplayRole).toString() != QStringLiteral("Stalled"));
    }

    void contractAndFormatting() {
        ControlTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        TableSpec a = spec(1, QStringLiteral("orders"));
        a.lastWatermark = *Watermark::timestamp(QStringLiteral("2025-07-30T23:05:18.000Z"));
        TableSpec b = spec(2, QStringLiteral("items"), false);
        b.watermarkColumn = QStringLiteral("seq");
        b.watermarkType = WatermarkType::Integer;
        b.lastWatermark = Watermark::integer(9007199254740993); // beyond a double's precision
        b.mode = WriteMode::Merge;
        b.keyColumns = {QStringLiteral("id"), QStringLiteral("line")};
        model.setTables({b, a}, {{1, QStringLiteral("failed")}});

        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(ControlTableModel::ColumnCount));
        QCOMPARE(model.tableAt(0).id, 1); // id order whatever the input order
        const auto at = [&](int row, int column, int role = Qt::DisplayRole) {
            return model.index(row, column).data(role);
        };
        QCOMPARE(at(0, ControlTableModel::Source).toString(), QStringLiteral("src:orders"));
        QCOMPARE(at(0, ControlTableModel::Active, Qt::CheckStateRole).toInt(), int(Qt::Checked));
        QCOMPARE(at(1, ControlTableModel::Active, Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
        QCOMPARE(at(1, ControlTableModel::Keys).toString(), QStringLiteral("id, line"));
        QCOMPARE(at(1, ControlTableModel::Keys, RawRole).toStringList(), (QStringList{"id", "line"}));
        QCOMPARE(at(1, ControlTableModel::Mode).toString(), QStringLiteral("merge"));
        QCOMPARE(at(1, ControlTableModel::LastWatermark).toString(), QStringLiteral("9007199254740993"));
        QCOMPARE(at(1, ControlTableModel::LastWatermark, RawRole).toLongLong(), Q_INT64_C(9007199254740993));
        QCOMPARE(at(0, ControlTableModel::LastWatermark).toString(), a.lastWatermark.display());
        QCOMPARE(at(0, ControlTableModel::LastStatus).toString(), QStringLiteral("Failed"));
        QCOMPARE(at(0, ControlTableModel::LastStatus, StatusNameRole).toString(), QStringLiteral("failed"));
        QCOMPARE(at(0, ControlTableModel::Id, TableIdRole).toLongLong(), 1);

        // A reload that changes one row, removes one and adds one keeps the unchanged rows in
        // place and reports one dataChanged for the changed row.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        TableSpec a2 = a;
        a2.lookback = QStringLiteral("2h");
        model.setTables({a2, spec(3, QStringLiteral("customers"))}, {{1, QStringLiteral("failed")}});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().row(), 0);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(removed.size(), 1);
        QCOMPARE(reset.size(), 0);
        QCOMPARE(model.tableAt(1).id, 3);
        QCOMPARE(at(0, ControlTableModel::Lookback).toString(), QStringLiteral("2h"));
    }

    // 10,000 tables arrive and leave in a few signals, not one per row: every signal rebuilds
    // what listens (the proxy, the view, the history's table filter, the next-run column).
    void bulkReloadsAreBlocksOfRows() {
        constexpr int kTables = 10000;
        ControlTableModel model;
        QSortFilterProxyModel proxy; // as the panel sorts it
        proxy.setSourceModel(&model);
        proxy.sort(ControlTableModel::Id);
        QItemSelectionModel selection(&model);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QList<TableSpec> tables = numberedSpecs(kTables);
        model.setTables(tables);
        QCOMPARE(model.rowCount(), kTables);
        QCOMPARE(proxy.rowCount(), kTables);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(changed.size(), 0);

        // Ids 101..200 and 9,001..10,000 go, 10,001..10,500 come, 500..599 change status, one
        // row is selected: three removals and an insert at most, one dataChanged per changed run.
        selection.select(model.index(model.rowOfId(5000), 0), QItemSelectionModel::ClearAndSelect);
        inserted.clear();
        QList<TableSpec> next;
        QHash<qint64, QString> statuses;
        for (int id = 1; id <= 10500; ++id) {
            if ((id > 100 && id <= 200) || (id > 9000 && id <= 10000))
                continue;
            next << spec(id, QStringLiteral("t%1").arg(id));
            if (id >= 500 && id < 600)
                statuses.insert(id, QStringLiteral("failed"));
        }
        std::reverse(next.begin(), next.end()); // any order: the model keeps id order
        model.setTables(next, statuses);
        QCOMPARE(model.rowCount(), 10500 - 1100);
        QCOMPARE(proxy.rowCount(), model.rowCount());
        QCOMPARE(removed.size(), 2);
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().row(), model.rowOfId(500));
        QCOMPARE(changed.first().at(1).value<QModelIndex>().row(), model.rowOfId(599));
        for (int row = 0; row < model.rowCount(); ++row)
            QVERIFY(row == 0 || model.tableAt(row - 1).id < model.tableAt(row).id);
        QCOMPARE(model.rowOfId(150), -1);
        QCOMPARE(model.tableAt(model.rowOfId(10500)).id, 10500);
        // The selection followed its row.
        const QModelIndexList selected = selection.selectedIndexes();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(model.tableAt(selected.first().row()).id, 5000);

        // Closing the workspace empties the table in one signal.
        removed.clear();
        model.setTables({});
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(removed.size(), 1);
    }

    // Each read of the workspace says which tables it changed since the read before (compared by
    // the reader): a run that ends one table's iteration and moves another's watermark changes
    // those two rows, and the model looks at no other.
    void aFollowingReadChangesItsTablesOnly() {
        constexpr int kTables = 1000;
        ControlTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        TablesReadSequence reads;
        QList<TableSpec> tables = numberedSpecs(kTables);
        QHash<qint64, QString> statuses;
        const TablesRead first = reads.next(tables, statuses);
        QCOMPARE(first.number, 1u);
        QCOMPARE(first.changedIds.size(), kTables);
        model.applyRead(first);
        QCOMPARE(model.rowCount(), kTables);

        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        statuses.insert(500, QStringLiteral("succeeded"));
        tables[699].lastWatermark = Watermark::integer(700);
        const TablesRead second = reads.next(tables, statuses);
        QCOMPARE(second.changedIds, (QList<qint64>{500, 700}));
        const QHash<qint64, QString> replaced = model.applyRead(second);
        QVERIFY(replaced.isEmpty()); // the statuses it showed before, for the caller to free
        QCOMPARE(changed.size(), 2);
        QCOMPARE(changed.at(0).at(0).value<QModelIndex>().row(), 499);
        QCOMPARE(changed.at(0).at(1).value<QModelIndex>().row(), 499);
        QCOMPARE(changed.at(1).at(0).value<QModelIndex>().row(), 699);
        QCOMPARE(changed.at(1).at(1).value<QModelIndex>().row(), 699);
        QCOMPARE(model.index(499, ControlTableModel::LastStatus).data(StatusNameRole).toString(),
                 QStringLiteral("succeeded"));
        QCOMPARE(model.tableAt(699).lastWatermark, tables.at(699).lastWatermark);

        // The model trusts the sequence: a row the read does not name is not looked at (so this
        // one, changed behind the sequence's back, stays as it was).
        changed.clear();
        TablesRead unnamed = reads.next(tables, statuses);
        QVERIFY(unnamed.changedIds.isEmpty());
        unnamed.tables[9].active = false;
        model.applyRead(unnamed);
        QCOMPARE(changed.size(), 0);
        QVERIFY(model.tableAt(9).active);

        // Nothing changed: nothing said.
        model.applyRead(reads.next(tables, statuses));
        QCOMPARE(changed.size(), 0);
        QCOMPARE(inserted.size(), 0);
        QCOMPARE(removed.size(), 0);
    }

    // What a following read cannot say by itself is still shown: a read missed (dropped as out of
    // date) and a row edited here that the workspace did not take.
    void aReadAfterAMissedOneOrALocalEditIsStillRight() {
        ControlTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        TablesReadSequence reads;
        QList<TableSpec> tables = numberedSpecs(100);
        QHash<qint64, QString> statuses;
        model.applyRead(reads.next(tables, statuses));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        statuses.insert(10, QStringLiteral("failed"));
        reads.next(tables, statuses); // missed: it names table 10, the next read does not
        tables[19].active = false;
        const TablesRead third = reads.next(tables, statuses);
        QCOMPARE(third.changedIds, (QList<qint64>{20}));
        model.applyRead(third);
        QCOMPARE(model.index(9, ControlTableModel::LastStatus).data(StatusNameRole).toString(),
                 QStringLiteral("failed"));
        QVERIFY(!model.tableAt(19).active);
        QCOMPARE(changed.size(), 2);

        // Paused here (an undo command's local edit), and the write did not happen: the next read
        // names nothing, and the row shows the workspace's state again.
        changed.clear();
        model.setActive(30, false);
        QCOMPARE(changed.size(), 1);
        const TablesRead after = reads.next(tables, statuses);
        QVERIFY(after.changedIds.isEmpty());
        model.applyRead(after);
        QVERIFY(model.tableAt(29).active);
        QCOMPARE(changed.size(), 2);

        // Tables come and go: one block each, as setTables() does.
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        tables.remove(40, 10);
        tables << spec(101, QStringLiteral("t101")) << spec(102, QStringLiteral("t102"));
        model.applyRead(reads.next(tables, statuses));
        QCOMPARE(model.rowCount(), 92);
        QCOMPARE(removed.size(), 1);
        QCOMPARE(inserted.size(), 1);
    }

    // A read dropped as out of date (a write was queued after it began) is folded into the next
    // one taken: that one still changes only the rows named since the read taken before, rather
    // than passing over every table.
    void aReadFoldedWithAMissedOneChangesItsTablesOnly() {
        ControlTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        TablesReadSequence reads;
        MissedTablesReads missed;
        QList<TableSpec> tables = numberedSpecs(100);
        QHash<qint64, QString> statuses;
        model.applyRead(reads.next(tables, statuses));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        statuses.insert(10, QStringLiteral("failed"));
        missed.miss(reads.next(tables, statuses));
        tables[19].active = false;
        TablesRead third = missed.fold(reads.next(tables, statuses));
        QCOMPARE(third.changedIds, (QList<qint64>{10, 20}));
        QCOMPARE(third.since, 1u);
        // Not named: a pass over every row would take it, a change of the rows named leaves it.
        third.tables[49].active = false;
        model.applyRead(third);
        QCOMPARE(model.index(9, ControlTableModel::LastStatus).data(StatusNameRole).toString(),
                 QStringLiteral("failed"));
        QVERIFY(!model.tableAt(19).active);
        QVERIFY(model.tableAt(49).active);
        QCOMPARE(changed.size(), 2);

        // Nothing missed since: the next read folds to itself.
        const TablesRead fourth = missed.fold(reads.next(tables, statuses));
        QCOMPARE(fourth.since, 3u);
        QVERIFY(fourth.changedIds.isEmpty());
    }

    void nextRunsChangeInOneSignal() {
        ControlTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<TableSpec> tables;
        QHash<qint64, TableNextRun> nextRuns;
        const QDateTime at = QDateTime::currentDateTimeUtc().addSecs(3600);
        for (int id = 1; id <= 1000; ++id) {
            tables << spec(id, QStringLiteral("t%1").arg(id));
            nextRuns.insert(id, {at, {QStringLiteral("hourly")}, {}, {}});
        }
        model.setTables(tables);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setNextRuns(nextRuns);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().row(), 0);
        QCOMPARE(changed.first().at(1).value<QModelIndex>().row(), 999);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().column(), int(ControlTableModel::NextRun));
        model.setNextRuns(nextRuns);
        QCOMPARE(changed.size(), 1); // nothing moved, nothing said
    }

    void nextRunsAreComputedOffTheGuiThread() {
        // 10,000 tables' next runs took 10-25 ms of the GUI thread as a workspace opened: they
        // are computed on a pooled thread, and only the newest computation is shown.
        ControlTableModel model;
        model.setTables({spec(1, QStringLiteral("orders")), spec(2, QStringLiteral("customers"))});
        NextRunColumn column(&model);
        const auto shown = [&model] {
            return model.index(0, ControlTableModel::NextRun).data().toString();
        };
        const auto schedule = [](const QString &name, const QString &cron) {
            ScheduleSpec spec;
            spec.name = name;
            spec.cron = cron;
            spec.timeZone = QStringLiteral("UTC");
            return spec;
        };
        column.setSchedules({schedule(QStringLiteral("newyear"), QStringLiteral("0 0 1 1 *"))});
        column.refresh();
        QCOMPARE(shown(), QStringLiteral("—")); // not computed on this thread
        QTRY_VERIFY(shown() != QStringLiteral("—"));
        const QString newYear = shown();

        // Asked twice before either answer: the first answer, whenever it comes, is not shown.
        column.setSchedules({schedule(QStringLiteral("hourly"), QStringLiteral("0 * * * *"))});
        column.refresh();
        column.setSchedules({schedule(QStringLiteral("nightly"), QStringLiteral("0 2 * * *"))});
        column.refresh();
        QTRY_VERIFY(column.findChildren<QFutureWatcherBase *>().isEmpty());
        QVERIFY(shown() != newYear);
        QVERIFY(model.index(0, ControlTableModel::NextRun)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("nightly")));
        QVERIFY(column.timer().isActive());
    }

    void checkboxRequestsInsteadOfEditing() {
        ControlTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTables({spec(4, QStringLiteral("orders"))});
        QSignalSpy requested(&model, &ControlTableModel::activeChangeRequested);
        const QModelIndex active = model.index(0, ControlTableModel::Active);
        QVERIFY(model.flags(active) & Qt::ItemIsUserCheckable);
        QVERIFY(model.setData(active, Qt::Unchecked, Qt::CheckStateRole));
        QCOMPARE(requested.size(), 1);
        QCOMPARE(requested.first().at(0).toLongLong(), 4);
        QCOMPARE(requested.first().at(1).toBool(), false);
        // The row changes only when the command applies it.
        QCOMPARE(model.tableAt(0).active, true);
        QVERIFY(!model.setData(model.index(0, ControlTableModel::Source), QStringLiteral("x"), Qt::EditRole));
    }
};

QTEST_GUILESS_MAIN(TestControlTableModel)
#include "tst_controltablemodel.moc"
