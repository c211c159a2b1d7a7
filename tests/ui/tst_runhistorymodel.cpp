// SPDX-License-Identifier: MIT
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/itemroles.h"
#include "model/models/runhistorymodel.h"
#include "model/models/timeconvention.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/history/historychart.h"
#include "ui/history/historypanel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QSignalSpy>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

RunRecord makeRun(qint64 id, const QString &started, QList<std::pair<qint64, IterationStatus>> iterations) {
    RunRecord run;
    run.id = id;
    run.trigger = QStringLiteral("gui");
    run.startedAt = QDateTime::fromString(started, Qt::ISODate);
    run.finishedAt = run.startedAt.addSecs(90);
    QList<IterationStatus> statuses;
    for (const auto &[tableId, status] : iterations) {
        IterationRecord it;
        it.runId = id;
        it.tableId = tableId;
        it.source = QStringLiteral("src:t%1").arg(tableId);
        it.status = status;
        it.startedAt = run.startedAt;
        it.rowsRead = it.rowsWritten = 100 * id / iterations.size(); // totals: 100 x run id
        it.durationMs = 1000 * id;
        run.iterations << it;
        statuses << status;
    }
    run.status = deriveRunStatus(statuses, false);
    return run;
}

} // namespace

class TestRunHistoryModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void newestFirstAndFilters() {
        RunHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        RunHistoryFilterModel filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester filterTester(&filter,
                                              QAbstractItemModelTester::FailureReportingMode::QtTest);

        model.setRuns({
            makeRun(2, QStringLiteral("2026-01-02T02:00:00Z"),
                    {{1, IterationStatus::Failed}, {2, IterationStatus::Succeeded}}),
            makeRun(4, QStringLiteral("2026-01-04T02:00:00Z"), {{1, IterationStatus::Succeeded}}),
            makeRun(1, QStringLiteral("2026-01-01T02:00:00Z"),
                    {{1, IterationStatus::Succeeded}, {2, IterationStatus::Warning}}),
            makeRun(3, QStringLiteral("2026-01-03T02:00:00Z"), {{2, IterationStatus::NoNewRows}}),
        });
        QCOMPARE(model.rowCount(), 4);
        for (int row = 0; row < 4; ++row)
            QCOMPARE(model.index(row, RunHistoryModel::Id).data(RunIdRole).toLongLong(), 4 - row);
        QCOMPARE(model.index(0, RunHistoryModel::Duration).data().toString(), QStringLiteral("1 min 30 s"));
        QCOMPARE(model.index(2, RunHistoryModel::Status).data().toString(), QStringLiteral("Failed"));
        QCOMPARE(model.index(2, RunHistoryModel::RowsWritten).data(RawRole).toLongLong(), 200);
        QVERIFY(
            model.index(2, RunHistoryModel::Problems).data().toString().contains(QStringLiteral("src:t1")));

        const auto shownIds = [&] {
            QList<qint64> ids;
            for (int row = 0; row < filter.rowCount(); ++row)
                ids << filter.index(row, 0).data(RunIdRole).toLongLong();
            return ids;
        };
        QCOMPARE(shownIds(), (QList<qint64>{4, 3, 2, 1}));
        filter.setTableFilter(2);
        QCOMPARE(shownIds(), (QList<qint64>{3, 2, 1}));
        filter.setStatusFilter(QStringLiteral("warning"));
        QCOMPARE(shownIds(), (QList<qint64>{1}));
        filter.setTableFilter(1);
        QCOMPARE(shownIds(), (QList<qint64>{}));
        filter.setTableFilter(0);
        filter.setStatusFilter(QStringLiteral("failed"));
        QCOMPARE(shownIds(), (QList<qint64>{2}));
        filter.setStatusFilter({});

        // Sorting happens on the raw value: rows written 400 > 300 > 200 > 100.
        filter.sort(RunHistoryModel::RowsWritten, Qt::DescendingOrder);
        QCOMPARE(shownIds(), (QList<qint64>{4, 3, 2, 1}));
        filter.sort(RunHistoryModel::RowsWritten, Qt::AscendingOrder);
        QCOMPARE(shownIds(), (QList<qint64>{1, 2, 3, 4}));

