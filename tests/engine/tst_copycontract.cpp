// SPDX-License-Identifier: MIT
// The copy contract (DESIGN.md, "One iteration"), step by step, through CopyIteration on SQLite.
#include "model/common/timestamp.h"
#include "model/domain/watermark.h"
#include "model/engine/backfill.h"
#include "model/engine/verifier.h"
#include "tests/engine/enginefixture.h"

#include <QProcess>
#include <QTest>
#include <atomic>
#include <functional>
#include <limits>

using namespace tidemark;
using namespace tidemark::test;

namespace {

QString ts(int id) {
    return orderTimestamp(id);
}

QString display(const QString &native) {
    return Watermark::timestamp(native)->display();
}

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
IterationRecord runCancellingAfter(EngineFixture &f, qint64 tableId, qint64 rows) {
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

bool accounted(const IterationRecord &record) {
    return record.rowsRead == record.rowsWritten + record.rowsSkipped;
}

QStringList tableNames(const QString &dbPath) {
    SqliteDb db(dbPath, SqliteDb::Mode::ReadOnly);
    SqliteStatement select(
        db, QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"));
    QStringList names;
    while (select.step())
        names << select.columnText(0);
    return names;
}

bool hasCause(const QList<WatermarkChange> &changes, const QString &cause) {
    for (const WatermarkChange &change : changes) {
        if (change.cause == cause)
            return true;
    }
    return false;
}

// A pid that belonged to a process which has exited (and been reaped).
qint64 deadPid() {
    QProcess process;
    process.start(QStringLiteral("true"), {});
    process.waitForFinished();
    return process.processId() > 0 ? process.processId() : 999999;
}

} // namespace

class TestCopyContract : public QObject {
    Q_OBJECT

private slots:
    void fullLoadThenIncremental();
    void tiesWithTiebreak_data();
    void tiesWithTiebreak();
    void tiesWithoutTiebreak();
    void upperBoundFixedAtStart();
    void lookbackMergeRereadsWithoutDuplicates_data();
    void lookbackMergeRereadsWithoutDuplicates();
    void mergeNeverReplacesNewerWithOlder();
    void latestVersionPerKeyWins_data();
    void latestVersionPerKeyWins();
    void overwriteReplaces();
    void failureLeavesTargetAndWatermarkUntouched();
    void toleratedSkippedRows_data();
    void toleratedSkippedRows();
    void reconcileFromTargetState();
    void watermarkNeverMovesBackwards();
    void expectRowsWithZeroRowsWarns();
    void nullWatermarksCounted();
    void pausedTableSkipped();
    void leaseHeldByLiveProcessSkips();
    void leaseOfDeadProcessTakenOver();
    void cancelBeforeStart();
    void cancelWhileRunningRollsBack();
    void perBatchCommitResumesAfterCommittedBatches();
    void perBatchCommitNeverSplitsUntiedTies();
    void timestampSpellings_data();
    void timestampSpellings();
    void integerWatermarkNearMax();
    void mixedSpellingsRefused();
    void hostileIdentifiers_data();
    void hostileIdentifiers();
    void dryRun();
    void backfillKeepOnMerge();
    void backfillDeleteNewerOnAppend();
    void backfillTruncate();
    void backfillKeepOnAppendNeedsConfirmation();
    void verifyMatchesAndFindsTampering();
};

void TestCopyContract::fullLoadThenIncremental() {
    EngineFixture f;
    makeOrders(f.src, 100);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));

    IterationRecord first = f.run(id);
    QCOMPARE(first.status, IterationStatus::Succeeded);
    QCOMPARE(first.rowsRead, 100);
    QCOMPARE(first.rowsWritten, 100);
    QVERIFY(accounted(first));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 100);
    QCOMPARE(f.lastWatermarkText(id), ts(100));
    QCOMPARE(f.stateWatermark(id).toString(), ts(100));
    QCOMPARE(first.watermarkAfter, display(ts(100)));

    makeOrders(f.src, 20, 101);
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 20);
    QCOMPARE(second.watermarkBefore, display(ts(100)));
    QCOMPARE(second.watermarkAfter, display(ts(120)));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 120);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("orders"), QStringLiteral("orders")), 0);
    QCOMPARE(f.lastWatermarkText(id), ts(120));

    IterationRecord third = f.run(id);
    QCOMPARE(third.status, IterationStatus::NoNewRows);
    QCOMPARE(third.rowsRead, 0);
    QCOMPARE(f.lastWatermarkText(id), ts(120));

    const QList<WatermarkChange> changes = f.ws->watermarkChanges(id);
    QCOMPARE(changes.size(), 2); // one per advancing run, none for the empty one
    QCOMPARE(changes.last().cause, QStringLiteral("run"));
    QCOMPARE(changes.last().runId, second.runId);
}

void TestCopyContract::tiesWithTiebreak_data() {
    QTest::addColumn<int>("batchSize");
    QTest::addColumn<bool>("perBatch");
    QTest::newRow("one batch") << 1000 << false;
    QTest::newRow("batches split ties") << 2 << false;
    QTest::newRow("per-batch commits split ties") << 2 << true;
}

