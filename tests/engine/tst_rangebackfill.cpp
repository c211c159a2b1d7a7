// SPDX-License-Identifier: MIT
// A range backfill (`backfill ID --range FROM..TO`, CopyIteration::Options::range) re-copies the
// rows of a merge table with a watermark in the range, up to the position, beside the table's
// live copies: the position and the state row stay as the runs leave them, a newer version that
// a run committed meanwhile is never replaced by the range's older one (the merge rule, on a
// SQLite and a PostgreSQL target), a backfill that moves the position meanwhile ends it, and a
// range killed halfway is completed by running it again. History shows it as a run of its own
// kind. Runs on workspace files and on server workspaces (tests/CMakeLists.txt).
#include "model/engine/backfill.h"
#include "model/engine/faultpoint.h"
#include "model/engine/verifier.h"
#include "tests/engine/enginefixture.h"
#include "tests/support/faultgate.h"
#include "tests/support/pgsession.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

class TestRangeBackfill : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void rangeIsCopiedAgainAndThePositionStays();
    void rangePastThePositionStopsAtIt();
    void refusedWhereRowsCouldDouble();
    void olderVersionNeverWins_data();
    void olderVersionNeverWins();
    void backfillMeanwhileEndsTheRange();
    void killedRangeIsCompletedByRunningItAgain();

private:
    CliResult cli(const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), m_fixture->wsPath} + args);
    }
    // orders 1..rows, a merge table on id (batches of `batchSize`), copied once.
    qint64 addCopiedOrders(int rows, int batchSize = 10000,
                           const QString &targetConnection = QStringLiteral("dst"));
    QJsonObject rangeBackfill(qint64 id, int fromId, int toId, int expectedExit = 0);
    // The range as the iteration reads it: one table, one iteration, in a run of its own kind.
    IterationRecord runRange(qint64 id, int fromId, int toId);
    qint64 targetRows();
    QString targetValue(const QString &column, int id);

    std::unique_ptr<EngineFixture> m_fixture;
    QString m_pgSchema;
    bool m_pgTarget = false;
};

namespace {

QString range(int fromId, int toId) {
    return orderTimestamp(fromId) + QStringLiteral("..") + orderTimestamp(toId);
}

} // namespace

void TestRangeBackfill::initTestCase() {
    TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
}

void TestRangeBackfill::init() {
    m_fixture = std::make_unique<EngineFixture>();
    static int tests = 0;
    m_pgSchema = QStringLiteral("range_%1_%2").arg(QCoreApplication::applicationPid()).arg(++tests);
    m_pgTarget = false;
}

void TestRangeBackfill::cleanup() {
    setFaultHook({});
    if (m_pgTarget) {
        PgSession pg;
        pg.exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(m_pgSchema));
        pg.exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE starts_with(target_table, $1)"),
                {quoteIdentifier(m_pgSchema) + QLatin1Char('.')});
    }
    m_fixture.reset();
}

qint64 TestRangeBackfill::addCopiedOrders(int rows, int batchSize, const QString &targetConnection) {
    makeOrders(m_fixture->src, rows);
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.mode = WriteMode::Merge;
    draft.spec.keyColumns = {QStringLiteral("id")};
    draft.spec.batchSize = batchSize;
    if (targetConnection != QLatin1String("dst")) {
        m_pgTarget = true;
        ConnectionSpec pg;
        pg.name = targetConnection;
        pg.kind = ConnectionKind::Postgres;
        pg.conninfo = pgConninfo();
        m_fixture->ws->addConnection(pg);
        PgSession().exec(QStringLiteral("CREATE SCHEMA %1").arg(m_pgSchema));
        draft.spec.targetConnection = targetConnection;
        draft.spec.targetTable = m_pgSchema + QStringLiteral(".orders");
    }
    const qint64 id = m_fixture->addTable(draft);
    const IterationRecord first = m_fixture->run(id);
    if (first.status != IterationStatus::Succeeded)
        qWarning("%s", qPrintable(describe(first)));
    return id;
}

QJsonObject TestRangeBackfill::rangeBackfill(qint64 id, int fromId, int toId, int expectedExit) {
    const CliResult result = cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--range"),
                                  range(fromId, toId), QStringLiteral("--json")});
    if (result.exitCode != expectedExit)
        qWarning("%s", qPrintable(result.describe()));
    return QJsonDocument::fromJson(result.out.toUtf8()).object();
}

