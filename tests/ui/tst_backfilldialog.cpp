// SPDX-License-Identifier: MIT
#include "model/common/error.h"
#include "model/common/timestamp.h"
#include "model/engine/backfill.h"
#include "model/engine/backfillpreview.h"
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "tests/ui/uifixture.h"
#include "ui/backfill/backfilldialog.h"
#include "ui/common/workspacegateway.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/mainwindow/mainwindow.h"

#include <QCalendarWidget>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

TableSpec tableSpec(WriteMode mode, WatermarkType type) {
    TableSpec spec;
    spec.id = 3;
    spec.sourceConnection = QStringLiteral("src");
    spec.sourceTable = QStringLiteral("orders");
    spec.targetConnection = QStringLiteral("dst");
    spec.targetTable = QStringLiteral("orders");
    spec.watermarkColumn = QStringLiteral("updated_at");
    spec.watermarkType = type;
    spec.mode = mode;
    if (type == WatermarkType::Timestamp)
        spec.lastWatermark = *Watermark::timestamp(QStringLiteral("2025-07-30T23:05:18.000Z"));
    else
        spec.lastWatermark = Watermark::integer(500);
    return spec;
}

qint64 microsOf(const QString &iso) {
    const auto parsed = parseTimestamp(iso);
    return parsed ? parsed->micros : std::numeric_limits<qint64>::min();
}

void openWithOneTableSelected(UiFixture &fixture, MainWindow &window) {
    openInWindow(fixture, window, 1);
    window.controlTable()->view()->selectRow(0);
}

} // namespace

class TestBackfillDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void keepOnAppendNeedsConfirmation() {
        BackfillDialog dialog(tableSpec(WriteMode::Append, WatermarkType::Timestamp));
        auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        auto *keep = dialog.findChild<QRadioButton *>(QStringLiteral("keep"));
        auto *warning = dialog.findChild<QLabel *>(QStringLiteral("duplicateWarning"));
        auto *confirm = dialog.findChild<QCheckBox *>(QStringLiteral("confirmDuplicates"));
        QVERIFY(ok && keep && warning && confirm);

        // The default for append is the safe choice.
        QCOMPARE(dialog.request().action, BackfillTargetAction::DeleteNewer);
        QVERIFY(dialog.canAccept());
        QVERIFY(warning->isHidden());

        keep->click();
        QVERIFY(dialog.needsDuplicateConfirmation());
        QVERIFY(!warning->isHidden());
        QVERIFY(warning->text().contains(QStringLiteral("twice")));
        QVERIFY(!confirm->isHidden());
        QVERIFY(!dialog.canAccept());
        QVERIFY(!ok->isEnabled());
        QCOMPARE(dialog.request().confirmDuplicates, false);

        // OK is refused without the confirmation, even when triggered directly.
        dialog.show();
        QMetaObject::invokeMethod(dialog.findChild<QDialogButtonBox *>(), "accepted");
        QVERIFY(dialog.isVisible());
        QCOMPARE(dialog.result(), int(QDialog::Rejected));