void TestCopyContract::tiesWithTiebreak() {
    QFETCH(int, batchSize);
    QFETCH(bool, perBatch);
    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, ts TEXT NOT NULL, v TEXT)"));
    // Six rows share the maximum watermark.
    for (int i = 1; i <= 10; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2, ?3)"),
                {i, i <= 4 ? ts(i) : ts(5), QStringLiteral("v%1").arg(i)});
    TableDraft draft = EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("ts"));
    draft.spec.tiebreakColumn = QStringLiteral("id");
    draft.spec.batchSize = batchSize;
    draft.spec.commitPerBatch = perBatch;
    const qint64 id = f.addTable(draft);

    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 10);
    QCOMPARE(f.spec(id).lastWatermark.nativeText(), ts(5));
    QCOMPARE(f.spec(id).lastTiebreak.toLongLong(), 10);

    // Late row at exactly the old maximum, with a higher tiebreak: the next run must get it.
    execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (11, ?1, 'late')"), {ts(5)});
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 1);
    QCOMPARE(countRows(f.dst, QStringLiteral("ev")), 11);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("ev"), QStringLiteral("ev")), 0);
    QCOMPARE(f.spec(id).lastTiebreak.toLongLong(), 11);
    QCOMPARE(f.stateWatermark(id).toString(), ts(5));

    IterationRecord third = f.run(id);
    QCOMPARE(third.status, IterationStatus::NoNewRows);
}

// Without a tiebreak the position is the watermark alone and the window is `watermark > last`:
// a row that arrives late at exactly the old maximum is NOT re-read. That is the documented
// contract (use a tiebreak column, or a lookback with merge, when rows can arrive late).
void TestCopyContract::tiesWithoutTiebreak() {
    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, ts TEXT NOT NULL, v TEXT)"));
    for (int i = 1; i <= 10; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2, 'x')"), {i, i <= 4 ? ts(i) : ts(5)});
    TableDraft draft = EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("ts"));
    draft.spec.batchSize = 2; // batches must not split the six tied rows' commit
    draft.spec.commitPerBatch = true;
    const qint64 id = f.addTable(draft);

    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 10);
    QCOMPARE(countRows(f.dst, QStringLiteral("ev")), 10);

    execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (11, ?1, 'late at the old max')"), {ts(5)});
    IterationRecord second = f.run(id);
    QCOMPARE(second.status, IterationStatus::NoNewRows);
    QCOMPARE(second.rowsRead, 0);
    QCOMPARE(countRows(f.dst, QStringLiteral("ev")), 10);

    // Anything strictly after the old maximum is copied, the late tie stays behind.
    execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (12, ?1, 'newer')"), {ts(6)});
    IterationRecord third = f.run(id);
    QCOMPARE(third.rowsRead, 1);
    QCOMPARE(countRows(f.dst, QStringLiteral("ev")), 11);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(*) FROM ev WHERE id = 11")).toLongLong(), 0);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(*) FROM ev WHERE id = 12")).toLongLong(), 1);
}

void TestCopyContract::upperBoundFixedAtStart() {
    EngineFixture f;
    makeOrders(f.src, 50);
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.batchSize = 7;
    // Tolerating a skipped row makes the engine stream batches: a push-down (one INSERT ... SELECT)
    // reads one snapshot by construction, and holds the source's read lock while it runs, so this
    // same-thread write from the observer could not land mid-copy.
    draft.spec.maxSkipped = 1;
    const qint64 id = f.addTable(draft);

    // Once the window is counted (fixed), a row lands in the source: it must wait for the next run.
    bool inserted = false;
    CallbackObserver observer([&](const IterationRecord &record) {
        if (!inserted && record.status == IterationStatus::Running && record.windowRows >= 0) {
            inserted = true;
            makeOrders(f.src, 1, 51);
        }
    });
    CopyIteration::Options options;
    options.observer = &observer;
    IterationRecord first = f.run(id, options);
    QVERIFY(inserted);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 50);
    QCOMPARE(first.windowUpper, display(ts(50)));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 50);
    QCOMPARE(f.lastWatermarkText(id), ts(50));

    IterationRecord second = f.run(id);
    QCOMPARE(second.rowsRead, 1);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 51);
}

void TestCopyContract::lookbackMergeRereadsWithoutDuplicates_data() {
    QTest::addColumn<bool>("timestamp");
    QTest::newRow("integer, lookback 5") << false;
    QTest::newRow("timestamp, lookback 5m") << true;
}

void TestCopyContract::lookbackMergeRereadsWithoutDuplicates() {
    QFETCH(bool, timestamp);
    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE ev (k INTEGER PRIMARY KEY, w %1 NOT NULL, v TEXT)")
                       .arg(timestamp ? QStringLiteral("TEXT") : QStringLiteral("INTEGER")));
    auto w = [&](int i) {
        return timestamp ? QVariant(ts(i)) : QVariant(i);
    };
    for (int i = 1; i <= 10; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2, 'v')"), {i, w(i)});
    TableDraft draft = EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("w"));
    draft.spec.mode = WriteMode::Merge;
    draft.spec.lookback = timestamp ? QStringLiteral("5m") : QStringLiteral("5");
    const qint64 id = f.addTable(draft);

    QCOMPARE(f.run(id).rowsRead, 10);
    // A row committed late, with a watermark inside the lookback (8 < last 10, >= 10 - 5).
    execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (11, ?1, 'late')"), {w(8)});
    // and a change to a row inside the lookback, committed late too.
    execSql(f.src, QStringLiteral("UPDATE ev SET w = ?1, v = 'changed' WHERE k = 6"), {w(7)});
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded || second.status == IterationStatus::NoNewRows,
             qPrintable(describe(second)));
    QVERIFY(accounted(second));
    QCOMPARE(second.rowsRead, 7); // w in [5, 10]: k 5, 6 (now 7), 7, 8, 9, 10, 11 (8)
    QCOMPARE(countRows(f.dst, QStringLiteral("ev")), 11);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("ev"), QStringLiteral("ev")), 0);
    // The watermark never moves back to the lookback's lower bound.
    QCOMPARE(f.spec(id).lastWatermark.nativeText(), w(10).toString());
}

