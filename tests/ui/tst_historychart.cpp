// SPDX-License-Identifier: MIT
// The history chart: it follows the history's table filter, its points come from the
// workspace's aggregate query (Workspace::trend: one point per run, or per slice of the period
// when there are more runs than points), backfills appear as events, and its axes read well
// (distinct time labels chosen by span, integer counts with thousands separators).
#include "model/engine/backfill.h"
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/itemroles.h"
#include "model/models/runhistorymodel.h"
#include "model/models/timeconvention.h"
#include "model/storage/storedb.h"
#include "model/storage/storeopen.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/history/historychart.h"
#include "ui/history/historypanel.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLineSeries>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// `count` finished runs of table `tableId`, `spacingSecs` apart, the last one `endAgoSecs`
// before now; run i writes rows(i) rows, lasts 1 + i % 7 seconds, and every 10th one fails.
void addRuns(const QString &wsPath, qint64 tableId, int count, qint64 spacingSecs, qint64 endAgoSecs,
             const std::function<qint64(int)> &rows) {
    const QDateTime last = QDateTime::currentDateTimeUtc().addSecs(-endAgoSecs);
    const std::unique_ptr<StoreDb> store = openStoreDb(wsPath);
    StoreDb &db = *store;
    Transaction transaction(db);
    Statement run(
        db, QStringLiteral("INSERT INTO runs (\"trigger\", host, pid, started_at, finished_at, "
                           "status, concurrency, dry_run) VALUES ('manual', 'h', 1, ?1, ?2, ?3, 1, 0)"));
    Statement iteration(
        db, QStringLiteral("INSERT INTO iterations (run_id, table_id, source, target, status, started_at, "
                           "finished_at, duration_ms, rows_written) VALUES ((SELECT max(id) FROM runs), ?1, "
                           "'src:t', 'dst:t', ?2, ?3, ?4, ?5, ?6)"));
    for (int i = 0; i < count; ++i) {
        const QDateTime started = last.addSecs(-spacingSecs * (count - 1 - i));
        const QDateTime finished = started.addMSecs(1000 + 1000 * (i % 7));
        const QString status = i % 10 == 9 ? QStringLiteral("failed") : QStringLiteral("succeeded");
        run.reset();
        run.bind(1, isoUtc(started)).bind(2, isoUtc(finished)).bind(3, status).run();
        iteration.reset();
        iteration.bind(1, tableId)
            .bind(2, status)
            .bind(3, isoUtc(started))
            .bind(4, isoUtc(finished))
            .bind(5, started.msecsTo(finished))
            .bind(6, rows(i))
            .run();
    }
    transaction.commit();
}

QCategoryAxis *axis(HistoryChart &chart, Qt::Alignment alignment) {
    const QList<QAbstractAxis *> axes =
        chart.chart()->axes(alignment == Qt::AlignBottom ? Qt::Horizontal : Qt::Vertical);
    for (QAbstractAxis *candidate : axes)
        if (candidate->alignment() == alignment)
            return qobject_cast<QCategoryAxis *>(candidate);
    return nullptr;
}

bool allDistinct(const QStringList &labels) {
    return QSet<QString>(labels.cbegin(), labels.cend()).size() == labels.size();
}

} // namespace

