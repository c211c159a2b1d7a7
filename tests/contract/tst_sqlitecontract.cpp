// SPDX-License-Identifier: MIT
// Copy-contract cases outside the matrix (tst_contractmatrix): SQLite-specific spellings and
// identifiers, leases, pausing, backfill and verify, through CopyIteration on SQLite -> SQLite.
#include "model/common/timestamp.h"
#include "model/domain/watermark.h"
#include "model/engine/backfill.h"
#include "model/engine/faultpoint.h"
#include "model/engine/verifier.h"
#include "tests/engine/enginefixture.h"

#include <QProcess>
#include <QTest>
#include <atomic>
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

class TestSqliteContract : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }
    void watermarkNeverMovesBackwards();
    void expectRowsWithZeroRowsWarns();
    void nullWatermarksCounted();
    void firstWindowSizedByTheProbe();
    void pushDownNeverChangesAValue();
    void tolerantFirstLoadSkipsTheRefusedRow();
    void wholeTableCopySeesARowCommittedAfterTheProbe();
    void pausedTableSkipped();
    void leaseHeldByLiveProcessSkips();
    void leaseOfDeadProcessTakenOver();
    void cancelBeforeStart();
    void timestampSpellings_data();
    void timestampSpellings();
    void integerWatermarkNearMax();
    void mixedSpellingsRefused();
    void hostileIdentifiers_data();
    void hostileIdentifiers();
    void backfillKeepOnMerge();
    void backfillDeleteNewerOnAppend();
    void backfillTruncate();
    void backfillKeepOnAppendNeedsConfirmation();
    void verifyMatchesAndFindsTampering();
};

void TestSqliteContract::watermarkNeverMovesBackwards() {
    EngineFixture f;
    makeOrders(f.src, 100);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    f.run(id);
    QCOMPARE(f.lastWatermarkText(id), ts(100)); // the maximum written, not the clock

    // The source loses its newest rows: its maximum is now below the watermark. The watermark
    // stays, and the run says the source is behind instead of a quiet "no new rows".
    execSql(f.src, QStringLiteral("DELETE FROM orders WHERE id > 90"));
    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Warning && result.sourceBehind, qPrintable(describe(result)));
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

void TestSqliteContract::expectRowsWithZeroRowsWarns() {
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

void TestSqliteContract::nullWatermarksCounted() {
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

// A first window holds every row that orders: the probe's count of the table, less the NULL and
// unorderable watermarks, gives its size without counting it (a streaming route, so that the
// size is the probe's, not what a push-down copied).
void TestSqliteContract::firstWindowSizedByTheProbe() {
    EngineFixture f;
    execSql(f.src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, ts TEXT, v TEXT)"));
    for (int i = 1; i <= 8; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2, 'v')"),
                {i, i == 2 || i == 5 ? QVariant() : QVariant(ts(i))});
    TableDraft draft = EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("ts"));
    draft.spec.commitPerBatch = true;
    const qint64 id = f.addTable(draft);
    execSql(f.src, QStringLiteral("UPDATE ev SET ts = 'soon' WHERE id = 6"));
    IterationRecord first = f.run(id);
    QCOMPARE(first.rowsNullWatermark, 2);
    QCOMPARE(first.rowsUnorderableWatermark, 1);
    QCOMPARE(first.windowRows, 5);
    QCOMPARE(first.rowsRead, 5);

    for (int i = 9; i <= 10; ++i)
        execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2, 'v')"), {i, ts(i)});
    IterationRecord second = f.run(id);
    QCOMPARE(second.windowRows, 2);
    QCOMPARE(second.rowsRead, 2);
}

// A target column whose affinity differs from its source column's would change a value as SQLite
// stores it (a REAL column rounds 2^53 + 1): such a table is never pushed down, so the row is
// refused by name, as the streaming writer refuses it, instead of landing rounded.
void TestSqliteContract::pushDownNeverChangesAValue() {
    EngineFixture f;
    const qint64 big = (qint64(1) << 53) + 1;
    execSql(f.src, QStringLiteral("CREATE TABLE big (id INTEGER PRIMARY KEY, ts TEXT, n INTEGER)"));
    execSql(f.src, QStringLiteral("INSERT INTO big VALUES (1, ?1, 7), (2, ?2, ?3)"), {ts(1), ts(2), big});
    execSql(f.dst, QStringLiteral("CREATE TABLE big (id INTEGER PRIMARY KEY, ts TEXT, n REAL)"));
    const qint64 strict = f.addTable(EngineFixture::draft(QStringLiteral("big"), QStringLiteral("ts")));
    IterationRecord refused = f.run(strict);
    QVERIFY2(refused.status == IterationStatus::Failed, qPrintable(describe(refused)));
    QVERIFY2(refused.error.contains(QLatin1String("'n'")) && refused.error.contains(QLatin1String("REAL")),
             qPrintable(refused.error));
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(*) FROM big")).toInt(), 0);

    TableDraft tolerant =
        EngineFixture::draft(QStringLiteral("big"), QStringLiteral("ts"), QStringLiteral("big2"));
    tolerant.spec.maxSkipped = 1;
    execSql(f.dst, QStringLiteral("CREATE TABLE big2 (id INTEGER PRIMARY KEY, ts TEXT, n REAL)"));
    IterationRecord skipped = f.run(f.addTable(tolerant));
    QVERIFY2(skipped.status == IterationStatus::Warning, qPrintable(describe(skipped)));
    QCOMPARE(skipped.rowsSkipped, 1);
    QCOMPARE(skipped.rowsWritten, 1);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(*) FROM big2 WHERE id = 2")).toInt(), 0);
}

