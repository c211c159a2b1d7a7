// SPDX-License-Identifier: MIT
#include "model/models/schedulelistmodel.h"
#include "model/models/timeconvention.h"
#include "model/schedule/cronexpression.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/schedules/scheduledialog.h"
#include "ui/schedules/schedulespanel.h"

#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTableView>
#include <QUndoStack>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

TableSpec table(qint64 id, const QString &name) {
    TableSpec spec;
    spec.id = id;
    spec.sourceConnection = QStringLiteral("src");
    spec.sourceTable = name;
    spec.targetConnection = QStringLiteral("dst");
    spec.targetTable = name;
    return spec;
}

template <typename T> T *child(QObject *parent, const char *name) {
    auto *found = parent->findChild<T *>(QString::fromLatin1(name));
    if (!found)
        qWarning("no child %s", name);
    return found;
}

QPushButton *okButton(QDialog *dialog) {
    return dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
}

QStringList items(QListWidget *list) {
    QStringList texts;
    for (int row = 0; row < list->count(); ++row)
        texts << list->item(row)->text();
    return texts;
}

std::optional<ScheduleSpec> stored(const UiFixture &fixture, const QString &name) {
    return fixture.open()->schedule(name);
}

} // namespace

class TestSchedulesPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void cronFieldExplainsItselfAsYouType() {
        ScheduleDialog dialog({table(1, QStringLiteral("orders")), table(2, QStringLiteral("customers"))});
        // Friday 27 March 2026, 12:00 UTC: Paris moves to summer time on Sunday the 29th.
        dialog.setReferenceTime(QDateTime(QDate(2026, 3, 27), QTime(12, 0), Qt::UTC));
        auto *name = child<QLineEdit>(&dialog, "scheduleName");
        auto *cron = child<QLineEdit>(&dialog, "scheduleCron");
        auto *zone = child<QComboBox>(&dialog, "scheduleZone");
        auto *explanation = child<QLabel>(&dialog, "cronExplanation");
        auto *next = child<QListWidget>(&dialog, "nextFireTimes");
        QVERIFY(name && cron && zone && explanation && next);

        // The machine's zone is the default, and every zone Qt knows is offered.
        QCOMPARE(zone->currentText(), QString::fromUtf8(QTimeZone::systemTimeZoneId()));
        QVERIFY(zone->count() >= QTimeZone::availableTimeZoneIds().size());
        zone->setCurrentText(QStringLiteral("Europe/Paris"));
        QCOMPARE(zone->currentText(), QStringLiteral("Europe/Paris"));

        QTest::keyClicks(name, QStringLiteral("weekday-mornings"));
        QTest::keyClicks(cron, QStringLiteral("0 9 * * mon-fri"));
        QCOMPARE(explanation->text(), CronExpression::parse(QStringLiteral("0 9 * * mon-fri")).describe() +
                                          QStringLiteral(" in Europe/Paris"));
        QVERIFY(explanation->text().contains(QStringLiteral("weekday")));
        QVERIFY(okButton(&dialog)->isEnabled());

        // The next five, in Paris time: Monday 30 March onwards (summer time by then), no weekend.
        const QStringList fires = items(next);
        QCOMPARE(fires.size(), 5);
        const QStringList days{QStringLiteral("2026-03-30 09:00"), QStringLiteral("2026-03-31 09:00"),
                               QStringLiteral("2026-04-01 09:00"), QStringLiteral("2026-04-02 09:00"),
                               QStringLiteral("2026-04-03 09:00")};
        for (int i = 0; i < 5; ++i)
            QVERIFY2(fires[i].contains(days[i]), qPrintable(fires[i]));

        // Another zone: same wall times there, and the explanation names it.
        zone->setCurrentText(QStringLiteral("America/New_York"));
        QVERIFY(explanation->text().endsWith(QStringLiteral(" in America/New_York")));
        // Friday 09:00 in New York (summer time since 8 March) is 13:00 UTC, after the reference.
        QVERIFY2(items(next).first().contains(QStringLiteral("2026-03-27 09:00")),
                 qPrintable(items(next).first()));

