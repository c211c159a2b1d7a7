// SPDX-License-Identifier: MIT
// The copy contract (docs/design.md, "One iteration") as one matrix: every case runs in every pairing
// (SQLite/PostgreSQL -> SQLite/PostgreSQL) x route (push-down where the pairing has one,
// streaming, streaming with one commit per batch) x mode where the mode matters. Rows with
// PostgreSQL need TIDEMARK_PG_PORT (scripts/pgcluster.sh); without it those rows skip, and fail
// under CI=true. Every fixture has its own schema and workspace, so no row can pass on another's
// leftovers.
#include "tests/contract/contractfixture.h"

#include <QTest>
#include <atomic>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// Calls `onChange` with every record the iteration publishes.
class CallbackObserver : public IterationObserver {
public:
    explicit CallbackObserver(std::function<void(const IterationRecord &)> onChange)
        : m_onChange(std::move(onChange)) {}
    void iterationChanged(const IterationRecord &record) override { m_onChange(record); }

private:
    std::function<void(const IterationRecord &)> m_onChange;
};

// Runs the table's iteration and asks it to cancel once it has read at least `rows` rows.
IterationRecord runCancellingAfter(ContractFixture &f, qint64 tableId, qint64 rows) {
    std::atomic_bool cancel{false};
    CallbackObserver observer([&](const IterationRecord &record) {
        if (record.rowsRead >= rows)
            cancel = true;
    });
    CopyIteration::Options options;
    options.cancel = &cancel;
    options.observer = &observer;
    return f.run(tableId, options);
}

WriteMode modeNamed(const QString &name) {
    if (name == QLatin1String("merge"))
        return WriteMode::Merge;
    if (name == QLatin1String("overwrite"))
        return WriteMode::Overwrite;
    return WriteMode::Append;
}

bool streamingRoute(const Pairing &pairing, const Route &route) {
    return everyRoute(pairing, route) && !route.pushDown && !triesPushDownFirst(pairing, route);
}

// Overwrite replaces the whole target in one transaction, so a commit per batch is refused when
// the table is added: on a per-batch route the matrix checks the refusal instead.
bool refusesOverwritePerBatch(ContractFixture &f, const TableDraft &draft) {
    if (draft.spec.mode != WriteMode::Overwrite || !draft.spec.commitPerBatch)
        return false;
    try {
        f.addTable(draft);
        QTest::qFail("overwrite with a commit per batch was accepted", __FILE__, __LINE__);
    } catch (const ValidationError &) {
    }
    return true;
}

} // namespace

// The push-down route must really push down and the others must really stream, else the matrix
// only pretends to cover both paths. A tolerant table into SQLite pushes down until a row is refused.
#define VERIFY_PATH(f, record)                                                                               \
    do {                                                                                                     \
        const bool expectPushDown =                                                                          \
            (f).route().pushDown ||                                                                          \
            (triesPushDownFirst((f).pairing(), (f).route()) && (record).rowsSkipped == 0);                   \
        QVERIFY2(pushedDown(record) == expectPushDown,                                                       \
                 qPrintable(                                                                                 \
                     QStringLiteral("expected %1, log says otherwise")                                       \
                         .arg(expectPushDown ? QStringLiteral("push-down") : QStringLiteral("streaming")))); \
    } while (false)

