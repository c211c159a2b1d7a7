// SPDX-License-Identifier: MIT
// The operator's views, driven through the real window: a table's watermark history (a run's
// and a backfill's change, with cause, run and host), an iteration's rejected rows (listed a
// page at a time, exported to CSV and parsed back), and Verify from the window (a match, then
// a missing row after a target row is deleted, and Cancel stopping a long comparison).
#include "model/engine/backfill.h"
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/rejectedrowsmodel.h"
#include "model/models/watermarkhistorymodel.h"
#include "tests/ui/uifixture.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/controltable/verifydialog.h"
#include "ui/controltable/watermarkhistorydialog.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/run/rejectedrowsdialog.h"
#include "ui/run/runpanel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QFile>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSysInfo>
#include <QTableView>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// A strict RFC 4180 reader: quoted fields may hold commas, doubled quotes and line breaks.
// `ok` turns false on anything malformed (a quote inside an unquoted field, an open quote).
QList<QStringList> parseCsv(const QString &text, bool *ok) {
    QList<QStringList> records;
    QStringList record;
    QString field;
    bool quoted = false;
    bool fieldWasQuoted = false;
    *ok = true;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (i + 1 < text.size() && text.at(i + 1) == QLatin1Char('"')) {
                    field += c;
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            if (!field.isEmpty() || fieldWasQuoted)
                *ok = false;
            quoted = fieldWasQuoted = true;
        } else if (c == QLatin1Char(',')) {
            record << field;
            field.clear();
            fieldWasQuoted = false;
        } else if (c == QLatin1Char('\r') && i + 1 < text.size() && text.at(i + 1) == QLatin1Char('\n')) {
            record << field;
            records << record;
            record.clear();
            field.clear();
            fieldWasQuoted = false;
            ++i;
        } else {
            field += c;
        }
    }
    if (quoted || !field.isEmpty() || !record.isEmpty())
        *ok = false; // every record ends with CRLF
    return records;
}

QString readFile(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

void selectTable(MainWindow &window, int row) {
    QTableView *view = window.controlTable()->view();
    view->setCurrentIndex(view->model()->index(row, 0));
    view->selectRow(row);
}

// Runs the selected tables from the window and waits for the run to finish.
RunRecord runSelectedInWindow(MainWindow &window) {
    QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
    window.findChild<QAction *>(QStringLiteral("actionRunSelected"))->trigger();
    if (!finished.wait(120000) && finished.isEmpty())
        return {};
    return finished.first().first().value<RunRecord>();
}

// Selects the first table and triggers `name` as the table's context menu would.
void triggerTableAction(MainWindow &window, const QString &name) {
    selectTable(window, 0); // a run's reload of the control table may have cleared the selection
    QAction *action = window.findChild<QAction *>(name);
    QVERIFY(action);
    QTRY_VERIFY(action->isEnabled());
    QVERIFY2(window.controlTable()->view()->actions().contains(action), "not on the table's context menu");
    action->trigger();
}

template <typename Dialog> Dialog *openedDialog(MainWindow &window) {
    const QList<Dialog *> dialogs = window.findChildren<Dialog *>();
    return dialogs.size() == 1 ? dialogs.first() : nullptr;
}

// The row of `model` whose `column` displays `text`, or -1.
int rowShowing(const QAbstractItemModel &model, int column, const QString &text) {
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.index(row, column).data().toString() == text)
            return row;
    return -1;
}

} // namespace

class TestOperatorViews : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }
    void watermarkHistoryShowsRunAndBackfill();
    void rejectedRowsListedAndExported();
    void rejectedRowsComeAPageAtATime();
    void verifyReportsMatchThenMissingRow();
    void cancelStopsALongVerify();
};