IterationRecord TestRangeBackfill::runRange(qint64 id, int fromId, int toId) {
    Workspace &ws = *m_fixture->ws;
    const TableSpec spec = *ws.table(id);
    const qint64 runId =
        ws.beginRun(QStringLiteral("cli"), 1, false, QString(), QString::fromLatin1(kRunKindRangeBackfill));
    IterationRecord record;
    record.runId = runId;
    record.tableId = id;
    record.source = spec.sourceDisplay();
    record.target = spec.targetDisplay();
    record.id = ws.addIteration(record);
    CopyIteration::Options options;
    options.range = WatermarkRangeText::parse(range(fromId, toId));
    IterationRecord result = CopyIteration(ws, spec, record, options).run();
    ws.finishRun(runId, deriveRunStatus({result.status}, false));
    return result;
}

qint64 TestRangeBackfill::targetRows() {
    if (m_pgTarget)
        return PgSession()
            .value(QStringLiteral("SELECT count(*) FROM %1.orders").arg(m_pgSchema))
            .toLongLong();
    return countRows(m_fixture->dst, QStringLiteral("orders"));
}

QString TestRangeBackfill::targetValue(const QString &column, int id) {
    if (m_pgTarget)
        return PgSession().value(QStringLiteral("SELECT %1::text FROM %2.orders WHERE id = %3")
                                     .arg(quoteIdentifier(column), m_pgSchema)
                                     .arg(id));
    return queryValue(m_fixture->dst,
                      QStringLiteral("SELECT %1 FROM orders WHERE id = ?1").arg(quoteIdentifier(column)),
                      {id})
        .toString();
}

// Rows lost from the target in the range come back, a row changed there is the source's again,
// rows lost outside the range stay lost; the position, the state row and the table's last run
// are as they were, and history records a run of kind range_backfill.
void TestRangeBackfill::rangeIsCopiedAgainAndThePositionStays() {
    const qint64 id = addCopiedOrders(1000);
    const QString position = m_fixture->lastWatermarkText(id);
    QCOMPARE(position, orderTimestamp(1000));
    execSql(m_fixture->dst,
            QStringLiteral("DELETE FROM orders WHERE id BETWEEN 100 AND 199 OR id BETWEEN 600 AND 699"));
    execSql(m_fixture->dst, QStringLiteral("UPDATE orders SET amount = 0 WHERE id = 300"));

    const QJsonObject run = rangeBackfill(id, 100, 399);
    QCOMPARE(run.value(QStringLiteral("kind")).toString(), QStringLiteral("range_backfill"));
    QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    const QJsonObject iteration = run.value(QStringLiteral("iterations")).toArray().first().toObject();
    QCOMPARE(iteration.value(QStringLiteral("rows_read")).toInteger(), 300);
    QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInteger(), 300);
    QCOMPARE(iteration.value(QStringLiteral("window_lower")).toString(), orderTimestamp(100));
    QCOMPARE(iteration.value(QStringLiteral("window_upper")).toString(), orderTimestamp(399));

    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 900);
    QCOMPARE(
        queryValue(m_fixture->dst, QStringLiteral("SELECT count(*) FROM orders WHERE id BETWEEN 100 AND 199"))
            .toInt(),
        100);
    QCOMPARE(
        queryValue(m_fixture->dst, QStringLiteral("SELECT amount FROM orders WHERE id = 300")).toDouble(),
        450.0);
    QCOMPARE(m_fixture->lastWatermarkText(id), position);
    QCOMPARE(m_fixture->stateWatermark(id).toString(), position);

    const CliResult history =
        cli({QStringLiteral("history"), QStringLiteral("--run"),
             QString::number(run.value(QStringLiteral("run_id")).toInteger()), QStringLiteral("--json")});
    QCOMPARE(history.exitCode, 0);
    const QJsonObject recorded = QJsonDocument::fromJson(history.out.toUtf8()).array().first().toObject();
    QCOMPARE(recorded.value(QStringLiteral("kind")).toString(), QStringLiteral("range_backfill"));
    // The table's copies are judged by its runs alone: its last one stands.
    QCOMPARE(m_fixture->ws->lastIterationStatus(id), QStringLiteral("succeeded"));
    QCOMPARE(m_fixture->ws->finishedCopies(id), 1);
    const CliResult text =
        cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--range"), range(600, 699)});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains(QStringLiteral("(range backfill) succeeded")), qPrintable(text.out));
    QVERIFY(verifyTable(*m_fixture->ws, id).matches);
}