void TestCopyContract::mergeNeverReplacesNewerWithOlder() {
    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE kv (k INTEGER PRIMARY KEY, ver INTEGER NOT NULL, v TEXT)"));
    for (int i = 1; i <= 5; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO kv VALUES (?1, ?1, 'source')"), {i});
    TableDraft draft = EngineFixture::draft(QStringLiteral("kv"), QStringLiteral("ver"));
    draft.spec.mode = WriteMode::Merge;
    const qint64 id = f.addTable(draft);
    QCOMPARE(f.run(id).rowsWritten, 5);

    // The target holds a newer version of key 1 than the one about to arrive.
    execSql(f.dst, QStringLiteral("UPDATE kv SET ver = 100, v = 'target newer' WHERE k = 1"));
    execSql(f.src, QStringLiteral("UPDATE kv SET ver = 6, v = 'older' WHERE k = 1"));
    execSql(f.src, QStringLiteral("UPDATE kv SET ver = 7, v = 'newer' WHERE k = 2"));
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 2);
    QVERIFY(accounted(second)); // the superseded row counts as written
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT v FROM kv WHERE k = 1")).toString(),
             QStringLiteral("target newer"));
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT ver FROM kv WHERE k = 1")).toLongLong(), 100);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT v FROM kv WHERE k = 2")).toString(),
             QStringLiteral("newer"));
    QCOMPARE(countRows(f.dst, QStringLiteral("kv")), 5);
    QCOMPARE(f.spec(id).lastWatermark.toInteger(), 7);
}

void TestCopyContract::latestVersionPerKeyWins_data() {
    QTest::addColumn<int>("batchSize");
    QTest::addColumn<bool>("perBatch");
    QTest::newRow("one batch") << 1000 << false;
    QTest::newRow("batches of 1") << 1 << false;
    QTest::newRow("batches of 2, per-batch commit") << 2 << true;
}

void TestCopyContract::latestVersionPerKeyWins() {
    QFETCH(int, batchSize);
    QFETCH(bool, perBatch);
    EngineFixture f;
    execSql(f.src, QStringLiteral(
                       "CREATE TABLE hist (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, ver INTEGER NOT NULL,"
                       " tb INTEGER NOT NULL, v TEXT)"));
    const QList<QVariantList> rows = {
        {1, 1, 1, 1, QStringLiteral("a")}, {2, 1, 3, 1, QStringLiteral("c")},
        {3, 1, 2, 9, QStringLiteral("b")}, {4, 2, 5, 2, QStringLiteral("y")},
        {5, 2, 5, 1, QStringLiteral("x")}, {6, 3, 4, 1, QStringLiteral("only")},
    };
    for (const QVariantList &row : rows)
        execSql(f.src, QStringLiteral("INSERT INTO hist VALUES (?1, ?2, ?3, ?4, ?5)"), row);
    TableDraft draft = EngineFixture::draft(QStringLiteral("hist"), QStringLiteral("ver"));
    draft.spec.mode = WriteMode::Merge;
    draft.spec.keyColumns = {QStringLiteral("k")};
    draft.spec.tiebreakColumn = QStringLiteral("tb");
    draft.spec.batchSize = batchSize;
    draft.spec.commitPerBatch = perBatch;
    const qint64 id = f.addTable(draft);

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    QCOMPARE(result.rowsRead, 6);
    QVERIFY(accounted(result));
    QCOMPARE(countRows(f.dst, QStringLiteral("hist")), 3);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT v FROM hist WHERE k = 1")).toString(),
             QStringLiteral("c"));
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT v FROM hist WHERE k = 2")).toString(),
             QStringLiteral("y"));
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT v FROM hist WHERE k = 3")).toString(),
             QStringLiteral("only"));
}

void TestCopyContract::overwriteReplaces() {
    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE ref (code TEXT PRIMARY KEY, name TEXT)"));
    execSql(f.src, QStringLiteral("INSERT INTO ref VALUES ('a', 'Alpha'), ('b', 'Beta'), ('c', 'Gamma')"));
    TableDraft draft = EngineFixture::draft(QStringLiteral("ref"), QString());
    draft.spec.mode = WriteMode::Overwrite;
    const qint64 id = f.addTable(draft);
    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(countRows(f.dst, QStringLiteral("ref")), 3);

    execSql(f.src, QStringLiteral("DELETE FROM ref WHERE code = 'a'"));
    execSql(f.src, QStringLiteral("UPDATE ref SET name = 'Bravo' WHERE code = 'b'"));
    execSql(f.src, QStringLiteral("INSERT INTO ref VALUES ('d', 'Delta')"));
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 3);
    QCOMPARE(countRows(f.dst, QStringLiteral("ref")), 3);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("ref"), QStringLiteral("ref")), 0);
}

namespace {

// orders with a target whose CHECK refuses amounts over 1000 (the source has none until told).
qint64 ordersWithCheckedTarget(EngineFixture &f, qint64 maxSkipped) {
    makeOrders(f.src, 100);
    execSql(f.dst, QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, "
                                  "amount REAL CHECK (amount < 1000), updated_at TIMESTAMP NOT NULL)"));
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.maxSkipped = maxSkipped;
    draft.spec.batchSize = 8;
    const qint64 id = f.addTable(draft);
    const IterationRecord first = f.run(id);
    if (first.status != IterationStatus::Succeeded || countRows(f.dst, QStringLiteral("orders")) != 100)
        qWarning("setup run: %s", qPrintable(describe(first)));
    return id;
}

} // namespace