void TestOperatorViews::watermarkHistoryShowsRunAndBackfill() {
    UiFixture fixture;
    makeOrders(fixture.src, 50);
    const qint64 id =
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    MainWindow window;
    openInWindow(fixture, window, 1);
    selectTable(window, 0);
    const RunRecord run = runSelectedInWindow(window);
    QCOMPARE(run.iterations.size(), 1);
    QCOMPARE(run.iterations.first().rowsWritten, 50);
    {
        auto ws = fixture.open();
        BackfillRequest request;
        request.tableId = id;
        request.fromText = orderTimestamp(20);
        request.action = BackfillTargetAction::DeleteNewer;
        runBackfill(*ws, request);
    }

    triggerTableAction(window, QStringLiteral("actionWatermarkHistory"));
    auto *dialog = openedDialog<WatermarkHistoryDialog>(window);
    QVERIFY(dialog);
    QAbstractItemModelTester tester(dialog->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModel *shown = dialog->view()->model();
    QTRY_COMPARE(shown->rowCount(), 2);

    const QString none = QStringLiteral("(none)");
    const QString end = Watermark::timestamp(orderTimestamp(50))->display();
    const QString backTo = Watermark::timestamp(orderTimestamp(20))->display();
    const int runRow = rowShowing(*shown, WatermarkHistoryModel::Cause, QStringLiteral("Run"));
    const int backfillRow = rowShowing(*shown, WatermarkHistoryModel::Cause, QStringLiteral("Backfill"));
    QVERIFY(runRow >= 0 && backfillRow >= 0);
    const auto cell = [shown](int row, int column) {
        return shown->index(row, column).data().toString();
    };
    QCOMPARE(cell(runRow, WatermarkHistoryModel::OldValue), none);
    QCOMPARE(cell(runRow, WatermarkHistoryModel::NewValue), end);
    QCOMPARE(cell(runRow, WatermarkHistoryModel::Run), QString::number(run.id));
    QCOMPARE(cell(runRow, WatermarkHistoryModel::Host), QSysInfo::machineHostName());
    QCOMPARE(cell(backfillRow, WatermarkHistoryModel::OldValue), end);
    QCOMPARE(cell(backfillRow, WatermarkHistoryModel::NewValue), backTo);
    QCOMPARE(cell(backfillRow, WatermarkHistoryModel::Run), QString());
    QCOMPARE(cell(backfillRow, WatermarkHistoryModel::Host), QSysInfo::machineHostName());
    const QRegularExpression localTime(QStringLiteral("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$"));
    QVERIFY(localTime.match(cell(runRow, WatermarkHistoryModel::Time)).hasMatch());
    QVERIFY(shown->headerData(WatermarkHistoryModel::Time, Qt::Horizontal)
                .toString()
                .contains(displayZoneName()));

    // Newest first; a click on a header sorts by that column (the backfill's old value is the
    // run's new one: the larger).
    QCOMPARE(cell(0, WatermarkHistoryModel::Cause), QStringLiteral("Backfill"));
    QHeaderView *header = dialog->view()->horizontalHeader();
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                      QPoint(header->sectionViewportPosition(WatermarkHistoryModel::OldValue) + 5, 5));
    const Qt::SortOrder order = header->sortIndicatorOrder();
    QCOMPARE(header->sortIndicatorSection(), int(WatermarkHistoryModel::OldValue));
    QCOMPARE(cell(0, WatermarkHistoryModel::Cause),
             order == Qt::AscendingOrder ? QStringLiteral("Run") : QStringLiteral("Backfill"));
}