class TestContractMatrix : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }
    void fullLoadThenIncremental_data() {
        addMatrix(everyRoute, QStringLiteral("mode"),
                  {QStringLiteral("append"), QStringLiteral("merge"), QStringLiteral("overwrite")});
    }
    void fullLoadThenIncremental();
    void ties_data() {
        addMatrix(everyRoute, QStringLiteral("tiebreak"),
                  {QStringLiteral("tiebreak"), QStringLiteral("no tiebreak")});
    }
    void ties();
    void lookbackMergeRereadsWithoutDuplicates_data() {
        addMatrix(everyRoute, QStringLiteral("type"),
                  {QStringLiteral("integer"), QStringLiteral("timestamp")});
    }
    void lookbackMergeRereadsWithoutDuplicates();
    void mergeNeverReplacesNewerWithOlder_data() { addMatrix(everyRoute); }
    void mergeNeverReplacesNewerWithOlder();
    void latestVersionPerKeyWins_data() {
        addMatrix(everyRoute, QStringLiteral("batch"),
                  {QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("100")});
    }
    void latestVersionPerKeyWins();
    void toleratedRejects_data() {
        addMatrix([](const Pairing &, const Route &route) { return route.maxSkipped > 0; },
                  QStringLiteral("constraint"), {QStringLiteral("CHECK"), QStringLiteral("NOT NULL")});
    }
    void toleratedRejects();
    void failingWindowLeavesEverythingUntouched_data() { addMatrix(everyRoute); }
    void failingWindowLeavesEverythingUntouched();
    void reconcileFromTargetState_data() { addMatrix(everyRoute); }
    void reconcileFromTargetState();
    void newSourceColumns_data() {
        addMatrix(everyRoute, QStringLiteral("columns"),
                  {QStringLiteral("refused"), QStringLiteral("add-new-columns")});
    }
    void newSourceColumns();
    void dryRunWritesNothing_data() { addMatrix(everyRoute); }
    void dryRunWritesNothing();
    void cancelRollsBackTheWindow_data() {
        addMatrix(
            [](const Pairing &p, const Route &route) { return everyRoute(p, route) && route.perWindow(); });
    }
    void cancelRollsBackTheWindow();
    void upperBoundFixedAtStart_data() { addMatrix(streamingRoute); }
    void upperBoundFixedAtStart();
    void overwriteWithoutWatermark_data() { addMatrix(streamingRoute); } // no watermark, no push-down
    void overwriteWithoutWatermark();
    void perBatchCommitResumesAfterCommittedBatches_data() {
        addMatrix([](const Pairing &, const Route &route) { return route == kPerBatch; });
    }
    void perBatchCommitResumesAfterCommittedBatches();
    void perBatchCommitNeverSplitsUntiedTies_data() {
        addMatrix([](const Pairing &, const Route &route) { return route == kPerBatch; });
    }
    void perBatchCommitNeverSplitsUntiedTies();
};

void TestContractMatrix::fullLoadThenIncremental() {
    CONTRACT_ROW(p, r);
    QFETCH(QString, mode);
    ContractFixture f(p, r);
    const WriteMode writeMode = modeNamed(mode);
    const QString t = QStringLiteral("events");
    f.createEvents(f.source, t, writeMode == WriteMode::Merge);
    f.insertEvents(f.source, t, 1, 30);
    TableDraft draft = f.draft(t, QStringLiteral("ts"));
    draft.spec.mode = writeMode;
    if (refusesOverwritePerBatch(f, draft))
        return;
    const qint64 id = f.addTable(draft);

    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    VERIFY_PATH(f, first);
    QCOMPARE(first.rowsRead, 30);
    QCOMPARE(first.rowsWritten, 30);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.lastWatermark(id), display(ts(30)));
    QCOMPARE(f.stateWatermark(id), display(ts(30)));
    QCOMPARE(first.watermarkAfter, display(ts(30)));

    f.insertEvents(f.source, t, 31, 40);
    if (writeMode == WriteMode::Merge) { // changed rows come back with a newer watermark
        f.exec(f.source, t, QStringLiteral("UPDATE %1 SET ts = ?1, v = 'changed' WHERE id = 5"), {ts(41)});
        f.exec(f.source, t, QStringLiteral("UPDATE %1 SET ts = ?1, v = 'changed' WHERE id = 6"), {ts(42)});
    }
    const qint64 expectedRead = writeMode == WriteMode::Overwrite ? 40
                                : writeMode == WriteMode::Merge   ? 12
                                                                  : 10;
    const QString expectedMax = display(ts(writeMode == WriteMode::Merge ? 42 : 40));
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    VERIFY_PATH(f, second);
    QCOMPARE(second.rowsRead, expectedRead);
    if (writeMode != WriteMode::Overwrite)
        QCOMPARE(second.watermarkBefore, display(ts(30)));
    QVERIFY(accounted(second));
    QCOMPARE(second.watermarkAfter, expectedMax);
    QCOMPARE(f.count(f.target, t), 40);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.lastWatermark(id), expectedMax);
    QCOMPARE(f.stateWatermark(id), expectedMax);

    // Nothing new: no row is copied again (overwrite re-reads the whole table by definition).
    IterationRecord third = f.run(id);
    if (writeMode == WriteMode::Overwrite) {
        QVERIFY2(third.status == IterationStatus::Succeeded, qPrintable(describe(third)));
        QCOMPARE(third.rowsRead, 40);
    } else {
        QVERIFY2(third.status == IterationStatus::NoNewRows, qPrintable(describe(third)));
        QCOMPARE(third.rowsRead, 0);
    }
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.lastWatermark(id), expectedMax);
    QVERIFY(f.workspaceMatchesState(id));

    const QList<WatermarkChange> changes = f.ws->watermarkChanges(id);
    if (writeMode == WriteMode::Append && r.perWindow()) {
        QCOMPARE(changes.size(), 2); // one per advancing run, none for the empty one
        QCOMPARE(changes.last().runId, second.runId);
    }
    QCOMPARE(changes.last().cause, QStringLiteral("run"));
}

