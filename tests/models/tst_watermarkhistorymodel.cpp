// SPDX-License-Identifier: MIT
// A table's watermark log as a model, headless: it builds and runs without the window
// (TIDEMARK_BUILD_GUI=OFF). The dialog over it: tests/ui/tst_operatorviews.cpp.
#include "model/engine/backfill.h"
#include "model/models/itemroles.h"
#include "model/models/timeconvention.h"
#include "model/models/watermarkhistorymodel.h"
#include "model/storage/workspace.h"
#include "tests/engine/enginefixture.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

int rowOfCause(const QAbstractItemModel &model, const QString &label, int from = 0) {
    for (int row = from; row < model.rowCount(); ++row)
        if (model.index(row, WatermarkHistoryModel::Cause).data().toString() == label)
            return row;
    return -1;
}

} // namespace

class TestWatermarkHistoryModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        isolateSettings();
        TimeConvention::current().setUtc(true);
    }

    // A run, a backfill and the run after it, as the workspace logged them: old → new, cause, run
    // and host; integer watermarks sort as numbers (9 before 12), not as text.
    void runsAndABackfillFromTheWorkspace() {
        EngineFixture f;
        execSql(f.src,
                QStringLiteral("CREATE TABLE events (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL);"
                               "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 12) "
                               "INSERT INTO events SELECT i, i FROM g"));
        const qint64 tableId =
            f.addTable(EngineFixture::draft(QStringLiteral("events"), QStringLiteral("seq")));
        const IterationRecord first = f.run(tableId);
        QCOMPARE(first.rowsWritten, 12);
        BackfillRequest request;
        request.tableId = tableId;
        request.fromText = QStringLiteral("9");
        request.action = BackfillTargetAction::DeleteNewer;
        runBackfill(*f.ws, request);
        const IterationRecord again = f.run(tableId);
        QCOMPARE(again.rowsWritten, 3);

        WatermarkHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setChanges(f.ws->watermarkChanges(tableId));
        QCOMPARE(model.rowCount(), 3);
        const auto cell = [&model](int row, int column) {
            return model.index(row, column).data().toString();
        };
        const int backfill = rowOfCause(model, QStringLiteral("Backfill"));
        const int firstRun = rowOfCause(model, QStringLiteral("Run"));
        const int secondRun = rowOfCause(model, QStringLiteral("Run"), firstRun + 1);
        QVERIFY(backfill >= 0 && firstRun >= 0 && secondRun >= 0);
        const int noneRow =
            cell(firstRun, WatermarkHistoryModel::OldValue) == QLatin1String("(none)") ? firstRun : secondRun;
        const int rerunRow = noneRow == firstRun ? secondRun : firstRun;
        QCOMPARE(cell(noneRow, WatermarkHistoryModel::NewValue), QStringLiteral("12"));
        QCOMPARE(cell(noneRow, WatermarkHistoryModel::Run), QString::number(first.runId));
        QCOMPARE(cell(backfill, WatermarkHistoryModel::OldValue), QStringLiteral("12"));
        QCOMPARE(cell(backfill, WatermarkHistoryModel::NewValue), QStringLiteral("9"));
        QCOMPARE(cell(backfill, WatermarkHistoryModel::Run), QString()); // no run made it
        QCOMPARE(cell(rerunRow, WatermarkHistoryModel::OldValue), QStringLiteral("9"));
        QCOMPARE(cell(rerunRow, WatermarkHistoryModel::Run), QString::number(again.runId));
        for (int row = 0; row < model.rowCount(); ++row) {
            QCOMPARE(cell(row, WatermarkHistoryModel::Host), QSysInfo::machineHostName());
            QCOMPARE(model.index(row, 0).data(TableIdRole).toLongLong(), tableId);
            QVERIFY(model.index(row, WatermarkHistoryModel::Time).data(RawRole).toDateTime().isValid());
            QVERIFY(QRegularExpression(QStringLiteral("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$"))
                        .match(cell(row, WatermarkHistoryModel::Time))
                        .hasMatch());
        }
        QCOMPARE(model.index(rerunRow, WatermarkHistoryModel::Run).data(RunIdRole).toLongLong(), again.runId);
        QCOMPARE(model.index(0, WatermarkHistoryModel::Run).data(Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignRight | Qt::AlignVCenter));

        QSortFilterProxyModel sorted;
        sorted.setSourceModel(&model);
        sorted.setSortRole(RawRole);
        sorted.sort(WatermarkHistoryModel::NewValue, Qt::AscendingOrder);
        QCOMPARE(sorted.index(0, WatermarkHistoryModel::NewValue).data().toString(), QStringLiteral("9"));
        QCOMPARE(sorted.index(2, WatermarkHistoryModel::NewValue).data().toString(), QStringLiteral("12"));
    }

    // Every cause the workspace stores has its words; one it does not know is shown as stored.
    void causeLabels_data() {
        QTest::addColumn<QString>("cause");
        QTest::addColumn<QString>("label");
        QTest::newRow("run") << "run"
                             << "Run";
        QTest::newRow("backfill") << "backfill"
                                  << "Backfill";
        QTest::newRow("reconcile") << "reconcile"
                                   << "Reconcile";
        QTest::newRow("edit") << "edit"
                              << "Hand edit";
        QTest::newRow("adopt") << "adopt"
                               << "Adopted from the target";
        QTest::newRow("remove") << "remove"
                                << "Table removed";
        QTest::newRow("restore") << "restore"
                                 << "Table restored";
        QTest::newRow("unknown") << "later"
                                 << "later";
    }

    void causeLabels() {
        QFETCH(QString, cause);
        QFETCH(QString, label);
        QCOMPARE(WatermarkHistoryModel::causeLabel(cause), label);
    }

    // The time column and its header follow the window's choice of zone.
    void timeColumnFollowsTheConvention() {
        WatermarkChange change;
        change.tableId = 1;
        change.at = QDateTime(QDate(2026, 12, 6), QTime(10, 0), Qt::UTC);
        change.newValue = QStringLiteral("5");
        change.cause = QStringLiteral("run");
        WatermarkHistoryModel model;
        model.setChanges({change});
        QCOMPARE(model.index(0, WatermarkHistoryModel::Time).data().toString(),
                 QStringLiteral("2026-12-06 10:00:00"));
        QCOMPARE(model.headerData(WatermarkHistoryModel::Time, Qt::Horizontal).toString(),
                 QStringLiteral("Time (UTC)"));
        QCOMPARE(model.index(0, WatermarkHistoryModel::OldValue).data().toString(), QStringLiteral("(none)"));
        QSignalSpy cells(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy headers(&model, &QAbstractItemModel::headerDataChanged);
        TimeConvention::current().setUtc(false);
        TimeConvention::current().setUtc(true);
        QCOMPARE(headers.size(), 2);
        QVERIFY(cells.size() >= 2);
        QCOMPARE(cells.first().at(0).toModelIndex().column(), int(WatermarkHistoryModel::Time));
    }
};

QTEST_GUILESS_MAIN(TestWatermarkHistoryModel)
#include "tst_watermarkhistorymodel.moc"
