// SPDX-License-Identifier: MIT
// The rejected rows' model, headless: it builds and runs without the window
// (TIDEMARK_BUILD_GUI=OFF). The dialog over it: tests/ui/tst_operatorviews.cpp.
#include "model/models/itemroles.h"
#include "model/models/rejectedrowsmodel.h"
#include "model/models/timeconvention.h"
#include "model/storage/workspace.h"
#include "tests/engine/enginefixture.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

struct PageRequest {
    qint64 iterationId = 0;
    qint64 afterId = 0;
    int limit = 0;
};

// Pages asked for, answered from a real workspace when the test says: what the window's reader
// does off the GUI thread.
struct ManualReader {
    QList<PageRequest> asked;
    RejectedRowsModel::PageRequester requester() {
        return [this](qint64 iterationId, qint64 afterId, int limit) {
            asked << PageRequest{iterationId, afterId, limit};
        };
    }
    void answer(RejectedRowsModel &model, Workspace &workspace) {
        QVERIFY(!asked.isEmpty());
        const PageRequest request = asked.takeFirst();
        model.appendPage(request.iterationId, request.afterId,
                         workspace.iterationRejects(request.iterationId, request.afterId, request.limit));
    }
};

} // namespace

class TestRejectedRowsModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        isolateSettings();
        TimeConvention::current().setUtc(true);
    }

    // A run that skipped the rows its target refused, plus enough crafted ones for three pages:
    // the model asks a page at a time, after the last row it holds, until a short page.
    void pagesUntilAShortPage() {
        EngineFixture f;
        makeOrders(f.src, 50);
        // The target refuses amounts of 60 and more: ids 40..50 (amount = 1.5 * id).
        execSql(f.dst, QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, "
                                      "amount REAL CHECK (amount < 60), updated_at TIMESTAMP NOT NULL)"));
        TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
        draft.spec.maxSkipped = 100;
        const qint64 tableId = f.addTable(draft);
        const IterationRecord iteration = f.run(tableId);
        QCOMPARE(iteration.rowsSkipped, 11);
        const int crafted = 2 * RejectedRowsModel::kPageSize + 100 - 11;
        for (int i = 0; i < crafted; ++i) {
            RejectedRow row;
            row.runId = iteration.runId;
            row.iterationId = iteration.id;
            row.tableId = tableId;
            row.error = QStringLiteral("crafted %1").arg(i);
            row.rowKey = QStringLiteral("{\"id\":%1}").arg(1000 + i);
            row.rowData = row.rowKey;
            f.ws->addReject(row);
        }

        RejectedRowsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ManualReader reader;
        // The model tester asks for more after each change, as a view does.
        const auto askNext = [&] {
            if (reader.asked.isEmpty()) {
                QVERIFY(model.canFetchMore({}));
                model.fetchMore({});
            }
            QCOMPARE(reader.asked.size(), 1);
            QVERIFY(!model.canFetchMore({})); // one page at a time
        };
        model.setIteration(iteration.id, reader.requester());
        QCOMPARE(model.iterationId(), iteration.id);
        askNext();
        QCOMPARE(reader.asked.first().afterId, 0);
        QCOMPARE(reader.asked.first().limit, RejectedRowsModel::kPageSize);
        reader.answer(model, *f.ws);
        QCOMPARE(model.rowCount(), RejectedRowsModel::kPageSize);
        askNext();
        QCOMPARE(reader.asked.first().afterId, model.rowAt(model.rowCount() - 1).id);
        reader.answer(model, *f.ws);
        QCOMPARE(model.rowCount(), 2 * RejectedRowsModel::kPageSize);
        askNext();
        reader.answer(model, *f.ws);
        QCOMPARE(model.rowCount(), 2 * RejectedRowsModel::kPageSize + 100);
        QVERIFY(model.isComplete());
        QVERIFY(!model.canFetchMore({}));

        // In id order: the run's own rejections first, each once.
        QSet<qint64> ids;
        for (int row = 0; row < model.rowCount(); ++row) {
            ids.insert(model.rowAt(row).id);
            if (row > 0)
                QVERIFY(model.rowAt(row).id > model.rowAt(row - 1).id);
        }
        QCOMPARE(ids.size(), model.rowCount());
        QVERIFY(model.index(0, RejectedRowsModel::Error).data().toString().contains(QLatin1String("CHECK")));
        QVERIFY(
            model.index(0, RejectedRowsModel::Values).data().toString().contains(QLatin1String("customer")));
        QCOMPARE(model.index(0, 0).data(RunIdRole).toLongLong(), iteration.runId);
        QCOMPARE(model.index(0, 0).data(TableIdRole).toLongLong(), tableId);
    }

    // A page that comes back for another iteration, or after the model moved on, is dropped; a
    // failed page stops the fetching until the iteration is set again.
    void stalePagesAndFailures() {
        RejectedRow row;
        row.runId = 1;
        row.iterationId = 7;
        row.tableId = 1;
        row.error = QStringLiteral("refused");
        row.rowKey = QStringLiteral("{\"id\":1}");
        row.rowData = row.rowKey;
        RejectedRowsModel model; // no model tester here: it would ask for pages itself
        ManualReader reader;
        model.setIteration(7, reader.requester());
        model.appendPage(7, 0, {row}); // nobody asked for it
        QCOMPARE(model.rowCount(), 0);
        model.fetchMore({});
        model.appendPage(8, 0, {row});  // another iteration's
        model.appendPage(7, 42, {row}); // after another row
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.canFetchMore({}));
        model.appendPage(7, 0, {row});
        QCOMPARE(model.rowCount(), 1);
        QVERIFY(model.isComplete());

        model.setIteration(9, reader.requester());
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.canFetchMore({}));
        model.fetchMore({});
        model.pageFailed(8); // another iteration's failure changes nothing
        QVERIFY(!model.isComplete());
        model.pageFailed(9);
        QVERIFY(model.isComplete());
        QVERIFY(!model.canFetchMore({}));
    }

    // One line per cell in the table; the tooltip holds the whole value, JSON indented.
    void cellsAreOneLineAndTooltipsWhole() {
        RejectedRow row;
        row.id = 1;
        row.iterationId = 3;
        row.at = QDateTime(QDate(2026, 12, 6), QTime(10, 2, 3), Qt::UTC);
        row.error = QStringLiteral("constraint failed,\nsee the log");
        row.rowKey = QStringLiteral("{\"id\":5}");
        row.rowData = QStringLiteral("{\"customer\":\"Smith\\nJo\",\"id\":5}");
        RejectedRowsModel model;
        ManualReader reader;
        model.setIteration(3, reader.requester());
        model.fetchMore({});
        model.appendPage(3, 0, {row});
        QCOMPARE(model.index(0, RejectedRowsModel::Time).data().toString(),
                 QStringLiteral("2026-12-06 10:02:03"));
        QCOMPARE(model.index(0, RejectedRowsModel::Time).data(RawRole).toDateTime(), row.at);
        QCOMPARE(model.index(0, RejectedRowsModel::Error).data().toString(),
                 QStringLiteral("constraint failed, see the log"));
        QCOMPARE(model.index(0, RejectedRowsModel::Error).data(Qt::ToolTipRole).toString(), row.error);
        QCOMPARE(model.index(0, RejectedRowsModel::Values).data(RawRole).toString(), row.rowData);
        const QString tooltip = model.index(0, RejectedRowsModel::Values).data(Qt::ToolTipRole).toString();
        QVERIFY2(tooltip.contains(QLatin1String("\n    \"customer\": \"Smith\\nJo\"")), qPrintable(tooltip));
        QVERIFY(model.headerData(RejectedRowsModel::Time, Qt::Horizontal)
                    .toString()
                    .contains(QLatin1String("UTC")));
    }
};

QTEST_GUILESS_MAIN(TestRejectedRowsModel)
#include "tst_rejectedrowsmodel.moc"