// Six rows share the maximum watermark and batches of two cut through them.
void TestContractMatrix::ties() {
    CONTRACT_ROW(p, r);
    QFETCH(QString, tiebreak);
    const bool withTiebreak = tiebreak == QLatin1String("tiebreak");
    ContractFixture f(p, r);
    const QString t = QStringLiteral("ev");
    f.createEvents(f.source, t, false);
    for (int i = 1; i <= 10; ++i)
        f.insertEvent(f.source, t, i, ts(qMin(i, 5)), QStringLiteral("v%1").arg(i));
    TableDraft draft = f.draft(t, QStringLiteral("ts"), 2);
    if (withTiebreak)
        draft.spec.tiebreakColumn = QStringLiteral("id");
    const qint64 id = f.addTable(draft);

    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    VERIFY_PATH(f, first);
    QCOMPARE(first.rowsRead, 10);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.lastWatermark(id), display(ts(5)));
    if (withTiebreak)
        QCOMPARE(f.spec(id).lastTiebreak.toLongLong(), 10);
    QVERIFY(f.workspaceMatchesState(id));

    // A late row at exactly the old maximum.
    f.insertEvent(f.source, t, 11, ts(5), QStringLiteral("late"));
    IterationRecord second = f.run(id);
    if (withTiebreak) {
        // With a higher tiebreak it is past the position: the next run gets it.
        QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
        QCOMPARE(second.rowsRead, 1);
        QCOMPARE(f.content(f.target, t), f.content(f.source, t));
        QCOMPARE(f.spec(id).lastTiebreak.toLongLong(), 11);
        QCOMPARE(f.stateRow(id), QStringList({display(ts(5)), QStringLiteral("11")}));
    } else {
        // Without a tiebreak the window is `watermark > last`: the late tie is NOT re-read. That
        // is the documented contract (use a tiebreak, or a lookback with merge, for late rows).
        QVERIFY2(second.status == IterationStatus::NoNewRows, qPrintable(describe(second)));
        QCOMPARE(f.count(f.target, t), 10);
        f.insertEvent(f.source, t, 12, ts(6), QStringLiteral("newer"));
        QCOMPARE(f.run(id).rowsRead, 1);
        QCOMPARE(f.count(f.target, t), 11);
        QCOMPARE(f.count(f.target, t, QStringLiteral("id = 11")), 0);
        QCOMPARE(f.count(f.target, t, QStringLiteral("id = 12")), 1);
    }
    IterationRecord last = f.run(id);
    QVERIFY2(last.status == IterationStatus::NoNewRows, qPrintable(describe(last)));
    QVERIFY(f.workspaceMatchesState(id));
}

