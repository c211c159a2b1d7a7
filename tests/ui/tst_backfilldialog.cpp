// SPDX-License-Identifier: MIT
#include "model/common/error.h"
#include "model/engine/backfill.h"
#include "tests/ui/uifixture.h"
#include "ui/backfill/backfilldialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
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
};

QTEST_MAIN(TestBackfillDialog)
#include "tst_backfilldialog.moc"
