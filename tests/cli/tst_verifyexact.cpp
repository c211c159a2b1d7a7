// SPDX-License-Identifier: MIT
// `tidemark-cli verify` is exact on every pairing's type matrix: edge values
// copied with `run` verify as matching; then drift injected into the target one value at a time
// is reported naming the row's key and the column; rows in the target past the watermark that
// the source never had are extra; rows whose watermark cannot be ordered (±infinity, NaN, text
// that is no timestamp) are reported beside NULL-watermark rows, never a crash. PostgreSQL
// pairings run against the real server (TIDEMARK_PG_PORT, see scripts/pgcluster.sh).
#include "model/common/sqlquote.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

using namespace tidemark;
using namespace tidemark::test;

namespace {

enum class Engine { Sqlite, Postgres };

// One value changed in the target, and how to put it back.
struct Drift {
    QString name;
    QString change; // SQL on the target; %1 is the target table
    QString revert;
    qint64 id;      // the row's key
    QString kind;   // "differs" | "extra_in_target"
    QString column; // the column that differs (differs only)
    bool pastWatermark = false;
};

// The edge values both engines hold, one row each. SQLite's column types map to PostgreSQL's
// (TIMESTAMP WITH TIME ZONE -> timestamptz, TIMESTAMP -> timestamp, NUMERIC -> numeric, ...).
const char *kSqliteSource = R"(
CREATE TABLE ev (id INTEGER PRIMARY KEY, r REAL, i INTEGER, t TEXT, b BLOB,
                 ts TIMESTAMP WITH TIME ZONE, tn TIMESTAMP, n NUMERIC, d DATE);
INSERT INTO ev VALUES (1, 1.0, 9223372036854775807, 'a', x'00ff', '2025-01-01T00:00:00.123456Z',
                       '2025-01-01 00:00:00', 1.5, '2025-01-01');
INSERT INTO ev VALUES (2, 1.0 + 1.0 / 4503599627370496, -9223372036854775808,
                       'tab' || char(9) || 'nl' || char(10) || 'x\ "q" é', x'',
                       '2025-01-01 10:00:00+02:00', '9999-12-31T23:59:59.999999', 12.3, '0001-01-01');
INSERT INTO ev VALUES (3, 0.1, 0, '', NULL, '0001-01-01T00:00:00Z', NULL, NULL, NULL);
INSERT INTO ev VALUES (4, 9e999, -1, 'ü€😀', x'01', NULL, NULL, 1e20, '9999-12-31');
INSERT INTO ev VALUES (5, -9e999, 1, NULL, x'0102', '2025-01-01T00:00:00.000001Z', NULL, 3, NULL);
INSERT INTO ev VALUES (6, 4.9406564584124654e-324, 2, 'x', x'00', NULL, NULL, 0.1, NULL);
INSERT INTO ev VALUES (7, 0.0, 3, char(1) || char(127), x'ff', NULL, NULL, NULL, NULL);
INSERT INTO ev VALUES (8, 1.7976931348623157e308, 4, NULL, NULL, NULL, NULL, NULL, NULL);
)";