// Data and state row commit together: an iteration that fails leaves neither behind.
void TestCopyContract::failureLeavesTargetAndWatermarkUntouched() {
    EngineFixture f;
    const qint64 id = ordersWithCheckedTarget(f, 1);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 100);
    makeOrders(f.src, 20, 101);
    // Three bad rows, the table tolerates one: the whole window fails.
    execSql(f.src, QStringLiteral("UPDATE orders SET amount = 5000 WHERE id IN (103, 110, 117)"));
    const qint64 changesBefore = f.ws->watermarkChanges(id).size();

    IterationRecord result = f.run(id);
    QCOMPARE(result.status, IterationStatus::Failed);
    QVERIFY2(result.error.contains(QStringLiteral("orders")), qPrintable(result.error));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 100);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(*) FROM orders WHERE id > 100")).toLongLong(), 0);
    QCOMPARE(f.stateWatermark(id).toString(), ts(100));
    QCOMPARE(f.lastWatermarkText(id), ts(100));
    QCOMPARE(f.ws->watermarkChanges(id).size(), changesBefore);
    QCOMPARE(f.ws->lastIterationStatus(id), QStringLiteral("failed"));
}

void TestCopyContract::toleratedSkippedRows_data() {
    QTest::addColumn<bool>("notNull");
    QTest::newRow("CHECK constraint") << false;
    QTest::newRow("NOT NULL constraint") << true;
}

void TestCopyContract::toleratedSkippedRows() {
    QFETCH(bool, notNull);
    EngineFixture f;
    // The source allows NULL customers; the target does not.
    execSql(f.src, QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, amount REAL, "
                                  "updated_at TIMESTAMP NOT NULL)"));
    const qint64 id = ordersWithCheckedTarget(f, 5);
    makeOrders(f.src, 20, 101);
    execSql(f.src, notNull ? QStringLiteral("UPDATE orders SET customer = NULL WHERE id IN (103, 117)")
                           : QStringLiteral("UPDATE orders SET amount = 5000 WHERE id IN (103, 117)"));

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Warning, qPrintable(describe(result)));
    QCOMPARE(result.rowsRead, 20);
    QCOMPARE(result.rowsSkipped, 2);
    QCOMPARE(result.rowsWritten, 18);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 118);
    QCOMPARE(
        queryValue(f.dst, QStringLiteral("SELECT count(*) FROM orders WHERE id IN (103, 117)")).toLongLong(),
        0);
    QCOMPARE(f.lastWatermarkText(id), ts(120));

    const QList<RejectedRow> rejects = f.ws->rejects(id);
    QCOMPARE(rejects.size(), 2);
    QStringList keys;
    for (const RejectedRow &row : rejects) {
        QVERIFY(!row.error.isEmpty());
        QCOMPARE(row.runId, result.runId);
        keys << row.rowKey;
    }
    keys.sort();
    QVERIFY2(keys[0].contains(QStringLiteral("103")) && keys[1].contains(QStringLiteral("117")),
             qPrintable(keys.join(QLatin1Char(' '))));
}

void TestCopyContract::reconcileFromTargetState() {
    EngineFixture f;
    makeOrders(f.src, 100, 1, QStringLiteral("orders"), false); // no key: a double copy would show
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    QCOMPARE(f.run(id).rowsRead, 100);

    // The process died after the target commit and before the workspace update.
    f.ws->setWatermark(id, *Watermark::timestamp(ts(40)), QVariant(), QStringLiteral("edit"), 0);
    QCOMPARE(f.lastWatermarkText(id), ts(40));
    makeOrders(f.src, 10, 101, QStringLiteral("orders"), false);

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    QCOMPARE(result.rowsRead, 10);
    QCOMPARE(result.watermarkBefore, display(ts(100)));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 110);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(), 110);
    QCOMPARE(f.lastWatermarkText(id), ts(110));

    const QList<WatermarkChange> changes = f.ws->watermarkChanges(id);
    bool found = false;
    for (const WatermarkChange &change : changes) {
        if (change.cause == QLatin1String("reconcile")) {
            found = true;
            QCOMPARE(change.runId, result.runId);
            QCOMPARE(change.newValue, display(ts(100)));
        }
    }
    QVERIFY(found);
}

void TestCopyContract::watermarkNeverMovesBackwards() {
    EngineFixture f;
    makeOrders(f.src, 100);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    f.run(id);
    QCOMPARE(f.lastWatermarkText(id), ts(100)); // the maximum written, not the clock

    // The source loses its newest rows: its maximum is now below the watermark.
    execSql(f.src, QStringLiteral("DELETE FROM orders WHERE id > 90"));
    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::NoNewRows, qPrintable(describe(result)));
    QCOMPARE(f.lastWatermarkText(id), ts(100));
    QCOMPARE(f.stateWatermark(id).toString(), ts(100));
    QCOMPARE(result.watermarkAfter, display(ts(100)));

    // Rows between the source's new max and the watermark are still not re-read.
    makeOrders(f.src, 5, 91);
    QCOMPARE(f.run(id).rowsRead, 0);
    makeOrders(f.src, 1, 101);
    QCOMPARE(f.run(id).rowsRead, 1);
    QCOMPARE(f.lastWatermarkText(id), ts(101));
}

void TestCopyContract::expectRowsWithZeroRowsWarns() {
    EngineFixture f;
    makeOrders(f.src, 10);
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.expectRows = true;
    const qint64 expecting = f.addTable(draft);
    const qint64 quiet = f.addTable(EngineFixture::draft(
        QStringLiteral("orders"), QStringLiteral("updated_at"), QStringLiteral("orders_quiet")));
    QCOMPARE(f.run(expecting).status, IterationStatus::Succeeded);
    QCOMPARE(f.run(quiet).status, IterationStatus::Succeeded);
    QCOMPARE(f.run(expecting).status, IterationStatus::Warning);
    QCOMPARE(f.run(quiet).status, IterationStatus::NoNewRows);
}

