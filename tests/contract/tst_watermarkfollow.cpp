// SPDX-License-Identifier: MIT
// The workspace follows the target's state row in (generation, position) order (the
// protocol model's PLAIN_FOLLOW finding, docs/protocol.md). Each case interleaves a second
// iteration or a backfill by hand at a fault point of the first (setFaultHook), on a second
// Workspace connection, exactly where spin found the workspace going wrong while the target
// stayed right. Rows with a PostgreSQL target need TIDEMARK_PG_PORT; without it they skip, and
// fail under CI=true.
#include "model/engine/backfill.h"
#include "model/engine/faultpoint.h"
#include "tests/contract/contractfixture.h"
#include "tests/support/faultgate.h"

#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// The lease the interrupted process holds expires: anyone may take the table (the model lets a
// live holder's lease be taken at any moment).
void expireLease(ContractFixture &f, qint64 tableId) {
    execWorkspaceSql(f.wsPath, QStringLiteral("DELETE FROM leases WHERE table_id = ?1"), {tableId});
}

// Events 1..rows keyed by id, the watermark: a backfill deletes by it on either engine (a SQLite
// source's text timestamps would become a text column in a PostgreSQL target).
qint64 addEvents(ContractFixture &f, int rows) {
    f.createEvents(f.source, QStringLiteral("ev"), false);
    f.insertEvents(f.source, QStringLiteral("ev"), 1, rows);
    return f.addTable(f.draft(QStringLiteral("ev"), QStringLiteral("id")));
}

QString at(int id) {
    return QString::number(id);
}

BackfillRequest backfillTo(qint64 tableId, int id) {
    BackfillRequest request;
    request.tableId = tableId;
    request.fromText = at(id);
    request.action = BackfillTargetAction::DeleteNewer;
    return request;
}

// The generation the target's state row holds, read with plain SQL.
qint64 stateGeneration(ContractFixture &f, qint64 tableId) {
    const QString sql = QStringLiteral("SELECT generation FROM %1 WHERE workspace_id = %2 AND table_id = %3");
    if (f.isPostgres(Side::Target))
        return f.pg()
            .value(
                sql.arg(QStringLiteral("public.tidemark_state"), QStringLiteral("$1"), QStringLiteral("$2")),
                {f.ws->workspaceId(), tableId})
            .toLongLong();
    return queryValue(f.dbPath(Side::Target),
                      sql.arg(QStringLiteral("tidemark_state"), QStringLiteral("?1"), QStringLiteral("?2")),
                      {f.ws->workspaceId(), tableId})
        .toLongLong();
}

QStringList causes(Workspace &ws, qint64 tableId) {
    QStringList result;
    for (const WatermarkChange &change : ws.watermarkChanges(tableId))
        result << QStringLiteral("%1 %2->%3").arg(change.cause, change.oldValue, change.newValue);
    return result;
}

// The first route of each pairing with a SQLite source (the target's
// engine is what matters here).
bool sqliteSourceFirstRoute(const Pairing &pairing, const Route &route) {
    return !pairing.sourcePg && route == routes(pairing).first();
}

} // namespace

class TestWatermarkFollow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }
    void staleReconcileNeverMovesBack_data() { addMatrix(sqliteSourceFirstRoute); }
    void staleReconcileNeverMovesBack();
    void advanceAfterBackfillIsRefused_data() { addMatrix(sqliteSourceFirstRoute); }
    void advanceAfterBackfillIsRefused();
    void backfillLateWriteKeepsLaterRun_data() { addMatrix(sqliteSourceFirstRoute); }
    void backfillLateWriteKeepsLaterRun();
    void runBeforeBackfillLosesCompareAndSet_data() { addMatrix(sqliteSourceFirstRoute); }
    void runBeforeBackfillLosesCompareAndSet();
};

// Runner 2 reads the target's position (the workspace lags behind it); runner 1 then copies the
// next window and advances the workspace; runner 2's reconcile must not write its stale read.
void TestWatermarkFollow::staleReconcileNeverMovesBack() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const qint64 id = addEvents(f, 10);
    QCOMPARE(f.run(id).status, IterationStatus::Succeeded);
    // The workspace lags the target (a process died between the target commit and its advance).
    f.ws->setWatermark(id, Watermark(), QVariant(), QStringLiteral("edit"), 0);
    f.insertEvents(f.source, QStringLiteral("ev"), 11, 20);

    auto other = Workspace::open(f.wsPath);
    IterationRecord first;
    InterleaveAt interleave("before_reconcile_write", [&] {
        expireLease(f, id);
        first = runInOwnRun(*other, id);
    });
    const IterationRecord second = f.run(id);
    QVERIFY(interleave.fired());
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsWritten, qint64(10));
    QVERIFY2(second.status == IterationStatus::Skipped, qPrintable(describe(second)));
    QCOMPARE(f.count(f.target, QStringLiteral("ev")), qint64(20));
    QCOMPARE(f.stateWatermark(id), at(20));
    QCOMPARE(f.lastWatermark(id), at(20));
    QCOMPARE(causes(*f.ws, id).last(), QStringLiteral("run %1->%2").arg(at(10), at(20)));
}