// The same rows in PostgreSQL's own types, plus what only PostgreSQL holds: BC, ±infinity and
// years past 9999 (a SQLite target keeps them as the text PostgreSQL spells), float4, boolean,
// a numeric's scale; and, when the target is PostgreSQL too, NaN and -0.0 (a SQLite REAL column
// cannot hold them: the copy refuses or changes them, which verify must and does report).
QStringList postgresSource(const QString &table, bool targetIsPostgres) {
    const QString create = QStringLiteral(R"(
CREATE TABLE %1 (id bigint PRIMARY KEY, r float8, i bigint, t text, b bytea, ts timestamptz,
                 tn timestamp, n numeric, d date, f4 real, bo boolean))")
                               .arg(table);
    QString insert = QStringLiteral(R"(
INSERT INTO %1 VALUES
 (1, 1.0, 9223372036854775807, 'a', '\x00ff', '2025-01-01 00:00:00.123456+00', '2025-01-01 00:00:00',
  1.50, '2025-01-01', 1.1, true),
 (2, 1.0000000000000002, -9223372036854775808, E'tab\tnl\nx\\ "q" é', '\x', '2025-01-01 10:00:00+02',
  '9999-12-31 23:59:59.999999', 12.3, '0001-01-01', 3.4028235e38, false),
 (3, 0.1, 0, '', NULL, '0001-01-01 00:00:00+00', NULL, NULL, NULL, 1e-45, NULL),
 (4, 'Infinity', -1, 'ü€😀', '\x01', NULL, NULL, 1e20, '9999-12-31', 'Infinity', NULL),
 (5, '-Infinity', 1, NULL, '\x0102', '2025-01-01 00:00:00.000001+00', NULL, 3, NULL, '-Infinity', NULL),
 (6, 4.9406564584124654e-324, 2, 'x', '\x00', NULL, NULL, 0.1, NULL, NULL, NULL),
 (7, %2, 3, E'\x01\x7f', '\xff', NULL, NULL, NULL, NULL, NULL, NULL),
 (8, 1.7976931348623157e308, 4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (9, NULL, 5, NULL, NULL, 'infinity', '-infinity', 'NaN', '-infinity', NULL, NULL),
 (10, NULL, 6, NULL, NULL, '0044-03-15 10:00:00+00 BC', '0044-03-15 10:00:00.5 BC', 0.000001, '0044-03-15 BC',
  NULL, NULL),
 (11, NULL, 7, NULL, NULL, '12345-06-07 08:09:10.000001+00', '12345-06-07 08:09:10', -0.10, '12345-06-07',
  NULL, NULL))")
                         .arg(table, targetIsPostgres ? QStringLiteral("'-0'") : QStringLiteral("0"));
    if (targetIsPostgres)
        insert += QStringLiteral(", (12, 'NaN', 8, NULL, NULL, NULL, NULL, NULL, NULL, 'NaN', NULL)");
    return {create, insert};
}

QList<Drift> driftsFor(Engine source, Engine target) {
    QList<Drift> drifts;
    const bool pg = target == Engine::Postgres;
    // First what verify used to miss: extra target rows (past the watermark, then inside it).
    drifts << Drift{QStringLiteral("an extra row past the watermark"),
                    QStringLiteral("INSERT INTO %1 (id, t) VALUES (1000, 'ghost')"),
                    QStringLiteral("DELETE FROM %1 WHERE id = 1000"),
                    1000,
                    QStringLiteral("extra_in_target"),
                    QString(),
                    true};
    drifts << Drift{QStringLiteral("an extra row inside the window"),
                    QStringLiteral("INSERT INTO %1 (id, t) VALUES (0, 'ghost')"),
                    QStringLiteral("DELETE FROM %1 WHERE id = 0"),
                    0,
                    QStringLiteral("extra_in_target"),
                    QString()};
    drifts << Drift{QStringLiteral("1.0 -> 1.0000000000000002"),
                    pg ? QStringLiteral("UPDATE %1 SET r = '1.0000000000000002' WHERE id = 1")
                       : QStringLiteral("UPDATE %1 SET r = 1.0 + 1.0 / 4503599627370496 WHERE id = 1"),
                    QStringLiteral("UPDATE %1 SET r = 1.0 WHERE id = 1"),
                    1,
                    QStringLiteral("differs"),
                    QStringLiteral("r")};
    drifts << Drift{QStringLiteral("a microsecond"),
                    pg ? QStringLiteral("UPDATE %1 SET ts = '2025-01-01 00:00:00.123457+00' WHERE id = 1")
                       : QStringLiteral("UPDATE %1 SET ts = '2025-01-01T00:00:00.123457Z' WHERE id = 1"),
                    pg ? QStringLiteral("UPDATE %1 SET ts = '2025-01-01 00:00:00.123456+00' WHERE id = 1")
                       : QStringLiteral("UPDATE %1 SET ts = '2025-01-01T00:00:00.123456Z' WHERE id = 1"),
                    1,
                    QStringLiteral("differs"),
                    QStringLiteral("ts")};
    drifts << Drift{QStringLiteral("a byte in a blob"),
                    pg ? QStringLiteral("UPDATE %1 SET b = '\\x00fe' WHERE id = 1")
                       : QStringLiteral("UPDATE %1 SET b = x'00fe' WHERE id = 1"),
                    pg ? QStringLiteral("UPDATE %1 SET b = '\\x00ff' WHERE id = 1")
                       : QStringLiteral("UPDATE %1 SET b = x'00ff' WHERE id = 1"),
                    1,
                    QStringLiteral("differs"),
                    QStringLiteral("b")};
    drifts << Drift{QStringLiteral("a control byte in text"),
                    pg ? QStringLiteral("UPDATE %1 SET t = E'a\\x01' WHERE id = 1")
                       : QStringLiteral("UPDATE %1 SET t = 'a' || char(1) WHERE id = 1"),
                    QStringLiteral("UPDATE %1 SET t = 'a' WHERE id = 1"),
                    1,
                    QStringLiteral("differs"),
                    QStringLiteral("t")};
    drifts << Drift{QStringLiteral("the lowest bit of an integer extreme"),
                    QStringLiteral("UPDATE %1 SET i = 9223372036854775806 WHERE id = 1"),
                    QStringLiteral("UPDATE %1 SET i = 9223372036854775807 WHERE id = 1"),
                    1,
                    QStringLiteral("differs"),
                    QStringLiteral("i")};
    // A numeric's scale is part of its value where the engine keeps it (PostgreSQL's numeric,
    // the text a SQLite target keeps a PostgreSQL numeric as); a SQLite NUMERIC holds a real.
    if (source == Engine::Sqlite && target == Engine::Sqlite)
        drifts << Drift{QStringLiteral("a numeric"),
                        QStringLiteral("UPDATE %1 SET n = 1.25 WHERE id = 1"),
                        QStringLiteral("UPDATE %1 SET n = 1.5 WHERE id = 1"),
                        1,
                        QStringLiteral("differs"),
                        QStringLiteral("n")};
    else if (source == Engine::Sqlite)
        drifts << Drift{QStringLiteral("a numeric's scale"),
                        QStringLiteral("UPDATE %1 SET n = 1.50 WHERE id = 1"),
                        QStringLiteral("UPDATE %1 SET n = 1.5 WHERE id = 1"),
                        1,
                        QStringLiteral("differs"),
                        QStringLiteral("n")};
    else
        drifts << Drift{QStringLiteral("a numeric's scale"),
                        QStringLiteral("UPDATE %1 SET n = '1.5' WHERE id = 1"),
                        QStringLiteral("UPDATE %1 SET n = '1.50' WHERE id = 1"),
                        1,
                        QStringLiteral("differs"),
                        QStringLiteral("n")};
    if (pg && source == Engine::Postgres) {
        drifts << Drift{QStringLiteral("NaN -> NULL"),
                        QStringLiteral("UPDATE %1 SET r = NULL WHERE id = 12"),
                        QStringLiteral("UPDATE %1 SET r = 'NaN' WHERE id = 12"),
                        12,
                        QStringLiteral("differs"),
                        QStringLiteral("r")};
        drifts << Drift{QStringLiteral("-0.0 -> 0.0"),
                        QStringLiteral("UPDATE %1 SET r = '0' WHERE id = 7"),
                        QStringLiteral("UPDATE %1 SET r = '-0' WHERE id = 7"),
                        7,
                        QStringLiteral("differs"),
                        QStringLiteral("r")};
    } else if (pg) {
        drifts << Drift{QStringLiteral("0.1 -> NaN"),
                        QStringLiteral("UPDATE %1 SET r = 'NaN' WHERE id = 3"),
                        QStringLiteral("UPDATE %1 SET r = 0.1 WHERE id = 3"),
                        3,
                        QStringLiteral("differs"),
                        QStringLiteral("r")};
        drifts << Drift{QStringLiteral("0.0 -> -0.0"),
                        QStringLiteral("UPDATE %1 SET r = '-0' WHERE id = 7"),
                        QStringLiteral("UPDATE %1 SET r = '0' WHERE id = 7"),
                        7,
                        QStringLiteral("differs"),
                        QStringLiteral("r")};
    } else {
        // A SQLite REAL column holds neither NaN nor -0.0: the nearest drift is a value lost.
        drifts << Drift{QStringLiteral("0.1 -> NULL"),
                        QStringLiteral("UPDATE %1 SET r = NULL WHERE id = 3"),
                        QStringLiteral("UPDATE %1 SET r = 0.1 WHERE id = 3"),
                        3,
                        QStringLiteral("differs"),
                        QStringLiteral("r")};
    }
    return drifts;
}

QString engineName(Engine engine) {
    return engine == Engine::Sqlite ? QStringLiteral("sqlite") : QStringLiteral("postgres");
}

} // namespace