void TestContractMatrix::lookbackMergeRereadsWithoutDuplicates() {
    CONTRACT_ROW(p, r);
    QFETCH(QString, type);
    const bool timestamp = type == QLatin1String("timestamp");
    ContractFixture f(p, r);
    const QString t = QStringLiteral("ev");
    f.exec(f.source, t,
           QStringLiteral("CREATE TABLE %1 (id %2 PRIMARY KEY, w %3 NOT NULL, v TEXT)")
               .arg(QStringLiteral("%1"), f.integerType(f.source),
                    timestamp ? f.timestampType(f.source) : f.integerType(f.source)));
    auto w = [&](int i) {
        return timestamp ? QVariant(ts(i)) : QVariant(i);
    };
    for (int i = 1; i <= 10; ++i)
        f.exec(f.source, t, QStringLiteral("INSERT INTO %1 VALUES (?1, ?2, 'v')"), {i, w(i)});
    TableDraft draft = f.draft(t, QStringLiteral("w"));
    draft.spec.mode = WriteMode::Merge;
    draft.spec.lookback = timestamp ? QStringLiteral("5m") : QStringLiteral("5");
    const qint64 id = f.addTable(draft);
    QCOMPARE(f.run(id).rowsRead, 10);
    const QString max = f.lastWatermark(id);

    // A row committed late, with a watermark inside the lookback (8 < last 10, >= 10 - 5),
    // and a change to a row inside the lookback, committed late too.
    f.exec(f.source, t, QStringLiteral("INSERT INTO %1 VALUES (11, ?1, 'late')"), {w(8)});
    f.exec(f.source, t, QStringLiteral("UPDATE %1 SET w = ?1, v = 'changed' WHERE id = 6"), {w(7)});
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    VERIFY_PATH(f, second);
    QVERIFY(accounted(second));
    QCOMPARE(second.rowsRead, 7); // w in [5, 10]: id 5, 6 (now 7), 7, 8, 9, 10, 11 (8)
    QCOMPARE(f.count(f.target, t), 11);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    // The watermark never moves back to the lookback's lower bound.
    QCOMPARE(f.lastWatermark(id), max);
    QVERIFY(f.workspaceMatchesState(id));
}

void TestContractMatrix::mergeNeverReplacesNewerWithOlder() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("kv");
    f.createEvents(f.source, t, true);
    f.insertEvents(f.source, t, 1, 5);
    TableDraft draft = f.draft(t, QStringLiteral("ts"));
    draft.spec.mode = WriteMode::Merge;
    const qint64 id = f.addTable(draft);
    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsWritten, 5);

    // The target holds a newer version of key 1 than the one about to arrive.
    f.exec(f.target, t, QStringLiteral("UPDATE %1 SET ts = ?1, v = 'target newer' WHERE id = 1"), {ts(100)});
    f.exec(f.source, t, QStringLiteral("UPDATE %1 SET ts = ?1, v = 'older' WHERE id = 1"), {ts(6)});
    f.exec(f.source, t, QStringLiteral("UPDATE %1 SET ts = ?1, v = 'newer' WHERE id = 2"), {ts(7)});
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    VERIFY_PATH(f, second);
    QCOMPARE(second.rowsRead, 2);
    QVERIFY(accounted(second)); // the superseded row counts as written
    QCOMPARE(f.value(f.target, t, QStringLiteral("SELECT v FROM %1 WHERE id = 1")),
             QStringLiteral("target newer"));
    QCOMPARE(f.value(f.target, t, QStringLiteral("SELECT v FROM %1 WHERE id = 2")), QStringLiteral("newer"));
    QCOMPARE(f.count(f.target, t), 5);
    QCOMPARE(f.lastWatermark(id), display(ts(7)));
    QVERIFY(f.workspaceMatchesState(id));
}

// Several versions of a key in one window: the latest (watermark, then tiebreak) wins, whether
// the versions share a batch or not.
void TestContractMatrix::latestVersionPerKeyWins() {
    CONTRACT_ROW(p, r);
    QFETCH(QString, batch);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("hist");
    f.createEvents(f.source, t, true,
                   QStringLiteral(", k %1 NOT NULL, tb %1 NOT NULL").arg(f.integerType(f.source)));
    // Per key k: (ts, tb, v). Key 1's latest is the highest watermark; key 2's ties on the
    // watermark and the higher tiebreak wins.
    const QList<QVariantList> versions = {
        {1, 1, 1, 1, QStringLiteral("a")}, {2, 1, 3, 1, QStringLiteral("c")},
        {3, 1, 2, 9, QStringLiteral("b")}, {4, 2, 5, 2, QStringLiteral("y")},
        {5, 2, 5, 1, QStringLiteral("x")}, {6, 3, 4, 1, QStringLiteral("only")},
    };
    for (const QVariantList &row : versions)
        f.exec(f.source, t, QStringLiteral("INSERT INTO %1 (id, k, ts, tb, v) VALUES (?1, ?2, ?3, ?4, ?5)"),
               {row[0], row[1], ts(row[2].toInt()), row[3], row[4]});
    TableDraft draft = f.draft(t, QStringLiteral("ts"), batch.toInt());
    draft.spec.mode = WriteMode::Merge;
    draft.spec.keyColumns = {QStringLiteral("k")};
    draft.spec.tiebreakColumn = QStringLiteral("tb");
    const qint64 id = f.addTable(draft);

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    VERIFY_PATH(f, result);
    QCOMPARE(result.rowsRead, 6);
    QVERIFY(accounted(result));
    QCOMPARE(f.rows(f.target, t, QStringLiteral("SELECT k, v FROM %1 ORDER BY k")),
             QList<QStringList>({{QStringLiteral("1"), QStringLiteral("c")},
                                 {QStringLiteral("2"), QStringLiteral("y")},
                                 {QStringLiteral("3"), QStringLiteral("only")}}));
    QVERIFY(f.workspaceMatchesState(id));
}

