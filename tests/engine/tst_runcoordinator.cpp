// SPDX-License-Identifier: MIT
// The run coordinator: a "for each" over tables on a thread pool; one failing table never stops
// or spoils the others; results come back as signals.
#include "model/engine/runcoordinator.h"
#include "tests/engine/enginefixture.h"

#include <QSignalSpy>
#include <QTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// Runs `request` to its end and returns the finished run (id 0 when it never finished).
RunRecord runToEnd(RunCoordinator &coordinator, const RunRequest &request, bool cancelAtOnce = false) {
    QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
    if (!coordinator.start(request))
        return {};
    if (cancelAtOnce)
        coordinator.cancel();
    if (!finished.wait(120000))
        return {};
    return finished.takeFirst().at(0).value<RunRecord>();
}

const IterationRecord *iterationOf(const RunRecord &run, qint64 tableId) {
    for (const IterationRecord &iteration : run.iterations) {
        if (iteration.tableId == tableId)
            return &iteration;
    }
    return nullptr;
}

} // namespace

class TestRunCoordinator : public QObject {
    Q_OBJECT

private slots:
    void missingSourceNextToHealthy();
    void concurrencyRunsEveryTable();
    void pausedTableSkippedInRun();
    void cancelAtOnceCancelsEveryIteration();
    void dryRunThroughCoordinator();
};

void TestRunCoordinator::missingSourceNextToHealthy() {
    EngineFixture f;
    makeOrders(f.src, 50);
    makeOrders(f.src, 10, 1, QStringLiteral("doomed"));
    const qint64 doomed =
        f.addTable(EngineFixture::draft(QStringLiteral("doomed"), QStringLiteral("updated_at")));
    const qint64 healthy =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    execSql(f.src, QStringLiteral("DROP TABLE doomed"));

    RunCoordinator coordinator(f.wsPath);
    RunRequest request;
    request.trigger = QStringLiteral("cli");
    const RunRecord run = runToEnd(coordinator, request);
    QVERIFY(run.id > 0);
    QCOMPARE(run.status, QStringLiteral("failed"));
    QCOMPARE(run.iterations.size(), 2);
    const IterationRecord *bad = iterationOf(run, doomed);
    const IterationRecord *good = iterationOf(run, healthy);
    QVERIFY(bad && good);
    QCOMPARE(bad->status, IterationStatus::Failed);
    QVERIFY2(bad->error.contains(QStringLiteral("doomed")), qPrintable(bad->error));
    QCOMPARE(good->status, IterationStatus::Succeeded);
    QCOMPARE(good->rowsWritten, 50);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 50);
    QVERIFY(f.spec(doomed).lastWatermark.isNull());
    QVERIFY(!coordinator.isRunning());

    // History holds the same story.
    const QList<RunRecord> history = f.ws->runs(1, run.id);
    QCOMPARE(history.size(), 1);
    QCOMPARE(history.first().status, QStringLiteral("failed"));
    QCOMPARE(history.first().iterations.size(), 2);
}