Q_DECLARE_METATYPE(Engine)

class TestVerifyExact : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void typeMatrix_data();
    void typeMatrix();
    void unorderableWatermarks_data();
    void unorderableWatermarks();
    void keylessExtraRowPastTheWatermark();

private:
    void addPairings();
    bool needsPostgres(Engine source, Engine target);
    CliResult cli(const QStringList &args);
    // The one table's result of `verify --json`, checking the exit code.
    QJsonObject verifyJson(int expectedExit);
    QString driftProblem(const Drift &drift);
    // Runs SQL on one side: SQLite file `dbPath`, or the PostgreSQL test schema.
    void exec(Engine engine, const QString &dbPath, const QString &sql);
    // The name the CLI takes (CONN:TABLE) and the one SQL takes.
    QString cliName(Engine engine, const QString &connection, const QString &table) const;
    QString sqlName(Engine engine, const QString &table) const;
    void forgetTargetOwners();

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<PgSession> m_pg;
    QString m_schema;
    QString m_workspace;
    QString m_sourcePath;
    QString m_targetPath;
};

void TestVerifyExact::init() {
    m_dir = std::make_unique<QTemporaryDir>(fastTempTemplate());
    QVERIFY(m_dir->isValid());
    m_workspace = tidemark::test::testWorkspaceLocation(*m_dir, QStringLiteral("ws.tidemark"));
    m_sourcePath = m_dir->filePath(QStringLiteral("source.db"));
    m_targetPath = m_dir->filePath(QStringLiteral("target.db"));
    QCOMPARE(cli({QStringLiteral("init")}).exitCode, 0);
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("lite"),
                  QStringLiteral("--sqlite"), m_sourcePath})
                 .exitCode,
             0);
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("out"),
                  QStringLiteral("--sqlite"), m_targetPath})
                 .exitCode,
             0);
    if (pgPort().isEmpty())
        return;
    m_pg = std::make_unique<PgSession>();
    m_schema = QStringLiteral("verifyexact %1").arg(QString::fromLatin1(QTest::currentTestFunction()));
    m_pg->exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
    forgetTargetOwners();
    m_pg->exec(QStringLiteral("CREATE SCHEMA %1").arg(quoteIdentifier(m_schema)));
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                  QStringLiteral("--postgres"), pgConninfo()})
                 .exitCode,
             0);
}