namespace {

// Source `orders` (id, ts, v, amount INTEGER, customer TEXT nullable), target pre-created with
// no key and a CHECK refusing amounts of 1000 or more and a NOT NULL customer. Rows 1..10 copied.
qint64 ordersWithCheckedTarget(ContractFixture &f, const QString &t) {
    f.createEvents(f.source, t, false, QStringLiteral(", amount INTEGER, customer TEXT"));
    f.createEvents(f.target, t, false,
                   QStringLiteral(", amount INTEGER CHECK (amount < 1000), customer TEXT NOT NULL"));
    for (int i = 1; i <= 10; ++i)
        f.exec(f.source, t,
               QStringLiteral("INSERT INTO %1 (id, ts, v, amount, customer) VALUES (?1, ?2, ?3, ?4, 'c')"),
               {i, ts(i), QStringLiteral("v%1").arg(i), i});
    const qint64 id = f.addTable(f.draft(t, QStringLiteral("ts")));
    const IterationRecord first = f.run(id);
    if (first.status != IterationStatus::Succeeded || f.count(f.target, t) != 10)
        qWarning("setup run: %s", qPrintable(describe(first)));
    for (int i = 11; i <= 20; ++i)
        f.exec(f.source, t,
               QStringLiteral("INSERT INTO %1 (id, ts, v, amount, customer) VALUES (?1, ?2, ?3, ?4, 'c')"),
               {i, ts(i), QStringLiteral("v%1").arg(i), i});
    return id;
}

} // namespace

void TestContractMatrix::toleratedRejects() {
    CONTRACT_ROW(p, r);
    QFETCH(QString, constraint);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("orders");
    const qint64 id = ordersWithCheckedTarget(f, t);
    QCOMPARE(f.count(f.target, t), 10);
    f.exec(f.source, t,
           constraint == QLatin1String("CHECK")
               ? QStringLiteral("UPDATE %1 SET amount = 5000 WHERE id IN (13, 17)")
               : QStringLiteral("UPDATE %1 SET customer = NULL WHERE id IN (13, 17)"));

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Warning, qPrintable(describe(result)));
    VERIFY_PATH(f, result);
    QCOMPARE(result.rowsRead, 10);
    QCOMPARE(result.rowsSkipped, 2);
    QCOMPARE(result.rowsWritten, 8);
    QCOMPARE(f.count(f.target, t), 18);
    QCOMPARE(f.count(f.target, t, QStringLiteral("id IN (13, 17)")), 0);
    QCOMPARE(f.count(f.target, t, QStringLiteral("id > 10")), 8);
    QCOMPARE(f.lastWatermark(id), display(ts(20)));
    QVERIFY(f.workspaceMatchesState(id));

    const QList<RejectedRow> rejects = f.ws->rejects(id);
    QCOMPARE(rejects.size(), 2);
    QStringList data;
    for (const RejectedRow &row : rejects) {
        QVERIFY(!row.error.isEmpty());
        QCOMPARE(row.runId, result.runId);
        data << row.rowData;
    }
    data.sort();
    QVERIFY2(data[0].contains(QLatin1String("v13")) && data[1].contains(QLatin1String("v17")),
             qPrintable(data.join(QLatin1Char(' '))));
    // Exactly once: the rejected rows stay behind, the rest is not copied again.
    QCOMPARE(f.run(id).rowsRead, 0);
    QCOMPARE(f.count(f.target, t), 18);
}