// A run commits; before it advances the workspace, a backfill deletes rows and resets the
// position; the run's advance must not claim the deleted rows.
void TestWatermarkFollow::advanceAfterBackfillIsRefused() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const qint64 id = addEvents(f, 10);
    QCOMPARE(f.run(id).status, IterationStatus::Succeeded);
    f.insertEvents(f.source, QStringLiteral("ev"), 11, 20);

    auto other = Workspace::open(f.wsPath);
    BackfillResult backfill;
    InterleaveAt interleave("after_target_commit", [&] {
        expireLease(f, id);
        backfill = runBackfill(*other, backfillTo(id, 5));
    });
    const IterationRecord record = f.run(id);
    QVERIFY(interleave.fired());
    QVERIFY2(record.status == IterationStatus::Succeeded, qPrintable(describe(record)));
    QCOMPARE(backfill.rowsDeleted, qint64(15));
    QCOMPARE(f.count(f.target, QStringLiteral("ev")), qint64(5));
    QCOMPARE(f.stateWatermark(id), at(5));
    QCOMPARE(stateGeneration(f, id), qint64(1));
    QCOMPARE(f.lastWatermark(id), at(5));
    QCOMPARE(f.spec(id).lastGeneration, qint64(1));
    QCOMPARE(causes(*f.ws, id).last(), QStringLiteral("backfill %1->%2").arg(at(10), at(5)));

    // The next run copies the deleted rows again, once.
    QCOMPARE(f.run(id).rowsWritten, qint64(15));
    QCOMPARE(f.content(f.target, QStringLiteral("ev")), f.content(f.source, QStringLiteral("ev")));
}

// A backfill commits; before its own workspace write, a run copies after it and advances the
// workspace; the backfill's late write must not undo that advance.
void TestWatermarkFollow::backfillLateWriteKeepsLaterRun() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const qint64 id = addEvents(f, 20);
    QCOMPARE(f.run(id).status, IterationStatus::Succeeded);

    auto other = Workspace::open(f.wsPath);
    IterationRecord run;
    InterleaveAt interleave("before_backfill_follow", [&] {
        expireLease(f, id);
        run = runInOwnRun(*other, id);
    });
    runBackfill(*f.ws, backfillTo(id, 5));
    QVERIFY(interleave.fired());
    QVERIFY2(run.status == IterationStatus::Succeeded, qPrintable(describe(run)));
    QCOMPARE(run.rowsWritten, qint64(15));
    QCOMPARE(f.content(f.target, QStringLiteral("ev")), f.content(f.source, QStringLiteral("ev")));
    QCOMPARE(f.stateWatermark(id), at(20));
    QCOMPARE(f.lastWatermark(id), at(20));
    QCOMPARE(f.spec(id).lastGeneration, qint64(1));
    // The run's reconcile carried the backfill into the workspace; the backfill's write was refused.
    QCOMPARE(causes(*f.ws, id).mid(1), (QStringList{QStringLiteral("reconcile %1->%2").arg(at(20), at(5)),
                                                    QStringLiteral("run %1->%2").arg(at(5), at(20))}));
}

// A run reads the position; a backfill resets the table to that same position before the run
// writes. The position alone matches again, the generation does not: the run writes nothing.
void TestWatermarkFollow::runBeforeBackfillLosesCompareAndSet() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const qint64 id = addEvents(f, 10);
    QCOMPARE(f.run(id).status, IterationStatus::Succeeded);
    f.insertEvents(f.source, QStringLiteral("ev"), 11, 20);

    auto other = Workspace::open(f.wsPath);
    InterleaveAt interleave("before_write_transaction", [&] {
        expireLease(f, id);
        runBackfill(*other, backfillTo(id, 10));
    });
    const IterationRecord record = f.run(id);
    QVERIFY(interleave.fired());
    QVERIFY2(record.status == IterationStatus::Skipped, qPrintable(describe(record)));
    QVERIFY2(record.error.contains(QLatin1String("a backfill committed this table first")),
             qPrintable(record.error));
    QCOMPARE(record.rowsWritten, qint64(0));
    QCOMPARE(f.count(f.target, QStringLiteral("ev")), qint64(10));
    QCOMPARE(stateGeneration(f, id), qint64(1));
    QCOMPARE(f.lastWatermark(id), at(10));
    QCOMPARE(f.spec(id).lastGeneration, qint64(1));
}

QTEST_GUILESS_MAIN(TestWatermarkFollow)
#include "tst_watermarkfollow.moc"