void TestVerifyExact::cleanup() {
    if (m_pg) {
        m_pg->exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
        forgetTargetOwners();
    }
    m_pg.reset();
    m_dir.reset();
}

// The state rows owning the schema's tables outlive the dropped schema: a rerun would find its
// targets owned by an earlier (deleted) workspace.
void TestVerifyExact::forgetTargetOwners() {
    if (m_pg->value(
            QStringLiteral("SELECT count(*) FROM information_schema.columns WHERE table_schema = "
                           "'public' AND table_name = 'tidemark_state' AND column_name = 'target_table'")) !=
        QLatin1String("1"))
        return;
    m_pg->exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE starts_with(target_table, $1)"),
               {quoteIdentifier(m_schema) + QLatin1Char('.')});
}

CliResult TestVerifyExact::cli(const QStringList &args) {
    return runCli(QStringList{QStringLiteral("-w"), m_workspace} + args);
}

QJsonObject TestVerifyExact::verifyJson(int expectedExit) {
    const CliResult result = cli({QStringLiteral("verify"), QStringLiteral("--json")});
    bool ok = false;
    const QJsonArray results = parseJsonArray(result.out, &ok);
    if (result.exitCode != expectedExit || !ok || results.size() != 1) {
        qWarning("verify: %s", qPrintable(result.describe()));
        return {};
    }
    return results.first().toObject();
}

