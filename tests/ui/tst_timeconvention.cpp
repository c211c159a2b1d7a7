// SPDX-License-Identifier: MIT
// One time convention everywhere, on a machine in New York: View › Times in UTC / in the local
// zone turns every time the window shows (run grid, history, iteration details and log,
// watermark history) and its header, the CSV export (ISO-8601 with offset, durations in
// seconds) and the backfill date picker (midnight in the zone shown), and the choice is kept.
#include "model/common/timestamp.h"
#include "model/engine/runcoordinator.h"
#include "model/models/itemroles.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/runhistorymodel.h"
#include "model/models/timeconvention.h"
#include "model/models/watermarkhistorymodel.h"
#include "tests/ui/uifixture.h"
#include "ui/backfill/backfilldialog.h"
#include "ui/common/workspacegateway.h"
#include "ui/controltable/watermarkhistorydialog.h"
#include "ui/history/historypanel.h"
#include "ui/run/runpanel.h"

#include <QAction>
#include <QApplication>
#include <QCalendarWidget>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QTableView>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

const QTimeZone kNewYork("America/New_York");

QString shown(const QDateTime &time, const QTimeZone &zone, const QString &format) {
    return time.toTimeZone(zone).toString(format);
}

void chooseUtc(MainWindow &window, bool utc) {
    auto *action = window.findChild<QAction *>(utc ? QStringLiteral("actionTimesUtc")
                                                   : QStringLiteral("actionTimesLocal"));
    QVERIFY(action);
    action->trigger();
    QCOMPARE(TimeConvention::current().isUtc(), utc);
}

// Runs every table from the window and waits for the run to finish.
RunRecord runInWindow(MainWindow &window) {
    QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
    window.findChild<QAction *>(QStringLiteral("actionRunAll"))->trigger();
    if (!finished.wait(120000) && finished.isEmpty())
        return {};
    return finished.first().first().value<RunRecord>();
}

QList<QStringList> csvRecords(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QStringList> records;
    for (const QString &line :
         QString::fromUtf8(file.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts))
        records << line.split(QLatin1Char(',')); // no field here holds a comma
    return records;
}

} // namespace

