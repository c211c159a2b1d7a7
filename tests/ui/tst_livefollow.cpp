// SPDX-License-Identifier: MIT
// The window follows runs made by other processes (cron, tidemark-cli, the runner) live,
// without anyone pressing Refresh: the run appears in the history and the grid while it runs,
// with its progress, and the control table's watermark and last-run columns follow.
#include "model/models/controltablemodel.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/runhistorymodel.h"
#include "model/storage/workspacewatcher.h"
#include "tests/engine/processrace.h"
#include "tests/ui/uifixture.h"
#include "ui/common/workspacegateway.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/history/historypanel.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/run/runpanel.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

class TestLiveFollow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    // Each report of a live run changes its summary line, and each new text lays the window out
    // again: at 10,000 tables that was most of the GUI thread's time during a run. The line is
    // written again a few times a second while the run goes on, and at once when it ends.
    void liveSummaryIsNotWrittenAtEachReport() {
        constexpr int kTables = 1000;
        RunPanel panel;
        panel.show();
        auto *summary = panel.findChild<QLabel *>(QStringLiteral("runSummary"));
        QVERIFY(summary);
        IterationGridModel *live = panel.liveModel();
        QList<IterationRecord> rows;
        for (int id = 1; id <= kTables; ++id)
            rows << queuedIteration(5, id, QStringLiteral("t%1").arg(id));
        live->beginRun(5, rows);
        QTRY_VERIFY2(summary->text().contains(QStringLiteral("1000 queued")), qPrintable(summary->text()));

        const QString before = summary->text();
        for (IterationRecord record : std::as_const(rows)) {
            record.status = IterationStatus::Succeeded;
            live->updateIteration(record);
        }
        QCOMPARE(summary->text(), before); // not once per report
        QTRY_VERIFY2(summary->text().contains(QStringLiteral("1000 succeeded")), qPrintable(summary->text()));

        RunRecord finished;
        finished.id = 5;
        for (IterationRecord record : std::as_const(rows)) {
            record.status = IterationStatus::Failed;
            finished.iterations << record;
        }
        live->finishRun(finished);
        QVERIFY2(summary->text().contains(QStringLiteral("1000 failed")), qPrintable(summary->text()));
    }

    void watcherSeesOtherConnectionsOnly() {
        UiFixture fixture;
        makeOrders(fixture.src, 10);
        WorkspaceWatcher watcher(fixture.wsPath, std::chrono::milliseconds(50));
        QSignalSpy changed(&watcher, &WorkspaceWatcher::changed);
        // Its first look is the baseline; a table added elsewhere is news.
        QTest::qWait(200);
        QCOMPARE(changed.size(), 0);
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        QTRY_VERIFY(!changed.isEmpty());
        QVERIFY(changed.last().at(0).value<WorkspaceChanges>().tables);
        // A run by another process: its run id is reported, and the tables (last run, watermark).
        changed.clear();
        QCOMPARE(runCli({QStringLiteral("-w"), fixture.wsPath, QStringLiteral("run")}).exitCode, 0);
        QTRY_VERIFY(!changed.isEmpty());
        bool sawRun = false;
        bool sawTables = false;
        for (const QList<QVariant> &signal : changed) {
            const auto changes = signal.at(0).value<WorkspaceChanges>();
            sawRun = sawRun || changes.runs.contains(1);
            sawTables = sawTables || changes.tables;
        }
        QVERIFY(sawRun);
        QVERIFY(sawTables);
    }

    // The watcher reports twice a second; reading a run of 10,000 iterations takes longer. Ids
    // asked for while a read waits in the queue join it: one read, not a backlog of them.
    void runReadsAskedWhileQueuedJoinOneRead() {
        UiFixture fixture;
        makeOrders(fixture.src, 10);
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        QCOMPARE(runCli({QStringLiteral("-w"), fixture.wsPath, QStringLiteral("run")}).exitCode, 0);
        QCOMPARE(runCli({QStringLiteral("-w"), fixture.wsPath, QStringLiteral("run")}).exitCode, 0);
        WorkspaceGateway gateway(fixture.wsPath);
        QSignalSpy loaded(&gateway, &WorkspaceGateway::runsLoaded);
        QSemaphore release;
        gateway.submit(
            &gateway, [&release](Workspace &) { release.acquire(); }, [] {}); // holds the worker
        gateway.reloadRuns({2});
        gateway.reloadRuns({1, 2});
        gateway.reloadRuns({2});
        release.release();
        QTRY_COMPARE(loaded.size(), 1);
        gateway.waitForIdle();
        QCoreApplication::processEvents();
        QCOMPARE(loaded.size(), 1);
        const auto runs = loaded.first().at(0).value<QList<RunRecord>>();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs.at(0).id, 1);
        QCOMPARE(runs.at(1).id, 2);
        // Once that read has started, the next ids are a read of their own.
        gateway.reloadRuns({1});
        QTRY_COMPARE(loaded.size(), 2);
    }

    void runOfAnotherProcessAppearsLive() {
        UiFixture fixture;
        makeOrders(fixture.src, 200);
        const qint64 id =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        MainWindow window;
        openInWindow(fixture, window, 1);
        QVERIFY(!QTest::currentTestFailed());
        ControlTableModel *tables = window.controlTable()->model();
        QCOMPARE(tables->index(0, ControlTableModel::LastStatus).data().toString(), QString());
        RunHistoryModel *history = window.historyPanel()->model();
        QCOMPARE(history->rowCount(), 0);

        // The other process stops itself just before its target commit: mid-run, for as long
        // as the test looks.
        QProcess cli;
        detail::startRun(cli, fixture.wsPath, QStringLiteral("before_target_commit"));
        QVERIFY2(detail::waitStopped(cli), cli.readAllStandardError().constData());

        // In the history as running, and in the grid with its window's size.
        QTRY_COMPARE_WITH_TIMEOUT(history->rowCount(), 1, 30000);
        QCOMPARE(history->runAt(0).run.status, QStringLiteral("running"));
        QCOMPARE(history->runAt(0).run.trigger, QStringLiteral("cli"));
        const qint64 runId = history->runAt(0).run.id;
        IterationGridModel *grid = window.runPanel()->shownModel();
        QTRY_COMPARE_WITH_TIMEOUT(grid->runId(), runId, 30000);
        QCOMPARE(grid->rowCount(), 1);
        QCOMPARE(grid->iterationAt(0).status, IterationStatus::Running);
        QTRY_COMPARE_WITH_TIMEOUT(grid->iterationAt(0).windowRows, 200, 30000);
        // Busy against the expected 200 rows, or 200 / 200 (what it last recorded).
        const QString progress = grid->index(0, IterationGridModel::Progress).data().toString();
        QVERIFY2(progress.startsWith(QStringLiteral("copying 200 rows")) ||
                     progress.contains(QStringLiteral("/ 200")),
                 qPrintable(progress));

        ::kill(pid_t(cli.processId()), SIGCONT);
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);

        // It ends in the history and the grid, and the control table follows: all without a
        // reload asked by anyone.
        QTRY_COMPARE_WITH_TIMEOUT(history->runAt(0).run.status, QStringLiteral("succeeded"), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(grid->iterationAt(0).status, IterationStatus::Succeeded, 30000);
        QCOMPARE(grid->iterationAt(0).rowsWritten, 200);
        QTRY_COMPARE_WITH_TIMEOUT(tables->index(0, ControlTableModel::LastStatus).data().toString(),
                                  QStringLiteral("Succeeded"), 30000);
        QCOMPARE(tables->tableAt(0).lastWatermark, fixture.open()->table(id)->lastWatermark);
        QVERIFY(!tables->tableAt(0).lastWatermark.isNull());

        window.close();
        if (!serverWorkspaces()) // a file read and written by two processes at once is still sound
            QCOMPARE(queryValue(fixture.wsPath, QStringLiteral("PRAGMA integrity_check")).toString(),
                     QStringLiteral("ok"));
    }

    // A followed run is read twice a second: without its log lines (a run of 10,000 iterations
    // has as many). Opening one of its iterations reads that iteration's lines, and a later read
    // of the run that leaves the row as it was keeps them.
    void followedRunReadsTheLogOfTheIterationOpened() {
        UiFixture fixture;
        makeOrders(fixture.src, 200);
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        MainWindow window;
        openInWindow(fixture, window, 1);
        QVERIFY(!QTest::currentTestFailed());
        QSignalSpy loaded(window.gateway(), &WorkspaceGateway::runsLoaded);
        QProcess cli;
        detail::startRun(cli, fixture.wsPath, QStringLiteral("before_target_commit"));
        QVERIFY2(detail::waitStopped(cli), cli.readAllStandardError().constData());
        QTRY_VERIFY_WITH_TIMEOUT(window.runPanel()->shownModel()->runId() > 0, 30000);
        IterationGridModel *grid = window.runPanel()->shownModel();
        const qint64 runId = grid->runId();
        ::kill(pid_t(cli.processId()), SIGCONT);
        QVERIFY(cli.waitForFinished(120000));
        QCOMPARE(cli.exitCode(), 0);
        QTRY_COMPARE_WITH_TIMEOUT(grid->iterationAt(0).status, IterationStatus::Succeeded, 30000);
        QCOMPARE(grid->runId(), runId);

        const QList<LogLine> stored = fixture.open()->runs(1, runId).first().iterations.first().log;
        QVERIFY(!stored.isEmpty());
        QVERIFY(!loaded.isEmpty());
        for (const QList<QVariant> &signal : std::as_const(loaded)) {
            for (const RunRecord &run : signal.at(0).value<QList<RunRecord>>()) {
                for (const IterationRecord &iteration : run.iterations)
                    QVERIFY2(iteration.log.isEmpty(), "a followed run is read without its log lines");
            }
        }
        QVERIFY(grid->iterationAt(0).log.isEmpty());

        QTableView *view = window.runPanel()->view();
        view->setCurrentIndex(view->model()->index(0, 0));
        auto *log = window.runPanel()->findChild<QPlainTextEdit *>(QStringLiteral("iterationLog"));
        QTRY_COMPARE(grid->iterationAt(0).log.size(), stored.size());
        QTRY_VERIFY(log->toPlainText().contains(stored.last().message));
        QCOMPARE(log->toPlainText().count(QLatin1Char('\n')) + 1, stored.size());

        // The watcher reports the run again: its row is as it was, its lines stay (looked at
        // as soon as the window has taken the run in, before any read of the log could return).
        qsizetype linesKept = -1;
        connect(window.gateway(), &WorkspaceGateway::runsLoaded, &window,
                [&linesKept, grid] { linesKept = grid->iterationAt(0).log.size(); });
        window.gateway()->reloadRuns({runId});
        QTRY_VERIFY(linesKept >= 0);
        QCOMPARE(grid->runId(), runId);
        QCOMPARE(linesKept, stored.size());
        QVERIFY(log->toPlainText().contains(stored.last().message));
        window.close();
    }
};

QTEST_MAIN(TestLiveFollow)
#include "tst_livefollow.moc"