void TestVerifyExact::exec(Engine engine, const QString &dbPath, const QString &sql) {
    if (engine == Engine::Sqlite)
        execSql(dbPath, sql);
    else
        m_pg->exec(sql);
}

QString TestVerifyExact::cliName(Engine engine, const QString &connection, const QString &table) const {
    return engine == Engine::Sqlite ? connection + QLatin1Char(':') + table
                                    : QStringLiteral("pg:%1.%2").arg(m_schema, table);
}

QString TestVerifyExact::sqlName(Engine engine, const QString &table) const {
    return engine == Engine::Sqlite ? quoteIdentifier(table) : quoteQualified(m_schema, table);
}

void TestVerifyExact::addPairings() {
    QTest::addColumn<Engine>("source");
    QTest::addColumn<Engine>("target");
    QTest::newRow("sqlite->sqlite") << Engine::Sqlite << Engine::Sqlite;
    QTest::newRow("sqlite->postgres") << Engine::Sqlite << Engine::Postgres;
    QTest::newRow("postgres->sqlite") << Engine::Postgres << Engine::Sqlite;
    QTest::newRow("postgres->postgres") << Engine::Postgres << Engine::Postgres;
}

bool TestVerifyExact::needsPostgres(Engine source, Engine target) {
    return source == Engine::Postgres || target == Engine::Postgres;
}

void TestVerifyExact::typeMatrix_data() {
    addPairings();
}

void TestVerifyExact::typeMatrix() {
    QFETCH(Engine, source);
    QFETCH(Engine, target);
    if (needsPostgres(source, target))
        TIDEMARK_REQUIRE_POSTGRES();
    const QString sourceTable = QStringLiteral("ev");
    const QString targetTable = QStringLiteral("ev_%1").arg(engineName(target));
    if (source == Engine::Sqlite)
        execSql(m_sourcePath, QString::fromUtf8(kSqliteSource));
    else
        for (const QString &sql : postgresSource(sqlName(source, sourceTable), target == Engine::Postgres))
            m_pg->exec(sql);

    const CliResult add =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             cliName(source, QStringLiteral("lite"), sourceTable), QStringLiteral("--target"),
             cliName(target, QStringLiteral("out"), targetTable), QStringLiteral("--watermark"),
             QStringLiteral("id")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.describe()));
    const CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    const QJsonObject iteration =
        parseJsonObject(run.out).value(QStringLiteral("iterations")).toArray().first().toObject();
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    const qint64 rows = iteration.value(QStringLiteral("rows_written")).toInteger();
    QVERIFY(rows >= 8);

    // Every edge value copied verifies as it is.
    QJsonObject clean = verifyJson(0);
    QVERIFY(!clean.isEmpty());
    QCOMPARE(clean.value(QStringLiteral("matches")), QJsonValue(true));
    QCOMPARE(clean.value(QStringLiteral("source_rows")).toInteger(), rows);
    QCOMPARE(clean.value(QStringLiteral("target_rows")).toInteger(), rows);
    QCOMPARE(clean.value(QStringLiteral("differences")).toArray().size(), 0);

    // One value at a time: each is a difference naming the row's key and the column. Every drift
    // is tried, so a failure lists every one verify missed.
    const QString table = sqlName(target, targetTable);
    QStringList problems;
    for (const Drift &drift : driftsFor(source, target)) {
        exec(target, m_targetPath, drift.change.arg(table));
        const QString problem = driftProblem(drift);
        if (!problem.isEmpty()) {
            qWarning("%s: %s", qPrintable(drift.name), qPrintable(problem));
            problems << drift.name;
        }
        exec(target, m_targetPath, drift.revert.arg(table));
        if (verifyJson(0).value(QStringLiteral("matches")) != QJsonValue(true))
            problems << drift.name + QStringLiteral(": reverted, but verify does not match");
    }
    QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("missed or misreported (details above): ") +
                                            problems.join(QStringLiteral("; "))));
}