void TestRunCoordinator::concurrencyRunsEveryTable() {
    EngineFixture f;
    QList<qint64> ids;
    for (int i = 0; i < 5; ++i) {
        const QString table = QStringLiteral("t%1").arg(i);
        makeOrders(f.src, 200 + i, 1, table);
        TableDraft draft = EngineFixture::draft(table, QStringLiteral("updated_at"));
        draft.spec.batchSize = 50;
        ids << f.addTable(draft);
    }
    RunCoordinator coordinator(f.wsPath);
    QSignalSpy started(&coordinator, &RunCoordinator::runStarted);
    QSignalSpy changed(&coordinator, &RunCoordinator::iterationChanged);
    RunRequest request;
    request.concurrency = 2;
    const RunRecord run = runToEnd(coordinator, request);
    QCOMPARE(run.status, QStringLiteral("succeeded"));
    QCOMPARE(started.size(), 1);
    const auto queued = started.first().at(1).value<QList<IterationRecord>>();
    QCOMPARE(queued.size(), 5);
    for (int i = 0; i < 5; ++i) {
        QCOMPARE(queued[i].tableId, ids[i]);
        QCOMPARE(queued[i].status, IterationStatus::Queued);
    }
    QSet<qint64> finishedTables;
    for (const QList<QVariant> &signal : changed) {
        const auto record = signal.at(0).value<IterationRecord>();
        if (record.status == IterationStatus::Succeeded)
            finishedTables.insert(record.tableId);
    }
    QCOMPARE(finishedTables.size(), 5);
    for (int i = 0; i < 5; ++i) {
        QCOMPARE(countRows(f.dst, QStringLiteral("t%1").arg(i)), 200 + i);
        QCOMPARE(iterationOf(run, ids[i])->rowsRead, 200 + i);
    }
    QCOMPARE(f.ws->runs(1, run.id).first().concurrency, 2);
    // Never more than `concurrency` iterations at once: no start falls inside two other iterations.
    for (const IterationRecord &a : run.iterations) {
        int overlapping = 0;
        for (const IterationRecord &b : run.iterations) {
            if (b.startedAt <= a.startedAt && a.startedAt < b.finishedAt)
                ++overlapping;
        }
        QVERIFY2(
            overlapping <= 2,
            qPrintable(
                QStringLiteral("table %1 started while %2 iterations ran").arg(a.tableId).arg(overlapping)));
    }

    // A second run finds nothing new.
    const RunRecord again = runToEnd(coordinator, request);
    for (const IterationRecord &iteration : again.iterations)
        QCOMPARE(iteration.status, IterationStatus::NoNewRows);
}

void TestRunCoordinator::pausedTableSkippedInRun() {
    EngineFixture f;
    makeOrders(f.src, 20);
    const qint64 active =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"),
                                            QStringLiteral("paused_copy"));
    draft.spec.active = false;
    const qint64 paused = f.addTable(draft);
    RunCoordinator coordinator(f.wsPath);
    const RunRecord run = runToEnd(coordinator, RunRequest{});
    QCOMPARE(run.status, QStringLiteral("succeeded"));
    QCOMPARE(iterationOf(run, paused)->status, IterationStatus::Skipped);
    QCOMPARE(iterationOf(run, active)->status, IterationStatus::Succeeded);
    QVERIFY(!f.targetHas(QStringLiteral("paused_copy")));
}

void TestRunCoordinator::cancelAtOnceCancelsEveryIteration() {
    EngineFixture f;
    makeOrders(f.src, 100);
    const qint64 a = f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    const qint64 b = f.addTable(
        EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"), QStringLiteral("b")));
    RunCoordinator coordinator(f.wsPath);
    const RunRecord run = runToEnd(coordinator, RunRequest{}, true);
    QCOMPARE(run.status, QStringLiteral("cancelled"));
    QCOMPARE(iterationOf(run, a)->status, IterationStatus::Cancelled);
    QCOMPARE(iterationOf(run, b)->status, IterationStatus::Cancelled);
    QVERIFY(!f.targetHas(QStringLiteral("orders")) || countRows(f.dst, QStringLiteral("orders")) == 0);
    QVERIFY(f.spec(a).lastWatermark.isNull());
    QVERIFY(f.spec(b).lastWatermark.isNull());
}

void TestRunCoordinator::dryRunThroughCoordinator() {
    EngineFixture f;
    makeOrders(f.src, 30);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    RunCoordinator coordinator(f.wsPath);
    RunRequest request;
    request.dryRun = true;
    const RunRecord run = runToEnd(coordinator, request);
    QCOMPARE(run.status, QStringLiteral("dry_run"));
    QCOMPARE(iterationOf(run, id)->status, IterationStatus::DryRun);
    QCOMPARE(iterationOf(run, id)->rowsRead, 30);
    QCOMPARE(iterationOf(run, id)->rowsWritten, 0);
    QVERIFY(!f.targetHas(QStringLiteral("orders")));
}

QTEST_GUILESS_MAIN(TestRunCoordinator)
#include "tst_runcoordinator.moc"