        // A parse error is shown in place, naming the field; OK is off.
        cron->clear();
        QTest::keyClicks(cron, QStringLiteral("0 9 * * 8"));
        QVERIFY2(explanation->text().contains(QStringLiteral("day-of-week")),
                 qPrintable(explanation->text()));
        QVERIFY(explanation->property("error").toBool());
        QVERIFY(!okButton(&dialog)->isEnabled());
        QCOMPARE(next->count(), 0);
        cron->setText(QStringLiteral("*/5 * * * *"));
        QVERIFY(!explanation->property("error").toBool());
        QVERIFY(okButton(&dialog)->isEnabled());

        // A checked list needs at least one table; a bad timeout keeps OK off.
        child<QRadioButton>(&dialog, "someTables")->click();
        QVERIFY(!okButton(&dialog)->isEnabled());
        auto *tables = child<QListWidget>(&dialog, "scheduleTables");
        tables->item(1)->setCheckState(Qt::Checked);
        QVERIFY(okButton(&dialog)->isEnabled());
        child<QLineEdit>(&dialog, "scheduleTimeout")->setText(QStringLiteral("soon"));
        QVERIFY(!okButton(&dialog)->isEnabled());
        child<QLineEdit>(&dialog, "scheduleTimeout")->setText(QStringLiteral("15m"));
        QVERIFY(okButton(&dialog)->isEnabled());
        child<QSpinBox>(&dialog, "scheduleConcurrency")->setValue(4);
        child<QSpinBox>(&dialog, "scheduleRetries")->setValue(3);