void TestOperatorViews::rejectedRowsListedAndExported() {
    UiFixture fixture;
    makeOrders(fixture.src, 50);
    const QString awkward = QStringLiteral("Smith, \"Jo\"\nsecond line");
    execSql(fixture.src, QStringLiteral("UPDATE orders SET customer = ?1 WHERE id = 45"), {awkward});
    // The target refuses amounts of 60 and more: ids 40..50 (amount = 1.5 * id) are rejected.
    execSql(fixture.dst,
            QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, "
                           "amount REAL CHECK (amount < 60), updated_at TIMESTAMP NOT NULL)"));
    TableDraft draft = UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.maxSkipped = 100;
    const qint64 tableId = fixture.addTable(draft);
    MainWindow window;
    openInWindow(fixture, window, 1);
    selectTable(window, 0);
    const RunRecord run = runSelectedInWindow(window);
    QCOMPARE(run.iterations.size(), 1);
    const IterationRecord iteration = run.iterations.first();
    QCOMPARE(iteration.rowsSkipped, 11);
    QCOMPARE(iteration.rowsWritten, 39);
    // A rejection whose error spans lines and holds a comma and quotes.
    const QString error = QStringLiteral("constraint \"amount\" failed,\nsee the log");
    {
        RejectedRow crafted;
        crafted.runId = run.id;
        crafted.iterationId = iteration.id;
        crafted.tableId = tableId;
        crafted.error = error;
        crafted.rowKey = QStringLiteral("{\"id\":999}");
        crafted.rowData = QStringLiteral("{\"id\":999}");
        fixture.open()->addReject(crafted);
    }

    // From the run grid: the iteration's details offer its rejected rows.
    RunPanel *panel = window.runPanel();
    QTRY_COMPARE(panel->view()->model()->rowCount(), 1);
    panel->view()->setCurrentIndex(panel->view()->model()->index(0, 0));
    auto *button = panel->findChild<QPushButton *>(QStringLiteral("showRejectedRows"));
    QVERIFY(button);
    QTRY_VERIFY(button->isVisible());
    QVERIFY(
        panel->view()->actions().contains(panel->findChild<QAction *>(QStringLiteral("actionRejectedRows"))));
    QTest::mouseClick(button, Qt::LeftButton);
    auto *dialog = openedDialog<RejectedRowsDialog>(window);
    QVERIFY(dialog);
    RejectedRowsModel *model = dialog->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(model->rowCount(), 12);
    QTRY_VERIFY(dialog->findChild<QLabel *>(QStringLiteral("rejectedRowsSummary"))
                    ->text()
                    .startsWith(QStringLiteral("12 rejected rows")));
    QSet<qint64> keys;
    for (int row = 0; row < model->rowCount(); ++row) {
        const QJsonObject key = QJsonDocument::fromJson(model->rowAt(row).rowKey.toUtf8()).object();
        keys << key.value(QStringLiteral("id")).toInteger();
        QVERIFY(!model->index(row, RejectedRowsModel::Error).data().toString().isEmpty());
        QVERIFY(!model->index(row, RejectedRowsModel::Values).data().toString().isEmpty());
    }
    QSet<qint64> expected{999};
    for (qint64 id = 40; id <= 50; ++id)
        expected << id;
    QCOMPARE(keys, expected);

    // Export, then read the file back.
    const QString path = fixture.filePath(QStringLiteral("rejects.csv"));
    QSignalSpy exported(dialog, &RejectedRowsDialog::exportFinished);
    dialog->exportCsvTo(path);
    QTRY_COMPARE(exported.size(), 1);
    QVERIFY2(exported.first().first().toBool(), qPrintable(exported.first().last().toString()));
    bool ok = false;
    const QList<QStringList> records = parseCsv(readFile(path), &ok);
    QVERIFY(ok);
    QCOMPARE(records.size(), 13);
    QCOMPARE(records.first(),
             (QStringList{QStringLiteral("rejected_at"), QStringLiteral("run_id"),
                          QStringLiteral("iteration_id"), QStringLiteral("table_id"), QStringLiteral("error"),
                          QStringLiteral("key"), QStringLiteral("values")}));
    const QRegularExpression isoWithOffset(
        QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}[+-]\\d\\d:\\d\\d$"));
    bool sawAwkward = false;
    bool sawError = false;
    for (const QStringList &record : records.mid(1)) {
        QCOMPARE(record.size(), 7);
        QVERIFY2(isoWithOffset.match(record[0]).hasMatch(), qPrintable(record[0]));
        QVERIFY(QDateTime::fromString(record[0], Qt::ISODateWithMs).isValid());
        QCOMPARE(record[1], QString::number(run.id));
        QCOMPARE(record[2], QString::number(iteration.id));
        QCOMPARE(record[3], QString::number(tableId));
        const QJsonObject values = QJsonDocument::fromJson(record[6].toUtf8()).object();
        QVERIFY2(!values.isEmpty(), qPrintable(record[6]));
        if (values.value(QStringLiteral("id")).toInteger() == 45) {
            QCOMPARE(values.value(QStringLiteral("customer")).toString(), awkward);
            QCOMPARE(values.value(QStringLiteral("amount")).toDouble(), 67.5);
            sawAwkward = true;
        }
        sawError = sawError || record[4] == error;
    }
    QVERIFY(sawAwkward);
    QVERIFY(sawError);

    // A file that cannot be written: the error names it, the window stays as it was.
    const QString bad = fixture.filePath(QStringLiteral("no-such-dir/rejects.csv"));
    dialog->exportCsvTo(bad);
    QTRY_COMPARE(exported.size(), 2);
    QVERIFY(!exported.last().first().toBool());
    QVERIFY2(exported.last().last().toString().contains(bad), qPrintable(exported.last().last().toString()));
    QVERIFY(dialog->statusLabel()->text().contains(bad));
}

