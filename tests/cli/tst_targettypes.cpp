// SPDX-License-Identifier: MIT
// Targets Tidemark creates take every operator action, and values reach them exactly or not at all:
// a created PostgreSQL watermark column is a timestamp (or bigint) that
// backfill --delete-newer compares; a text one made by an older build still works; NaN, blobs in
// text columns and digits a column would round are rejected rows, never silent changes.
// Through the real binary, against the real server.

#include "tests/support/clifixture.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"

#include <QCoreApplication>
#include <QTest>

#include <memory>

using namespace tidemark;
using namespace tidemark::test;

class TestTargetTypes : public QObject, protected CliFixture {
    Q_OBJECT

private:
    std::unique_ptr<PgSession> m_pg;
    QString m_schema; // this process's own schema on the server: tables of other suites stay apart
    QString m_lite;

    // "pg:<schema>.<table>" for the CLI, and the same table quoted for SQL.
    QString pgTarget(const QString &table) const { return QStringLiteral("pg:%1.%2").arg(m_schema, table); }
    QString pgTable(const QString &table) const { return QStringLiteral("%1.%2").arg(m_schema, table); }

    QString pgColumnType(const QString &table, const QString &column) {
        return m_pg->value(QStringLiteral("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE "
                                          "attrelid = $1::regclass AND attname = $2"),
                           {pgTable(table), column});
    }

    // The one iteration of `run --json`.
    static QJsonObject iteration(const CliResult &run) {
        return parseJsonObject(run.out).value(QStringLiteral("iterations")).toArray().first().toObject();
    }