// Data and state row commit together: a window that fails leaves neither behind (with a commit
// per batch: nothing beyond the batches committed, which the state row matches), and the rerun
// copies every row exactly once.
void TestContractMatrix::failingWindowLeavesEverythingUntouched() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("orders");
    const qint64 id = ordersWithCheckedTarget(f, t);
    QCOMPARE(f.count(f.target, t), 10);
    // One bad row more than the table tolerates.
    const QList<int> bad = QList<int>{15, 17, 19}.mid(0, r.maxSkipped + 1);
    for (int row : bad)
        f.exec(f.source, t, QStringLiteral("UPDATE %1 SET amount = 5000 WHERE id = ?1"), {row});
    const qint64 changesBefore = f.ws->watermarkChanges(id).size();

    IterationRecord failed = f.run(id);
    QVERIFY2(failed.status == IterationStatus::Failed, qPrintable(describe(failed)));
    QVERIFY2(failed.error.contains(QLatin1String("orders")), qPrintable(failed.error));
    QCOMPARE(f.ws->lastIterationStatus(id), QStringLiteral("failed"));
    if (r.perWindow()) {
        QCOMPARE(f.count(f.target, t), 10);
        QCOMPARE(f.stateWatermark(id), display(ts(10)));
        QCOMPARE(f.lastWatermark(id), display(ts(10)));
        QCOMPARE(f.ws->watermarkChanges(id).size(), changesBefore);
    } else {
        // Whole batches before the failing one may have committed, each with its state row.
        const qint64 kept = f.count(f.target, t);
        QVERIFY2(kept >= 10 && kept < 15, qPrintable(QString::number(kept)));
        QCOMPARE(f.stateWatermark(id), display(ts(int(kept))));
        QCOMPARE(f.count(f.target, t, QStringLiteral("id > %1").arg(kept)), 0);
    }
    QVERIFY(f.workspaceMatchesState(id));

    f.exec(f.source, t, QStringLiteral("UPDATE %1 SET amount = id"));
    IterationRecord rerun = f.run(id);
    QVERIFY2(rerun.status == IterationStatus::Succeeded, qPrintable(describe(rerun)));
    QCOMPARE(f.count(f.target, t), 20);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.lastWatermark(id), display(ts(20)));
    QCOMPARE(f.stateWatermark(id), display(ts(20)));
}

// The process died after the target commit and before the workspace update: the target's state
// row is the truth, and no row is copied twice.
void TestContractMatrix::reconcileFromTargetState() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("orders");
    const qint64 id = f.addTable(f.eventsDraft(t, 20));
    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 20);

    f.ws->setWatermark(id, *Watermark::timestamp(ts(8)), QVariant(), QStringLiteral("edit"), 0);
    QCOMPARE(f.lastWatermark(id), display(ts(8)));
    f.insertEvents(f.source, t, 21, 25);

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    VERIFY_PATH(f, result);
    QCOMPARE(result.rowsRead, 5);
    QCOMPARE(result.watermarkBefore, display(ts(20)));
    QCOMPARE(f.count(f.target, t), 25);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.lastWatermark(id), display(ts(25)));
    QVERIFY(f.workspaceMatchesState(id));

    bool found = false;
    for (const WatermarkChange &change : f.ws->watermarkChanges(id)) {
        if (change.cause == QLatin1String("reconcile")) {
            found = true;
            QCOMPARE(change.runId, result.runId);
            QCOMPARE(change.newValue, display(ts(20)));
        }
    }
    QVERIFY2(found, "no watermark change with cause 'reconcile'");
}