void TestOperatorViews::rejectedRowsComeAPageAtATime() {
    UiFixture fixture;
    makeOrders(fixture.src, 10);
    const qint64 tableId =
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    constexpr int kRejects = 1234;
    IterationRecord iteration;
    {
        auto ws = fixture.open();
        const qint64 runId = ws->beginRun(QStringLiteral("cli"), 1, false);
        iteration.runId = runId;
        iteration.tableId = tableId;
        iteration.source = QStringLiteral("src:orders");
        iteration.target = QStringLiteral("dst:orders");
        iteration.status = IterationStatus::Warning;
        iteration.rowsSkipped = kRejects;
        iteration.id = ws->addIteration(iteration);
        ws->finishRun(runId, QStringLiteral("warning"));
    }
    execSql(fixture.wsPath,
            QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                           "WHERE i < ?1) INSERT INTO rejects (run_id, iteration_id, table_id, "
                           "at, error, row_key, row_data) SELECT ?2, ?3, ?4, "
                           "'2026-11-30T03:00:00.000Z', 'rejected', '{\"id\":' || i || '}', "
                           "'{\"id\":' || i || '}' FROM n"),
            {kRejects, iteration.runId, iteration.id, tableId});

    MainWindow window;
    openInWindow(fixture, window, 1);
    window.showRejectedRows(iteration);
    auto *dialog = openedDialog<RejectedRowsDialog>(window);
    QVERIFY(dialog);
    RejectedRowsModel *model = dialog->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(model->rowCount(), RejectedRowsModel::kPageSize);
    QTRY_VERIFY(dialog->findChild<QLabel *>(QStringLiteral("rejectedRowsSummary"))
                    ->text()
                    .contains(QStringLiteral("1,234 rejected rows; 500 loaded")));
    // Reaching the end of the list fetches the next page, in order, each row once.
    for (int pages = 2; pages <= 3; ++pages) {
        dialog->view()->scrollToBottom();
        model->fetchMore(
            {}); // what the view asks at the end of its range (a no-op while a page is on its way)
        QTRY_COMPARE(model->rowCount(), qMin(kRejects, pages * RejectedRowsModel::kPageSize));
    }
    QTRY_COMPARE(model->rowCount(), kRejects);
    QVERIFY(model->isComplete());
    for (int row = 0; row < kRejects; ++row)
        QCOMPARE(model->rowAt(row).rowKey, QStringLiteral("{\"id\":%1}").arg(row + 1));

    const QString path = fixture.filePath(QStringLiteral("all.csv"));
    QSignalSpy exported(dialog, &RejectedRowsDialog::exportFinished);
    dialog->exportCsvTo(path);
    QTRY_COMPARE(exported.size(), 1);
    QVERIFY(exported.first().first().toBool());
    bool ok = false;
    QCOMPARE(parseCsv(readFile(path), &ok).size(), kRejects + 1);
    QVERIFY(ok);
}

void TestOperatorViews::verifyReportsMatchThenMissingRow() {
    UiFixture fixture;
    makeOrders(fixture.src, 100);
    fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    MainWindow window;
    openInWindow(fixture, window, 1);
    selectTable(window, 0);
    QCOMPARE(runSelectedInWindow(window).iterations.value(0).rowsWritten, 100);

    triggerTableAction(window, QStringLiteral("actionVerify"));
    auto *dialog = openedDialog<VerifyDialog>(window);
    QVERIFY(dialog);
    QSignalSpy ended(dialog, &VerifyDialog::verifyFinished);
    QTRY_COMPARE(ended.size(), 1);
    QVERIFY2(dialog->statusLabel()->text().startsWith(QStringLiteral("Matches")),
             qPrintable(dialog->statusLabel()->text() + QLatin1Char('\n') + dialog->findingsText()));
    QVERIFY2(
        dialog->findingsText().contains(QStringLiteral("100 rows of the source with 100 rows of the target")),
        qPrintable(dialog->findingsText()));

    execSql(fixture.dst, QStringLiteral("DELETE FROM orders WHERE id = 42"));
    QTest::mouseClick(dialog->verifyButton(), Qt::LeftButton);
    QTRY_COMPARE(ended.size(), 2);
    QVERIFY2(dialog->statusLabel()->text().startsWith(QStringLiteral("Differs")),
             qPrintable(dialog->statusLabel()->text()));
    const QString findings = dialog->findingsText();
    QVERIFY2(findings.contains(QStringLiteral("1 row missing in the target")), qPrintable(findings));
    QVERIFY2(findings.contains(QStringLiteral("\"id\":42")), qPrintable(findings));
}

void TestOperatorViews::cancelStopsALongVerify() {
    UiFixture fixture;
    makeOrders(fixture.src, 600000);
    fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    MainWindow window;
    openInWindow(fixture, window, 1);
    triggerTableAction(window, QStringLiteral("actionVerify"));
    auto *dialog = openedDialog<VerifyDialog>(window);
    QVERIFY(dialog);
    QSignalSpy ended(dialog, &VerifyDialog::verifyFinished);
    QVERIFY(dialog->cancelButton()->isEnabled());
    QTest::mouseClick(dialog->cancelButton(), Qt::LeftButton);
    QVERIFY(!dialog->cancelButton()->isEnabled());
    // The comparison of 600,000 rows stops at its next batch: cancelled, no verdict. (A verify
    // that ignored the flag would finish and report the missing target instead.)
    QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 1, 60000);
    QVERIFY2(dialog->statusLabel()->text().startsWith(QStringLiteral("Cancelled")),
             qPrintable(dialog->statusLabel()->text() + QLatin1Char('\n') + dialog->findingsText()));
    QVERIFY(dialog->findingsText().isEmpty());
    QVERIFY(dialog->verifyButton()->isEnabled());
}

QTEST_MAIN(TestOperatorViews)
#include "tst_operatorviews.moc"