    // The rejects the workspace keeps for `tableId`, as "error" texts.
    QStringList rejectErrors(qint64 tableId) const {
        QStringList errors;
        for (const QStringList &row :
             queryRows(m_ws,
                       QStringLiteral("SELECT error FROM rejects WHERE table_id = ?1 "
                                      "ORDER BY id"),
                       {tableId}))
            errors << row.value(0);
        return errors;
    }

private slots:
    void initTestCase() {
        TIDEMARK_REQUIRE_POSTGRES();
        m_pg = std::make_unique<PgSession>();
        m_schema = QStringLiteral("types_%1").arg(QCoreApplication::applicationPid());
        m_pg->exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(m_schema));
        m_pg->exec(QStringLiteral("CREATE SCHEMA %1").arg(m_schema));
    }

    void cleanupTestCase() {
        if (!m_pg)
            return;
        m_pg->exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(m_schema));
        if (!m_pg->value(QStringLiteral("SELECT to_regclass('public.tidemark_state')")).isNull())
            m_pg->exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE target_table LIKE $1"),
                       {QStringLiteral("\"%1\".%").arg(m_schema)});
    }

    void init() {
        startFixture();
        m_lite = path(QStringLiteral("lite.db"));
        CLI_EXIT(cli({QStringLiteral("init")}), 0);
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("lite"),
                      QStringLiteral("--sqlite"), m_lite}),
                 0);
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                      QStringLiteral("--postgres"), pgConninfo()}),
                 0);
    }
    void cleanup() { stopFixture(); }

    // --- item 5: a created target takes backfill --delete-newer ---

    void createdTimestampWatermarkIsTimestamptzAndDeleteNewerRecopiesExactly() {
        // A SQLite column declared TEXT holding ISO-8601 timestamps, spelled with milliseconds and Z.
        execSql(m_lite,
                QStringLiteral("CREATE TABLE events (id INTEGER PRIMARY KEY, at TEXT NOT NULL, note TEXT);"
                               "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 10) "
                               "INSERT INTO events SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', "
                               "'+' || i || ' minutes'), 'note ' || i FROM g;"));
        const qint64 id = addTable({QStringLiteral("--source"), QStringLiteral("lite:events"),
                                    QStringLiteral("--target"), pgTarget(QStringLiteral("events")),
                                    QStringLiteral("--watermark"), QStringLiteral("at")});
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(pgColumnType(QStringLiteral("events"), QStringLiteral("at")),
                 QStringLiteral("timestamp with time zone"));
        const QString digest =
            QStringLiteral(
                "SELECT count(*) || '/' || string_agg(id || '=' || note || '@' || "
                "to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS'), ',' ORDER BY id) FROM %1")
                .arg(pgTable(QStringLiteral("events")));
        const QString copied = m_pg->value(digest);
        QVERIFY2(copied.startsWith(QStringLiteral("10/1=note 1@2025-01-01T00:01:00.000,")),
                 qPrintable(copied));

        // Back to minute 4: the rows after it leave the target, and the next run brings them back.
        const CliResult backfill =
            cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--from"),
                 QStringLiteral("2025-01-01T00:04:00Z"), QStringLiteral("--delete-newer")});
        CLI_EXIT(backfill, 0);
        QCOMPARE(m_pg->value(QStringLiteral("SELECT count(*) || '/' || max(id) FROM %1")
                                 .arg(pgTable(QStringLiteral("events")))),
                 QStringLiteral("4/4"));
        const CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
        CLI_EXIT(run, 0);
        QCOMPARE(iteration(run).value(QStringLiteral("rows_written")).toInt(), 6);
        QCOMPARE(m_pg->value(digest), copied);
    }

    void createdDatetimeWatermarkIsTimestamptz() {
        // Declared DATETIME, spelled without zone (UTC by Tidemark's rule).
        execSql(m_lite, QStringLiteral("CREATE TABLE stamps (id INTEGER PRIMARY KEY, at DATETIME NOT NULL);"
                                       "INSERT INTO stamps VALUES (1, '2025-01-01 01:00:00'), "
                                       "(2, '2025-01-01 02:00:00'), (3, '2025-01-01 05:00:00')"));
        const qint64 id = addTable({QStringLiteral("--source"), QStringLiteral("lite:stamps"),
                                    QStringLiteral("--target"), pgTarget(QStringLiteral("stamps")),
                                    QStringLiteral("--watermark"), QStringLiteral("at")});
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(pgColumnType(QStringLiteral("stamps"), QStringLiteral("at")),
                 QStringLiteral("timestamp with time zone"));
        QCOMPARE(m_pg->value(
                     QStringLiteral("SELECT string_agg(to_char(at AT TIME ZONE 'UTC', 'HH24'), ',' ORDER BY "
                                    "id) FROM %1")
                         .arg(pgTable(QStringLiteral("stamps")))),
                 QStringLiteral("01,02,05"));
        CLI_EXIT(cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--from"),
                      QStringLiteral("2025-01-01T01:00:00Z"), QStringLiteral("--delete-newer")}),
                 0);
        QCOMPARE(
            m_pg->value(QStringLiteral("SELECT count(*) FROM %1").arg(pgTable(QStringLiteral("stamps")))),
            QStringLiteral("1"));
    }

    void createdIntegerWatermarkIsBigintAndDeleteNewerRecopiesExactly() {
        // A column without a declared type holding integers: no longer a text column in the target.
        execSql(m_lite,
                QStringLiteral("CREATE TABLE counters (id INTEGER PRIMARY KEY, seq NOT NULL, label TEXT);"
                               "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 12) "
                               "INSERT INTO counters SELECT i, i * 10, 'label ' || i FROM g;"));
        const qint64 id = addTable({QStringLiteral("--source"), QStringLiteral("lite:counters"),
                                    QStringLiteral("--target"), pgTarget(QStringLiteral("counters")),
                                    QStringLiteral("--watermark"), QStringLiteral("seq")});
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(pgColumnType(QStringLiteral("counters"), QStringLiteral("seq")), QStringLiteral("bigint"));
        // 100 sorts before 20 as text: a text comparison would delete the wrong rows.
        CLI_EXIT(cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--from"),
                      QStringLiteral("90"), QStringLiteral("--delete-newer")}),
                 0);
        QCOMPARE(m_pg->value(QStringLiteral("SELECT count(*) || '/' || max(seq) FROM %1")
                                 .arg(pgTable(QStringLiteral("counters")))),
                 QStringLiteral("9/90"));
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(m_pg->value(
                     QStringLiteral("SELECT count(DISTINCT id) || '/' || count(*) || '/' || sum(seq) FROM %1")
                         .arg(pgTable(QStringLiteral("counters")))),
                 QStringLiteral("12/12/780"));
    }

    void olderTextWatermarkTargetStillTakesDeleteNewer() {
        // The target as an older build created it: the watermark column is text.
        m_pg->exec(QStringLiteral("CREATE TABLE %1 (id bigint PRIMARY KEY, at text NOT NULL, note text)")
                       .arg(pgTable(QStringLiteral("legacy"))));
        execSql(m_lite,
                QStringLiteral("CREATE TABLE legacy (id INTEGER PRIMARY KEY, at TEXT NOT NULL, note TEXT);"
                               "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 10) "
                               "INSERT INTO legacy SELECT i, strftime('%Y-%m-%d %H:%M:%S', '2025-01-01', "
                               "'+' || i || ' hours'), 'note ' || i FROM g;"));
        const qint64 id = addTable({QStringLiteral("--source"), QStringLiteral("lite:legacy"),
                                    QStringLiteral("--target"), pgTarget(QStringLiteral("legacy")),
                                    QStringLiteral("--watermark"), QStringLiteral("at")});
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(pgColumnType(QStringLiteral("legacy"), QStringLiteral("at")), QStringLiteral("text"));
        const QString digest =
            QStringLiteral("SELECT count(*) || '/' || string_agg(id || '@' || at, ',' ORDER BY id) "
                           "FROM %1")
                .arg(pgTable(QStringLiteral("legacy")));
        const QString copied = m_pg->value(digest);
        QVERIFY(copied.startsWith(QStringLiteral("10/1@2025-01-01 01:00:00,")));
        // Compared as timestamps: hour 3 keeps rows 1..3 whatever the spelling.
        CLI_EXIT(cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--from"),
                      QStringLiteral("2025-01-01T03:00:00Z"), QStringLiteral("--delete-newer")}),
                 0);
        QCOMPARE(m_pg->value(QStringLiteral("SELECT count(*) || '/' || max(id) FROM %1")
                                 .arg(pgTable(QStringLiteral("legacy")))),
                 QStringLiteral("3/3"));
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(m_pg->value(digest), copied);

        // A value in the text column that is no timestamp: one clear line naming the table, the
        // column and what to do, and nothing deleted.
        m_pg->exec(QStringLiteral("INSERT INTO %1 VALUES (99, 'soon', 'hand-made')")
                       .arg(pgTable(QStringLiteral("legacy"))));
        const CliResult refused =
            cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--from"),
                 QStringLiteral("2025-01-01T03:00:00Z"), QStringLiteral("--delete-newer")});
        QVERIFY2(refused.exitCode != 0, qPrintable(refused.describe()));
        for (const QString &needle : {QStringLiteral("\"at\""), pgTable(QStringLiteral("legacy")),
                                      QStringLiteral("ALTER TABLE"), QStringLiteral("--truncate")})
            QVERIFY2(refused.err.contains(needle),
                     qPrintable(needle + QStringLiteral(" not in: ") + refused.err));
        QCOMPARE(
            m_pg->value(QStringLiteral("SELECT count(*) FROM %1").arg(pgTable(QStringLiteral("legacy")))),
            QStringLiteral("11"));
    }

    // --- item 9: a value the target cannot hold exactly is a rejected row ---

    void nanIntoSqliteIsRejectedAndCounted() {
        const QString source = pgTable(QStringLiteral("measures"));
        m_pg->exec(QStringLiteral("CREATE TABLE %1 (id int8 PRIMARY KEY, at timestamptz NOT NULL, v float8)")
                       .arg(source));
        m_pg->exec(
            QStringLiteral("INSERT INTO %1 SELECT g, '2025-01-01'::timestamptz + g * interval '1 minute', "
                           "CASE WHEN g IN (3, 7) THEN 'NaN'::float8 ELSE g / 4.0 END "
                           "FROM generate_series(1, 10) g")
                .arg(source));
        const auto add = [&](const QString &target, const QString &maxSkipped) {
            return addTable({QStringLiteral("--source"), QStringLiteral("pg:%1.measures").arg(m_schema),
                             QStringLiteral("--target"), QStringLiteral("lite:") + target,
                             QStringLiteral("--watermark"), QStringLiteral("at"),
                             QStringLiteral("--max-skipped"), maxSkipped});
        };
        const qint64 strict = add(QStringLiteral("strict"), QStringLiteral("0"));
        const qint64 tight = add(QStringLiteral("tight"), QStringLiteral("1"));
        const qint64 lenient = add(QStringLiteral("lenient"), QStringLiteral("2"));

        for (const qint64 failing : {strict, tight}) {
            const CliResult run = cli({QStringLiteral("run"), QStringLiteral("--table"),
                                       QString::number(failing), QStringLiteral("--json")});
            CLI_EXIT(run, 1);
            const QJsonObject it = iteration(run);
            QCOMPARE(it.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
            const QString error = it.value(QStringLiteral("error")).toString();
            QVERIFY2(error.contains(QStringLiteral("'v'")) && error.contains(QStringLiteral("NaN")),
                     qPrintable(error));
        }
        QVERIFY(!tableExists(m_lite, QStringLiteral("strict")) ||
                countRows(m_lite, QStringLiteral("strict")) == 0);
        QVERIFY(!tableExists(m_lite, QStringLiteral("tight")) ||
                countRows(m_lite, QStringLiteral("tight")) == 0);

        const CliResult run = cli({QStringLiteral("run"), QStringLiteral("--table"), QString::number(lenient),
                                   QStringLiteral("--json")});
        CLI_EXIT(run, 0);
        const QJsonObject it = iteration(run);
        QCOMPARE(it.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
        QCOMPARE(it.value(QStringLiteral("rows_read")).toInt(), 10);
        QCOMPARE(it.value(QStringLiteral("rows_written")).toInt(), 8);
        QCOMPARE(it.value(QStringLiteral("rows_skipped")).toInt(), 2);
        QCOMPARE(countRows(m_lite, QStringLiteral("lenient")), 8);
        QCOMPARE(
            queryValue(m_lite, QStringLiteral("SELECT count(*) FROM lenient WHERE v IS NULL")).toLongLong(),
            0);
        const QStringList errors = rejectErrors(lenient);
        QCOMPARE(errors.size(), 2);
        for (const QString &error : errors)
            QVERIFY2(error.contains(QStringLiteral("column 'v'")) && error.contains(QStringLiteral("NaN")),
                     qPrintable(error));
        QStringList keys;
        for (const QStringList &row :
             queryRows(m_ws, QStringLiteral("SELECT row_key FROM rejects WHERE table_id = ?1 ORDER BY id"),
                       {lenient}))
            keys << QString::number(parseJsonObject(row.value(0)).value(QStringLiteral("id")).toInteger());
        QCOMPARE(keys.join(u','), QStringLiteral("3,7"));
    }

    void valuesPostgresWouldChangeAreRejected() {
        // From SQLite: a blob in a TEXT column (PostgreSQL text would hold "\x..."), text with a NUL
        // byte, a timestamp with nanoseconds (rounded to microseconds) or with a zone offset (which
        // a timestamp column drops), and a text with a backslash in a BLOB column, which must
        // arrive as its bytes.
        execSql(m_lite, QStringLiteral("CREATE TABLE odd (id INTEGER PRIMARY KEY, at DATETIME NOT NULL, "
                                       "label TEXT, raw BLOB)"));
        const QString at = QStringLiteral("2025-01-01T00:00:%1Z");
        execSql(m_lite, QStringLiteral("INSERT INTO odd VALUES (1, ?1, 'plain', x'00ff')"),
                {at.arg(QStringLiteral("01"))});
        execSql(m_lite, QStringLiteral("INSERT INTO odd VALUES (2, ?1, x'6869', NULL)"),
                {at.arg(QStringLiteral("02"))});
        execSql(m_lite, QStringLiteral("INSERT INTO odd VALUES (3, ?1, 'a' || char(0) || 'b', NULL)"),
                {at.arg(QStringLiteral("03"))});
        execSql(m_lite, QStringLiteral("INSERT INTO odd VALUES (4, ?1, 'late', NULL)"),
                {at.arg(QStringLiteral("04.123456789"))});
        execSql(m_lite, QStringLiteral("INSERT INTO odd VALUES (5, ?1, 'bytes', ?2)"),
                {at.arg(QStringLiteral("05")), QStringLiteral("a\\x41\\\\b")});
        execSql(m_lite,
                QStringLiteral("INSERT INTO odd VALUES (6, '2025-01-01T02:00:06+02:00', 'offset', NULL)"));
        const qint64 id =
            addTable({QStringLiteral("--source"), QStringLiteral("lite:odd"), QStringLiteral("--target"),
                      pgTarget(QStringLiteral("odd")), QStringLiteral("--watermark"), QStringLiteral("id"),
                      QStringLiteral("--max-skipped"), QStringLiteral("5")});
        const CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
        CLI_EXIT(run, 0);
        QCOMPARE(iteration(run).value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
        QCOMPARE(iteration(run).value(QStringLiteral("rows_skipped")).toInt(), 4);
        QCOMPARE(m_pg->value(QStringLiteral("SELECT string_agg(id::text, ',' ORDER BY id) FROM %1")
                                 .arg(pgTable(QStringLiteral("odd")))),
                 QStringLiteral("1,5"));
        QCOMPARE(m_pg->value(QStringLiteral("SELECT encode(raw, 'escape') FROM %1 WHERE id = 5")
                                 .arg(pgTable(QStringLiteral("odd")))),
                 QStringLiteral("a\\\\x41\\\\\\\\b"));
        QCOMPARE(m_pg->value(QStringLiteral("SELECT length(raw) FROM %1 WHERE id = 5")
                                 .arg(pgTable(QStringLiteral("odd")))),
                 QStringLiteral("8"));
        const QStringList errors = rejectErrors(id);
        QCOMPARE(errors.size(), 4);
        QVERIFY2(errors.value(0).contains(QStringLiteral("column 'label'")) &&
                     errors.value(0).contains(QStringLiteral("blob")),
                 qPrintable(errors.value(0)));
        QVERIFY2(errors.value(1).contains(QStringLiteral("column 'label'")) &&
                     errors.value(1).contains(QStringLiteral("NUL")),
                 qPrintable(errors.value(1)));
        QVERIFY2(errors.value(2).contains(QStringLiteral("column 'at'")) &&
                     errors.value(2).contains(QStringLiteral("04.123456789")),
                 qPrintable(errors.value(2)));
        QVERIFY2(errors.value(3).contains(QStringLiteral("column 'at'")) &&
                     errors.value(3).contains(QStringLiteral("zone offset")),
                 qPrintable(errors.value(3)));
    }

    void valuesSqliteWouldChangeAreRejected() {
        // Into a SQLite target whose columns were declared by hand: a REAL column rounds a
        // 25-digit numeric and a 64-bit integer; bit strings keep their leading zeros in a
        // created target.
        const QString source = pgTable(QStringLiteral("amounts"));
        m_pg->exec(
            QStringLiteral("CREATE TABLE %1 (id int8 PRIMARY KEY, amount numeric, big int8, flags bit(4))")
                .arg(source));
        m_pg->exec(QStringLiteral("INSERT INTO %1 VALUES (1, 0.5, 1, B'0101'), "
                                  "(2, 1.0000000000000000000000001, 2, B'0011'), "
                                  "(3, 3, 9007199254740993, B'1000')")
                       .arg(source));
        execSql(m_lite,
                QStringLiteral(
                    "CREATE TABLE amounts (id INTEGER PRIMARY KEY, amount REAL, big REAL, flags TEXT)"));
        const qint64 byHand = addTable(
            {QStringLiteral("--source"), QStringLiteral("pg:%1.amounts").arg(m_schema),
             QStringLiteral("--target"), QStringLiteral("lite:amounts"), QStringLiteral("--watermark"),
             QStringLiteral("id"), QStringLiteral("--max-skipped"), QStringLiteral("5")});
        const qint64 created =
            addTable({QStringLiteral("--source"), QStringLiteral("pg:%1.amounts").arg(m_schema),
                      QStringLiteral("--target"), QStringLiteral("lite:amounts_created"),
                      QStringLiteral("--watermark"), QStringLiteral("id")});
        const CliResult run = cli({QStringLiteral("run"), QStringLiteral("--table"), QString::number(byHand),
                                   QStringLiteral("--json")});
        CLI_EXIT(run, 0);
        QCOMPARE(iteration(run).value(QStringLiteral("rows_skipped")).toInt(), 2);
        QCOMPARE(queryValue(m_lite, QStringLiteral("SELECT group_concat(id) FROM amounts")).toString(),
                 QStringLiteral("1"));
        const QStringList errors = rejectErrors(byHand);
        QCOMPARE(errors.size(), 2);
        QVERIFY2(errors.value(0).contains(QStringLiteral("column 'amount'")), qPrintable(errors.value(0)));
        QVERIFY2(errors.value(1).contains(QStringLiteral("column 'big'")), qPrintable(errors.value(1)));

        CLI_EXIT(cli({QStringLiteral("run"), QStringLiteral("--table"), QString::number(created)}), 0);
        QCOMPARE(queryValue(m_lite,
                            QStringLiteral("SELECT group_concat(amount || '/' || big || '/' || flags, ',') "
                                           "FROM (SELECT * FROM amounts_created ORDER BY id)"))
                     .toString(),
                 QStringLiteral("0.5/1/0101,1.0000000000000000000000001/2/0011,3/9007199254740993/1000"));
    }
};

QTEST_GUILESS_MAIN(TestTargetTypes)
#include "tst_targettypes.moc"
