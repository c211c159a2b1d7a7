// SPDX-License-Identifier: MIT
// The GUI thread must never wait on a database: while 8 tables x 200,000 rows are copied, a
// 10 ms timer on the GUI thread measures the longest gap between its ticks, with the real
// window open and its live grid updating; it prints the figure and fails on a stall of a second.
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/iterationgridmodel.h"
#include "tests/ui/uifixture.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/run/runpanel.h"

#include <QAction>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

class TestResponsiveness : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void guiThreadStaysResponsiveDuringARun() {
        constexpr int kTables = 8;
        constexpr int kRows = 200000;
        UiFixture fixture;
        QVERIFY(fixture.isValid());
        for (int t = 0; t < kTables; ++t) {
            const QString table = QStringLiteral("orders_%1").arg(t);
            makeOrders(fixture.src, kRows, 1, table);
            fixture.addTable(UiFixture::draft(table, QStringLiteral("updated_at")));
        }

        MainWindow window;
        window.show();
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        window.openWorkspace(fixture.wsPath);
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(window.controlTable()->model()->rowCount(), kTables, 30000);
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);

        qint64 longestGap = 0;
        int ticks = 0;
        QElapsedTimer sinceLastTick;
        QTimer ticker;
        ticker.setTimerType(Qt::PreciseTimer);
        ticker.setInterval(10);
        connect(&ticker, &QTimer::timeout, this, [&] {
            longestGap = std::max(longestGap, sinceLastTick.restart());
            ++ticks;
        });
        QElapsedTimer runClock;
        runClock.start();
        sinceLastTick.start();
        ticker.start();
        QAction *runAll = window.findChild<QAction *>(QStringLiteral("actionRunAll"));
        QVERIFY(runAll && runAll->isEnabled());
        // A plain event loop, as the application runs (QTRY_* would sleep between its polls).
        QEventLoop loop;
        connect(window.coordinator(), &RunCoordinator::runFinished, &loop, &QEventLoop::quit);
        QTimer::singleShot(600000, &loop, &QEventLoop::quit);
        runAll->trigger();
        loop.exec();
        ticker.stop();
        QCOMPARE(finished.size(), 1);
        const qint64 runMs = runClock.elapsed();

        const RunRecord run = finished.first().at(0).value<RunRecord>();
        QCOMPARE(run.iterations.size(), kTables);
        qint64 written = 0;
        for (const IterationRecord &it : run.iterations) {
            QCOMPARE(it.status, IterationStatus::Succeeded);
            written += it.rowsWritten;
        }
        QCOMPARE(written, qint64(kTables) * kRows);
        const IterationGridModel *grid = window.runPanel()->liveModel();
        QCOMPARE(grid->summary().count(IterationStatus::Succeeded), kTables);
        for (int t = 0; t < kTables; ++t)
            QCOMPARE(countRows(fixture.dst, QStringLiteral("orders_%1").arg(t)), qint64(kRows));

        qInfo("GUI-thread stall: longest gap between 10 ms ticks = %lld ms over a %lld ms run "
              "(%d tables x %d rows, %d ticks)",
              longestGap, runMs, kTables, kRows, ticks);
        // The figure above is what to quote (bench/, a quiet machine); the assertion only catches a
        // GUI thread that waits on the copy itself (a table takes seconds), not the scheduling noise
        // of a loaded machine (108 ms seen with ten builds beside it).
        QVERIFY2(longestGap < 1000, qPrintable(QStringLiteral("longest gap %1 ms").arg(longestGap)));
    }
};

QTEST_MAIN(TestResponsiveness)
#include "tst_responsiveness.moc"