void TestCopyContract::nullWatermarksCounted() {
    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, ts TEXT, v TEXT)"));
    for (int i = 1; i <= 8; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2, 'v')"),
                {i, (i == 2 || i == 5 || i == 6) ? QVariant() : QVariant(ts(i))});
    const qint64 id = f.addTable(EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("ts")));
    IterationRecord result = f.run(id);
    QCOMPARE(result.rowsNullWatermark, 3);
    QCOMPARE(result.rowsRead, 5);
    QCOMPARE(result.status, IterationStatus::Warning);
    bool logged = false;
    for (const LogLine &line : result.log)
        logged = logged ||
                 (line.message.contains(QLatin1Char('3')) && line.message.contains(QStringLiteral("NULL")));
    QVERIFY(logged);
    // Reported in history too, not only in the returned record.
    const QList<RunRecord> runs = f.ws->runs(1, result.runId);
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs.first().iterations.first().rowsNullWatermark, 3);
}

void TestCopyContract::pausedTableSkipped() {
    EngineFixture f;
    makeOrders(f.src, 10);
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.active = false;
    const qint64 id = f.addTable(draft);
    IterationRecord result = f.run(id);
    QCOMPARE(result.status, IterationStatus::Skipped);
    QCOMPARE(result.rowsRead, 0);
    QVERIFY(!f.targetHas(QStringLiteral("orders")));
    QVERIFY(f.spec(id).lastWatermark.isNull());

    f.ws->setActive(id, true);
    QCOMPARE(f.run(id).rowsRead, 10);
}

void TestCopyContract::leaseHeldByLiveProcessSkips() {
    EngineFixture f;
    makeOrders(f.src, 10);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));

    // Held by another run of this (live) process.
    const qint64 otherRun = f.ws->beginRun(QStringLiteral("gui"), 1, false);
    QVERIFY(f.ws->acquireLease(id, otherRun, 600).acquired);
    IterationRecord result = f.run(id);
    QCOMPARE(result.status, IterationStatus::Skipped);
    QVERIFY2(result.error.contains(QStringLiteral("run %1").arg(otherRun)), qPrintable(result.error));
    QVERIFY2(result.error.contains(QString::number(QCoreApplication::applicationPid())),
             qPrintable(result.error));
    QVERIFY(!f.targetHas(QStringLiteral("orders")));
    f.ws->releaseLease(id, otherRun);

    // Held by another live process on this host.
    QProcess sleeper;
    sleeper.start(QStringLiteral("sleep"), {QStringLiteral("60")});
    QVERIFY(sleeper.waitForStarted());
    QVERIFY(f.ws->acquireLease(id, otherRun, 600).acquired);
    execSql(f.wsPath, QStringLiteral("UPDATE leases SET pid = ?1 WHERE table_id = ?2"),
            {sleeper.processId(), id});
    result = f.run(id);
    QCOMPARE(result.status, IterationStatus::Skipped);
    QVERIFY2(result.error.contains(QString::number(sleeper.processId())), qPrintable(result.error));
    QVERIFY(!f.targetHas(QStringLiteral("orders")));

    // Once it is gone, its lease is taken over at once (the expiry is still 10 minutes away).
    sleeper.kill();
    QVERIFY(sleeper.waitForFinished());
    result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 10);
}

void TestCopyContract::leaseOfDeadProcessTakenOver() {
    EngineFixture f;
    makeOrders(f.src, 10);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    const qint64 otherRun = f.ws->beginRun(QStringLiteral("cli"), 1, false);
    QVERIFY(f.ws->acquireLease(id, otherRun, 3600).acquired);
    const qint64 pid = deadPid();
    execSql(f.wsPath, QStringLiteral("UPDATE leases SET pid = ?1 WHERE table_id = ?2"), {pid, id});

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 10);
    // The lease is released at the end of the iteration.
    QCOMPARE(queryValue(f.wsPath, QStringLiteral("SELECT count(*) FROM leases WHERE table_id = ?1"), {id})
                 .toLongLong(),
             0);
}

void TestCopyContract::cancelBeforeStart() {
    EngineFixture f;
    makeOrders(f.src, 30);
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.batchSize = 10;
    const qint64 id = f.addTable(draft);
    std::atomic_bool cancel{true};
    CopyIteration::Options options;
    options.cancel = &cancel;
    IterationRecord result = f.run(id, options);
    QCOMPARE(result.status, IterationStatus::Cancelled);
    QCOMPARE(result.rowsWritten, 0);
    QVERIFY(f.spec(id).lastWatermark.isNull());
    QVERIFY(!f.targetHas(QStringLiteral("orders")) || countRows(f.dst, QStringLiteral("orders")) == 0);
    QVERIFY(f.stateWatermark(id).isNull());
}

void TestCopyContract::cancelWhileRunningRollsBack() {
    EngineFixture f;
    makeOrders(f.src, 100);
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.batchSize = 10;
    const qint64 id = f.addTable(draft);
    QCOMPARE(f.run(id).rowsRead, 100);
    makeOrders(f.src, 100, 101);

    IterationRecord result = runCancellingAfter(f, id, 30);
    QCOMPARE(result.status, IterationStatus::Cancelled);
    QCOMPARE(result.rowsWritten, 0);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 100);
    QCOMPARE(f.lastWatermarkText(id), ts(100));
    QCOMPARE(f.stateWatermark(id).toString(), ts(100));
    QCOMPARE(f.ws->lastIterationStatus(id), QStringLiteral("cancelled"));

    IterationRecord rerun = f.run(id);
    QCOMPARE(rerun.rowsRead, 100);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("orders"), QStringLiteral("orders")), 0);
}

