// SPDX-License-Identifier: MIT
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/itemroles.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/runhistorymodel.h"
#include "model/models/timeconvention.h"
#include "model/storage/workspace.h"
#include "tests/support/historyfill.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/history/historychart.h"
#include "ui/history/historypanel.h"
#include "ui/run/runpanel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QPlainTextEdit>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// A page source the test answers by hand, from a real workspace: what the window's gateway
// does off the GUI thread, done here when the test says.
struct ManualSource {
    QList<RunPageRequest> asked;
    RunHistoryModel::PageSource source() {
        return [this](const RunPageRequest &request) {
            asked << request;
        };
    }
    // Answers the oldest request still waiting from `workspace`, skipping those superseded
    // meanwhile (as the gateway does) unless `evenSuperseded`; false when none waits.
    bool answer(RunHistoryModel &model, Workspace &workspace, bool evenSuperseded = false) {
        while (!asked.isEmpty()) {
            const RunPageRequest request = asked.takeFirst();
            if (request.superseded->load() && !evenSuperseded)
                continue;
            model.pageLoaded(request.id, workspace.runOverviews(request.query));
            return true;
        }
        return false;
    }
};

// A model paged from the workspace at `path` through a ManualSource, its first page asked.
struct PagedModel {
    PagedModel(const QString &path, int pageSize)
        : workspace(Workspace::open(path)) {
        model.setPageSource(source.source(), pageSize);
    }
    std::unique_ptr<Workspace> workspace;
    RunHistoryModel model;
    QAbstractItemModelTester tester{&model, QAbstractItemModelTester::FailureReportingMode::QtTest};
    ManualSource source;
};

QList<qint64> modelIds(const QAbstractItemModel &model) {
    QList<qint64> ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids << model.index(row, 0).data(RunIdRole).toLongLong();
    return ids;
}