// A column added to the source after the first load: refused, naming it, and nothing written,
// unless the table adds new columns, in which case the target gains it and the copy goes on.
void TestContractMatrix::newSourceColumns() {
    CONTRACT_ROW(p, r);
    QFETCH(QString, columns);
    const bool add = columns == QLatin1String("add-new-columns");
    ContractFixture f(p, r);
    const QString t = QStringLiteral("events");
    TableDraft draft = f.eventsDraft(t, 10);
    draft.spec.addNewColumns = add;
    const qint64 id = f.addTable(draft);
    QCOMPARE(f.run(id).rowsRead, 10);

    f.exec(f.source, t, QStringLiteral("ALTER TABLE %1 ADD COLUMN extra TEXT"));
    f.insertEvents(f.source, t, 11, 15);
    f.exec(f.source, t, QStringLiteral("UPDATE %1 SET extra = 'x' || id WHERE id > 10"));
    IterationRecord result = f.run(id);
    if (!add) {
        QVERIFY2(result.status == IterationStatus::Failed, qPrintable(describe(result)));
        QVERIFY2(result.error.contains(QLatin1String("extra")), qPrintable(result.error));
        QCOMPARE(f.count(f.target, t), 10);
        QCOMPARE(f.lastWatermark(id), display(ts(10)));
        QCOMPARE(f.stateWatermark(id), display(ts(10)));
        return;
    }
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    VERIFY_PATH(f, result);
    QCOMPARE(result.rowsRead, 5);
    QCOMPARE(f.rows(f.target, t, QStringLiteral("SELECT id, v, extra FROM %1 ORDER BY id")),
             f.rows(f.source, t, QStringLiteral("SELECT id, v, extra FROM %1 ORDER BY id")));
    QCOMPARE(f.lastWatermark(id), display(ts(15)));
    QVERIFY(f.workspaceMatchesState(id));
}

void TestContractMatrix::dryRunWritesNothing() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("orders");
    const qint64 id = f.addTable(f.eventsDraft(t, 12));
    CopyIteration::Options dry;
    dry.dryRun = true;

    IterationRecord first = f.run(id, dry);
    QVERIFY2(first.status == IterationStatus::DryRun, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 12);
    QCOMPARE(first.rowsWritten, 0);
    QVERIFY(first.watermarkBefore.isEmpty());
    QCOMPARE(first.watermarkAfter, display(ts(12)));
    QVERIFY(!f.exists(f.target, t));
    QVERIFY(f.spec(id).lastWatermark.isNull());
    QVERIFY(f.stateRow(id).isEmpty());
    if (!p.targetPg) // a read creates nothing on the target, not even the state table
        QVERIFY(!QFile::exists(f.dbPath(f.target)) ||
                !tableExists(f.dbPath(f.target), QStringLiteral("tidemark_state")));

    IterationRecord real = f.run(id);
    QVERIFY2(real.status == IterationStatus::Succeeded, qPrintable(describe(real)));
    QCOMPARE(real.rowsRead, 12);
    f.insertEvents(f.source, t, 13, 17);
    IterationRecord second = f.run(id, dry);
    QVERIFY2(second.status == IterationStatus::DryRun, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 5);
    QCOMPARE(second.rowsWritten, 0);
    QCOMPARE(second.watermarkBefore, display(ts(12)));
    QCOMPARE(second.watermarkAfter, display(ts(17)));
    QCOMPARE(f.count(f.target, t), 12);
    QCOMPARE(f.lastWatermark(id), display(ts(12)));
    QCOMPARE(f.stateWatermark(id), display(ts(12)));
    QCOMPARE(f.run(id).rowsRead, 5);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
}

// A cancel while the window is being copied rolls the whole window back (a push-down too).
void TestContractMatrix::cancelRollsBackTheWindow() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("orders");
    const qint64 id = f.addTable(f.eventsDraft(t, 20));
    QCOMPARE(f.run(id).rowsRead, 20);
    f.insertEvents(f.source, t, 21, 40);

    IterationRecord result = runCancellingAfter(f, id, 6);
    QVERIFY2(result.status == IterationStatus::Cancelled, qPrintable(describe(result)));
    QCOMPARE(result.rowsWritten, 0);
    QCOMPARE(f.count(f.target, t), 20);
    QCOMPARE(f.lastWatermark(id), display(ts(20)));
    QCOMPARE(f.stateWatermark(id), display(ts(20)));
    QCOMPARE(f.ws->lastIterationStatus(id), QStringLiteral("cancelled"));

    IterationRecord rerun = f.run(id);
    QCOMPARE(rerun.rowsRead, 20);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
}

