// SPDX-License-Identifier: MIT
// The schedules' model, headless: it builds and runs without the window (TIDEMARK_BUILD_GUI=OFF).
// The Schedules dock over it: tests/ui/tst_schedulespanel.cpp.
#include "model/common/englishplurals.h"
#include "model/models/itemroles.h"
#include "model/models/schedulelistmodel.h"
#include "model/models/timeconvention.h"
#include "model/storage/workspace.h"
#include "tests/support/testsupport.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

QDateTime utc(const char *text) {
    return QDateTime::fromString(QString::fromLatin1(text), Qt::ISODate);
}

ScheduleSpec every5(const QString &name, const QDateTime &createdAt) {
    ScheduleSpec spec;
    spec.name = name;
    spec.cron = QStringLiteral("*/5 * * * *");
    spec.timeZone = QStringLiteral("UTC");
    spec.createdAt = createdAt;
    return spec;
}

} // namespace

class TestScheduleListModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        isolateSettings();
        installEnglishPlurals(); // as both programs do
        TimeConvention::current().setUtc(true);
    }

    // Schedules as a workspace stores them, one row each in name order: what, when next (in the
    // schedule's zone and in the window's), how the last run went, and whether it is active.
    void rowsFromTheWorkspace() {
        QTemporaryDir dir;
        auto ws = Workspace::create(dir.filePath(QStringLiteral("ws.tidemark")));
        const QDateTime now = utc("2026-12-06T10:02:00Z");
        ScheduleSpec nightly;
        nightly.name = QStringLiteral("nightly");
        nightly.cron = QStringLiteral("30 2 * * *");
        nightly.timeZone = QStringLiteral("Europe/Berlin");
        ws->addSchedule(nightly);
        ScheduleSpec hourly;
        hourly.name = QStringLiteral("hourly");
        hourly.cron = QStringLiteral("0 * * * *");
        hourly.timeZone = QStringLiteral("UTC");
        hourly.active = false;
        ws->addSchedule(hourly);
        QList<ScheduleSpec> stored = ws->schedules();
        for (ScheduleSpec &spec : stored) {
            spec.createdAt = now; // nothing came due since: none missed
            if (spec.name == QLatin1String("nightly"))
                spec.tableIds = {1, 3}; // tables this workspace does not hold: only their ids are shown
        }

        ScheduleListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSchedules(stored, {{QStringLiteral("nightly"), QStringLiteral("succeeded")}}, now);
        QCOMPARE(model.rowCount(), 2);
        const int row = model.rowOfSchedule(QStringLiteral("nightly"));
        const int paused = model.rowOfSchedule(QStringLiteral("hourly"));
        QVERIFY(row >= 0 && paused >= 0);
        QCOMPARE(model.rowOfSchedule(QStringLiteral("gone")), -1);
        const auto cell = [&model](int r, int column) {
            return model.index(r, column).data().toString();
        };
        QCOMPARE(cell(row, ScheduleListModel::Name), QStringLiteral("nightly"));
        QCOMPARE(cell(row, ScheduleListModel::Cron), QStringLiteral("30 2 * * *"));
        QCOMPARE(cell(row, ScheduleListModel::Zone), QStringLiteral("Europe/Berlin"));
        QCOMPARE(cell(row, ScheduleListModel::Tables), QStringLiteral("1, 3"));
        // 02:30 in Berlin (CET, UTC+1) is 01:30 UTC, the next day.
        QCOMPARE(model.index(row, ScheduleListModel::NextLocal).data(RawRole).toDateTime(),
                 utc("2026-12-07T01:30:00Z"));
        QVERIFY2(cell(row, ScheduleListModel::NextLocal).startsWith(QLatin1String("2026-12-07 02:30:00 ")),
                 qPrintable(cell(row, ScheduleListModel::NextLocal)));
        QCOMPARE(cell(row, ScheduleListModel::NextShown), QStringLiteral("2026-12-07 01:30:00"));
        QCOMPARE(model.headerData(ScheduleListModel::NextShown, Qt::Horizontal).toString(),
                 QStringLiteral("Next run (UTC)"));
        QCOMPARE(cell(row, ScheduleListModel::LastStatus), QStringLiteral("succeeded"));
        QCOMPARE(model.index(row, 0).data(StatusNameRole).toString(), QStringLiteral("succeeded"));
        QCOMPARE(cell(row, ScheduleListModel::Active), QStringLiteral("yes"));
        QCOMPARE(model.index(row, ScheduleListModel::Active).data(Qt::CheckStateRole).toInt(),
                 int(Qt::Checked));

        QCOMPARE(cell(paused, ScheduleListModel::Tables), QStringLiteral("all active"));
        QCOMPARE(cell(paused, ScheduleListModel::NextLocal), QStringLiteral("paused"));
        QCOMPARE(cell(paused, ScheduleListModel::NextShown), QString());
        QCOMPARE(cell(paused, ScheduleListModel::LastStatus), QStringLiteral("never ran"));
        QCOMPARE(model.index(paused, ScheduleListModel::Active).data(Qt::CheckStateRole).toInt(),
                 int(Qt::Unchecked));
        QCOMPARE(model.scheduleAt(paused).name, QStringLiteral("hourly"));
        QCOMPARE(model.schedules().size(), 2);
    }

    // A firing that came due and was not fired shows as missed, with how many since; it does not
    // roll forward to the next one.
    void missedFiringsShowAsMissed() {
        const QDateTime now = utc("2026-12-06T10:02:00Z");
        const ScheduleSpec missed =
            every5(QStringLiteral("every5"), now.addSecs(-3600)); // due 09:05 .. 10:00
        ScheduleSpec fired = every5(QStringLiteral("fired"), now.addSecs(-3600));
        fired.lastFiredAt = utc("2026-12-06T10:00:00Z");
        ScheduleSpec paused = every5(QStringLiteral("paused"), now.addSecs(-3600));
        paused.active = false;
        ScheduleSpec longAgo = every5(QStringLiteral("long ago"), now.addDays(-30));
        ScheduleListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSchedules({missed, fired, paused, longAgo}, {}, now);
        QCOMPARE(model.missedAt(0), utc("2026-12-06T09:05:00Z"));
        QCOMPARE(model.index(0, ScheduleListModel::NextLocal).data().toString(),
                 QStringLiteral("missed since 2026-12-06 09:05 UTC (12 firings)"));
        QCOMPARE(model.index(0, ScheduleListModel::NextShown).data().toString(),
                 QStringLiteral("missed since 2026-12-06 09:05:00 (12 firings)"));
        QVERIFY(model.index(0, ScheduleListModel::NextLocal)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("not fired")));
        QVERIFY(!model.missedAt(1).isValid());
        QVERIFY(model.index(1, ScheduleListModel::NextLocal)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("2026-12-06 10:05:00")));
        QVERIFY(model.index(1, ScheduleListModel::NextLocal).data(Qt::ToolTipRole).isNull());
        QVERIFY(!model.missedAt(2).isValid());
        QCOMPARE(model.index(2, ScheduleListModel::NextLocal).data().toString(), QStringLiteral("paused"));
        QVERIFY2(model.index(3, ScheduleListModel::NextLocal)
                     .data()
                     .toString()
                     .endsWith(QLatin1String("(100+ firings)")),
                 qPrintable(model.index(3, ScheduleListModel::NextLocal).data().toString()));
    }

    // Setting the schedules again replaces every row (the window reads them again after a change).
    void setSchedulesReplacesTheRows() {
        const QDateTime now = utc("2026-12-06T10:02:00Z");
        ScheduleListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSchedules({every5(QStringLiteral("a"), now), every5(QStringLiteral("b"), now)}, {}, now);
        QCOMPARE(model.rowCount(), 2);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        ScheduleSpec changed = every5(QStringLiteral("b"), now);
        changed.cron = QStringLiteral("0 3 * * *");
        model.setSchedules({changed}, {}, now);
        QCOMPARE(reset.size(), 1);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, ScheduleListModel::Cron).data().toString(), QStringLiteral("0 3 * * *"));
        QCOMPARE(model.rowOfSchedule(QStringLiteral("a")), -1);
    }
};

QTEST_GUILESS_MAIN(TestScheduleListModel)
#include "tst_schedulelistmodel.moc"
