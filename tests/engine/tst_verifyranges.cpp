// SPDX-License-Identifier: MIT
// Verify by range checksums (model/connectors/rowchecksum.h): each database sums its rows by
// bucket of keys and only the buckets that differ are read. The result must be the one reading
// every row gives, field by field, on SQLite -> SQLite, SQLite -> PostgreSQL and PostgreSQL ->
// PostgreSQL; and where the two sides hold the same rows, no bucket may differ, which proves both
// engines spell each value's canonical text the same way. PostgreSQL runs against the real
// server (TIDEMARK_PG_PORT, see scripts/pgcluster.sh).
#include "model/engine/verifier.h"
#include "tests/engine/enginefixture.h"
#include "tests/support/pgsession.h"

#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

enum class Pairing { SqliteToSqlite, SqliteToPostgres, PostgresToPostgres };

QString pairingName(Pairing pairing) {
    switch (pairing) {
    case Pairing::SqliteToSqlite:
        return QStringLiteral("sqlite->sqlite");
    case Pairing::SqliteToPostgres:
        return QStringLiteral("sqlite->postgres");
    case Pairing::PostgresToPostgres:
        break;
    }
    return QStringLiteral("postgres->postgres");
}

// Both methods on one table: the same figures and the same rows at fault.
VerifyResult verifyBothWays(Workspace &ws, qint64 tableId) {
    const VerifyResult ranges = verifyTable(ws, tableId, nullptr, VerifyMethod::Ranges);
    const VerifyResult rows = verifyTable(ws, tableId, nullptr, VerifyMethod::EveryRow);
    [&] {
        QVERIFY(!rows.comparedByRanges);
        QCOMPARE(ranges.matches, rows.matches);
        QCOMPARE(ranges.sourceRows, rows.sourceRows);
        QCOMPARE(ranges.targetRows, rows.targetRows);
        QCOMPARE(ranges.missingInTarget, rows.missingInTarget);
        QCOMPARE(ranges.extraInTarget, rows.extraInTarget);
        QCOMPARE(ranges.extraPastWatermark, rows.extraPastWatermark);
        QCOMPARE(ranges.differing, rows.differing);
        QCOMPARE(ranges.nullWatermarkRows, rows.nullWatermarkRows);
        QCOMPARE(ranges.unorderableWatermarkRows, rows.unorderableWatermarkRows);
        QCOMPARE(ranges.difference, rows.difference);
        QStringList rangeExamples = ranges.examples, rowExamples = rows.examples;
        rangeExamples.sort();
        rowExamples.sort();
        QCOMPARE(rangeExamples, rowExamples);
    }();
    return ranges;
}

} // namespace

class TestVerifyRanges : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void sameRowsSumEqual_data();
    void sameRowsSumEqual();
    void faultsAreFoundAsEveryRowFindsThem_data();
    void faultsAreFoundAsEveryRowFindsThem();
    void keylessTablesReadEveryRow();

private:
    void addPairings();
    // The orders table (id key, customer, amount, updated_at; PostgreSQL also price, flag and
    // payload) with `rows` rows, in the source, copied once (m_firstRun).
    qint64 addOrdersTable(Pairing pairing, int rows);
    void execSource(const QString &sql);
    void execTarget(const QString &sql);

    std::unique_ptr<EngineFixture> m_fixture;
    Pairing m_pairing = Pairing::SqliteToSqlite;
    IterationRecord m_firstRun; // the table's first copy
    QString m_pgSchema;         // PostgreSQL's tables live in a schema of the test's own
};

void TestVerifyRanges::init() {
    m_fixture = std::make_unique<EngineFixture>();
    static int tests = 0;
    m_pgSchema = QStringLiteral("verify_ranges_%1_%2").arg(QCoreApplication::applicationPid()).arg(++tests);
}

void TestVerifyRanges::cleanup() {
    if (m_pairing != Pairing::SqliteToSqlite && !pgPort().isEmpty()) {
        PgSession pg;
        pg.exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(m_pgSchema));
        // The state rows of the dropped tables (the state table is shared by the database).
        pg.exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE starts_with(target_table, $1)"),
                {quoteIdentifier(m_pgSchema) + QLatin1Char('.')});
    }
    m_fixture.reset();
}

void TestVerifyRanges::addPairings() {
    QTest::addColumn<Pairing>("pairing");
    for (Pairing pairing : {Pairing::SqliteToSqlite, Pairing::SqliteToPostgres, Pairing::PostgresToPostgres})
        QTest::newRow(qPrintable(pairingName(pairing))) << pairing;
}

void TestVerifyRanges::execSource(const QString &sql) {
    if (m_pairing == Pairing::PostgresToPostgres)
        PgSession().exec(
            QString(sql).replace(QStringLiteral("orders"), m_pgSchema + QStringLiteral(".orders")));
    else
        execSql(m_fixture->src, sql);
}

void TestVerifyRanges::execTarget(const QString &sql) {
    if (m_pairing == Pairing::SqliteToSqlite)
        execSql(m_fixture->dst, sql);
    else
        PgSession().exec(
            QString(sql).replace(QStringLiteral("orders"), m_pgSchema + QStringLiteral(".orders_copy")));
}