// Once the window is fixed, a row landing in the source waits for the next run.
void TestContractMatrix::upperBoundFixedAtStart() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("orders");
    const qint64 id = f.addTable(f.eventsDraft(t, 20));

    bool inserted = false;
    CallbackObserver observer([&](const IterationRecord &record) {
        if (!inserted && record.status == IterationStatus::Running && record.windowRows >= 0) {
            inserted = true;
            f.insertEvents(f.source, t, 21, 21);
        }
    });
    CopyIteration::Options options;
    options.observer = &observer;
    IterationRecord first = f.run(id, options);
    QVERIFY(inserted);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 20);
    QCOMPARE(first.windowUpper, display(ts(20)));
    QCOMPARE(f.count(f.target, t), 20);
    QCOMPARE(f.lastWatermark(id), display(ts(20)));

    QCOMPARE(f.run(id).rowsRead, 1);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
}

void TestContractMatrix::overwriteWithoutWatermark() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("ref");
    f.exec(f.source, t, QStringLiteral("CREATE TABLE %1 (id TEXT PRIMARY KEY, v TEXT)"));
    f.exec(f.source, t,
           QStringLiteral("INSERT INTO %1 VALUES ('a', 'Alpha'), ('b', 'Beta'), ('c', 'Gamma')"));
    TableDraft draft = f.draft(t, QString());
    draft.spec.mode = WriteMode::Overwrite;
    if (refusesOverwritePerBatch(f, draft))
        return;
    const qint64 id = f.addTable(draft);
    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(f.count(f.target, t), 3);

    f.exec(f.source, t, QStringLiteral("DELETE FROM %1 WHERE id = 'a'"));
    f.exec(f.source, t, QStringLiteral("UPDATE %1 SET v = 'Bravo' WHERE id = 'b'"));
    f.exec(f.source, t, QStringLiteral("INSERT INTO %1 VALUES ('d', 'Delta')"));
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 3);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
}

void TestContractMatrix::perBatchCommitResumesAfterCommittedBatches() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("orders");
    f.createEvents(f.source, t, false);
    f.insertEvents(f.source, t, 1, 40);
    const qint64 id = f.addTable(f.draft(t, QStringLiteral("ts"), 5));

    IterationRecord result = runCancellingAfter(f, id, 17);
    QVERIFY2(result.status == IterationStatus::Cancelled, qPrintable(describe(result)));

    // What survives is whole committed batches plus the matching state row.
    const qint64 kept = f.count(f.target, t);
    QVERIFY2(kept > 0 && kept < 40 && kept % 5 == 0, qPrintable(QString::number(kept)));
    QCOMPARE(result.rowsWritten, kept);
    QCOMPARE(f.lastWatermark(id), display(ts(int(kept))));
    QVERIFY(f.workspaceMatchesState(id));
    QCOMPARE(f.count(f.target, t, QStringLiteral("id > %1").arg(kept)), 0);

    IterationRecord rerun = f.run(id);
    QVERIFY2(rerun.status == IterationStatus::Succeeded, qPrintable(describe(rerun)));
    QCOMPARE(rerun.rowsRead, 40 - kept);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
}

// Without a tiebreak the position cannot point inside a run of equal watermarks, so a per-batch
// commit must never land there: otherwise the rest of the tie is lost after an interruption.
void TestContractMatrix::perBatchCommitNeverSplitsUntiedTies() {
    CONTRACT_ROW(p, r);
    ContractFixture f(p, r);
    const QString t = QStringLiteral("ev");
    f.createEvents(f.source, t, false);
    for (int i = 1; i <= 10; ++i)
        f.insertEvent(f.source, t, i, ts(qMin(i, 5)), QStringLiteral("v%1").arg(i));
    const qint64 id = f.addTable(f.draft(t, QStringLiteral("ts"), 2));

    // Interrupted in the middle of the six tied rows.
    IterationRecord interrupted = runCancellingAfter(f, id, 8);
    QVERIFY2(interrupted.status == IterationStatus::Cancelled, qPrintable(describe(interrupted)));
    const qint64 kept = f.count(f.target, t);
    QVERIFY2(kept <= 4, qPrintable(QString::number(kept))); // none of the tie committed without the rest

    IterationRecord rerun = f.run(id);
    QVERIFY2(rerun.status == IterationStatus::Succeeded, qPrintable(describe(rerun)));
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
}

QTEST_GUILESS_MAIN(TestContractMatrix)
#include "tst_contractmatrix.moc"