// A first load copies the whole table in one statement; a row the target refuses ends that
// statement alone, and a table that may skip rows then streams them, skipping that one.
void TestSqliteContract::tolerantFirstLoadSkipsTheRefusedRow() {
    EngineFixture f;
    makeOrders(f.src, 50);
    // makeOrders' own columns, with one row refused.
    execSql(f.dst, QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, "
                                  "amount REAL, updated_at TIMESTAMP NOT NULL, CHECK (id <> 25))"));
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.maxSkipped = 1;
    IterationRecord result = f.run(f.addTable(draft));
    QVERIFY2(result.status == IterationStatus::Warning, qPrintable(describe(result)));
    QCOMPARE(result.rowsSkipped, 1);
    QCOMPARE(result.rowsWritten, 49);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(*) FROM orders")).toInt(), 49);
    QCOMPARE(result.watermarkAfter, display(ts(50)));
}

// A first load copies the whole table in one plain statement only while the source holds no row
// outside the window. The probe that said so ran before the write transaction: a row with a NULL
// watermark committed in between must be seen, and left behind.
void TestSqliteContract::wholeTableCopySeesARowCommittedAfterTheProbe() {
    EngineFixture f;
    makeOrders(f.src, 20);
    execSql(f.src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, ts TEXT, v TEXT)"));
    execSql(f.src, QStringLiteral("INSERT INTO ev SELECT id, updated_at, 'v' FROM orders"));
    const qint64 id = f.addTable(EngineFixture::draft(QStringLiteral("ev"), QStringLiteral("ts")));
    setFaultHook([&](const char *point) {
        if (qstrcmp(point, "before_write_transaction") == 0)
            execSql(f.src, QStringLiteral("INSERT INTO ev VALUES (21, NULL, 'late')"));
    });
    IterationRecord result = f.run(id);
    setFaultHook({});
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    QVERIFY(pushedDown(result));
    QCOMPARE(result.rowsWritten, 20);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(*) FROM ev")).toInt(), 20);
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(*) FROM ev WHERE id = 21")).toInt(), 0);
}

void TestSqliteContract::pausedTableSkipped() {
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

void TestSqliteContract::leaseHeldByLiveProcessSkips() {
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
    execWorkspaceSql(f.wsPath, QStringLiteral("UPDATE leases SET pid = ?1 WHERE table_id = ?2"),
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

void TestSqliteContract::leaseOfDeadProcessTakenOver() {
    EngineFixture f;
    makeOrders(f.src, 10);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    const qint64 otherRun = f.ws->beginRun(QStringLiteral("cli"), 1, false);
    QVERIFY(f.ws->acquireLease(id, otherRun, 3600).acquired);
    const qint64 pid = deadPid();
    execWorkspaceSql(f.wsPath, QStringLiteral("UPDATE leases SET pid = ?1 WHERE table_id = ?2"), {pid, id});

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), 10);
    // The lease is released at the end of the iteration.
    QCOMPARE(
        execWorkspaceSql(f.wsPath, QStringLiteral("SELECT count(*) FROM leases WHERE table_id = ?1"), {id})
            .toLongLong(),
        0);
}

void TestSqliteContract::cancelBeforeStart() {
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

void TestSqliteContract::timestampSpellings_data() {
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

void TestSqliteContract::timestampSpellings() {
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

void TestSqliteContract::integerWatermarkNearMax() {
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

void TestSqliteContract::mixedSpellingsRefused() {
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

void TestSqliteContract::hostileIdentifiers_data() {
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

void TestSqliteContract::hostileIdentifiers() {
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

void TestSqliteContract::backfillKeepOnMerge() {
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

void TestSqliteContract::backfillDeleteNewerOnAppend() {
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

void TestSqliteContract::backfillTruncate() {
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

void TestSqliteContract::backfillKeepOnAppendNeedsConfirmation() {
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

void TestSqliteContract::verifyMatchesAndFindsTampering() {
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

QTEST_GUILESS_MAIN(TestSqliteContract)
#include "tst_sqlitecontract.moc"
