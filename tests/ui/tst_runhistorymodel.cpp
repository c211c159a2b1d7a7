// SPDX-License-Identifier: MIT
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/runhistorymodel.h"
#include "model/models/timeconvention.h"
#include "model/storage/workspace.h"
#include "tests/support/historyfill.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/history/historychart.h"
#include "ui/history/historyexport.h"
#include "ui/history/historypanel.h"
#include "ui/run/runpanel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimeZone>
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

// Table `id` of the control table, src:t<id> → dst:t<id> (the history's tables need no more).
TableSpec tableSpec(int id) {
    TableSpec spec;
    spec.id = id;
    spec.sourceConnection = QStringLiteral("src");
    spec.sourceTable = QStringLiteral("t%1").arg(id);
    spec.targetConnection = QStringLiteral("dst");
    spec.targetTable = QStringLiteral("t%1").arg(id);
    return spec;
}

// RFC 4180, strictly: quoted fields with doubled quotes, CRLF after every record, nothing else.
// Fails the test (and returns what it read) at the first byte out of place.
QList<QStringList> parseCsvStrictly(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        QTest::qFail(qPrintable(QStringLiteral("cannot read %1").arg(path)), __FILE__, __LINE__);
        return {};
    }
    const QString text = QString::fromUtf8(file.readAll());
    QList<QStringList> records;
    QStringList record;
    QString field;
    qsizetype i = 0;
    const auto fail = [&](const char *what) {
        QTest::qFail(qPrintable(QStringLiteral("%1 at offset %2").arg(QLatin1String(what)).arg(i)), __FILE__,
                     __LINE__);
        return records;
    };
    while (i < text.size()) {
        if (text.at(i) == QLatin1Char('"')) {
            for (++i;; ++i) {
                if (i >= text.size())
                    return fail("unterminated quote");
                if (text.at(i) == QLatin1Char('"')) {
                    if (i + 1 < text.size() && text.at(i + 1) == QLatin1Char('"'))
                        field += text.at(++i);
                    else
                        break;
                } else {
                    field += text.at(i);
                }
            }
            ++i;
        } else {
            while (i < text.size() && text.at(i) != QLatin1Char(',') && text.at(i) != QLatin1Char('\r')) {
                if (text.at(i) == QLatin1Char('"') || text.at(i) == QLatin1Char('\n'))
                    return fail("quote or bare line feed in an unquoted field");
                field += text.at(i++);
            }
        }
        record << std::exchange(field, {});
        if (i < text.size() && text.at(i) == QLatin1Char(',')) {
            ++i;
            continue;
        }
        if (text.mid(i, 2) != QLatin1String("\r\n"))
            return fail("a record not ended by CRLF");
        i += 2;
        records << std::exchange(record, {});
    }
    return records;
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
        // Rows a reconcile removed are said apart, as in the grid; a range backfill says so.
        running.iterations[0].rowsDeleted = 13;
        running.kind = QString::fromLatin1(kRunKindRangeBackfill);
        model.upsertRuns({running});
        QCOMPARE(model.index(0, RunHistoryModel::RowsWritten).data().toString(),
                 QStringLiteral("300 (13 deleted)"));
        QVERIFY2(model.index(0, RunHistoryModel::Trigger)
                     .data()
                     .toString()
                     .endsWith(QStringLiteral("(range backfill)")),
                 qPrintable(model.index(0, RunHistoryModel::Trigger).data().toString()));

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
        const QString exported = RunHistoryModel::csvFields(model.runAt(0), QTimeZone::utc()).last();
        QCOMPARE(exported.count(QStringLiteral("(cancelled)")), 3000);
        QVERIFY(exported.endsWith(QStringLiteral("src:t3000 (cancelled)")));
    }

    // A cancelled or failed iteration rolled back what it read and did not commit: its run's Read
    // is what was kept, as in the run grid, whether the figures come from the workspace's sums
    // or from a run record the window holds; the tooltip says how many were read.
    void rolledBackRowsAreNotShownAsRead() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        makeOrders(fixture.src, 5, 1, QStringLiteral("other"));
        makeOrders(fixture.src, 5, 1, QStringLiteral("third"));
        const qint64 kept =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        const qint64 cancelled =
            fixture.addTable(UiFixture::draft(QStringLiteral("other"), QStringLiteral("updated_at")));
        const qint64 failed =
            fixture.addTable(UiFixture::draft(QStringLiteral("third"), QStringLiteral("updated_at")));
        RunRecord run;
        {
            auto ws = fixture.open();
            const qint64 runId = ws->beginRun(QStringLiteral("gui"), 3, false);
            const auto add = [&](qint64 table, IterationStatus status, qint64 read, qint64 written) {
                IterationRecord it;
                it.runId = runId;
                it.tableId = table;
                it.source = QStringLiteral("src:t%1").arg(table);
                it.status = status;
                it.startedAt = QDateTime::currentDateTimeUtc();
                it.rowsRead = read;
                it.rowsWritten = written;
                ws->addIteration(it);
            };
            add(kept, IterationStatus::Succeeded, 10, 10);
            add(cancelled, IterationStatus::Cancelled, 3000000, 0);
            add(failed, IterationStatus::Failed, 700, 200); // committed per batch: 200 kept
            ws->finishRun(runId, QStringLiteral("cancelled"));
            run = ws->runs(1, runId).first();
        }
        PagedModel paged(fixture.wsPath, 100);
        auto &[workspace, model, tester, source] = paged;
        QVERIFY(source.answer(model, *workspace));
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex read = model.index(0, RunHistoryModel::RowsRead);
        QCOMPARE(read.data().toString(), formatCount(210));
        QVERIFY2(read.data(Qt::ToolTipRole).toString().contains(formatCount(3000710)),
                 qPrintable(read.data(Qt::ToolTipRole).toString()));
        QCOMPARE(RunHistoryModel::csvFields(model.runAt(0), QTimeZone::utc()).at(RunHistoryModel::RowsRead),
                 QStringLiteral("210"));
        const std::optional<RunOverview> defined = overviewOf(run, RunPageQuery{});
        QVERIFY(defined);
        QCOMPARE(defined->rowsReadKept, qint64(210));
        QCOMPARE(defined->rowsRead, qint64(3000710));
        QCOMPARE(model.runAt(0).rowsReadKept, defined->rowsReadKept);
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
        QSignalSpy exported(&panel, &HistoryPanel::exportFinished);
        QVERIFY(panel.exportCsvTo(csvPath));
        QTRY_COMPARE_WITH_TIMEOUT(exported.size(), 1, 60000);
        QVERIFY(exported.first().at(0).toBool());
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

    // The export writes every run the filter takes, not the pages the view has read: read a page
    // at a time on the gateway's worker, with progress, in the order shown.
    void exportWritesEveryRunTheFilterTakes() {
        constexpr int kManyRuns = 2600; // table 2: 1,733 runs, more than a view page and an export page
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("export.tidemark"));
        Workspace::create(path);
        fillHistory(path, kManyRuns, kTables);
        QList<RunCursor> expectedOrder;
        for (int run = 1; run <= kManyRuns; ++run) {
            if (historyCopies(run, 2))
                expectedOrder << RunCursor{historyRunStart(run), run};
        }
        std::sort(expectedOrder.begin(), expectedOrder.end(), newerFirst);
        QVERIFY(expectedOrder.size() > HistoryExport::kPageRuns);

        WorkspaceGateway gateway(path);
        ControlTableModel tables;
        for (int id = 1; id <= kTables; ++id)
            tables.upsertTable(tableSpec(id));
        HistoryPanel panel(&tables);
        panel.setGateway(&gateway);
        auto *tableFilter = panel.findChild<QComboBox *>(QStringLiteral("historyTableFilter"));
        tableFilter->setCurrentIndex(2);
        QCOMPARE(tableFilter->currentData(TableIdRole).toLongLong(), 2);
        QTRY_COMPARE(panel.model()->rowCount(), 200);
        QTRY_COMPARE(panel.countText(), QStringLiteral("src:t2 → dst:t2: 1,733 runs, 200 shown"));

        TimeConvention::current().setUtc(true);
        const QString csvPath = dir.filePath(QStringLiteral("table2.csv"));
        QSignalSpy finished(&panel, &HistoryPanel::exportFinished);
        auto *progress = panel.findChild<QProgressBar *>(QStringLiteral("historyExportProgress"));
        QVERIFY(panel.exportCsvTo(csvPath));
        QVERIFY(!panel.exportCsvTo(csvPath)); // one at a time
        QVERIFY(progress->isVisibleTo(&panel));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        TimeConvention::current().setUtc(false);
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(1).toString()));
        QVERIFY(!progress->isVisibleTo(&panel));
        QCOMPARE(progress->maximum(), int(expectedOrder.size()));
        QCOMPARE(panel.model()->rowCount(), 200); // the view read no more for it

        const QList<QStringList> records = parseCsvStrictly(csvPath);
        QCOMPARE(records.size(), expectedOrder.size() + 1);
        QCOMPARE(records.first(), (QStringList{QStringLiteral("Run"), QStringLiteral("Started (UTC)"),
                                               QStringLiteral("Trigger"), QStringLiteral("Status"),
                                               QStringLiteral("Duration (s)"), QStringLiteral("Tables"),
                                               QStringLiteral("Read"), QStringLiteral("Written"),
                                               QStringLiteral("Skipped"), QStringLiteral("Problems")}));
        for (qsizetype i = 1; i < records.size(); ++i) {
            const QStringList &record = records.at(i);
            const RunCursor &want = expectedOrder.at(i - 1);
            QCOMPARE(record.size(), qsizetype(RunHistoryModel::ColumnCount));
            QCOMPARE(record.at(RunHistoryModel::Id).toLongLong(), want.runId);
            QVERIFY2(record.at(RunHistoryModel::Started).endsWith(QStringLiteral("+00:00")),
                     qPrintable(record.at(RunHistoryModel::Started)));
            QCOMPARE(QDateTime::fromString(record.at(RunHistoryModel::Started), Qt::ISODateWithMs),
                     want.startedAt);
            QCOMPARE(record.at(RunHistoryModel::Duration), QStringLiteral("0.200")); // table 2's 200 ms
            QCOMPARE(record.at(RunHistoryModel::RowsWritten).toLongLong(),
                     historyRowsWritten(int(want.runId), 2));
        }
        // Cancelled: the file there is left as it was.
        QVERIFY(panel.exportCsvTo(csvPath));
        panel.cancelExport();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 60000);
        QVERIFY(!finished.last().at(0).toBool());
        QCOMPARE(parseCsvStrictly(csvPath).size(), records.size());
        // A file that cannot be written is named.
        const QString bad = dir.filePath(QStringLiteral("no-such-dir/table2.csv"));
        QVERIFY(panel.exportCsvTo(bad));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 60000);
        QVERIFY(!finished.last().at(0).toBool());
        QVERIFY2(finished.last().at(1).toString().contains(QDir::toNativeSeparators(bad)),
                 qPrintable(finished.last().at(1).toString()));
    }

    // A header click sorts every run in the workspace, not the pages read: scrolled to the end,
    // the rows are the table's whole history in that order.
    void headerSortsInTheWorkspace() {
        WorkspaceGateway gateway(m_path);
        ControlTableModel tables;
        for (int id = 1; id <= kTables; ++id)
            tables.upsertTable(tableSpec(id));
        HistoryPanel panel(&tables);
        panel.resize(1000, 600);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setGateway(&gateway);
        RunHistoryModel &model = *panel.model();
        QSignalSpy messages(&panel, &HistoryPanel::statusMessage);
        QHeaderView *header = panel.view()->horizontalHeader();
        const auto click = [&](int column) {
            QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                              QPoint(header->sectionViewportPosition(column) + 5, header->height() / 2));
        };
        QCOMPARE(header->sortIndicatorSection(), int(RunHistoryModel::Started));
        QTRY_COMPARE(model.rowCount(), 200);

        // Unfiltered, a run's rows are sums: no index orders them, so the click is refused.
        click(RunHistoryModel::RowsWritten);
        QCOMPARE(header->sortIndicatorSection(), int(RunHistoryModel::Started));
        QVERIFY(!messages.isEmpty());
        QVERIFY2(messages.last().first().toString().contains(QStringLiteral("table filter")),
                 qPrintable(messages.last().first().toString()));

        auto *tableFilter = panel.findChild<QComboBox *>(QStringLiteral("historyTableFilter"));
        tableFilter->setCurrentIndex(2);
        QTRY_COMPARE(model.rowCount(), 200);
        QSignalSpy arrived(&model, &RunHistoryModel::pageArrived);
        click(RunHistoryModel::RowsWritten);
        QCOMPARE(header->sortIndicatorSection(), int(RunHistoryModel::RowsWritten));
        const Qt::SortOrder order = header->sortIndicatorOrder();
        QCOMPARE(model.sortOrder(), order);
        QTRY_VERIFY(!arrived.isEmpty());
        while (!model.isComplete()) {
            const qsizetype pages = arrived.size();
            if (model.canFetchMore({}))
                model.fetchMore({});
            QTRY_VERIFY(arrived.size() > pages);
        }
        QList<std::pair<qint64, qint64>> expected; // rows written, run
        for (int run = 1; run <= kRuns; ++run) {
            if (historyCopies(run, 2))
                expected << std::pair{historyRowsWritten(run, 2), qint64(run)};
        }
        std::sort(expected.begin(), expected.end());
        if (order == Qt::DescendingOrder)
            std::reverse(expected.begin(), expected.end());
        QList<qint64> expectedIds;
        for (const auto &[rows, run] : expected)
            expectedIds << run;
        QVERIFY(expectedIds.size() > 200);
        QCOMPARE(modelIds(model), expectedIds);

        // Back to every table: that order is not offered there, so newest first again, said so.
        messages.clear();
        tableFilter->setCurrentIndex(0);
        QCOMPARE(header->sortIndicatorSection(), int(RunHistoryModel::Started));
        QCOMPARE(model.sortColumn(), int(RunHistoryModel::Started));
        QCOMPARE(model.sortOrder(), Qt::DescendingOrder);
        QCOMPARE(messages.size(), 1);
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
            tables.upsertTable(tableSpec(id));
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

    // The filter is sized by a length, not by its entries: tables that came in before the panel
    // was first shown (a history dock opened later) are not measured one by one, and one long
    // name does not widen the filter row past the window.
    void tableFilterIsNotSizedByItsEntries() {
        ControlTableModel tables;
        HistoryPanel panel(&tables);
        auto *combo = panel.findChild<QComboBox *>(QStringLiteral("historyTableFilter"));
        const int emptyWidth = combo->sizeHint().width();
        TableSpec longName = tableSpec(1);
        longName.sourceTable = QString(300, QLatin1Char('x'));
        tables.upsertTable(longName);
        for (int id = 2; id <= 2000; ++id)
            tables.upsertTable(tableSpec(id));
        panel.resize(1000, 400);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(combo->count(), 2001);
        QCOMPARE(combo->sizeHint().width(), emptyWidth);
        QVERIFY2(combo->width() < 600, qPrintable(QString::number(combo->width())));
        combo->setCurrentIndex(1);
        QCOMPARE(combo->currentText(), longName.sourceDisplay() + QStringLiteral(" → dst:t1"));
    }

private:
    static constexpr int kRuns = 1050;
    static constexpr int kTables = 3;
    QTemporaryDir m_dir;
    QString m_path;
};

QTEST_MAIN(TestRunHistoryModel)
#include "tst_runhistorymodel.moc"