void TestCopyContract::perBatchCommitResumesAfterCommittedBatches() {
    EngineFixture f;
    makeOrders(f.src, 100, 1, QStringLiteral("orders"), false); // no key: a double copy would show
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.batchSize = 10;
    draft.spec.commitPerBatch = true;
    const qint64 id = f.addTable(draft);

    IterationRecord result = runCancellingAfter(f, id, 35);
    QCOMPARE(result.status, IterationStatus::Cancelled);

    // What survives is whole committed batches plus the matching state row.
    const qint64 kept = countRows(f.dst, QStringLiteral("orders"));
    QVERIFY2(kept > 0 && kept < 100 && kept % 10 == 0, qPrintable(QString::number(kept)));
    QCOMPARE(result.rowsWritten, kept);
    const QString position = f.lastWatermarkText(id);
    QCOMPARE(position, ts(int(kept)));
    QCOMPARE(f.stateWatermark(id).toString(), position);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT max(updated_at) FROM orders")).toString(), position);

    IterationRecord rerun = f.run(id);
    QVERIFY2(rerun.status == IterationStatus::Succeeded, qPrintable(describe(rerun)));
    QCOMPARE(rerun.rowsRead, 100 - kept);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 100);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(), 100);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("orders"), QStringLiteral("orders")), 0);
}

// Without a tiebreak the position cannot point inside a run of equal watermarks, so a per-batch
// commit must never land there: otherwise the rest of the tie is lost after an interruption.
void TestCopyContract::perBatchCommitNeverSplitsUntiedTies() {
    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, ts TEXT NOT NULL, v TEXT)"));
    for (int i = 1; i <= 10; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2, 'x')"), {i, i <= 4 ? ts(i) : ts(5)});
    TableDraft draft = EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("ts"));
    draft.spec.batchSize = 2;
    draft.spec.commitPerBatch = true;
    const qint64 id = f.addTable(draft);

    // Interrupted in the middle of the six tied rows.
    IterationRecord interrupted = runCancellingAfter(f, id, 8);
    QCOMPARE(interrupted.status, IterationStatus::Cancelled);
    const qint64 kept = countRows(f.dst, QStringLiteral("ev"));
    QVERIFY2(kept <= 4, qPrintable(QString::number(kept))); // none of the tie committed without the rest

    IterationRecord rerun = f.run(id);
    QVERIFY2(rerun.status == IterationStatus::Succeeded, qPrintable(describe(rerun)));
    QCOMPARE(countRows(f.dst, QStringLiteral("ev")), 10);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("ev"), QStringLiteral("ev")), 0);
}

void TestCopyContract::timestampSpellings_data() {
    QTest::addColumn<QChar>("separator");
    QTest::addColumn<QString>("zone");
    QTest::addColumn<int>("digits");
    QTest::addColumn<QString>("declared");
    QTest::newRow("T, Z, 3 digits") << QChar(u'T') << QStringLiteral("Z") << 3 << QStringLiteral("TIMESTAMP");
    QTest::newRow("space, no zone, 6 digits") << QChar(u' ') << QString() << 6 << QStringLiteral("TEXT");
    QTest::newRow("T, no zone, 6 digits") << QChar(u'T') << QString() << 6 << QStringLiteral("DATETIME");
    QTest::newRow("space, Z, 3 digits") << QChar(u' ') << QStringLiteral("Z") << 3 << QStringLiteral("TEXT");
    QTest::newRow("T, Z, 6 digits") << QChar(u'T') << QStringLiteral("Z") << 6 << QStringLiteral("TEXT");
    QTest::newRow("space, none, 0 digits") << QChar(u' ') << QString() << 0 << QStringLiteral("TEXT");
}

void TestCopyContract::timestampSpellings() {
    QFETCH(QChar, separator);
    QFETCH(QString, zone);
    QFETCH(int, digits);
    QFETCH(QString, declared);
    TimestampSpelling spelling;
    spelling.separator = separator;
    spelling.zone = zone;
    spelling.fractionDigits = digits;
    // Neighbouring values one unit of the finest digit apart: a watermark cut coarser re-reads or skips.
    const qint64 step = digits == 6 ? 1 : digits == 3 ? 1000 : 1000000;
    const qint64 base = 1753916718LL * 1000000LL; // 2025-07-30T23:05:18Z
    auto spelled = [&](int i) {
        return *formatTimestamp(base + i * step, spelling);
    };

    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, at %1 NOT NULL)").arg(declared));
    for (int i = 1; i <= 5; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2)"), {i, spelled(i)});
    execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (6, ?1)"), {spelled(5)}); // a tie at the max
    const qint64 id = f.addTable(EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("at")));
    QCOMPARE(f.spec(id).watermarkType, WatermarkType::Timestamp);

    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 6);
    QCOMPARE(f.lastWatermarkText(id), spelled(5)); // kept in the column's own spelling
    QCOMPARE(f.spec(id).lastWatermark.micros(), base + 5 * step);

    for (int i = 6; i <= 8; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2)"), {i + 1, spelled(i)});
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 3);
    QCOMPARE(f.lastWatermarkText(id), spelled(8));
    QCOMPARE(countRows(f.dst, QStringLiteral("ev")), 9);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("ev"), QStringLiteral("ev")), 0);
    QCOMPARE(f.run(id).rowsRead, 0);
}

