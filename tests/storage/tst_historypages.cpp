// SPDX-License-Identifier: MIT
#include "model/common/error.h"
#include "model/domain/runpage.h"
#include "model/sqlite/sqlitedb.h"
#include "model/storage/workspace.h"
#include "tests/support/historyfill.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace tidemark;
using namespace tidemark::test;

namespace {

constexpr int kRuns = 1050;
constexpr int kTables = 4;

// Every run the query takes, page by page (keyset: each page starts after the last one's end).
template <typename Read> auto readAll(Read read, RunPageQuery query, int *pages = nullptr) {
    decltype(read(query)) all;
    for (;;) {
        const auto page = read(query);
        all += page;
        if (pages)
            ++*pages;
        if (page.size() < query.limit)
            return all;
        const auto &last = page.last();
        if constexpr (std::is_same_v<std::decay_t<decltype(last)>, RunOverview>)
            query.before = cursorOf(last, query.order);
        else
            query.before = RunCursor{last.startedAt, last.id};
    }
}

QList<RunCursor> expectedOrder(const std::function<bool(int)> &takes) {
    QList<RunCursor> order;
    for (int run = 1; run <= kRuns; ++run) {
        if (takes(run))
            order.append({historyRunStart(run), run});
    }
    std::sort(order.begin(), order.end(), newerFirst);
    return order;
}

QList<qint64> idsOf(const QList<RunCursor> &cursors) {
    QList<qint64> ids;
    for (const RunCursor &cursor : cursors)
        ids << cursor.runId;
    return ids;
}

template <typename Runs> QList<qint64> runIds(const Runs &runs) {
    QList<qint64> ids;
    for (const auto &run : runs) {
        if constexpr (std::is_same_v<std::decay_t<decltype(run)>, RunOverview>)
            ids << run.run.id;
        else
            ids << run.id;
    }
    return ids;
}

} // namespace

