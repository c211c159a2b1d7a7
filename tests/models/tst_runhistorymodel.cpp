// SPDX-License-Identifier: MIT
// The run history's model, headless: it builds and runs without the window
// (TIDEMARK_BUILD_GUI=OFF). The history panel over it: tests/ui/tst_historypanel.cpp.
#include "model/domain/runpage.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/runhistorymodel.h"
#include "model/storage/workspace.h"
#include "tests/engine/enginefixture.h"
#include "tests/support/historyfill.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
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
        QCOMPARE(runIdsOf(model), expectedIds);
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
        const QList<qint64> ids = runIdsOf(model);
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
        EngineFixture fixture;
        makeOrders(fixture.src, 5);
        makeOrders(fixture.src, 5, 1, QStringLiteral("other"));
        makeOrders(fixture.src, 5, 1, QStringLiteral("third"));
        const qint64 kept =
            fixture.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        const qint64 cancelled =
            fixture.addTable(EngineFixture::draft(QStringLiteral("other"), QStringLiteral("updated_at")));
        const qint64 failed =
            fixture.addTable(EngineFixture::draft(QStringLiteral("third"), QStringLiteral("updated_at")));
        RunRecord run;
        {
            auto &ws = fixture.ws;
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

private:
    static constexpr int kRuns = 1050;
    static constexpr int kTables = 3;
    QTemporaryDir m_dir;
    QString m_path;
};

QTEST_GUILESS_MAIN(TestRunHistoryModel)
#include "tst_runhistorymodel.moc"