void TestCopyContract::integerWatermarkNearMax() {
    constexpr qint64 max = std::numeric_limits<qint64>::max();
    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL)"));
    for (int i = 1; i <= 5; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2)"), {i, max - 10 + i}); // up to max - 5
    const qint64 id = f.addTable(EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("seq")));
    QCOMPARE(f.spec(id).watermarkType, WatermarkType::Integer);
    QCOMPARE(f.run(id).rowsRead, 5);
    QCOMPARE(f.spec(id).lastWatermark.toInteger(), max - 5);
    QCOMPARE(f.stateWatermark(id).toString(), QString::number(max - 5));

    // Neighbours a double could not tell apart.
    execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (6, ?1)"), {max - 1});
    execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (7, ?1)"), {max});
    QCOMPARE(f.run(id).rowsRead, 2);
    QCOMPARE(f.spec(id).lastWatermark.toInteger(), max);
    QCOMPARE(f.run(id).rowsRead, 0);
    QCOMPARE(countRows(f.dst, QStringLiteral("ev")), 7);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT seq FROM ev WHERE id = 6")).toLongLong(), max - 1);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("ev"), QStringLiteral("ev")), 0);
}

void TestCopyContract::mixedSpellingsRefused() {
    EngineFixture f;
    makeOrders(f.src, 10);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    QCOMPARE(f.run(id).rowsRead, 10);

    execSql(f.src, QStringLiteral("INSERT INTO orders VALUES (11, 'c', 1.0, '2025-03-01 00:00:00')"));
    IterationRecord result = f.run(id);
    QCOMPARE(result.status, IterationStatus::Failed);
    QVERIFY2(result.error.contains(QStringLiteral("updated_at")), qPrintable(result.error));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 10);
    QCOMPARE(f.lastWatermarkText(id), ts(10));

    // Adding such a table is refused up front, naming the column.
    try {
        prepareTable(*f.ws, EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"),
                                                 QStringLiteral("orders2")));
        QFAIL("a column mixing spellings was accepted");
    } catch (const ValidationError &error) {
        QVERIFY2(error.message().contains(QStringLiteral("updated_at")), qPrintable(error.message()));
    }
}

void TestCopyContract::hostileIdentifiers_data() {
    QTest::addColumn<QString>("table");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("watermark");
    QTest::addColumn<QString>("target");
    QTest::addColumn<bool>("merge");
    QTest::newRow("quotes") << QStringLiteral("or\"ders") << QStringLiteral("i\"d")
                            << QStringLiteral("up\"dated") << QStringLiteral("out\"\"put") << false;
    QTest::newRow("spaces and semicolons")
        << QStringLiteral("orders; DROP TABLE sentinel; --") << QStringLiteral("key col")
        << QStringLiteral("updated at;") << QStringLiteral("x\"); DROP TABLE sentinel; --") << true;
    QTest::newRow("non-ASCII") << QStringLiteral("Bestellungen Größe") << QStringLiteral("schlüssel")
                               << QStringLiteral("geändert_am") << QStringLiteral("Ziel ✓") << true;
    QTest::newRow("brackets and backticks") << QStringLiteral("[o]`r'd") << QStringLiteral("`k`")
                                            << QStringLiteral("[w]") << QStringLiteral("'t'") << false;
}

void TestCopyContract::hostileIdentifiers() {
    QFETCH(QString, table);
    QFETCH(QString, key);
    QFETCH(QString, watermark);
    QFETCH(QString, target);
    QFETCH(bool, merge);
    EngineFixture f;
    for (const QString &db : {f.src, f.dst}) {
        execSql(db, QStringLiteral("CREATE TABLE sentinel (x INTEGER)"));
        execSql(db, QStringLiteral("INSERT INTO sentinel VALUES (42)"));
    }
    execSql(f.src, QStringLiteral("CREATE TABLE %1 (%2 INTEGER PRIMARY KEY, %3 TEXT NOT NULL, \"v;\" TEXT)")
                       .arg(quoteIdentifier(table), quoteIdentifier(key), quoteIdentifier(watermark)));
    const QString insert = QStringLiteral("INSERT INTO %1 VALUES (?1, ?2, ?3)").arg(quoteIdentifier(table));
    for (int i = 1; i <= 20; ++i)
        execSql(f.src, insert, {i, ts(i), QStringLiteral("'); DROP TABLE sentinel; --")});
    const QStringList sourceTables = tableNames(f.src);

    TableDraft draft = EngineFixture::draft(table, watermark, target);
    draft.spec.tiebreakColumn = key;
    if (merge)
        draft.spec.mode = WriteMode::Merge;
    draft.spec.batchSize = 7;
    const qint64 id = f.addTable(draft);
    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 20);
    for (int i = 21; i <= 25; ++i)
        execSql(f.src, insert, {i, ts(i), QStringLiteral("v")});
    QCOMPARE(f.run(id).rowsRead, 5);

    QCOMPARE(countRows(f.dst, target), 25);
    QCOMPARE(symmetricDifference(f.dst, f.src, target, table), 0);
    QCOMPARE(tableNames(f.src), sourceTables);
    QStringList expected = {QStringLiteral("sentinel"), target, QStringLiteral("tidemark_state")};
    expected.sort();
    QCOMPARE(tableNames(f.dst), expected);
    for (const QString &db : {f.src, f.dst})
        QCOMPARE(queryValue(db, QStringLiteral("SELECT x FROM sentinel")).toLongLong(), 42);
    const VerifyResult verify = verifyTable(*f.ws, id);
    QVERIFY2(verify.matches, qPrintable(verify.difference));
}

