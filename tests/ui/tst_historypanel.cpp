// SPDX-License-Identifier: MIT
// The run history in the window: its panel, chart, export and filters over the model (the model
// alone: tests/models/tst_runhistorymodel.cpp).
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

class TestHistoryPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        isolateSettings();
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("history.tidemark"));
        Workspace::create(m_path);
        fillHistory(m_path, kRuns, kTables);
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
        QCOMPARE(runIdsOf(model), expectedIds);

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

QTEST_MAIN(TestHistoryPanel)
#include "tst_historypanel.moc"