class TestTimeConvention : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        isolateSettings();
        QSettings().clear();
        QCOMPARE(TimeConvention::localZoneName(), QStringLiteral("America/New_York"));
    }

    void switchingTurnsEveryViewAndIsKept() {
        UiFixture fixture;
        makeOrders(fixture.src, 20);
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        MainWindow window;
        openInWindow(fixture, window, 1);
        chooseUtc(window, false);
        const RunRecord run = runInWindow(window);
        QCOMPARE(run.iterations.size(), 1);
        const IterationRecord iteration = run.iterations.first();
        QVERIFY(!iteration.log.isEmpty());

        QAbstractItemModel *grid = window.runPanel()->view()->model();
        QAbstractItemModel *history = window.historyPanel()->view()->model();
        QTRY_COMPARE(history->rowCount(), 1);
        QTRY_COMPARE(grid->rowCount(), 1);
        window.runPanel()->view()->setCurrentIndex(grid->index(0, 0));
        auto *log = window.runPanel()->findChild<QPlainTextEdit *>(QStringLiteral("iterationLog"));
        QVERIFY(log);
        QTRY_VERIFY(!log->toPlainText().isEmpty());
        window.controlTable()->view()->selectRow(0);
        window.findChild<QAction *>(QStringLiteral("actionWatermarkHistory"))->trigger();
        auto *dialog = window.findChild<WatermarkHistoryDialog *>();
        QVERIFY(dialog);
        QAbstractItemModel *watermarks = dialog->view()->model();
        QTRY_COMPARE(watermarks->rowCount(), 1);
        const QDateTime changedAt =
            watermarks->index(0, WatermarkHistoryModel::Time).data(RawRole).toDateTime();

        const QString seconds = QStringLiteral("yyyy-MM-dd HH:mm:ss");
        const auto expectEverywhere = [&](const QTimeZone &zone, const QString &zoneName) {
            const QString suffix = QStringLiteral("(%1)").arg(zoneName);
            QCOMPARE(grid->headerData(IterationGridModel::Started, Qt::Horizontal).toString(),
                     QStringLiteral("Started ") + suffix);
            QCOMPARE(grid->index(0, IterationGridModel::Started).data().toString(),
                     shown(iteration.startedAt, zone, seconds));
            QCOMPARE(history->headerData(RunHistoryModel::Started, Qt::Horizontal).toString(),
                     QStringLiteral("Started ") + suffix);
            QCOMPARE(history->index(0, RunHistoryModel::Started).data().toString(),
                     shown(run.startedAt, zone, seconds));
            QCOMPARE(watermarks->headerData(WatermarkHistoryModel::Time, Qt::Horizontal).toString(),
                     QStringLiteral("Time ") + suffix);
            QCOMPARE(watermarks->index(0, WatermarkHistoryModel::Time).data().toString(),
                     shown(changedAt, zone, seconds));
            QVERIFY(log->toPlainText().startsWith(
                shown(iteration.log.first().at, zone, QStringLiteral("HH:mm:ss.zzz"))));
            bool labelled = false;
            for (QLabel *label : window.runPanel()->findChildren<QLabel *>())
                labelled = labelled || label->text() == QStringLiteral("Log %1:").arg(suffix);
            QVERIFY(labelled);
        };
        expectEverywhere(kNewYork, QStringLiteral("America/New_York"));
        // New York is never on UTC: every time shown must change.
        QVERIFY(shown(run.startedAt, kNewYork, seconds) != shown(run.startedAt, QTimeZone::utc(), seconds));

        QSignalSpy headers(grid, &QAbstractItemModel::headerDataChanged);
        QSignalSpy cells(history, &QAbstractItemModel::dataChanged);
        chooseUtc(window, true);
        QVERIFY(!headers.isEmpty());
        QVERIFY(!cells.isEmpty());
        expectEverywhere(QTimeZone::utc(), QStringLiteral("UTC"));

        // Kept in the window's settings, applied at start-up.
        QTRY_VERIFY(QSettings().value(QStringLiteral("view/timesInUtc")).toBool());
        TimeConvention::current().setUtc(false);
        {
            MainWindow next;
            QVERIFY(TimeConvention::current().isUtc());
            QVERIFY(next.findChild<QAction *>(QStringLiteral("actionTimesUtc"))->isChecked());
        }
        chooseUtc(window, false);
        expectEverywhere(kNewYork, QStringLiteral("America/New_York"));
    }

    void csvCarriesOffsetsAndSeconds() {
        UiFixture fixture;
        makeOrders(fixture.src, 20);
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        {
            RunCoordinator coordinator(fixture.wsPath);
            QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
            QVERIFY(coordinator.start({}));
            QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        }
        const RunRecord run = fixture.open()->runs().first();
        WorkspaceGateway gateway(fixture.wsPath);
        ControlTableModel tables;
        HistoryPanel panel(&tables);
        panel.setGateway(&gateway);
        QTRY_COMPARE(panel.sortModel()->rowCount(), 1);

        for (const bool utc : {false, true}) {
            TimeConvention::current().setUtc(utc);
            const QString path = fixture.filePath(QStringLiteral("history-%1.csv").arg(utc));
            QSignalSpy exported(&panel, &HistoryPanel::exportFinished);
            QVERIFY(panel.exportCsvTo(path));
            QTRY_COMPARE_WITH_TIMEOUT(exported.size(), 1, 60000);
            QVERIFY(exported.first().at(0).toBool());
            const QList<QStringList> records = csvRecords(path);
            QCOMPARE(records.size(), 2);
            const QStringList header = records.first();
            const int started = int(header.indexOf(utc ? QStringLiteral("Started (UTC)")
                                                       : QStringLiteral("Started (America/New_York)")));
            const int duration = int(header.indexOf(QStringLiteral("Duration (s)")));
            QVERIFY2(started >= 0 && duration >= 0, qPrintable(header.join(QLatin1Char('|'))));
            const QString startedText = records.last().at(started);
            const QString offset = utc ? QStringLiteral("\\+00:00") : QStringLiteral("-0[45]:00");
            QVERIFY2(QRegularExpression(
                         QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}%1$").arg(offset))
                         .match(startedText)
                         .hasMatch(),
                     qPrintable(startedText));
            QCOMPARE(QDateTime::fromString(startedText, Qt::ISODateWithMs), run.startedAt);
            bool isNumber = false;
            const double secondsValue = records.last().at(duration).toDouble(&isNumber);
            QVERIFY2(isNumber, qPrintable(records.last().at(duration)));
            QCOMPARE(qRound64(secondsValue * 1000), run.startedAt.msecsTo(run.finishedAt));
        }
        TimeConvention::current().setUtc(false);
    }

    void pickedDateIsMidnightInTheZoneShown() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        const qint64 id = fixture.addTable(
            UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"), WriteMode::Merge));
        const TableSpec spec = *fixture.open()->table(id);
        const QDate july1(2025, 7, 1);
        for (const bool utc : {false, true}) {
            TimeConvention::current().setUtc(utc);
            BackfillDialog dialog(spec);
            auto *zone = dialog.findChild<QComboBox *>(QStringLiteral("watermarkZone"));
            QVERIFY(zone);
            QCOMPARE(zone->currentText(),
                     utc ? QStringLiteral("UTC") : QStringLiteral("Local (America/New_York)"));
            auto *calendar = dialog.findChild<QCalendarWidget *>(QStringLiteral("watermarkCalendar"));
            emit calendar->clicked(july1);
            const QString midnight =
                utc ? QStringLiteral("2025-07-01T00:00:00Z") : QStringLiteral("2025-07-01T04:00:00Z");
            QCOMPARE(parseTimestamp(dialog.request().fromText)->micros, parseTimestamp(midnight)->micros);
            // Typed ISO-8601 keeps working: a bare date is midnight in the zone shown too, a
            // zone written out wins.
            auto *edit = dialog.findChild<QLineEdit *>(QStringLiteral("watermarkTimestamp"));
            edit->setText(QStringLiteral("2025-07-01"));
            QCOMPARE(parseTimestamp(dialog.request().fromText)->micros, parseTimestamp(midnight)->micros);
            edit->setText(QStringLiteral("2025-07-01T00:00:00.000001+02:00"));
            QCOMPARE(parseTimestamp(dialog.request().fromText)->micros,
                     parseTimestamp(QStringLiteral("2025-06-30T22:00:00.000001Z"))->micros);
        }
        TimeConvention::current().setUtc(false);
    }
};

int main(int argc, char **argv) {
    qputenv("TZ", "America/New_York"); // a zone never on UTC, whatever the machine's
    QApplication app(argc, argv);
    TestTimeConvention test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_timeconvention.moc"