void TestCopyContract::dryRun() {
    EngineFixture f;
    makeOrders(f.src, 40);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    CopyIteration::Options dry;
    dry.dryRun = true;

    IterationRecord first = f.run(id, dry);
    QCOMPARE(first.status, IterationStatus::DryRun);
    QCOMPARE(first.rowsRead, 40);
    QCOMPARE(first.rowsWritten, 0);
    QVERIFY(first.watermarkBefore.isEmpty());
    QCOMPARE(first.watermarkAfter, display(ts(40)));
    QVERIFY(!f.targetHas(QStringLiteral("orders")));
    QVERIFY(f.spec(id).lastWatermark.isNull());

    QCOMPARE(f.run(id).rowsRead, 40);
    makeOrders(f.src, 15, 41);
    IterationRecord second = f.run(id, dry);
    QCOMPARE(second.status, IterationStatus::DryRun);
    QCOMPARE(second.rowsRead, 15);
    QCOMPARE(second.rowsWritten, 0);
    QCOMPARE(second.watermarkBefore, display(ts(40)));
    QCOMPARE(second.watermarkAfter, display(ts(55)));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 40);
    QCOMPARE(f.lastWatermarkText(id), ts(40));
    QCOMPARE(f.stateWatermark(id).toString(), ts(40));
    QCOMPARE(f.run(id).rowsRead, 15);
}

void TestCopyContract::backfillKeepOnMerge() {
    EngineFixture f;
    makeOrders(f.src, 100);
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.mode = WriteMode::Merge;
    const qint64 id = f.addTable(draft);
    f.run(id);
    execSql(f.src, QStringLiteral(
                       "UPDATE orders SET customer = 'fixed' WHERE id > 60")); // drift the watermark missed

    BackfillRequest request;
    request.tableId = id;
    request.fromText = QStringLiteral("2025-01-01T01:00:00Z"); // = ts(60)
    request.action = BackfillTargetAction::Keep;
    const BackfillResult result = runBackfill(*f.ws, request);
    QCOMPARE(result.before.nativeText(), ts(100));
    QCOMPARE(f.lastWatermarkText(id), ts(60));
    QCOMPARE(f.stateWatermark(id).toString(), ts(60));
    QVERIFY(hasCause(f.ws->watermarkChanges(id), QStringLiteral("backfill")));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 100);

    IterationRecord rerun = f.run(id);
    QCOMPARE(rerun.rowsRead, 40);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 100);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("orders"), QStringLiteral("orders")), 0);
}

void TestCopyContract::backfillDeleteNewerOnAppend() {
    EngineFixture f;
    makeOrders(f.src, 100, 1, QStringLiteral("orders"), false);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    f.run(id);
    BackfillRequest request;
    request.tableId = id;
    request.fromText = ts(60);
    request.action = BackfillTargetAction::DeleteNewer;
    const BackfillResult result = runBackfill(*f.ws, request);
    QCOMPARE(result.rowsDeleted, 40);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 60);
    QCOMPARE(f.lastWatermarkText(id), ts(60));

    QCOMPARE(f.run(id).rowsRead, 40);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 100);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(), 100);
}

void TestCopyContract::backfillTruncate() {
    EngineFixture f;
    makeOrders(f.src, 100, 1, QStringLiteral("orders"), false);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    f.run(id);
    execSql(f.dst, QStringLiteral("DELETE FROM orders WHERE id < 10")); // damage a full reload repairs
    BackfillRequest request;
    request.tableId = id;
    request.fromText = QStringLiteral("2024-12-31");
    request.action = BackfillTargetAction::Truncate;
    runBackfill(*f.ws, request);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 0);

    QCOMPARE(f.run(id).rowsRead, 100);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 100);
    QCOMPARE(symmetricDifference(f.dst, f.src, QStringLiteral("orders"), QStringLiteral("orders")), 0);
}

void TestCopyContract::backfillKeepOnAppendNeedsConfirmation() {
    EngineFixture f;
    makeOrders(f.src, 100, 1, QStringLiteral("orders"), false);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    f.run(id);
    BackfillRequest request;
    request.tableId = id;
    request.fromText = ts(90);
    request.action = BackfillTargetAction::Keep;
    QVERIFY_THROWS_EXCEPTION(ValidationError, runBackfill(*f.ws, request));
    QCOMPARE(f.lastWatermarkText(id), ts(100));
    QCOMPARE(f.stateWatermark(id).toString(), ts(100));
    QVERIFY(!hasCause(f.ws->watermarkChanges(id), QStringLiteral("backfill")));

    request.confirmDuplicates = true;
    runBackfill(*f.ws, request);
    QCOMPARE(f.lastWatermarkText(id), ts(90));
    QCOMPARE(f.run(id).rowsRead, 10);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 110); // the duplicates the user accepted
}

void TestCopyContract::verifyMatchesAndFindsTampering() {
    EngineFixture f;
    makeOrders(f.src, 50);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    f.run(id);
    makeOrders(f.src, 5, 51); // newer than the watermark: left out of both sides
    VerifyResult clean = verifyTable(*f.ws, id);
    QVERIFY2(clean.matches, qPrintable(clean.difference));
    QCOMPARE(clean.sourceRows, 50);
    QCOMPARE(clean.targetRows, 50);

    execSql(f.dst, QStringLiteral("DELETE FROM orders WHERE id = 7"));
    execSql(f.dst, QStringLiteral("UPDATE orders SET amount = -1 WHERE id = 8"));
    execSql(f.dst, QStringLiteral("INSERT INTO orders VALUES (1000, 'ghost', 1.0, ?1)"), {ts(20)});
    VerifyResult tampered = verifyTable(*f.ws, id);
    QVERIFY(!tampered.matches);
    QCOMPARE(tampered.missingInTarget, 1);
    QCOMPARE(tampered.extraInTarget, 1);
    QCOMPARE(tampered.differing, 1);
    QVERIFY(!tampered.difference.isEmpty());
}

QTEST_GUILESS_MAIN(TestCopyContract)
#include "tst_copycontract.moc"