        confirm->click();
        QVERIFY(dialog.canAccept());
        QVERIFY(ok->isEnabled());
        const BackfillRequest request = dialog.request();
        QCOMPARE(request.tableId, 3);
        QCOMPARE(request.action, BackfillTargetAction::Keep);
        QCOMPARE(request.confirmDuplicates, true);
        ok->click();
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
    }

    void keepOnMergeIsSafe() {
        BackfillDialog dialog(tableSpec(WriteMode::Merge, WatermarkType::Timestamp));
        QCOMPARE(dialog.request().action, BackfillTargetAction::Keep);
        QVERIFY(!dialog.needsDuplicateConfirmation());
        QVERIFY(dialog.canAccept());
        QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("duplicateWarning"))->isHidden());
        QCOMPARE(dialog.request().confirmDuplicates, false);
    }

    void valuesAsTheCoreTakesThem() {
        BackfillDialog timestamps(tableSpec(WriteMode::Merge, WatermarkType::Timestamp));
        QCOMPARE(timestamps.request().fromText, QStringLiteral("2025-07-30T23:05:18.000Z"));
        timestamps.setValueText(QStringLiteral("2025-01-02T03:04:05.678Z"));
        QCOMPARE(timestamps.request().fromText, QStringLiteral("2025-01-02T03:04:05.678Z"));

        BackfillDialog integers(tableSpec(WriteMode::Append, WatermarkType::Integer));
        QCOMPARE(integers.request().fromText, QStringLiteral("500"));
        integers.setValueText(QStringLiteral("9007199254740993"));
        QCOMPARE(integers.request().fromText, QStringLiteral("9007199254740993"));
        QVERIFY(integers.canAccept());
        integers.setValueText(QStringLiteral("12abc"));
        QVERIFY(!integers.canAccept());
    }

    void theCoreAgreesWithTheDialog() {
        // The request the dialog builds without confirmation is one the core refuses too, and
        // the confirmed one goes through.
        UiFixture fixture;
        makeOrders(fixture.src, 10);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        TableSpec spec = *fixture.open()->table(id);
        BackfillDialog dialog(spec);
        dialog.setAction(BackfillTargetAction::Keep);
        dialog.setValueText(QStringLiteral("2025-01-01T00:00:00Z"));
        auto ws = fixture.open();
        bool refused = false;
        try {
            runBackfill(*ws, dialog.request());
        } catch (const ValidationError &) {
            refused = true;
        }
        QVERIFY(refused);
        dialog.setConfirmDuplicates(true);
        const BackfillResult result = runBackfill(*ws, dialog.request());
        QCOMPARE(result.after.micros(),
                 Watermark::timestamp(QStringLiteral("2025-01-01T00:00:00Z"))->micros());
    }

    void truncateCountsAsksAndReloadsFromTheBeginning() {
        // Truncate used to start from the current watermark (a "full reload" that reloaded
        // nothing) and deleted every target row without asking.
        UiFixture fixture;
        makeOrders(fixture.src, 120);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        const CliResult first = runCli({QStringLiteral("-w"), fixture.wsPath, QStringLiteral("run")});
        QVERIFY2(first.exitCode == 0, qPrintable(first.describe()));
        QCOMPARE(countRows(fixture.dst, QStringLiteral("orders")), 120);

        MainWindow window;
        openWithOneTableSelected(fixture, window);
        QVERIFY(!QTest::currentTestFailed());
        QSignalSpy backfilled(&window, &MainWindow::backfillFinished);
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.backfillSelected();
        auto *dialog = window.findChild<BackfillDialog *>();
        QVERIFY(dialog);
        auto *truncate = dialog->findChild<QRadioButton *>(QStringLiteral("truncate"));
        QVERIFY(truncate->text().contains(QStringLiteral("from the beginning")));
        truncate->click();
        QVERIFY(!dialog->findChild<QLineEdit *>(QStringLiteral("watermarkTimestamp"))->isEnabled());
        QCOMPARE(dialog->request().action, BackfillTargetAction::Truncate);

        // Nothing destructive is offered before it has been counted, off the GUI thread.
        auto *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY(!ok->isEnabled());
        auto *preview = dialog->findChild<QLabel *>(QStringLiteral("backfillPreview"));
        QVERIFY(preview);
        QTRY_COMPARE_WITH_TIMEOUT(
            preview->text(),
            QStringLiteral("120 target rows will be deleted, about 120 source rows will "
                           "be copied again (from the beginning)."),
            30000);
        QVERIFY(ok->isEnabled());
        dialog->findChild<QCheckBox *>(QStringLiteral("runAfterBackfill"))->setChecked(true);

        // OK asks once more, naming the table and what it deletes; nothing happened yet.
        ok->click();
        QMessageBox *confirmation = nullptr;
        QTRY_VERIFY(
            (confirmation = dialog->findChild<QMessageBox *>(QStringLiteral("backfillConfirmation"))));
        QVERIFY2(confirmation->text().contains(QStringLiteral("dst:orders")) &&
                     confirmation->text().contains(QStringLiteral("table %1").arg(id)),
                 qPrintable(confirmation->text()));
        QVERIFY(confirmation->informativeText().contains(QStringLiteral("120 target rows will be deleted")));
        QCOMPARE(countRows(fixture.dst, QStringLiteral("orders")), 120);
        QCOMPARE(backfilled.size(), 0);
        confirmation->findChild<QPushButton *>(QStringLiteral("confirmBackfill"))->click();

        QTRY_COMPARE_WITH_TIMEOUT(backfilled.size(), 1, 30000);
        // "Run this table now": the whole table again, not "no new rows".
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        const RunRecord run = finished.first().at(0).value<RunRecord>();
        QCOMPARE(run.iterations.size(), 1);
        QCOMPARE(run.iterations.first().tableId, id);
        QVERIFY(run.iterations.first().watermarkBefore.isEmpty()); // from the beginning
        QCOMPARE(run.iterations.first().rowsWritten, 120);
        QCOMPARE(countRows(fixture.dst, QStringLiteral("orders")), 120);
    }

    // Re-copy a range: only a merge table offers it. It asks for both ends, counts and deletes
    // nothing, and the window runs it as a range backfill that leaves the watermark alone.
    void rangeIsCopiedAgainAndTheWatermarkStays() {
        BackfillDialog append(tableSpec(WriteMode::Append, WatermarkType::Timestamp));
        auto *appendRange = append.findChild<QRadioButton *>(QStringLiteral("recopyRange"));
        QVERIFY(!appendRange->isEnabled());
        QVERIFY2(appendRange->toolTip().contains(QStringLiteral("append table")),
                 qPrintable(appendRange->toolTip()));

        UiFixture fixture;
        makeOrders(fixture.src, 120);
        TableDraft draft = UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
        draft.spec.mode = WriteMode::Merge;
        draft.spec.keyColumns = {QStringLiteral("id")};
        const qint64 id = fixture.addTable(draft);
        const CliResult first = runCli({QStringLiteral("-w"), fixture.wsPath, QStringLiteral("run")});
        QVERIFY2(first.exitCode == 0, qPrintable(first.describe()));
        execSql(fixture.dst, QStringLiteral("DELETE FROM orders WHERE id BETWEEN 10 AND 19"));

        MainWindow window;
        openWithOneTableSelected(fixture, window);
        QVERIFY(!QTest::currentTestFailed());
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.backfillSelected();
        auto *dialog = window.findChild<BackfillDialog *>();
        QVERIFY(dialog);
        auto *rangeEnd = dialog->findChild<QLineEdit *>(QStringLiteral("rangeEnd"));
        QVERIFY(!rangeEnd->isVisible());
        dialog->findChild<QRadioButton *>(QStringLiteral("recopyRange"))->click();
        QVERIFY(rangeEnd->isVisible());
        dialog->setValueText(orderTimestamp(10));
        dialog->setRangeEndText(orderTimestamp(19));
        QCOMPARE(dialog->range()->from, orderTimestamp(10));
        QCOMPARE(dialog->range()->to, orderTimestamp(19));
        QVERIFY(!dialog->isDestructive());
        auto *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
        QVERIFY(ok->isEnabled());
        QCOMPARE(ok->text(), QStringLiteral("Re-copy"));
        rangeEnd->clear();
        QVERIFY(!ok->isEnabled());
        dialog->setRangeEndText(orderTimestamp(19));
        ok->click();

        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        const RunRecord run = finished.first().at(0).value<RunRecord>();
        QCOMPARE(run.kind, QString::fromLatin1(kRunKindRangeBackfill));
        QCOMPARE(run.iterations.size(), 1);
        QCOMPARE(run.iterations.first().rowsWritten, 10);
        QCOMPARE(countRows(fixture.dst, QStringLiteral("orders")), 120);
        QCOMPARE(fixture.open()->table(id)->lastWatermark.nativeText(), orderTimestamp(120));
    }

    void cancellingTheConfirmationChangesNothing() {
        UiFixture fixture;
        makeOrders(fixture.src, 30);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        QCOMPARE(runCli({QStringLiteral("-w"), fixture.wsPath, QStringLiteral("run")}).exitCode, 0);
        const Watermark before = fixture.open()->table(id)->lastWatermark;

        MainWindow window;
        openWithOneTableSelected(fixture, window);
        QVERIFY(!QTest::currentTestFailed());
        window.backfillSelected();
        auto *dialog = window.findChild<BackfillDialog *>();
        dialog->setValueText(orderTimestamp(20));
        QCOMPARE(dialog->request().action, BackfillTargetAction::DeleteNewer);
        auto *preview = dialog->findChild<QLabel *>(QStringLiteral("backfillPreview"));
        QTRY_VERIFY_WITH_TIMEOUT(
            preview->text().startsWith(
                QStringLiteral("10 target rows will be deleted, about 10 source rows will be copied again")),
            30000);
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QMessageBox *confirmation = nullptr;
        QTRY_VERIFY(
            (confirmation = dialog->findChild<QMessageBox *>(QStringLiteral("backfillConfirmation"))));
        confirmation->button(QMessageBox::Cancel)->click();
        QVERIFY(dialog->isVisible());
        dialog->reject();
        window.gateway()->waitForIdle();
        QCOMPARE(countRows(fixture.dst, QStringLiteral("orders")), 30);
        QCOMPARE(fixture.open()->table(id)->lastWatermark, before);
    }

    void previewIsCancellable() {
        UiFixture fixture;
        makeOrders(fixture.src, 10);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        BackfillRequest request;
        request.tableId = id;
        request.action = BackfillTargetAction::Truncate;
        auto ws = fixture.open();
        QCOMPARE(previewBackfill(*ws, request).sourceRowsToCopy, 10);
        const std::atomic_bool cancelled{true};
        QVERIFY_THROWS_EXCEPTION(Error, previewBackfill(*ws, request, &cancelled));
    }

    void pickedDateMeansMidnightInTheZoneShown() {
        // The old picker kept the time of day of the current watermark (23:05:18.000).
        BackfillDialog dialog(tableSpec(WriteMode::Merge, WatermarkType::Timestamp));
        auto *calendar = dialog.findChild<QCalendarWidget *>(QStringLiteral("watermarkCalendar"));
        QVERIFY(calendar);
        const QDate july1(2025, 7, 1);
        calendar->setSelectedDate(july1);
        emit calendar->clicked(july1);
        QCOMPARE(dialog.request().fromText, QStringLiteral("2025-07-01T00:00:00Z"));

        dialog.setZone(QTimeZone("Europe/Berlin"));
        QCOMPARE(microsOf(dialog.request().fromText), microsOf(QStringLiteral("2025-06-30T22:00:00Z")));
        emit calendar->activated(QDate(2025, 1, 15));
        QCOMPARE(microsOf(dialog.request().fromText), microsOf(QStringLiteral("2025-01-14T23:00:00Z")));
        QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("watermarkResolved"))
                    ->text()
                    .contains(QStringLiteral("2025-01-14T23:00:00.000000Z")));
    }

    void typedIsoAsTheCliTakesIt_data() {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("utc");
        QTest::newRow("date") << "2025-07-01"
                              << "2025-07-01T00:00:00.000000Z";
        QTest::newRow("date-time") << "2025-07-01T08:30:00"
                                   << "2025-07-01T08:30:00.000000Z";
        QTest::newRow("space") << "2025-07-01 08:30:00"
                               << "2025-07-01T08:30:00.000000Z";
        QTest::newRow("micros") << "2025-07-01T08:30:00.000001"
                                << "2025-07-01T08:30:00.000001Z";
        QTest::newRow("zone") << "2025-07-01T08:30:00.123456+02:00"
                              << "2025-07-01T06:30:00.123456Z";
        QTest::newRow("Z") << "2025-07-01T08:30:00Z"
                           << "2025-07-01T08:30:00.000000Z";
    }

    void typedIsoAsTheCliTakesIt() {
        QFETCH(QString, typed);
        QFETCH(QString, utc);
        BackfillDialog dialog(tableSpec(WriteMode::Merge, WatermarkType::Timestamp));
        dialog.show();
        auto *edit = dialog.findChild<QLineEdit *>(QStringLiteral("watermarkTimestamp"));
        QVERIFY(edit);
        edit->selectAll();
        QTest::keyClick(edit, Qt::Key_Backspace);
        QTest::keyClicks(edit, typed);
        QCOMPARE(edit->text(), typed);
        QVERIFY(dialog.canAccept());
        QCOMPARE(microsOf(dialog.request().fromText), microsOf(utc));
        QCOMPARE(canonicalTimestamp(microsOf(dialog.request().fromText)), utc);

        edit->setText(QStringLiteral("July 1st"));
        QVERIFY(!dialog.canAccept());
        QVERIFY(!dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
    }

    void typedMicrosecondsReachTheWatermark() {
        UiFixture fixture;
        makeOrders(fixture.src, 10);
        const qint64 id = fixture.addTable(
            UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"), WriteMode::Merge));
        BackfillDialog dialog(*fixture.open()->table(id));
        dialog.setValueText(QStringLiteral("2025-01-01T00:03:00.000007"));
        auto ws = fixture.open();
        const BackfillResult result = runBackfill(*ws, dialog.request());
        QCOMPARE(canonicalTimestamp(result.after.micros()), QStringLiteral("2025-01-01T00:03:00.000007Z"));
    }
};

QTEST_MAIN(TestBackfillDialog)
#include "tst_backfilldialog.moc"