RunRecord makeRun(qint64 id, const QDateTime &started, QList<std::pair<qint64, IterationStatus>> iterations) {
    RunRecord run;
    run.id = id;
    run.trigger = QStringLiteral("cli");
    run.startedAt = started;
    run.finishedAt = run.startedAt.addSecs(90);
    QList<IterationStatus> statuses;
    for (const auto &[tableId, status] : iterations) {
        IterationRecord it;
        it.runId = id;
        it.tableId = tableId;
        it.source = QStringLiteral("src:t%1").arg(tableId);
        it.status = status;
        it.startedAt = run.startedAt;
        it.finishedAt = run.startedAt.addSecs(tableId);
        it.rowsRead = it.rowsWritten = 100 * tableId;
        it.durationMs = 1000 * tableId;
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
    void initTestCase() {
        isolateSettings();
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("history.tidemark"));
        Workspace::create(m_path);
        fillHistory(m_path, kRuns, kTables);
    }

    // Scrolling (fetchMore until canFetchMore says no) reaches every run, newest first.
    void fetchMoreReachesEveryRun() {
        PagedModel paged(m_path, 200);
        auto &[workspace, model, tester, source] = paged;
        QCOMPARE(source.asked.size(), 1);
        QVERIFY(!model.canFetchMore({})); // the first page is on its way
        QVERIFY(source.answer(model, *workspace));
        QCOMPARE(model.rowCount(), 200);
        int pages = 1;
        for (;;) {
            // The model tester asks for more after each change too; the view does the same.
            if (source.asked.isEmpty()) {
                if (!model.canFetchMore({}))
                    break;
                model.fetchMore({});
            }
            QVERIFY(!model.canFetchMore({})); // one page at a time
            QVERIFY(source.answer(model, *workspace));
            ++pages;
        }
        QCOMPARE(pages, 6);
        QVERIFY(model.isComplete());
        QList<RunCursor> expected;
        for (int run = 1; run <= kRuns; ++run)
            expected << RunCursor{historyRunStart(run), run};
        std::sort(expected.begin(), expected.end(), newerFirst);
        QList<qint64> expectedIds;
        for (const RunCursor &cursor : expected)
            expectedIds << cursor.runId;
        QCOMPARE(modelIds(model), expectedIds);
    }

    // Filtered to a table, a row shows what that table's iteration did; filters reset the rows.
    void filtersAreTheQuerys() {
        PagedModel paged(m_path, 50);
        auto &[workspace, model, tester, source] = paged;
        QVERIFY(source.answer(model, *workspace));
        model.setFilter(1, QString());
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(source.asked.last().query.tableId, qint64(1));
        QVERIFY(source.answer(model, *workspace));
        QCOMPARE(model.rowCount(), 50);
        for (int row = 0; row < model.rowCount(); ++row) {
            const int run = int(model.runAt(row).run.id);
            QCOMPARE(model.index(row, RunHistoryModel::RowsWritten).data(RawRole).toLongLong(),
                     historyRowsWritten(run, 1));
            QCOMPARE(model.index(row, RunHistoryModel::Tables).data().toString(), QStringLiteral("1"));
            QCOMPARE(model.index(row, RunHistoryModel::Duration).data(RawRole).toLongLong(), 100);
            QCOMPARE(model.index(row, RunHistoryModel::Status).data(StatusNameRole).toString(),
                     historyIterationStatus(run, 1));
            if (historyIterationStatus(run, 1) == QLatin1String("failed"))
                QCOMPARE(model.index(row, RunHistoryModel::Problems).data().toString(),
                         QStringLiteral("src:t1 (failed)"));
        }
        model.setFilter(1, QStringLiteral("failed"));
        QVERIFY(source.answer(model, *workspace));
        QCOMPARE(model.rowCount(), 50);
        for (int row = 0; row < model.rowCount(); ++row)
            QCOMPARE(model.runAt(row).run.id % 7, 0);
    }

    // A request overtaken by a newer one is marked superseded, and its late answer is dropped.
    void supersededRequestsAreDropped() {
        PagedModel paged(m_path, 100);
        auto &[workspace, model, tester, source] = paged;
        model.setFilter(0, QStringLiteral("failed"));
        model.setFilter(2, QString());
        QCOMPARE(source.asked.size(), 3);
        QVERIFY(source.asked.at(0).superseded->load());
        QVERIFY(source.asked.at(1).superseded->load());
        QVERIFY(!source.asked.at(2).superseded->load());
        QVERIFY(source.answer(model, *workspace, true)); // unfiltered: dropped
        QVERIFY(source.answer(model, *workspace, true)); // failed: dropped
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(source.answer(model, *workspace, true));
        QCOMPARE(model.rowCount(), 100);
        QCOMPARE(model.tableFilter(), qint64(2));

        // Refreshes: the newer supersedes the older; a tail fetch in flight survives them.
        model.fetchMore({});
        QCOMPARE(source.asked.size(), 1);
        model.refresh();
        model.refresh();
        QCOMPARE(source.asked.size(), 3);
        QVERIFY(!source.asked.at(0).superseded->load()); // the tail
        QVERIFY(source.asked.at(1).superseded->load());
        QVERIFY(!source.asked.at(2).superseded->load());
        while (source.answer(model, *workspace, true)) {
            if (source.asked.isEmpty() && model.canFetchMore({}))
                model.fetchMore({});
        }
        // Every run of table 2, once each.
        QVERIFY(model.isComplete());
        RunPageQuery table2;
        table2.tableId = 2;
        QCOMPARE(model.rowCount(), int(workspace->runCount(table2)));
        const QList<qint64> ids = modelIds(model);
        QCOMPARE(QSet<qint64>(ids.cbegin(), ids.cend()).size(), model.rowCount());
    }

    // Runs another process changed: updated in place, new ones on top, older ones left to their page.
    void upsertRunsKeepsPagesWhole() {
        PagedModel paged(m_path, 100);
        auto &[workspace, model, tester, source] = paged;
        QVERIFY(source.answer(model, *workspace));
        const qint64 newest = model.runAt(0).run.id;
        const QDateTime now = historyRunStart(kRuns - 1).addSecs(600); // after the newest run
        RunRecord running = makeRun(kRuns + 1, now, {{1, IterationStatus::Running}});
        running.status = QStringLiteral("running");
        running.finishedAt = QDateTime();
        model.upsertRuns({running});
        QCOMPARE(model.rowCount(), 101);
        QCOMPARE(model.runAt(0).run.id, qint64(kRuns + 1));
        QCOMPARE(model.index(0, RunHistoryModel::Duration).data().toString(), QString());
        QCOMPARE(model.runAt(1).run.id, newest);

        running = makeRun(kRuns + 1, now, {{1, IterationStatus::Succeeded}, {2, IterationStatus::Warning}});
        model.upsertRuns({running});
        QCOMPARE(model.rowCount(), 101);
        QCOMPARE(model.index(0, RunHistoryModel::Status).data().toString(), QStringLiteral("Warning"));
        QCOMPARE(model.index(0, RunHistoryModel::RowsWritten).data(RawRole).toLongLong(), 300);
        QCOMPARE(model.index(0, RunHistoryModel::Problems).data().toString(),
                 QStringLiteral("src:t2 (warning)"));

        // Older than the last page read: the page that holds it brings it, once.
        model.upsertRuns(
            {makeRun(kRuns + 2, historyRunStart(1).addDays(-1), {{1, IterationStatus::Succeeded}})});
        QCOMPARE(model.rowCount(), 101);
        // Filtered to table 3, a run without it stays out.
        model.setFilter(3, QString());
        QVERIFY(source.answer(model, *workspace));
        const int rows = model.rowCount();
        model.upsertRuns({makeRun(kRuns + 3, now.addSecs(60), {{1, IterationStatus::Succeeded}})});
        QCOMPARE(model.rowCount(), rows);
    }

    // A cancelled run of 10,000 tables has as many problems: its cell lists the first ones and
    // how many more (a view lays out every character it is given on each paint); the CSV export
    // and the run grid name them all.
    void manyProblemsShowTheFirstAndACount() {
        PagedModel paged(m_path, 100);
        auto &[workspace, model, tester, source] = paged;
        QVERIFY(source.answer(model, *workspace));
        QList<std::pair<qint64, IterationStatus>> iterations;
        for (qint64 table = 1; table <= 3000; ++table)
            iterations.append({table, IterationStatus::Cancelled});
        const QDateTime now = historyRunStart(kRuns - 1).addSecs(600);
        model.upsertRuns({makeRun(kRuns + 1, now, iterations)});
        QCOMPARE(model.runAt(0).run.id, qint64(kRuns + 1));
        const QString shown = model.index(0, RunHistoryModel::Problems).data().toString();
        QVERIFY2(shown.startsWith(QStringLiteral("src:t1 (cancelled), src:t2 (cancelled), ")),
                 qPrintable(shown));
        QVERIFY2(shown.endsWith(QStringLiteral("src:t10 (cancelled) and 2,990 more")), qPrintable(shown));
        QCOMPARE(model.index(0, RunHistoryModel::Problems).data(Qt::ToolTipRole).toString(), shown);
        const QString exported = model.index(0, RunHistoryModel::Problems).data(ExportRole).toString();
        QCOMPARE(exported.count(QStringLiteral("(cancelled)")), 3000);
        QVERIFY(exported.endsWith(QStringLiteral("src:t3000 (cancelled)")));
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

        // The panel: its rows, its table filter, its chart of the table's runs, its CSV export.
        WorkspaceGateway gateway(fixture.wsPath);
        ControlTableModel tables;
        tables.setTables(fixture.open()->tables());
        HistoryPanel panel(&tables);
        RunHistoryModel &model = *panel.model();
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy selected(&panel, &HistoryPanel::runSelected);
        panel.setGateway(&gateway);
        QTRY_COMPARE(model.rowCount(), 3);
        QCOMPARE(model.runAt(0).run.id, lastRun);
        QVERIFY(model.runAt(0).run.id > model.runAt(1).run.id);
        QVERIFY(model.runAt(1).run.id > model.runAt(2).run.id);
        QCOMPARE(model.index(0, RunHistoryModel::RowsWritten).data(RawRole).toLongLong(), 5);
        QCOMPARE(model.index(1, RunHistoryModel::Status).data().toString(), QStringLiteral("Succeeded"));
        QTRY_COMPARE(panel.chart()->pointCount(), 3);
        QTRY_COMPARE(panel.countText(), QStringLiteral("3 runs"));

        auto *statusFilter = panel.findChild<QComboBox *>(QStringLiteral("historyStatusFilter"));
        statusFilter->setCurrentIndex(statusFilter->findData(QStringLiteral("no_new_rows")));
        QTRY_COMPARE(panel.sortModel()->rowCount(), 1);
        auto *tableFilter = panel.findChild<QComboBox *>(QStringLiteral("historyTableFilter"));
        tableFilter->setCurrentIndex(1);
        QTRY_COMPARE(panel.countText(), QStringLiteral("src:orders → dst:orders: 1 run"));
        QCOMPARE(panel.sortModel()->rowCount(), 1);
        const QString csvPath = fixture.filePath(QStringLiteral("history.csv"));
        TimeConvention::current().setUtc(true); // times as the window shows them, with their offset
        QVERIFY(panel.exportCsvTo(csvPath));
        TimeConvention::current().setUtc(false);
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines =
            QString::fromUtf8(csv.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines.first().startsWith(QStringLiteral("Run,Started (UTC),Trigger,Status,Duration (s),")),
                 qPrintable(lines.first()));
        QVERIFY2(lines.at(1).contains(QStringLiteral("+00:00,")), qPrintable(lines.at(1)));
        // The second run is the one whose table found nothing new.
        QVERIFY(lines.at(1).startsWith(QString::number(lastRun - 1) + QLatin1Char(',')));
        statusFilter->setCurrentIndex(0);
        QTRY_COMPARE(model.rowCount(), 3);
        QTRY_COMPARE(panel.chart()->pointCount(), 3);

        // Selecting a run reads it whole (its iterations) for the run grid.
        panel.selectNewest();
        QTRY_COMPARE(selected.size(), 1);
        const RunRecord shown = selected.first().at(0).value<RunRecord>();
        QCOMPARE(shown.id, lastRun);
        QCOMPARE(shown.iterations.first().tableId, id);
        QCOMPARE(shown.iterations.first().rowsWritten, 5);

        // Its iterations come without their log; opened in the run grid, one reads its own.
        QVERIFY(shown.iterations.first().log.isEmpty());
        RunPanel runPanel;
        runPanel.setGateway(&gateway);
        runPanel.showPastRun(shown);
        runPanel.view()->setCurrentIndex(runPanel.view()->model()->index(0, 0));
        QTRY_VERIFY(!runPanel.shownModel()->iterationAt(0).log.isEmpty());
        auto *log = runPanel.findChild<QPlainTextEdit *>(QStringLiteral("iterationLog"));
        QTRY_VERIFY(!log->toPlainText().isEmpty());
        QCOMPARE(log->toPlainText().count(QLatin1Char('\n')) + 1,
                 fixture.open()->runs(1, lastRun).first().iterations.first().log.size());
    }

    // Reads a newer one overtook are not computed: skipped on the worker before the query.
    void supersededReloadsAreNotComputed() {
        WorkspaceGateway gateway(m_path);
        ControlTableModel tables;
        HistoryPanel panel(&tables);
        QSemaphore gate;
        // The worker is busy with something else while the user changes the filter three times.
        gateway.submit(
            &panel, [&gate](Workspace &) { return gate.tryAcquire(1, 30000); }, [](bool) {});
        panel.setGateway(&gateway);
        auto *statusFilter = panel.findChild<QComboBox *>(QStringLiteral("historyStatusFilter"));
        statusFilter->setCurrentIndex(statusFilter->findData(QStringLiteral("failed")));
        statusFilter->setCurrentIndex(statusFilter->findData(QStringLiteral("no_new_rows")));
        gate.release();
        gateway.waitForIdle();
        // Two first pages and their counts were overtaken before the worker got to them.
        QCOMPARE(gateway.supersededSkipped(), 4);
        int expected = 0;
        for (int run = 1; run <= kRuns; ++run)
            expected +=
                historyIterationStatus(run, 2) == QLatin1String("no_new_rows") && historyCopies(run, 2);
        QTRY_COMPARE(panel.model()->rowCount(), expected);
        QCOMPARE(panel.model()->statusFilter(), QStringLiteral("no_new_rows"));
        QTRY_COMPARE(panel.countText(), QStringLiteral("%1 runs").arg(expected));
        // Unfiltered, the count says how many of them are read so far.
        statusFilter->setCurrentIndex(0);
        QTRY_COMPARE(panel.countText(), QStringLiteral("1,050 runs, 200 shown"));
    }

    // The table filter follows the control table row by row: never cleared and refilled.
    void tableFilterFollowsTheControlTable() {
        ControlTableModel tables;
        HistoryPanel panel(&tables);
        auto *combo = panel.findChild<QComboBox *>(QStringLiteral("historyTableFilter"));
        QCOMPARE(combo->count(), 1);
        QCOMPARE(combo->currentText(), QStringLiteral("All tables"));
        QSignalSpy reset(combo->model(), &QAbstractItemModel::modelReset);
        QSignalSpy removed(combo->model(), &QAbstractItemModel::rowsRemoved);
        for (int id = 1; id <= 50; ++id) {
            TableSpec spec;
            spec.id = id;
            spec.sourceConnection = QStringLiteral("src");
            spec.sourceTable = QStringLiteral("t%1").arg(id);
            spec.targetConnection = QStringLiteral("dst");
            spec.targetTable = QStringLiteral("t%1").arg(id);
            tables.upsertTable(spec);
            if (id == 7)
                combo->setCurrentIndex(7);
        }
        QCOMPARE(combo->count(), 51);
        QCOMPARE(reset.size(), 0);
        QCOMPARE(removed.size(), 0);
        QCOMPARE(combo->currentData(TableIdRole).toLongLong(), 7);
        QCOMPARE(combo->currentText(), QStringLiteral("src:t7 → dst:t7"));
        QCOMPARE(panel.model()->tableFilter(), 7);
        tables.removeTable(3);
        QCOMPARE(combo->count(), 50);
        QCOMPARE(combo->currentData(TableIdRole).toLongLong(), 7);
    }

private:
    static constexpr int kRuns = 1050;
    static constexpr int kTables = 3;
    QTemporaryDir m_dir;
    QString m_path;
};

QTEST_MAIN(TestRunHistoryModel)
#include "tst_runhistorymodel.moc"