// Empty when verify reports `drift` as the one difference, naming its key and column.
QString TestVerifyExact::driftProblem(const Drift &drift) {
    const CliResult json = cli({QStringLiteral("verify"), QStringLiteral("--json")});
    const QJsonArray results = parseJsonArray(json.out);
    if (json.exitCode != 1 || results.size() != 1)
        return QStringLiteral("not reported: ") + json.describe();
    const QJsonObject found = results.first().toObject();
    const QString all = QString::fromUtf8(QJsonDocument(found).toJson(QJsonDocument::Compact));
    const bool extra = drift.kind == QLatin1String("extra_in_target");
    if (found.value(QStringLiteral("matches")) != QJsonValue(false) ||
        found.value(QStringLiteral("extra_in_target")).toInteger() != (extra ? 1 : 0) ||
        found.value(QStringLiteral("extra_past_watermark")).toInteger() != (drift.pastWatermark ? 1 : 0) ||
        found.value(QStringLiteral("differing")).toInteger() != (extra ? 0 : 1) ||
        found.value(QStringLiteral("missing_in_target")).toInteger() != 0)
        return QStringLiteral("wrong counts: ") + all;
    const QString key = QStringLiteral("{\"id\":%1}").arg(drift.id);
    const QJsonArray differences = found.value(QStringLiteral("differences")).toArray();
    const QJsonObject difference = differences.first().toObject();
    const QStringList columns = drift.column.isEmpty() ? QStringList() : QStringList{drift.column};
    if (differences.size() != 1 ||
        difference.value(QStringLiteral("key")).toObject() != QJsonObject{{QStringLiteral("id"), drift.id}} ||
        difference.value(QStringLiteral("kind")).toString() != drift.kind ||
        difference.value(QStringLiteral("columns")).toVariant().toStringList() != columns ||
        difference.value(QStringLiteral("past_watermark")).toBool() != drift.pastWatermark ||
        found.value(QStringLiteral("examples")).toArray() != QJsonArray{key})
        return QStringLiteral("not named: ") + all;

    // For people: the key and the column on stdout, the table on stderr; exit 1.
    const CliResult text = cli({QStringLiteral("verify")});
    const QString named =
        key + (extra ? (drift.pastWatermark ? QStringLiteral(" only in the target, past the watermark")
                                            : QStringLiteral(" only in the target"))
                     : QStringLiteral(" differs in ") + drift.column);
    if (text.exitCode != 1 || !text.out.contains(named) || !text.err.contains(QStringLiteral("table 1 (")))
        return QStringLiteral("text does not say '%1': ").arg(named) + text.describe();
    return {};
}

void TestVerifyExact::unorderableWatermarks_data() {
    addPairings();
}

