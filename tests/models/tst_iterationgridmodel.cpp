// SPDX-License-Identifier: MIT
// The run grid's model, headless: it builds and runs without the window (TIDEMARK_BUILD_GUI=OFF).
#include "model/engine/runcoordinator.h"
#include "model/models/itemroles.h"
#include "model/models/iterationgridmodel.h"
#include "tests/engine/enginefixture.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

class TestIterationGridModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    // A run of 10,000 tables: the summary is kept row by row (what a pass over every row would
    // count, at every step) and the run's end is one dataChanged for the whole grid.
    void bigRunSummaryKeptInStep() {
        constexpr int kTables = 10000;
        IterationGridModel model;
        QList<IterationRecord> rows;
        for (int id = 1; id <= kTables; ++id)
            rows << queuedIteration(3, id, QStringLiteral("t%1").arg(id));
        model.beginRun(3, rows);
        const auto recount = [&model] {
            RunSummary expected;
            for (int row = 0; row < model.rowCount(); ++row)
                expected.add(model.iterationAt(row), +1);
            QCOMPARE(model.summary().rowsRead, expected.rowsRead);
            QCOMPARE(model.summary().rowsWritten, expected.rowsWritten);
            QCOMPARE(model.summary().rowsSkipped, expected.rowsSkipped);
            for (IterationStatus status : {IterationStatus::Queued, IterationStatus::Running,
                                           IterationStatus::Succeeded, IterationStatus::Cancelled})
                QCOMPARE(model.summary().count(status), expected.count(status));
            QCOMPARE(model.summary().total, model.rowCount());
        };
        for (int id = 1; id <= 300; ++id) {
            IterationRecord running = rows.at(id - 1);
            running.status = IterationStatus::Running;
            running.rowsRead = 50;
            running.windowRows = 100;
            model.updateIteration(running);
            if (id % 3 == 0) {
                IterationRecord done = running;
                done.status = id % 2 ? IterationStatus::Succeeded : IterationStatus::Cancelled;
                done.rowsRead = 100;
                done.rowsWritten = id % 2 ? 100 : 40; // a cancelled one kept what it committed
                model.updateIteration(done);
            }
        }
        recount();
        QCOMPARE(model.summary().count(IterationStatus::Running), 200);

        RunRecord finished;
        finished.id = 3;
        for (const IterationRecord &row : rows) {
            IterationRecord cancelled = row;
            cancelled.status = IterationStatus::Cancelled;
            finished.iterations << cancelled;
        }
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.finishRun(finished);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().row(), 0);
        QCOMPARE(changed.first().at(1).value<QModelIndex>().row(), kTables - 1);
        recount();
        QCOMPARE(model.summary().count(IterationStatus::Cancelled), kTables);
    }

    void oneDataChangedPerUpdateAndStaleRunsDropped() {
        IterationGridModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QDateTime t0 = QDateTime::fromString(QStringLiteral("2026-01-01T10:00:00Z"), Qt::ISODate);
        QDateTime now = t0.addSecs(5);
        model.setClock([&now] { return now; });
        model.beginRun(7, {queuedIteration(7, 1, QStringLiteral("orders")),
                           queuedIteration(7, 2, QStringLiteral("items"))});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, IterationGridModel::Status).data().toString(), QStringLiteral("Queued"));

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        IterationRecord running = queuedIteration(7, 2, QStringLiteral("items"));
        running.status = IterationStatus::Running;
        running.startedAt = t0;
        running.rowsRead = 10000;
        running.windowRows = 40000;
        model.updateIteration(running);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>(), model.index(1, 0));
        QCOMPARE(changed.first().at(1).value<QModelIndex>(),
                 model.index(1, IterationGridModel::ColumnCount - 1));
        QCOMPARE(model.index(1, IterationGridModel::Progress).data(ProgressRole).toDouble(), 0.25);
        QCOMPARE(model.index(1, IterationGridModel::Progress).data().toString(),
                 QStringLiteral("10,000 / 40,000 · 2,000 rows/s · about 15.0 s left"));
        QCOMPARE(model.index(1, IterationGridModel::Duration).data().toString(), QStringLiteral("5.0 s"));
        QCOMPARE(model.index(1, IterationGridModel::Duration).data(RawRole).toLongLong(), 5000);

        // The same report again changes nothing; another run's report is ignored.
        model.updateIteration(running);
        IterationRecord stale = running;
        stale.runId = 6;
        stale.status = IterationStatus::Failed;
        model.updateIteration(stale);
        model.appendLog(6, 2, {now, QStringLiteral("info"), QStringLiteral("old")});
        QCOMPARE(changed.size(), 1);
        QCOMPARE(model.iterationAt(1).status, IterationStatus::Running);
        QVERIFY(model.iterationAt(1).log.isEmpty());

        // Log lines are kept with their row and survive progress reports.
        QSignalSpy logged(&model, &IterationGridModel::logAppended);
        model.appendLog(7, 2, {now, QStringLiteral("info"), QStringLiteral("window counted")});
        QCOMPARE(logged.size(), 1);
        running.rowsRead = 20000;
        model.updateIteration(running);
        QCOMPARE(model.iterationAt(1).log.size(), 1);

        const RunSummary summary = model.summary();
        QCOMPARE(summary.total, 2);
        QCOMPARE(summary.count(IterationStatus::Running), 1);
        QCOMPARE(summary.count(IterationStatus::Queued), 1);
        QVERIFY(summary.text().contains(QStringLiteral("1 running")));

        RunRecord finished;
        finished.id = 7;
        IterationRecord done = running;
        done.status = IterationStatus::Failed;
        done.error = QStringLiteral("Table items: disk full");
        done.durationMs = 61000;
        finished.iterations = {done};
        model.finishRun(finished);
        QCOMPARE(model.iterationAt(1).status, IterationStatus::Failed);
        QCOMPARE(model.iterationAt(1).log.size(), 1);
        QCOMPARE(model.index(1, IterationGridModel::Duration).data().toString(),
                 QStringLiteral("1 min 01 s"));
        QCOMPARE(model.index(1, 0).data(ErrorRole).toString(), done.error);
        QVERIFY(!model.isLive());
    }

    void progressYouCanBelieve() {
        // A copy inside the database reports no row until it ends: it showed "0" and an empty
        // bar, then jumped to the end; a table without new rows showed a full "0 / 0" bar.
        IterationGridModel model;
        const QDateTime t0 = QDateTime::fromString(QStringLiteral("2026-01-01T10:00:00Z"), Qt::ISODate);
        QDateTime now = t0.addSecs(12);
        model.setClock([&now] { return now; });
        IterationRecord counting = queuedIteration(8, 1, QStringLiteral("orders"));
        IterationRecord copying = queuedIteration(8, 2, QStringLiteral("events"));
        IterationRecord streaming = queuedIteration(8, 3, QStringLiteral("items"));
        IterationRecord quiet = queuedIteration(8, 4, QStringLiteral("quiet"));
        model.beginRun(8, {counting, copying, streaming, quiet});
        for (IterationRecord *r : {&counting, &copying, &streaming}) {
            r->status = IterationStatus::Running;
            r->startedAt = t0;
        }
        copying.windowRows = 3000000;
        streaming.windowRows = 3000000;
        streaming.rowsRead = 1200000;
        quiet.status = IterationStatus::NoNewRows;
        quiet.windowRows = 0;
        for (const IterationRecord &r : {counting, copying, streaming, quiet})
            model.updateIteration(r);
        const auto text = [&](int row) {
            return model.index(row, IterationGridModel::Progress).data().toString();
        };
        const auto fraction = [&](int row) {
            return model.index(row, IterationGridModel::Progress).data(ProgressRole).toDouble();
        };
        QCOMPARE(text(0), QStringLiteral("starting · 12.0 s"));
        QCOMPARE(fraction(0), -1.0);
        QCOMPARE(text(1), QStringLiteral("copying 3,000,000 rows · 12.0 s"));
        QCOMPARE(fraction(1), -1.0);
        QCOMPARE(text(2), QStringLiteral("1,200,000 / 3,000,000 · 100,000 rows/s · about 18.0 s left"));
        QCOMPARE(fraction(2), 0.4);
        QCOMPARE(text(3), QStringLiteral("—"));
        QCOMPARE(fraction(3), -1.0);

        // The elapsed time moves on by itself.
        now = t0.addSecs(30);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QTRY_VERIFY(!changed.isEmpty());
        QCOMPARE(text(1), QStringLiteral("copying 3,000,000 rows · 30.0 s"));
    }

    // Written is what the target holds: rows in the open transaction are pending, and once it
    // rolls back the Progress cell says so in words that agree with each other.
    void writtenIsWhatLanded() {
        IterationGridModel model;
        IterationRecord streaming = queuedIteration(9, 1, QStringLiteral("orders"));
        model.beginRun(9, {streaming});
        streaming.status = IterationStatus::Running;
        streaming.startedAt = QDateTime::currentDateTimeUtc();
        streaming.windowRows = 3000;
        streaming.rowsRead = 1200;
        streaming.rowsPending = 1200;
        model.updateIteration(streaming);
        const QModelIndex written = model.index(0, IterationGridModel::RowsWritten);
        QCOMPARE(written.data().toString(), QStringLiteral("0 (+1,200 pending)"));
        QCOMPARE(written.data(RawRole).toLongLong(), qint64(0));
        QVERIFY2(written.data(Qt::ToolTipRole).toString().contains(QStringLiteral("open transaction")),
                 qPrintable(written.data(Qt::ToolTipRole).toString()));

        streaming.status = IterationStatus::Cancelled;
        streaming.rowsPending = 0;
        streaming.rowsRolledBack = 1200;
        model.updateIteration(streaming);
        QCOMPARE(written.data().toString(), QStringLiteral("0"));
        QCOMPARE(model.index(0, IterationGridModel::RowsRead).data().toString(), QStringLiteral("0"));
        QCOMPARE(model.index(0, IterationGridModel::Progress).data().toString(),
                 QStringLiteral("rolled back, 0 of 3,000 kept"));
    }

    // The rows a reconcile removed (the source deleted them) are said beside what was written.
    void deletedRowsAreSaidBesideWritten() {
        IterationGridModel model;
        IterationRecord record = queuedIteration(10, 1, QStringLiteral("orders"));
        model.beginRun(10, {record});
        record.status = IterationStatus::Succeeded;
        record.rowsRead = record.rowsWritten = 2500;
        record.rowsDeleted = 12;
        model.updateIteration(record);
        QCOMPARE(model.index(0, IterationGridModel::RowsWritten).data().toString(),
                 QStringLiteral("2,500 (12 deleted)"));
        QVERIFY2(model.summary().text().endsWith(QStringLiteral("2,500 written, 0 skipped, 12 deleted")),
                 qPrintable(model.summary().text()));
    }

    // An iteration held back by a cap says which one, in its Progress cell and its tooltip, and
    // shows progress as usual once it runs.
    void queuedIterationSaysWhatItWaitsFor() {
        IterationGridModel model;
        IterationRecord record = queuedIteration(11, 1, QStringLiteral("orders"));
        model.beginRun(11, {record});
        record.waiting = QStringLiteral("waiting: connection erp has 2 of 2 in use");
        model.updateIteration(record);
        const QModelIndex progress = model.index(0, IterationGridModel::Progress);
        QCOMPARE(progress.data().toString(), record.waiting);
        QVERIFY2(progress.data(Qt::ToolTipRole).toString().endsWith(record.waiting),
                 qPrintable(progress.data(Qt::ToolTipRole).toString()));
        record.waiting.clear();
        record.status = IterationStatus::Running;
        record.startedAt = QDateTime::currentDateTimeUtc();
        record.runner = QStringLiteral("host:42");
        model.updateIteration(record);
        QVERIFY(!progress.data().toString().contains(QLatin1String("waiting")));
    }

    void realRunOfTheCore() {
        EngineFixture fixture;
        makeOrders(fixture.src, 500);
        makeOrders(fixture.src, 300, 1, QStringLiteral("items"));
        makeOrders(fixture.src, 40, 1, QStringLiteral("paused"));
        makeOrders(fixture.src, 40, 1, QStringLiteral("broken"));
        const qint64 orders =
            fixture.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        TableDraft itemsDraft = EngineFixture::draft(QStringLiteral("items"), QStringLiteral("id"));
        itemsDraft.spec.mode = WriteMode::Merge;
        const qint64 items = fixture.addTable(itemsDraft);
        const qint64 paused =
            fixture.addTable(EngineFixture::draft(QStringLiteral("paused"), QStringLiteral("updated_at")));
        const qint64 broken =
            fixture.addTable(EngineFixture::draft(QStringLiteral("broken"), QStringLiteral("updated_at")));
        fixture.ws->setActive(paused, false);
        // Broken on purpose: the source table disappears after it was added.
        execSql(fixture.src, QStringLiteral("DROP TABLE broken"));

        IterationGridModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        RunCoordinator coordinator(fixture.wsPath);
        connect(&coordinator, &RunCoordinator::runStarted, &model, &IterationGridModel::beginRun);
        connect(&coordinator, &RunCoordinator::iterationChanged, &model,
                &IterationGridModel::updateIteration);
        connect(&coordinator, &RunCoordinator::iterationLogged, &model, &IterationGridModel::appendLog);
        connect(&coordinator, &RunCoordinator::runFinished, &model, &IterationGridModel::finishRun);
        QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
        QSignalSpy failedToStart(&coordinator, &RunCoordinator::runFailedToStart);

        RunRequest request;
        request.concurrency = 2;
        QVERIFY(coordinator.start(request));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size() + failedToStart.size(), 1, 120000);
        QCOMPARE(failedToStart.size(), 0);

        QCOMPARE(model.rowCount(), 4);
        const auto row = [&](qint64 tableId) {
            return model.iterationAt(model.rowOfTable(tableId));
        };
        const auto cell = [&](qint64 tableId, int column) {
            return model.index(model.rowOfTable(tableId), column).data().toString();
        };

        QCOMPARE(row(orders).status, IterationStatus::Succeeded);
        QCOMPARE(row(orders).rowsRead, 500);
        QCOMPARE(row(orders).rowsWritten, 500);
        QCOMPARE(row(orders).rowsSkipped, 0);
        QCOMPARE(cell(orders, IterationGridModel::Status), QStringLiteral("Succeeded"));
        QCOMPARE(cell(orders, IterationGridModel::RowsWritten), QStringLiteral("500"));
        QCOMPARE(cell(orders, IterationGridModel::WatermarkBefore), QStringLiteral("(none)"));
        QCOMPARE(cell(orders, IterationGridModel::WatermarkAfter),
                 Watermark::timestamp(orderTimestamp(500))->display());
        QCOMPARE(model.index(model.rowOfTable(orders), 0).data(ProgressRole).toDouble(), 1.0);

        QCOMPARE(row(items).status, IterationStatus::Succeeded);
        QCOMPARE(row(items).rowsWritten, 300);
        QCOMPARE(cell(items, IterationGridModel::WatermarkAfter), QStringLiteral("300"));

        QCOMPARE(row(paused).status, IterationStatus::Skipped);
        QCOMPARE(row(paused).rowsRead, 0);

        QCOMPARE(row(broken).status, IterationStatus::Failed);
        QVERIFY(row(broken).error.contains(QStringLiteral("broken")));
        QCOMPARE(model.index(model.rowOfTable(broken), 0).data(ErrorRole).toString(), row(broken).error);

        const RunSummary summary = model.summary();
        QCOMPARE(summary.count(IterationStatus::Succeeded), 2);
        QCOMPARE(summary.count(IterationStatus::Skipped), 1);
        QCOMPARE(summary.count(IterationStatus::Failed), 1);
        QCOMPARE(summary.rowsWritten, 800);
        QVERIFY(!row(orders).log.isEmpty());

        // The second run starts from the watermarks the first one left.
        makeOrders(fixture.src, 25, 301, QStringLiteral("items"));
        QVERIFY(coordinator.start(request));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 120000);
        QCOMPARE(row(orders).status, IterationStatus::NoNewRows);
        QCOMPARE(row(orders).rowsRead, 0);
        QCOMPARE(cell(orders, IterationGridModel::WatermarkBefore),
                 Watermark::timestamp(orderTimestamp(500))->display());
        QCOMPARE(row(items).status, IterationStatus::Succeeded);
        QCOMPARE(row(items).rowsWritten, 25);
        QCOMPARE(cell(items, IterationGridModel::WatermarkBefore), QStringLiteral("300"));
        QCOMPARE(cell(items, IterationGridModel::WatermarkAfter), QStringLiteral("325"));
        QCOMPARE(model.runId(), finished.last().at(0).value<RunRecord>().id);
    }
};

QTEST_GUILESS_MAIN(TestIterationGridModel)
#include "tst_iterationgridmodel.moc"