// Rows after the position are the runs' to copy: the range stops at the position, and the next
// run copies the rest.
void TestRangeBackfill::rangePastThePositionStopsAtIt() {
    const qint64 id = addCopiedOrders(1000);
    makeOrders(m_fixture->src, 50, 1001);
    const QJsonObject run = rangeBackfill(id, 901, 1050);
    const QJsonObject iteration = run.value(QStringLiteral("iterations")).toArray().first().toObject();
    QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInteger(), 100);
    QCOMPARE(iteration.value(QStringLiteral("window_upper")).toString(), orderTimestamp(1000));
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 1000);
    QCOMPARE(m_fixture->lastWatermarkText(id), orderTimestamp(1000));

    // A range that starts after the position has nothing copied yet: no row is written.
    const QJsonObject ahead = rangeBackfill(id, 1001, 1050);
    QCOMPARE(ahead.value(QStringLiteral("iterations"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QStringLiteral("status"))
                 .toString(),
             QStringLiteral("no_new_rows"));
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 1000);

    QCOMPARE(m_fixture->run(id).rowsWritten, 50);
    QVERIFY(verifyTable(*m_fixture->ws, id).matches);
}

// Only a merge table takes a range: an append table would hold the rows twice, an overwrite
// table has no range. Each refusal names what to use; nothing runs.
void TestRangeBackfill::refusedWhereRowsCouldDouble() {
    makeOrders(m_fixture->src, 10);
    const qint64 append =
        m_fixture->addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    QCOMPARE(m_fixture->run(append).status, IterationStatus::Succeeded);
    CliResult refused =
        cli({QStringLiteral("backfill"), QString::number(append), QStringLiteral("--range"), range(1, 5)});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("append table")) &&
                 refused.err.contains(QStringLiteral("backfill %1 --from VALUE --delete-newer").arg(append)),
             qPrintable(refused.err));

    TableDraft overwrite = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"),
                                                QStringLiteral("orders_all"));
    overwrite.spec.mode = WriteMode::Overwrite;
    const qint64 whole = m_fixture->addTable(overwrite);
    refused =
        cli({QStringLiteral("backfill"), QString::number(whole), QStringLiteral("--range"), range(1, 5)});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("overwrite table")), qPrintable(refused.err));

    TableDraft merge = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"),
                                            QStringLiteral("orders_merged"));
    merge.spec.mode = WriteMode::Merge;
    merge.spec.keyColumns = {QStringLiteral("id")};
    const qint64 merged = m_fixture->addTable(merge);
    refused = cli(
        {QStringLiteral("backfill"), QString::number(merged), QStringLiteral("--range"), orderTimestamp(1)});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("FROM..TO")), qPrintable(refused.err));
    refused = cli({QStringLiteral("backfill"), QString::number(merged), QStringLiteral("--range"),
                   range(1, 5), QStringLiteral("--keep")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("takes no --keep")), qPrintable(refused.err));
    refused =
        cli({QStringLiteral("backfill"), QString::number(merged), QStringLiteral("--range"), range(5, 1)});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.out.contains(QStringLiteral("its start is after its end")) ||
                 refused.err.contains(QStringLiteral("its start is after its end")),
             qPrintable(refused.describe()));
    QCOMPARE(cli({QStringLiteral("history"), QStringLiteral("--json")})
                 .out.count(QStringLiteral("range_backfill")),
             1);
}

void TestRangeBackfill::olderVersionNeverWins_data() {
    QTest::addColumn<bool>("postgresTarget");
    QTest::newRow("sqlite target") << false;
    QTest::newRow("postgresql target") << true;
}