class TestHistoryPages : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
        QVERIFY(m_dir.isValid());
        m_path = test::testWorkspaceLocation(m_dir, QStringLiteral("history.tidemark"));
        Workspace::create(m_path);
        fillHistory(m_path, kRuns, kTables);
        m_workspace = Workspace::open(m_path);
    }

    void pagesReachEveryRunNewestFirst() {
        const QList<qint64> expected = idsOf(expectedOrder([](int) { return true; }));
        RunPageQuery query;
        query.limit = 100;
        int pages = 0;
        const QList<RunRecord> runs =
            readAll([&](const RunPageQuery &q) { return m_workspace->runPage(q); }, query, &pages);
        QCOMPARE(pages, 11);
        QCOMPARE(runIds(runs), expected);
        // Each with all its iterations, in id order, and no log line.
        const RunRecord &run = runs.at(5);
        int copied = 0;
        for (int table = 1; table <= kTables; ++table)
            copied += historyCopies(int(run.id), table) ? 1 : 0;
        QCOMPARE(run.iterations.size(), copied);
        for (const IterationRecord &it : run.iterations) {
            QCOMPARE(it.runId, run.id);
            QCOMPARE(it.rowsWritten, historyRowsWritten(int(run.id), int(it.tableId)));
            QVERIFY(it.log.isEmpty());
        }
        QCOMPARE(run.startedAt, historyRunStart(int(run.id)));

        const QList<RunOverview> overviews =
            readAll([&](const RunPageQuery &q) { return m_workspace->runOverviews(q); }, query);
        QCOMPARE(runIds(overviews), expected);
        QCOMPARE(m_workspace->runCount({}), qint64(kRuns));
    }

    // The SQL figures and order are the ones overviewOf() and comesBefore() define, for every
    // filter and order (keyset pages on the order's key, then the id), however deep.
    void overviewsAgreeWithTheirDefinition_data() {
        QTest::addColumn<qint64>("table");
        QTest::addColumn<QString>("status");
        QTest::addColumn<int>("by");
        QTest::addColumn<bool>("descending");
        const int started = int(RunSort::Started);
        QTest::newRow("all") << qint64(0) << QString() << started << true;
        QTest::newRow("table 2") << qint64(2) << QString() << started << true;
        QTest::newRow("failed") << qint64(0) << QStringLiteral("failed") << started << true;
        QTest::newRow("no new rows (an iteration's, never a run's)")
            << qint64(0) << QStringLiteral("no_new_rows") << started << true;
        QTest::newRow("table 2, no new rows")
            << qint64(2) << QStringLiteral("no_new_rows") << started << true;
        QTest::newRow("table 3, failed (never)") << qint64(3) << QStringLiteral("failed") << started << true;
        QTest::newRow("all, oldest first") << qint64(0) << QString() << started << false;
        QTest::newRow("all, by id") << qint64(0) << QString() << int(RunSort::Id) << true;
        QTest::newRow("all, by status") << qint64(0) << QString() << int(RunSort::Status) << true;
        QTest::newRow("all failed, by status")
            << qint64(0) << QStringLiteral("failed") << int(RunSort::Status) << false;
        QTest::newRow("table 2, most written first")
            << qint64(2) << QString() << int(RunSort::RowsWritten) << true;
        QTest::newRow("table 2, least read first")
            << qint64(2) << QString() << int(RunSort::RowsRead) << false;
        QTest::newRow("table 3, by duration (all alike)")
            << qint64(3) << QString() << int(RunSort::Duration) << true;
        QTest::newRow("table 2, by status") << qint64(2) << QString() << int(RunSort::Status) << false;
        QTest::newRow("table 1, by id") << qint64(1) << QString() << int(RunSort::Id) << false;
    }
    void overviewsAgreeWithTheirDefinition() {
        QFETCH(qint64, table);
        QFETCH(QString, status);
        QFETCH(int, by);
        QFETCH(bool, descending);
        RunPageQuery query;
        query.limit = 97;
        query.tableId = table;
        query.status = status;
        query.order = RunOrder{RunSort(by), descending};
        int pages = 0;
        const QList<RunOverview> overviews =
            readAll([&](const RunPageQuery &q) { return m_workspace->runOverviews(q); }, query, &pages);
        // The definition, over whole runs read the old way.
        QList<RunOverview> defined;
        for (const RunRecord &run : m_workspace->runs()) {
            if (const auto overview = overviewOf(run, query))
                defined << *overview;
        }
        std::sort(defined.begin(), defined.end(),
                  [&](const RunOverview &a, const RunOverview &b) { return comesBefore(a, b, query.order); });
        QVERIFY(pages > 1 || defined.size() < query.limit);
        QCOMPARE(runIds(overviews), runIds(defined));
        QCOMPARE(m_workspace->runCount(query), qint64(defined.size()));
        for (qsizetype i = 0; i < overviews.size(); ++i) {
            const RunOverview &got = overviews.at(i);
            const RunOverview &want = defined.at(i);
            QCOMPARE(got.status, want.status);
            QCOMPARE(got.tables, want.tables);
            QCOMPARE(got.rowsRead, want.rowsRead);
            QCOMPARE(got.rowsReadKept, want.rowsReadKept);
            QCOMPARE(got.rowsWritten, want.rowsWritten);
            QCOMPARE(got.rowsSkipped, want.rowsSkipped);
            QCOMPARE(got.durationMs, want.durationMs);
            QCOMPARE(got.finishedAt, want.finishedAt);
            QCOMPARE(got.problems, want.problems);
        }
    }

    // Filtered to a table: its runs only, each carrying its iteration's figures and status.
    void tableFilterCarriesThatTablesFigures() {
        RunPageQuery query;
        query.limit = 200;
        query.tableId = 3;
        const QList<RunRecord> runs =
            readAll([&](const RunPageQuery &q) { return m_workspace->runPage(q); }, query);
        QCOMPARE(runIds(runs), idsOf(expectedOrder([](int run) { return historyCopies(run, 3); })));
        for (const RunRecord &run : runs) {
            QCOMPARE(run.iterations.size(), 1);
            QCOMPARE(run.iterations.first().tableId, qint64(3));
            QCOMPARE(run.iterations.first().rowsWritten, historyRowsWritten(int(run.id), 3));
        }

        query.tableId = 1;
        query.limit = 500;
        const QList<RunOverview> overviews = m_workspace->runOverviews(query);
        QCOMPARE(overviews.size(), 500);
        for (const RunOverview &overview : overviews) {
            const int run = int(overview.run.id);
            QCOMPARE(overview.tables, 1);
            QCOMPARE(overview.rowsWritten, historyRowsWritten(run, 1));
            QCOMPARE(overview.rowsRead, historyRowsWritten(run, 1) + 1);
            QCOMPARE(overview.durationMs, qint64(100)); // the iteration's, not the run's 30 s
            QCOMPARE(overview.status, historyIterationStatus(run, 1));
        }
    }

    void statusFilter() {
        RunPageQuery query;
        query.limit = 1000;
        query.status = QStringLiteral("failed");
        QCOMPARE(runIds(m_workspace->runOverviews(query)),
                 idsOf(expectedOrder([](int run) { return run % 7 == 0; })));
        // A status only iterations have: the runs where one table ended so.
        query.status = QStringLiteral("no_new_rows");
        QCOMPARE(runIds(m_workspace->runOverviews(query)),
                 idsOf(expectedOrder([](int run) { return run % 5 == 0 && historyCopies(run, 2); })));
        query.tableId = 1; // table 1 never ends with no new rows
        QVERIFY(m_workspace->runOverviews(query).isEmpty());
    }

    // What no index orders (a run's summed figures) is refused, not sorted page by page.
    void unsortableOrdersAreRefused() {
        RunPageQuery query;
        query.order.by = RunSort::RowsWritten;
        QVERIFY_THROWS_EXCEPTION(Error, m_workspace->runOverviews(query));
        query.tableId = 2;
        QCOMPARE(m_workspace->runOverviews(query).size(), 200);
    }

    // History pages carry no log line; an opened iteration reads its own.
    void logsLoadWhenAnIterationIsOpened() {
        RunPageQuery query;
        query.runId = 42;
        const QList<RunRecord> page = m_workspace->runPage(query);
        QCOMPARE(page.size(), 1);
        const IterationRecord &it = page.first().iterations.first();
        QVERIFY(it.log.isEmpty());
        const QList<LogLine> log = m_workspace->iterationLog(it.id);
        QCOMPARE(log.size(), 1);
        QCOMPARE(log.first().message, QStringLiteral("run 42 table %1").arg(it.tableId));
        QCOMPARE(log.first().at, historyRunStart(42));
        // The old whole-run read still brings them.
        QCOMPARE(m_workspace->runs(1, 42).first().iterations.first().log.size(), 1);
    }

    // A page is an index range, not a scan: the plans SQLite picks use the history indexes.
    void pagesUseTheIndexes() {
        if (test::serverWorkspaces())
            QSKIP("SQLite's query plans; the server's planner chooses by its statistics");
        SqliteDb db(m_path, SqliteDb::Mode::ReadOnly);
        const auto plan = [&](const QString &sql) {
            SqliteStatement stmt(db, QStringLiteral("EXPLAIN QUERY PLAN ") + sql);
            QStringList details;
            while (stmt.step())
                details << stmt.columnText(3);
            return details.join(QLatin1Char('|'));
        };
        const QString page =
            plan(QStringLiteral("SELECT r.id FROM runs r WHERE (r.started_at, r.id) < ('x', 1) "
                                "ORDER BY r.started_at DESC, r.id DESC LIMIT 200"));
        QVERIFY2(page.contains(QStringLiteral("runs_by_start")) &&
                     !page.contains(QStringLiteral("TEMP B-TREE")),
                 qPrintable(page));
        const QString table =
            plan(QStringLiteral("SELECT r.id FROM iterations i JOIN runs r ON r.id = i.run_id "
                                "WHERE i.table_id = 3 ORDER BY r.started_at DESC, r.id DESC "
                                "LIMIT 200"));
        QVERIFY2(table.contains(QStringLiteral("SEARCH i USING")) &&
                     table.contains(QStringLiteral("INDEX iterations_by_table")) &&
                     table.contains(QStringLiteral("(table_id=?)")),
                 qPrintable(table));
        // Sorted pages too: an index range in the order asked, no sort of the whole history.
        for (const QString &sorted :
             {plan(QStringLiteral("SELECT r.id FROM runs r WHERE (r.status, r.id) < ('x', 1) "
                                  "ORDER BY r.status DESC, r.id DESC LIMIT 200")),
              plan(QStringLiteral("SELECT r.id FROM iterations i JOIN runs r ON r.id = i.run_id WHERE "
                                  "i.table_id = 3 AND (i.rows_written, i.run_id) > (5, 1) ORDER BY "
                                  "i.rows_written ASC, i.run_id ASC LIMIT 200")),
              plan(QStringLiteral("SELECT r.id FROM iterations i JOIN runs r ON r.id = i.run_id WHERE "
                                  "i.table_id = 3 AND (i.duration_ms, i.run_id) < (5, 1) ORDER BY "
                                  "i.duration_ms DESC, i.run_id DESC LIMIT 200")),
              plan(QStringLiteral("SELECT r.id FROM iterations i JOIN runs r ON r.id = i.run_id WHERE "
                                  "i.table_id = 3 AND (i.rows_read, i.run_id) < (5, 1) ORDER BY "
                                  "i.rows_read DESC, i.run_id DESC LIMIT 200")),
              plan(QStringLiteral("SELECT r.id FROM iterations i JOIN runs r ON r.id = i.run_id WHERE "
                                  "i.table_id = 3 AND (i.status, i.run_id) < ('x', 1) ORDER BY "
                                  "i.status DESC, i.run_id DESC LIMIT 200"))})
            QVERIFY2(!sorted.contains(QStringLiteral("TEMP B-TREE")) &&
                         !sorted.contains(QStringLiteral("SCAN")),
                     qPrintable(sorted));
        // Counting a status alone: two index ranges, no run scanned (runCount's statement).
        const QString statusCount =
            plan(QStringLiteral("SELECT count(*) FROM (SELECT id FROM runs WHERE status = 'failed' "
                                "UNION SELECT run_id FROM iterations WHERE status = 'failed')"));
        QVERIFY2(statusCount.contains(QStringLiteral("runs_by_status")) &&
                     statusCount.contains(QStringLiteral("iterations_by_status_run")) &&
                     !statusCount.contains(QStringLiteral("SCAN runs")) &&
                     !statusCount.contains(QStringLiteral("SCAN iterations")),
                 qPrintable(statusCount));
    }

    void storedTimesReadAsWritten() {
        auto workspace = Workspace::open(m_path);
        const qint64 runId = workspace->beginRun(QStringLiteral("cli"), 1, false);
        const QString started =
            queryText(QStringLiteral("SELECT started_at FROM runs WHERE id = %1").arg(runId));
        RunPageQuery query;
        query.runId = runId;
        const RunRecord run = workspace->runPage(query).first();
        QCOMPARE(isoUtc(run.startedAt), started);
        QCOMPARE(run.startedAt.timeSpec(), Qt::UTC);
        QVERIFY(!run.finishedAt.isValid());
        // A form other than the stored one (a hand edit) still reads.
        test::execWorkspaceSql(
            m_path, QStringLiteral("UPDATE runs SET started_at = '2026-02-03T04:05:06Z' WHERE id = ?1"),
            {runId});
        QCOMPARE(workspace->runPage(query).first().startedAt,
                 QDateTime(QDate(2026, 2, 3), QTime(4, 5, 6), Qt::UTC));
    }

private:
    QString queryText(const QString &sql) { return test::execWorkspaceSql(m_path, sql); }

    QTemporaryDir m_dir;
    QString m_path;
    std::unique_ptr<Workspace> m_workspace;
};

QTEST_GUILESS_MAIN(TestHistoryPages)
#include "tst_historypages.moc"