        const QList<TableTrendPoint> trend = tableTrend(model.runs(), 1);
        QCOMPARE(trend.size(), 3);
        QCOMPARE(trend.first().runId, 1);
        QCOMPARE(trend.last().runId, 4);
        QCOMPARE(trend.at(1).status, IterationStatus::Failed);

        TimeConvention::current().setUtc(true); // times as the window shows them, with their offset
        const QString csv = modelToCsv(filter);
        TimeConvention::current().setUtc(false);
        const QStringList lines = csv.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 5);
        QVERIFY2(lines.first().startsWith(QStringLiteral("Run,Started (UTC),Trigger,Status,Duration (s),")),
                 qPrintable(lines.first()));
        QVERIFY(lines.at(1).startsWith(QStringLiteral("1,2026-01-01T02:00:00.000+00:00,")));
        QVERIFY(lines.at(1).contains(QStringLiteral(",100,")));
        // A field holding a comma is quoted.
        QVERIFY(lines.at(2).contains(QStringLiteral("\"src:t1 (failed)\"")) ||
                lines.at(2).contains(QStringLiteral("src:t1 (failed)")));
    }

    void realHistoryNewestFirst() {
        UiFixture fixture;
        makeOrders(fixture.src, 30);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        RunCoordinator coordinator(fixture.wsPath);
        QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
        for (int i = 0; i < 3; ++i) {
            if (i == 2)
                makeOrders(fixture.src, 5, 31);
            QVERIFY(coordinator.start({}));
            QTRY_COMPARE_WITH_TIMEOUT(finished.size(), i + 1, 60000);
        }
        const qint64 lastRun = finished.last().at(0).value<RunRecord>().id;

        WorkspaceGateway gateway(fixture.wsPath);
        RunHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        connect(&gateway, &WorkspaceGateway::historyLoaded, &model, &RunHistoryModel::setRuns);
        gateway.reloadHistory();
        QTRY_COMPARE(model.rowCount(), 3);
        QCOMPARE(model.runAt(0).id, lastRun);
        QVERIFY(model.runAt(0).id > model.runAt(1).id);
        QVERIFY(model.runAt(1).id > model.runAt(2).id);
        QCOMPARE(model.index(0, RunHistoryModel::RowsWritten).data(RawRole).toLongLong(), 5);
        QCOMPARE(model.index(1, RunHistoryModel::Status).data().toString(), QStringLiteral("Succeeded"));
        const QList<TableTrendPoint> trend = tableTrend(model.runs(), id);
        QCOMPARE(trend.size(), 3);
        QCOMPARE(trend.first().rowsWritten, 30);
        QCOMPARE(trend.at(1).status, IterationStatus::NoNewRows);
        QCOMPARE(trend.last().rowsWritten, 5);

        // The panel: its table filter, its chart of the table's runs, its CSV export.
        ControlTableModel tables;
        tables.setTables(fixture.open()->tables());
        HistoryPanel panel(&tables);
        QSignalSpy selected(&panel, &HistoryPanel::runSelected);
        panel.setGateway(&gateway);
        QTRY_COMPARE(panel.filterModel()->rowCount(), 3);
        QTRY_COMPARE(panel.chart()->pointCount(), 3); // "All tables": each run's totals
        auto *statusFilter = panel.findChild<QComboBox *>(QStringLiteral("historyStatusFilter"));
        statusFilter->setCurrentIndex(statusFilter->findData(QStringLiteral("no_new_rows")));
        QCOMPARE(panel.filterModel()->rowCount(), 1);
        const QString csvPath = fixture.filePath(QStringLiteral("history.csv"));
        QVERIFY(panel.exportCsvTo(csvPath));
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines =
            QString::fromUtf8(csv.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        // The second run is the one whose table found nothing new.
        QVERIFY(lines.at(1).startsWith(QString::number(model.runAt(1).id) + QLatin1Char(',')));
        panel.selectNewest();
        QCOMPARE(selected.size(), 1);
        QCOMPARE(selected.first().at(0).value<RunRecord>().iterations.first().status,
                 IterationStatus::NoNewRows);
    }
};

QTEST_MAIN(TestRunHistoryModel)
#include "tst_runhistorymodel.moc"