// Rows added to the source after the copy, whose watermark no window can order, are left out
// and reported like NULL-watermark rows: ±infinity, text that is no timestamp, and BC dates and
// years past 9999, which the copy refuses to order (tst_unorderable).
void TestVerifyExact::unorderableWatermarks() {
    QFETCH(Engine, source);
    QFETCH(Engine, target);
    if (needsPostgres(source, target))
        TIDEMARK_REQUIRE_POSTGRES();
    const QString sourceTable = sqlName(source, QStringLiteral("wm"));
    if (source == Engine::Sqlite) {
        execSql(m_sourcePath,
                QStringLiteral("CREATE TABLE wm (id INTEGER PRIMARY KEY, ts TIMESTAMP, v TEXT)"));
        for (int id = 1; id <= 5; ++id)
            execSql(m_sourcePath, QStringLiteral("INSERT INTO wm VALUES (?1, ?2, 'v')"),
                    {id, orderTimestamp(id)});
    } else {
        m_pg->exec(QStringLiteral("CREATE TABLE %1 (id bigint PRIMARY KEY, ts timestamptz, v text)")
                       .arg(sourceTable));
        m_pg->exec(
            QStringLiteral("INSERT INTO %1 SELECT i, timestamptz '2025-01-01 00:00:00+00' + i * interval "
                           "'1 minute', 'v' FROM generate_series(1, 5) i")
                .arg(sourceTable));
    }
    const CliResult add =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             cliName(source, QStringLiteral("lite"), QStringLiteral("wm")), QStringLiteral("--target"),
             cliName(target, QStringLiteral("out"), QStringLiteral("wm_%1").arg(engineName(target))),
             QStringLiteral("--watermark"), QStringLiteral("ts")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.describe()));
    const CliResult run = cli({QStringLiteral("run")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));

    exec(source, m_sourcePath,
         QStringLiteral(
             "INSERT INTO %1 VALUES (100, NULL, 'null'), (103, '2030-01-01T00:00:00.000000Z', 'later')")
             .arg(sourceTable));
    if (source == Engine::Sqlite) {
        execSql(m_sourcePath, QStringLiteral("INSERT INTO wm VALUES (101, 'not a time', 'text')"));
        const QJsonObject result = verifyJson(0);
        QVERIFY(!result.isEmpty());
        QCOMPARE(result.value(QStringLiteral("matches")), QJsonValue(true));
        QCOMPARE(result.value(QStringLiteral("source_rows")).toInteger(), 5);
        QCOMPARE(result.value(QStringLiteral("null_watermark_rows")).toInteger(), 1);
        QCOMPARE(result.value(QStringLiteral("unorderable_watermark_rows")).toInteger(), 1);
    } else {
        m_pg->exec(
            QStringLiteral("INSERT INTO %1 VALUES (101, 'infinity', 'inf'), (102, '-infinity', '-inf'), "
                           "(104, '0044-03-15 00:00:00+00 BC', 'bc'), "
                           "(105, '12345-01-01 00:00:00+00', 'far')")
                .arg(sourceTable));
        const QJsonObject result = verifyJson(0);
        QVERIFY(!result.isEmpty());
        QCOMPARE(result.value(QStringLiteral("matches")), QJsonValue(true));
        QCOMPARE(result.value(QStringLiteral("source_rows")).toInteger(), 5);
        QCOMPARE(result.value(QStringLiteral("null_watermark_rows")).toInteger(), 1);
        QCOMPARE(result.value(QStringLiteral("unorderable_watermark_rows")).toInteger(), 4);
    }
    const CliResult text = cli({QStringLiteral("verify")});
    QVERIFY2(text.out.contains(QStringLiteral("1 with a NULL watermark")), qPrintable(text.describe()));
    QVERIFY2(text.out.contains(QStringLiteral("with a watermark that cannot be ordered")),
             qPrintable(text.describe()));
}

// The blind spot the issue found: a keyless append target with rows past the watermark that the
// source never had verified as "matches". They are extra, shown as whole rows.
void TestVerifyExact::keylessExtraRowPastTheWatermark() {
    makeOrders(m_sourcePath, 20, 1, QStringLiteral("orders"), false);
    const CliResult add =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("lite:orders"), QStringLiteral("--target"), QStringLiteral("out:orders"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.describe()));
    QVERIFY2(cli({QStringLiteral("run")}).exitCode == 0, "run");
    // Rows the source has past the watermark (not copied yet) are no difference ...
    makeOrders(m_sourcePath, 2, 21, QStringLiteral("orders"), false);
    QCOMPARE(verifyJson(0).value(QStringLiteral("matches")), QJsonValue(true));
    // ... the same rows in the target too are none either (a backfill that kept its rows) ...
    makeOrders(m_targetPath, 1, 21, QStringLiteral("orders"), false);
    QCOMPARE(verifyJson(0).value(QStringLiteral("matches")), QJsonValue(true));
    // ... but one the source never had is.
    makeOrders(m_targetPath, 1, 30, QStringLiteral("orders"), false);
    const QJsonObject result = verifyJson(1);
    QCOMPARE(result.value(QStringLiteral("extra_in_target")).toInteger(), 1);
    QCOMPARE(result.value(QStringLiteral("extra_past_watermark")).toInteger(), 1);
    const QJsonObject difference = result.value(QStringLiteral("differences")).toArray().first().toObject();
    QCOMPARE(difference.value(QStringLiteral("kind")).toString(), QStringLiteral("extra_in_target"));
    QCOMPARE(difference.value(QStringLiteral("key")).toObject().value(QStringLiteral("id")).toInteger(), 30);
    QCOMPARE(difference.value(QStringLiteral("past_watermark")), QJsonValue(true));
}

QTEST_GUILESS_MAIN(TestVerifyExact)
#include "tst_verifyexact.moc"