class TestHistoryChart : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void followsTheFilterWithBackfills() {
        UiFixture fixture;
        makeOrders(fixture.src, 30);
        makeOrders(fixture.src, 10, 1, QStringLiteral("clients"));
        const qint64 orders =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        const qint64 clients =
            fixture.addTable(UiFixture::draft(QStringLiteral("clients"), QStringLiteral("updated_at")));
        {
            RunCoordinator coordinator(fixture.wsPath);
            QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
            QVERIFY(coordinator.start({}));
            QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
            RunRequest ordersOnly;
            ordersOnly.tableIds = {orders};
            QVERIFY(coordinator.start(ordersOnly));
            QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
            RunRequest dryRun = ordersOnly;
            dryRun.dryRun = true;
            QVERIFY(coordinator.start(dryRun));
            QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 60000);
        }
        {
            auto ws = fixture.open();
            BackfillRequest request;
            request.tableId = orders;
            request.fromText = orderTimestamp(20);
            request.action = BackfillTargetAction::DeleteNewer;
            runBackfill(*ws, request);
        }

        WorkspaceGateway gateway(fixture.wsPath);
        ControlTableModel tables;
        tables.setTables(fixture.open()->tables());
        HistoryPanel panel(&tables);
        HistoryChart *chart = panel.chart();
        panel.setGateway(&gateway);
        QTRY_COMPARE(panel.sortModel()->rowCount(), 3);

        // "All tables": each run's totals (the dry run left out), every backfill.
        QTRY_COMPARE(chart->pointCount(), 2);
        QCOMPARE(chart->tableId(), 0);
        QVERIFY(chart->chart()->title().startsWith(QStringLiteral("All tables")));
        QCOMPARE(chart->backfillCount(), 1);

        auto *filter = panel.findChild<QComboBox *>(QStringLiteral("historyTableFilter"));
        QSignalSpy shown(chart, &HistoryChart::trendShown);
        filter->setCurrentIndex(filter->findData(clients, TableIdRole));
        QTRY_COMPARE(chart->tableId(), clients);
        QTRY_VERIFY(!shown.isEmpty());
        QCOMPARE(chart->pointCount(), 1);
        QCOMPARE(chart->backfillCount(), 0);
        QVERIFY(chart->chart()->title().startsWith(QStringLiteral("src:clients")));

        shown.clear();
        filter->setCurrentIndex(filter->findData(orders, TableIdRole));
        QTRY_VERIFY(!shown.isEmpty());
        QCOMPARE(chart->tableId(), orders);
        QCOMPARE(chart->pointCount(), 2);
        QCOMPARE(chart->backfillCount(), 1);
        QStringList names;
        for (QAbstractSeries *series : chart->chart()->series())
            names << series->name();
        QVERIFY2(names.contains(QStringLiteral("Backfill")), qPrintable(names.join(QLatin1Char('|'))));
    }

    void pointsComeFromTheAggregate() {
        UiFixture fixture;
        const auto rows = [](int i) {
            return qint64(1000 + i);
        };
        addRuns(fixture.wsPath, 7, 1000, 3600, 60, rows); // ~42 days of hourly runs
        addRuns(fixture.wsPath, 8, 5, 3600, 60, rows);    // another table: never counted for 7
        auto ws = fixture.open();

        TrendQuery query;
        query.tableId = 7;
        query.maxPoints = 2000;
        Trend trend = ws->trend(query);
        QCOMPARE(trend.points.size(), 1000); // one point per run
        QCOMPARE(trend.points.first().rowsWritten, 1000);
        QCOMPARE(trend.points.at(9).status, IterationStatus::Failed);
        QCOMPARE(trend.points.at(8).status, IterationStatus::Succeeded);

        query.maxPoints = 50;
        trend = ws->trend(query);
        QVERIFY2(trend.points.size() <= 50 && trend.points.size() >= 45,
                 qPrintable(QString::number(trend.points.size())));
        qint64 runs = 0;
        qint64 written = 0;
        for (const TrendPoint &point : trend.points) {
            runs += point.runs;
            written += point.rowsWritten;
            QCOMPARE(point.status, IterationStatus::Failed); // each slice holds a failed run
        }
        QCOMPARE(runs, 1000);
        QCOMPARE(written, 1000 * 1000 + 999 * 1000 / 2);

        // A period: only the runs started in it.
        query.maxPoints = 2000;
        query.to = QDateTime::currentDateTimeUtc();
        query.from = query.to.addSecs(-10 * 3600);
        QCOMPARE(ws->trend(query).points.size(), 10);

        // Through the chart: the gateway's reply, capped at its point budget.
        WorkspaceGateway gateway(fixture.wsPath);
        HistoryChart chart;
        chart.setGateway(&gateway);
        QSignalSpy shown(&chart, &HistoryChart::trendShown);
        chart.showTable(8, QStringLiteral("eight"));
        chart.showTable(7, QStringLiteral("seven")); // overtakes the first request
        QTRY_VERIFY(!shown.isEmpty());
        QTRY_COMPARE(chart.tableId(), 7);
        QVERIFY(chart.pointCount() <= 200 && chart.pointCount() > 100);
        QCOMPARE(shown.size(), 1); // the overtaken reply was never drawn
        // The period shown (the last 30 days by default) bounds the query: all time has more runs.
        shown.clear();
        auto *period = chart.findChild<QComboBox *>(QStringLiteral("chartPeriod"));
        QCOMPARE(period->currentText(), QStringLiteral("Last 30 days"));
        period->setCurrentIndex(period->findData(24 * 3600));
        QTRY_VERIFY(!shown.isEmpty());
        QCOMPARE(chart.pointCount(), 24); // hourly runs, the last 24 hours
    }

    // A run another process runs is reported twice a second: the chart follows it, one trend
    // query for a burst of reports, not one each.
    void liveMergesAreCoalesced() {
        UiFixture fixture;
        const auto rows = [](int i) {
            return qint64(10 * (i + 1));
        };
        addRuns(fixture.wsPath, 7, 5, 3600, 7200, rows);
        WorkspaceGateway gateway(fixture.wsPath);
        ControlTableModel tables;
        HistoryPanel panel(&tables);
        HistoryChart *chart = panel.chart();
        panel.setGateway(&gateway);
        QTRY_COMPARE(chart->pointCount(), 5);
        gateway.waitForIdle();
        QTRY_COMPARE(panel.model()->rowCount(), 5);
        const int before = chart->trendRequests();

        addRuns(fixture.wsPath, 7, 1, 60, 60, rows); // another process's run
        const RunRecord run = fixture.open()->runs(1).first();
        constexpr int kMerges = 50;
        for (int i = 0; i < kMerges; ++i)
            panel.mergeRuns({run});
        QTRY_COMPARE(chart->pointCount(), 6);
        gateway.waitForIdle();
        QTest::qWait(HistoryChart::kQuietMs * 2); // nothing more is asked once the reports stop
        QCOMPARE(chart->trendRequests() - before, 1);

        // Another burst: one more.
        for (int i = 0; i < kMerges; ++i)
            panel.mergeRuns({run});
        QTRY_COMPARE(chart->trendRequests() - before, 2);
        gateway.waitForIdle();
        QTest::qWait(HistoryChart::kQuietMs * 2);
        QCOMPARE(chart->trendRequests() - before, 2);
    }

    void axesReadWell_data() {
        QTest::addColumn<qint64>("spacingSecs");
        QTest::addColumn<QString>("labelPattern");
        // Across midnight the hours name their day.
        QTest::newRow("within a day") << qint64(1800) << QStringLiteral("^([A-Z][a-z]{2} )?\\d\\d:\\d\\d$");
        QTest::newRow("within a year") << qint64(5 * 24 * 3600) << QStringLiteral("^[A-Z][a-z]{2} \\d{1,2}$");
        QTest::newRow("beyond") << qint64(40 * 24 * 3600) << QStringLiteral("^\\d{4}-\\d\\d$");
    }

    void axesReadWell() {
        QFETCH(qint64, spacingSecs);
        QFETCH(QString, labelPattern);
        UiFixture fixture;
        addRuns(fixture.wsPath, 3, 30, spacingSecs, 120, [](int i) { return qint64(i % 4) * 1'234'567; });
        addRuns(fixture.wsPath, 4, 30, spacingSecs, 120, [](int i) { return qint64(i % 4); });
        WorkspaceGateway gateway(fixture.wsPath);
        HistoryChart chart;
        chart.resize(800, 400);
        chart.show();
        chart.setGateway(&gateway);
        auto *period = chart.findChild<QComboBox *>(QStringLiteral("chartPeriod"));
        period->setCurrentIndex(period->findData(0)); // all time
        QSignalSpy shown(&chart, &HistoryChart::trendShown);
        for (const bool utc : {true, false}) {
            TimeConvention::current().setUtc(utc);
            for (const qint64 table : {3, 4}) {
                shown.clear();
                chart.showTable(table, QStringLiteral("t"));
                QTRY_VERIFY(!shown.isEmpty());
                QCOMPARE(chart.pointCount(), 30);

                QCategoryAxis *time = axis(chart, Qt::AlignBottom);
                QVERIFY(time);
                const QStringList timeLabels = time->categoriesLabels();
                QVERIFY2(timeLabels.size() >= 2 && allDistinct(timeLabels),
                         qPrintable(timeLabels.join(QLatin1Char('|'))));
                for (const QString &label : timeLabels)
                    QVERIFY2(QRegularExpression(labelPattern).match(label).hasMatch(), qPrintable(label));
                QVERIFY(time->titleText().contains(utc ? QStringLiteral("(UTC)")
                                                       : TimeConvention::localZoneName()));

                QCategoryAxis *rows = axis(chart, Qt::AlignLeft);
                QVERIFY(rows);
                const QStringList rowLabels = rows->categoriesLabels();
                QVERIFY2(rowLabels.size() >= 2 && allDistinct(rowLabels),
                         qPrintable(rowLabels.join(QLatin1Char('|'))));
                for (const QString &label : rowLabels) {
                    QVERIFY2(
                        QRegularExpression(QStringLiteral("^\\d{1,3}(,\\d{3})*$")).match(label).hasMatch(),
                        qPrintable(label));
                }
                if (table == 3)
                    QVERIFY2(rowLabels.last().contains(QLatin1Char(',')), qPrintable(rowLabels.last()));
                else
                    QCOMPARE(rowLabels.join(QLatin1Char(' ')), QStringLiteral("0 1 2 3 4"));
                QVERIFY(rows->max() >= 3 * (table == 3 ? 1'234'567 : 1));

                // Failed runs stay marked.
                int failed = 0;
                for (QAbstractSeries *series : chart.chart()->series())
                    if (series->name() == QStringLiteral("Problems"))
                        failed = int(static_cast<QScatterSeries *>(series)->count());
                QCOMPARE(failed, 3);
            }
        }
        TimeConvention::current().setUtc(false);
    }

    // The last 24 hours: several hour ticks that fit the period, the axis ending a little after
    // now, a usable minimum size, and a tooltip on each point saying which run it is.
    void lastDayReadsAndHovers() {
        UiFixture fixture;
        addRuns(fixture.wsPath, 5, 20, 3600, 60, [](int i) { return qint64(100 + i); });
        WorkspaceGateway gateway(fixture.wsPath);
        HistoryChart chart;
        chart.resize(420, 220); // the chart beside the history at 1024×768
        chart.show();
        chart.setGateway(&gateway);
        auto *period = chart.findChild<QComboBox *>(QStringLiteral("chartPeriod"));
        period->setCurrentIndex(period->findData(24 * 3600));
        QSignalSpy shown(&chart, &HistoryChart::trendShown);
        chart.showTable(5, QStringLiteral("src:t → dst:t"));
        QTRY_VERIFY(!shown.isEmpty());
        QCOMPARE(chart.pointCount(), 20);
        auto *view = chart.findChild<QChartView *>();
        QVERIFY(view->minimumWidth() >= 260 && view->minimumHeight() >= 200);

        QCategoryAxis *time = axis(chart, Qt::AlignBottom);
        const QStringList labels = time->categoriesLabels();
        QVERIFY2(labels.size() >= 4 && labels.size() <= 6 && allDistinct(labels),
                 qPrintable(labels.join(QLatin1Char('|'))));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QVERIFY2(time->max() > now && time->max() < now + 3600'000,
                 qPrintable(QString::number(time->max() - now)));

        // The newest point: the table's last run, its rows.
        QList<QPointF> points;
        for (QAbstractSeries *series : chart.chart()->series())
            if (series->name() == QStringLiteral("Rows written"))
                points = static_cast<QLineSeries *>(series)->points();
        QCOMPARE(points.size(), 20);
        const QString tip = chart.pointToolTip(points.last().x());
        QVERIFY2(tip.startsWith(QStringLiteral("Run ")) && tip.contains(QStringLiteral("119 rows written")),
                 qPrintable(tip));
        // The top point is below the axis' end, drawn whole.
        QVERIFY(axis(chart, Qt::AlignLeft)->max() > 119);
    }
};

QTEST_MAIN(TestHistoryChart)

#include "tst_historychart.moc"