qint64 TestVerifyRanges::addOrdersTable(Pairing pairing, int rows) {
    m_pairing = pairing;
    if (pairing != Pairing::SqliteToSqlite) {
        ConnectionSpec pg;
        pg.name = QStringLiteral("pg");
        pg.kind = ConnectionKind::Postgres;
        pg.conninfo = pgConninfo();
        m_fixture->ws->addConnection(pg);
        PgSession().exec(QStringLiteral("CREATE SCHEMA %1").arg(m_pgSchema));
    }
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    if (pairing == Pairing::PostgresToPostgres) {
        PgSession pg;
        pg.exec(QStringLiteral(
                    "CREATE TABLE %1.orders (id bigint PRIMARY KEY, customer text NOT NULL, amount float8, "
                    "price numeric(12,2), flag boolean, payload bytea, updated_at timestamptz NOT NULL)")
                    .arg(m_pgSchema));
        pg.exec(
            QStringLiteral("INSERT INTO %1.orders SELECT g, 'customer ' || g, g / 7.0, g / 3.0, g % 2 = 0, "
                           "decode(lpad(to_hex(g), 8, '0'), 'hex'), "
                           "timestamptz '2025-01-01 00:00:00+00' + g * interval '1 second' "
                           "FROM generate_series(1, $1) g")
                .arg(m_pgSchema),
            {rows});
        draft.spec.sourceConnection = QStringLiteral("pg");
        draft.spec.sourceTable = m_pgSchema + QStringLiteral(".orders");
    } else {
        makeOrders(m_fixture->src, rows);
    }
    if (pairing != Pairing::SqliteToSqlite) {
        draft.spec.targetConnection = QStringLiteral("pg");
        draft.spec.targetTable = m_pgSchema + QStringLiteral(".orders_copy");
    }
    const qint64 id = m_fixture->addTable(draft);
    m_firstRun = m_fixture->run(id);
    return id;
}

void TestVerifyRanges::sameRowsSumEqual_data() {
    addPairings();
}

// A copied table verifies by ranges with no bucket read: every value's canonical text is spelled
// the same by both engines (integers, text, reals, decimals, booleans, bytes, instants).
void TestVerifyRanges::sameRowsSumEqual() {
    QFETCH(Pairing, pairing);
    if (pairing != Pairing::SqliteToSqlite)
        TIDEMARK_REQUIRE_POSTGRES();
    const qint64 id = addOrdersTable(pairing, 3000);
    QVERIFY2(m_firstRun.status == IterationStatus::Succeeded, qPrintable(m_firstRun.error));
    const VerifyResult result = verifyBothWays(*m_fixture->ws, id);
    QVERIFY2(result.matches, qPrintable(result.difference));
    QVERIFY(result.comparedByRanges);
    QCOMPARE(result.differingRanges, 0);
    QCOMPARE(result.sourceRows, 3000);
    QCOMPARE(result.targetRows, 3000);
}

void TestVerifyRanges::faultsAreFoundAsEveryRowFindsThem_data() {
    addPairings();
}

// Missing, extra (inside and past the watermark) and changed rows, and rows not copied yet: ranges read only
// the buckets that hold them, and report what reading every row reports.
void TestVerifyRanges::faultsAreFoundAsEveryRowFindsThem() {
    QFETCH(Pairing, pairing);
    if (pairing != Pairing::SqliteToSqlite)
        TIDEMARK_REQUIRE_POSTGRES();
    const qint64 id = addOrdersTable(pairing, 3000);
    QVERIFY2(m_firstRun.status == IterationStatus::Succeeded, qPrintable(m_firstRun.error));
    // Past the watermark, spelled as the source spells its timestamps.
    const QString later = QLatin1Char('\'') + orderTimestamp(1000000) + QLatin1Char('\'');
    execTarget(QStringLiteral("DELETE FROM orders WHERE id IN (7, 1500)"));
    execTarget(QStringLiteral("UPDATE orders SET amount = -1 WHERE id = 8"));
    execTarget(QStringLiteral("UPDATE orders SET customer = 'changed' WHERE id = 2999"));
    execTarget(
        QStringLiteral("INSERT INTO orders (id, customer, amount, updated_at) VALUES (90000, 'ghost', 1, %1)")
            .arg(later));
    execSource(
        QStringLiteral("INSERT INTO orders (id, customer, amount, updated_at) VALUES (90001, 'new', 2, %1)")
            .arg(later));
    const VerifyResult result = verifyBothWays(*m_fixture->ws, id);
    QVERIFY(!result.matches);
    QVERIFY(result.comparedByRanges);
    QCOMPARE(result.missingInTarget, 2);
    QCOMPARE(result.differing, 2);
    QCOMPARE(result.extraInTarget, 1);
    QCOMPARE(result.extraPastWatermark, 1);
    QVERIFY2(result.differingRanges >= 5 && result.differingRanges <= 7,
             qPrintable(QString::number(result.differingRanges)));
}

// Without a key a row has no bucket: verify reads every row, and says so.
void TestVerifyRanges::keylessTablesReadEveryRow() {
    makeOrders(m_fixture->src, 100, 1, QStringLiteral("orders"), false);
    const qint64 id =
        m_fixture->addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    m_fixture->run(id);
    const VerifyResult result = verifyBothWays(*m_fixture->ws, id);
    QVERIFY2(result.matches, qPrintable(result.difference));
    QVERIFY(!result.comparedByRanges);
    QCOMPARE(result.sourceRows, 100);
}

QTEST_GUILESS_MAIN(TestVerifyRanges)
#include "tst_verifyranges.moc"