        const ScheduleSpec spec = dialog.schedule();
        QCOMPARE(spec.name, QStringLiteral("weekday-mornings"));
        QCOMPARE(spec.cron, QStringLiteral("*/5 * * * *"));
        QCOMPARE(spec.timeZone, QStringLiteral("America/New_York"));
        QCOMPARE(spec.tableIds, QList<qint64>{2});
        QCOMPARE(spec.concurrency, 4);
        QCOMPARE(spec.retries, 3);
        QCOMPARE(spec.timeoutSeconds, 900);
    }

    void addEditPauseRemoveWithUndo() {
        UiFixture fixture;
        QVERIFY(fixture.isValid());
        WorkspaceGateway gateway(fixture.wsPath);
        QUndoStack stack;
        SchedulesPanel panel(&stack);
        panel.setGateway(&gateway);
        panel.show();

        // Add through the dialog.
        panel.addSchedule();
        QTRY_VERIFY(panel.openDialog());
        ScheduleDialog *dialog = panel.openDialog();
        child<QLineEdit>(dialog, "scheduleName")->setText(QStringLiteral("nightly"));
        child<QLineEdit>(dialog, "scheduleCron")->setText(QStringLiteral("30 2 * * *"));
        child<QComboBox>(dialog, "scheduleZone")->setCurrentText(QStringLiteral("Europe/Paris"));
        child<QSpinBox>(dialog, "scheduleRetries")->setValue(2);
        okButton(dialog)->click();
        QCOMPARE(stack.undoText(), QStringLiteral("Add schedule nightly"));
        QTRY_COMPARE(panel.model()->rowCount(), 1);
        auto spec = stored(fixture, QStringLiteral("nightly"));
        QVERIFY(spec);
        QCOMPARE(spec->cron, QStringLiteral("30 2 * * *"));
        QCOMPARE(spec->timeZone, QStringLiteral("Europe/Paris"));
        QCOMPARE(spec->retries, 2);
        QVERIFY(spec->tableIds.isEmpty());
        QVERIFY(spec->active);

        // The list: next run in Paris time and in UTC, 02:30 Paris being 00:30 or 01:30 UTC.
        ScheduleListModel *model = panel.model();
        QCOMPARE(model->index(0, ScheduleListModel::Name).data().toString(), QStringLiteral("nightly"));
        QCOMPARE(model->index(0, ScheduleListModel::Tables).data().toString(), QStringLiteral("all active"));
        QVERIFY(model->index(0, ScheduleListModel::NextLocal)
                    .data()
                    .toString()
                    .contains(QStringLiteral("02:30")));
        TimeConvention::current().setUtc(true);
        const QString utc = model->index(0, ScheduleListModel::NextShown).data().toString();
        QVERIFY2(utc.endsWith(QStringLiteral(" 00:30:00")) || utc.endsWith(QStringLiteral(" 01:30:00")),
                 qPrintable(utc));
        QCOMPARE(model->headerData(ScheduleListModel::NextShown, Qt::Horizontal).toString(),
                 QStringLiteral("Next run (UTC)"));
        TimeConvention::current().setUtc(false);
        QCOMPARE(model->index(0, ScheduleListModel::LastStatus).data().toString(),
                 QStringLiteral("never ran"));

        // The runner fired it once: removing and undoing must keep that anchor.
        const QDateTime fired(QDate(2026, 11, 30), QTime(1, 30), Qt::UTC);
        fixture.open()->recordScheduleFiring(QStringLiteral("nightly"), fired);

        // Edit: the name is fixed, the rest changes; undo puts the old cron back.
        panel.view()->selectRow(0);
        panel.editSchedule();
        QTRY_VERIFY(panel.openDialog());
        dialog = panel.openDialog();
        QVERIFY(child<QLineEdit>(dialog, "scheduleName")->isReadOnly());
        QCOMPARE(child<QLineEdit>(dialog, "scheduleCron")->text(), QStringLiteral("30 2 * * *"));
        QCOMPARE(child<QSpinBox>(dialog, "scheduleRetries")->value(), 2);
        child<QLineEdit>(dialog, "scheduleCron")->setText(QStringLiteral("0 3 * * *"));
        okButton(dialog)->click();
        QCOMPARE(stack.undoText(), QStringLiteral("Edit schedule nightly"));
        QTRY_COMPARE(stored(fixture, QStringLiteral("nightly"))->cron, QStringLiteral("0 3 * * *"));
        QCOMPARE(stored(fixture, QStringLiteral("nightly"))->lastFiredAt, fired);
        stack.undo();
        QTRY_COMPARE(stored(fixture, QStringLiteral("nightly"))->cron, QStringLiteral("30 2 * * *"));
        QTRY_COMPARE(model->index(0, ScheduleListModel::Cron).data().toString(),
                     QStringLiteral("30 2 * * *"));

        // Pause / resume.
        panel.view()->selectRow(0);
        panel.findChild<QAction *>(QStringLiteral("actionPauseSchedule"))->trigger();
        QCOMPARE(stack.undoText(), QStringLiteral("Pause schedule nightly"));
        QTRY_VERIFY(!stored(fixture, QStringLiteral("nightly"))->active);
        QTRY_COMPARE(model->index(0, ScheduleListModel::NextLocal).data().toString(),
                     QStringLiteral("paused"));
        QVERIFY(!panel.findChild<QAction *>(QStringLiteral("actionPauseSchedule"))->isEnabled());
        QVERIFY(panel.findChild<QAction *>(QStringLiteral("actionResumeSchedule"))->isEnabled());
        stack.undo();
        QTRY_VERIFY(stored(fixture, QStringLiteral("nightly"))->active);

        // Remove, then undo: back with its settings and its last firing.
        panel.view()->selectRow(0);
        panel.findChild<QAction *>(QStringLiteral("actionRemoveSchedule"))->trigger();
        QCOMPARE(stack.undoText(), QStringLiteral("Remove schedule nightly"));
        QTRY_COMPARE(model->rowCount(), 0);
        QVERIFY(!stored(fixture, QStringLiteral("nightly")));
        stack.undo();
        QTRY_COMPARE(model->rowCount(), 1);
        spec = stored(fixture, QStringLiteral("nightly"));
        QVERIFY(spec);
        QCOMPARE(spec->cron, QStringLiteral("30 2 * * *"));
        QCOMPARE(spec->retries, 2);
        QCOMPARE(spec->lastFiredAt, fired);

        // Undo of the add removes it; redo adds it again.
        while (stack.canUndo())
            stack.undo();
        QTRY_COMPARE(model->rowCount(), 0);
        QVERIFY(!stored(fixture, QStringLiteral("nightly")));
    }

    void aRefusedWriteIsReportedAndTheListShowsTheWorkspace() {
        UiFixture fixture;
        WorkspaceGateway gateway(fixture.wsPath);
        QSignalSpy errors(&gateway, &WorkspaceGateway::errorOccurred);
        QUndoStack stack;
        SchedulesPanel panel(&stack);
        panel.setGateway(&gateway);
        ScheduleSpec taken;
        taken.name = QStringLiteral("hourly");
        taken.cron = QStringLiteral("@hourly");
        taken.timeZone = QStringLiteral("UTC");

        // Taken after the dialog read the names (by the CLI, say): the write itself refuses it.
        panel.addSchedule();
        QTRY_VERIFY(panel.openDialog());
        fixture.open()->addSchedule(taken);
        child<QLineEdit>(panel.openDialog(), "scheduleName")->setText(QStringLiteral("hourly"));
        child<QLineEdit>(panel.openDialog(), "scheduleCron")->setText(QStringLiteral("*/10 * * * *"));
        okButton(panel.openDialog())->click();
        QTRY_COMPARE(errors.size(), 1);
        QVERIFY(errors.first().first().toString().contains(QStringLiteral("hourly")));
        QTRY_COMPARE(panel.model()->rowCount(), 1);
        QCOMPARE(panel.model()->index(0, ScheduleListModel::Cron).data().toString(),
                 QStringLiteral("@hourly"));
    }

    // Add Schedule closed on a duplicate name and the input was lost; now it stays open with
    // the input, says why, and puts the focus on the name.
    void aDuplicateNameKeepsTheDialogAndItsInput() {
        UiFixture fixture;
        WorkspaceGateway gateway(fixture.wsPath);
        QSignalSpy errors(&gateway, &WorkspaceGateway::errorOccurred);
        QUndoStack stack;
        SchedulesPanel panel(&stack);
        panel.setGateway(&gateway);
        ScheduleSpec taken;
        taken.name = QStringLiteral("hourly");
        taken.cron = QStringLiteral("@hourly");
        taken.timeZone = QStringLiteral("UTC");
        fixture.open()->addSchedule(taken);

        panel.addSchedule();
        QTRY_VERIFY(panel.openDialog());
        ScheduleDialog *dialog = panel.openDialog();
        auto *name = child<QLineEdit>(dialog, "scheduleName");
        auto *cron = child<QLineEdit>(dialog, "scheduleCron");
        name->setText(QStringLiteral("hourly"));
        cron->setText(QStringLiteral("*/10 * * * *"));
        QVERIFY(child<QLabel>(dialog, "scheduleProblem")->text().contains(QStringLiteral("hourly")));
        cron->setFocus();
        okButton(dialog)->click();
        QCoreApplication::processEvents();
        QCOMPARE(panel.openDialog(), dialog);
        QVERIFY(dialog->isVisible());
        QCOMPARE(name->text(), QStringLiteral("hourly"));
        QCOMPARE(cron->text(), QStringLiteral("*/10 * * * *"));
        QCOMPARE(dialog->focusWidget(), name);
        QVERIFY2(child<QLabel>(dialog, "scheduleProblem")->text().contains(QLatin1String("exists already")),
                 qPrintable(child<QLabel>(dialog, "scheduleProblem")->text()));
        QCOMPARE(stack.count(), 0);

        // Another name goes through.
        name->setText(QStringLiteral("every_ten"));
        QVERIFY(child<QLabel>(dialog, "scheduleProblem")->text().isEmpty());
        okButton(dialog)->click();
        QTRY_COMPARE(panel.model()->rowCount(), 2);
        QCOMPARE(errors.size(), 0);
    }

    void theWindowShowsSchedulesInADockSharingItsUndoStack() {
        UiFixture fixture;
        ScheduleSpec spec;
        spec.name = QStringLiteral("every-minute");
        spec.cron = QStringLiteral("* * * * *");
        spec.timeZone = QStringLiteral("UTC");
        fixture.open()->addSchedule(spec);

        MainWindow window;
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        window.openWorkspace(fixture.wsPath);
        QTRY_COMPARE(opened.size(), 1);
        QVERIFY(window.findChild<QDockWidget *>(QStringLiteral("schedulesDock")));
        SchedulesPanel *panel = window.schedulesPanel();
        QTRY_COMPARE(panel->model()->rowCount(), 1);
        panel->view()->selectRow(0);
        panel->pauseSchedule();
        auto *undo = window.findChild<QAction *>(QStringLiteral("actionUndo"));
        QVERIFY(undo);
        QVERIFY2(undo->text().contains(QStringLiteral("Pause schedule every-minute")),
                 qPrintable(undo->text()));
        QTRY_VERIFY(!stored(fixture, QStringLiteral("every-minute"))->active);
        undo->trigger();
        QTRY_VERIFY(stored(fixture, QStringLiteral("every-minute"))->active);
        window.gateway()->waitForIdle();
    }
};

QTEST_MAIN(TestSchedulesPanel)
#include "tst_schedulespanel.moc"