// The range has read order 150 (its second batch) when the source changes it and the table's run
// copies the new version; the range then writes the version it read (amount 225), which the merge
// rule keeps out. The run's position stands.
void TestRangeBackfill::olderVersionNeverWins() {
    QFETCH(bool, postgresTarget);
    if (postgresTarget)
        TIDEMARK_REQUIRE_POSTGRES();
    const qint64 id =
        addCopiedOrders(1000, 100, postgresTarget ? QStringLiteral("pg") : QStringLiteral("dst"));
    // A source written while the range reads it: in rollback-journal mode its writer would wait
    // for the range's read to end.
    execSql(m_fixture->src, QStringLiteral("PRAGMA journal_mode=WAL"));
    IterationRecord live;
    InterleaveAt interleave("after_batch_commit", [&] {
        execSql(m_fixture->src,
                QStringLiteral("UPDATE orders SET amount = 9999, updated_at = ?1 WHERE id = 150"),
                {orderTimestamp(5000)});
        live = m_fixture->run(id);
    });
    const IterationRecord ranged = runRange(id, 1, 1000);
    QVERIFY(interleave.fired());
    QCOMPARE(live.status, IterationStatus::Succeeded);
    QCOMPARE(live.rowsWritten, 1);
    QVERIFY2(ranged.status == IterationStatus::Succeeded, qPrintable(describe(ranged)));
    QCOMPARE(ranged.rowsRead, 1000);
    QCOMPARE(targetValue(QStringLiteral("amount"), 150).toDouble(), 9999.0);
    QCOMPARE(m_fixture->lastWatermarkText(id), orderTimestamp(5000));
    QCOMPARE(targetRows(), 1000);
    QVERIFY(verifyTable(*m_fixture->ws, id).matches);
}

// A backfill between two batches of the range raises the state row's generation: the range
// writes no more and ends skipped, naming it; the backfill's truncate stands.
void TestRangeBackfill::backfillMeanwhileEndsTheRange() {
    const qint64 id = addCopiedOrders(1000, 100);
    BackfillResult truncated;
    InterleaveAt interleave("after_batch_commit", [&] {
        BackfillRequest request;
        request.tableId = id;
        request.action = BackfillTargetAction::Truncate;
        truncated = runBackfill(*m_fixture->ws, request);
    });
    const IterationRecord ranged = runRange(id, 1, 1000);
    QVERIFY(interleave.fired());
    QCOMPARE(ranged.status, IterationStatus::Skipped);
    QVERIFY2(ranged.error.contains(QStringLiteral("a backfill committed this table first")),
             qPrintable(ranged.error));
    QCOMPARE(ranged.rowsWritten, 100); // its first batch, committed before the backfill
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 0);
    QVERIFY(m_fixture->spec(id).lastWatermark.isNull());
    QCOMPARE(m_fixture->run(id).rowsWritten, 1000);
    QVERIFY(verifyTable(*m_fixture->ws, id).matches);
}

// SIGKILL between two batches: the batches committed stay (each is a merge of the source's own
// rows), the run is closed as interrupted by the next process, and the same range again leaves
// the target equal to the source.
void TestRangeBackfill::killedRangeIsCompletedByRunningItAgain() {
    const qint64 id = addCopiedOrders(1000, 100);
    execSql(m_fixture->dst, QStringLiteral("DELETE FROM orders WHERE id % 3 = 0"));
    qputenv("TIDEMARK_FAULT_POINT", "after_batch_commit");
    const CliResult killed =
        cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--range"), range(1, 1000)});
    qunsetenv("TIDEMARK_FAULT_POINT");
    QVERIFY2(killed.crashed, qPrintable(killed.describe()));
    recoverAfterKill(m_fixture->dst);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 1000 - 333 + 33); // ids 1..100 back

    const QJsonObject again = rangeBackfill(id, 1, 1000);
    QCOMPARE(again.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 1000);
    QVERIFY(verifyTable(*m_fixture->ws, id).matches);
    const QJsonArray history =
        QJsonDocument::fromJson(cli({QStringLiteral("history"), QStringLiteral("--json")}).out.toUtf8())
            .array();
    QStringList statuses;
    for (const QJsonValue &run : history)
        statuses << run.toObject().value(QStringLiteral("status")).toString();
    QVERIFY2(statuses.contains(QStringLiteral("interrupted")), qPrintable(statuses.join(QLatin1Char(','))));
    QCOMPARE(m_fixture->lastWatermarkText(id), orderTimestamp(1000));
}

QTEST_GUILESS_MAIN(TestRangeBackfill)
#include "tst_rangebackfill.moc"
