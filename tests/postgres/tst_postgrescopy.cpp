// SPDX-License-Identifier: MIT
// The copy contract through tidemark-cli in every pairing with PostgreSQL, against a real
// server (TIDEMARK_PG_PORT, see scripts/pgcluster.sh). The server-stop fault starts a second,
// private cluster so the shared one is never stopped.
#include "model/common/error.h"
#include "model/common/sqlquote.h"
#include "model/connectors/postgresconnector.h"
#include "model/sqlite/sqlitedb.h"
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace tidemark;

namespace {

QString pgPort() {
    return QString::fromLocal8Bit(qgetenv("TIDEMARK_PG_PORT"));
}

QString conninfo(const QString &port) {
    return QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark user=tidemark").arg(port);
}

ConnectionSpec pgSpec(const QString &port) {
    ConnectionSpec spec;
    spec.name = QStringLiteral("admin");
    spec.kind = ConnectionKind::Postgres;
    spec.conninfo = conninfo(port);
    return spec;
}

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
    QJsonObject json() const { return QJsonDocument::fromJson(out.toUtf8()).object(); }
    QJsonObject iteration(int index = 0) const {
        return json().value(QStringLiteral("iterations")).toArray().at(index).toObject();
    }
};

QString scriptPath(const char *name) {
    return QStringLiteral(TIDEMARK_SOURCE_DIR "/scripts/") + QLatin1String(name);
}

} // namespace

class TestPostgresCopy : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void sqliteToPostgresAppend();
    void postgresToSqliteMerge();
    void postgresToPostgresMergeWithLookback();
    void overwriteReplacesInOneTransaction();
    void newSourceColumnFailsByName();
    void lossyTargetColumnRefusedAtAdd();
    void serverStoppedMidCopy();

private:
    CliResult cli(const QStringList &args);
    void forgetTargetOwners();
    void sqliteExec(const QString &sql);
    qint64 sqliteCount(const QString &sql);
    QString pgValue(const QString &sql);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<PostgresConnector> m_admin;
    QString m_schema;
    QString m_workspace;
    QString m_sqlitePath;
};

void TestPostgresCopy::initTestCase() {
    TIDEMARK_REQUIRE_POSTGRES();
}

void TestPostgresCopy::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    m_workspace = m_dir->filePath(QStringLiteral("ws.tidemark"));
    m_sqlitePath = m_dir->filePath(QStringLiteral("lite.db"));
    m_admin = std::make_unique<PostgresConnector>(pgSpec(pgPort()));
    m_schema = QStringLiteral("copy %1").arg(QString::fromLatin1(QTest::currentTestFunction()));
    m_admin->execute(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
    forgetTargetOwners();
    m_admin->execute(QStringLiteral("CREATE SCHEMA %1").arg(quoteIdentifier(m_schema)));
    QCOMPARE(cli({QStringLiteral("init")}).exitCode, 0);
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                  QStringLiteral("--postgres"), conninfo(pgPort())})
                 .exitCode,
             0);
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("lite"),
                  QStringLiteral("--sqlite"), m_sqlitePath})
                 .exitCode,
             0);
}

void TestPostgresCopy::cleanup() {
    if (m_admin) {
        m_admin->execute(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
        forgetTargetOwners();
    }
    m_admin.reset();
    m_dir.reset();
}

// The state rows that own the schema's tables outlive the dropped schema: a rerun on the same server
// would find its targets owned by this suite's earlier (deleted) workspace.
void TestPostgresCopy::forgetTargetOwners() {
    if (m_admin
            ->query(QStringLiteral(
                "SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public' "
                "AND table_name = 'tidemark_state' AND column_name = 'target_table'"))
            .value(0)
            .value(0) != QLatin1String("1"))
        return;
    m_admin->execute(QStringLiteral("DELETE FROM public.tidemark_state WHERE starts_with(target_table, $1)"),
                     {quoteIdentifier(m_schema) + QLatin1Char('.')});
}

CliResult TestPostgresCopy::cli(const QStringList &args) {
    QProcess process;
    process.start(test::cliPath(), QStringList{QStringLiteral("-w"), m_workspace} + args);
    process.waitForFinished(300000);
    CliResult result;
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

void TestPostgresCopy::sqliteExec(const QString &sql) {
    SqliteDb db(m_sqlitePath, SqliteDb::Mode::ReadWriteCreate);
    db.exec(sql);
}

qint64 TestPostgresCopy::sqliteCount(const QString &sql) {
    SqliteDb db(m_sqlitePath, SqliteDb::Mode::ReadWrite);
    SqliteStatement statement(db, sql);
    return statement.step() ? statement.columnInt64(0) : -1;
}

QString TestPostgresCopy::pgValue(const QString &sql) {
    return m_admin->query(sql).value(0).value(0);
}

void TestPostgresCopy::sqliteToPostgresAppend() {
    sqliteExec(QStringLiteral(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, updated_at TEXT NOT NULL, amount REAL, note TEXT);"
        "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 100) "
        "INSERT INTO orders SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || (i / 2) || ' "
        "seconds'), "
        "i / 3.0, 'note ' || char(9) || i FROM g;"));
    const QString target = QStringLiteral("pg:%1.Order \"Lines\"").arg(m_schema);
    CliResult add =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("lite:orders"), QStringLiteral("--target"), target, QStringLiteral("--watermark"),
             QStringLiteral("updated_at"), QStringLiteral("--tiebreak"), QStringLiteral("id"),
             QStringLiteral("--batch-size"), QStringLiteral("7")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.err));
    const QString qualifiedTarget = quoteQualified(m_schema, QStringLiteral("Order \"Lines\""));

    CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(run.iteration().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(run.iteration().value(QStringLiteral("rows_written")).toInt(), 100);
    QCOMPARE(
        pgValue(QStringLiteral("SELECT count(DISTINCT id) || '/' || count(*) FROM %1").arg(qualifiedTarget)),
        QStringLiteral("100/100"));

    // New rows, two of them tied with the last copied watermark (the tiebreak orders them).
    sqliteExec(QStringLiteral(
        "INSERT INTO orders VALUES (101, '2025-01-01T00:00:50.000Z', 1.5, 'tie'), "
        "(102, '2025-01-01T00:00:50.000Z', 2.5, 'tie'), (103, '2025-01-01T00:01:00.000Z', NULL, NULL)"));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(run.iteration().value(QStringLiteral("rows_written")).toInt(), 3);
    QCOMPARE(
        pgValue(QStringLiteral("SELECT count(DISTINCT id) || '/' || count(*) FROM %1").arg(qualifiedTarget)),
        QStringLiteral("103/103"));

    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.iteration().value(QStringLiteral("status")).toString(), QStringLiteral("no_new_rows"));
    QCOMPARE(pgValue(QStringLiteral("SELECT count(*) FROM %1").arg(qualifiedTarget)), QStringLiteral("103"));
    QCOMPARE(pgValue(QStringLiteral("SELECT note FROM %1 WHERE id = 5").arg(qualifiedTarget)),
             QStringLiteral("note \t5"));
    // The target-side state row matches the workspace's watermark. (Other suites running at the
    // same time have rows for their own table 1 in the same state table.)
    const QString workspaceId =
        test::queryValue(m_workspace,
                         QStringLiteral(R"(SELECT value FROM meta WHERE "key" = 'workspace_id')"))
            .toString();
    QCOMPARE(m_admin
                 ->query(QStringLiteral("SELECT watermark FROM public.tidemark_state WHERE workspace_id = $1 "
                                        "AND table_id = 1 AND run_id = 2"),
                         {workspaceId})
                 .value(0)
                 .value(0),
             QStringLiteral("2025-01-01T00:01:00.000Z"));
}

void TestPostgresCopy::postgresToSqliteMerge() {
    const QString source = quoteQualified(m_schema, QStringLiteral("orders"));
    m_admin->execute(QStringLiteral("CREATE TABLE %1 (id int8 PRIMARY KEY, updated_at timestamptz NOT NULL, "
                                    "status text, amount numeric(12,2), payload bytea)")
                         .arg(source));
    m_admin->execute(
        QStringLiteral("INSERT INTO %1 SELECT g, '2025-01-01 00:00:00+00'::timestamptz + g * interval "
                       "'1 millisecond' + interval '1 microsecond', 'new', g / 7.0, '\\x00'::bytea "
                       "FROM generate_series(1, 500) g")
            .arg(source));
    CliResult add = cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                         QStringLiteral("pg:%1.orders").arg(m_schema), QStringLiteral("--target"),
                         QStringLiteral("lite:orders"), QStringLiteral("--watermark"),
                         QStringLiteral("updated_at"), QStringLiteral("--mode"), QStringLiteral("merge"),
                         QStringLiteral("--batch-size"), QStringLiteral("64")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.err));
    CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(run.iteration().value(QStringLiteral("rows_written")).toInt(), 500);
    QCOMPARE(run.iteration().value(QStringLiteral("watermark_after")).toString(),
             QStringLiteral("2025-01-01T00:00:00.500001Z"));
    QCOMPARE(sqliteCount(QStringLiteral("SELECT count(*) FROM orders")), qint64(500));

    // Half of them change, ten are new.
    m_admin->execute(
        QStringLiteral("UPDATE %1 SET status = 'changed', updated_at = updated_at + interval '1 hour' "
                       "WHERE id % 2 = 0")
            .arg(source));
    m_admin->execute(
        QStringLiteral("INSERT INTO %1 SELECT g, '2025-01-02'::timestamptz, 'late', 1, NULL FROM "
                       "generate_series(501, 510) g")
            .arg(source));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(run.iteration().value(QStringLiteral("rows_read")).toInt(), 260);
    QCOMPARE(sqliteCount(QStringLiteral("SELECT count(*) FROM orders")), qint64(510));
    QCOMPARE(sqliteCount(QStringLiteral("SELECT count(*) FROM orders WHERE status = 'changed'")),
             qint64(250));
    QCOMPARE(sqliteCount(QStringLiteral(
                 "SELECT count(*) FROM orders WHERE updated_at = '2025-01-01T01:00:00.500001Z'")),
             qint64(1));
    QCOMPARE(sqliteCount(QStringLiteral("SELECT count(*) FROM orders WHERE typeof(payload) = 'blob'")),
             qint64(500));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.iteration().value(QStringLiteral("status")).toString(), QStringLiteral("no_new_rows"));
    QCOMPARE(sqliteCount(QStringLiteral("SELECT count(*) FROM orders")), qint64(510));
    CliResult verify = cli({QStringLiteral("verify")});
    QVERIFY2(verify.exitCode == 0, qPrintable(verify.out + verify.err));
}

void TestPostgresCopy::postgresToPostgresMergeWithLookback() {
    const QString source = quoteQualified(m_schema, QStringLiteral("events"));
    const QString target = quoteQualified(m_schema, QStringLiteral("events copy"));
    m_admin->execute(
        QStringLiteral("CREATE TABLE %1 (id int4 PRIMARY KEY, version int8 NOT NULL, body jsonb, day date)")
            .arg(source));
    m_admin->execute(
        QStringLiteral("INSERT INTO %1 SELECT g, g / 10, jsonb_build_object('g', g), '2025-01-01'::date + g "
                       "FROM generate_series(1, 1000) g")
            .arg(source));
    CliResult add = cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                         QStringLiteral("pg:%1.events").arg(m_schema), QStringLiteral("--target"),
                         QStringLiteral("pg:%1.events copy").arg(m_schema), QStringLiteral("--watermark"),
                         QStringLiteral("version"), QStringLiteral("--tiebreak"), QStringLiteral("id"),
                         QStringLiteral("--mode"), QStringLiteral("merge"), QStringLiteral("--lookback"),
                         QStringLiteral("5"), QStringLiteral("--batch-size"), QStringLiteral("100")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.err));
    CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(pgValue(QStringLiteral("SELECT count(*) FROM %1").arg(target)), QStringLiteral("1000"));
    m_admin->execute(
        QStringLiteral(
            "UPDATE %1 SET body = '{\"updated\": true}', version = 100 WHERE id BETWEEN 990 AND 995")
            .arg(source));
    m_admin->execute(QStringLiteral("INSERT INTO %1 VALUES (1001, 101, NULL, NULL)").arg(source));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(pgValue(QStringLiteral("SELECT count(*) FROM %1").arg(target)), QStringLiteral("1001"));
    QCOMPARE(
        pgValue(QStringLiteral("SELECT count(*) FROM %1 WHERE body = '{\"updated\": true}'").arg(target)),
        QStringLiteral("6"));
    // The lookback re-reads rows; merge keeps one version per key.
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(pgValue(QStringLiteral("SELECT count(*) FROM %1").arg(target)), QStringLiteral("1001"));
    const QString digest =
        QStringLiteral("SELECT md5(string_agg(id || ':' || version || ':' || coalesce(body::text, '-') "
                       "|| ':' || coalesce(day::text, '-'), ',' ORDER BY id)) FROM %1");
    QCOMPARE(pgValue(digest.arg(target)), pgValue(digest.arg(source)));
    QCOMPARE(m_admin->query(
                 QStringLiteral("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = "
                                "$1::regclass AND attname = 'body'"),
                 {target}),
             QList<QStringList>({{QStringLiteral("jsonb")}}));
}

void TestPostgresCopy::overwriteReplacesInOneTransaction() {
    sqliteExec(QStringLiteral("CREATE TABLE ref (code TEXT PRIMARY KEY, label TEXT); INSERT INTO ref VALUES "
                              "('a', 'A'), ('b', 'B');"));
    const QString target = quoteQualified(m_schema, QStringLiteral("ref"));
    CliResult add = cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                         QStringLiteral("lite:ref"), QStringLiteral("--target"),
                         QStringLiteral("pg:%1.ref").arg(m_schema), QStringLiteral("--mode"),
                         QStringLiteral("overwrite")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.err));
    QVERIFY2(cli({QStringLiteral("run")}).exitCode == 0, "first overwrite");
    sqliteExec(QStringLiteral("DELETE FROM ref WHERE code = 'a'; INSERT INTO ref VALUES ('c', 'C');"));
    QVERIFY2(cli({QStringLiteral("run")}).exitCode == 0, "second overwrite");
    QCOMPARE(
        pgValue(QStringLiteral("SELECT string_agg(code || label, ',' ORDER BY code) FROM %1").arg(target)),
        QStringLiteral("bB,cC"));
}

void TestPostgresCopy::newSourceColumnFailsByName() {
    sqliteExec(QStringLiteral(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL); INSERT INTO t VALUES (1, 1);"));
    CliResult add =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("lite:t"), QStringLiteral("--target"), QStringLiteral("pg:%1.t").arg(m_schema),
             QStringLiteral("--watermark"), QStringLiteral("v")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.err));
    QCOMPARE(cli({QStringLiteral("run")}).exitCode, 0);
    sqliteExec(QStringLiteral("ALTER TABLE t ADD COLUMN extra_col TEXT; INSERT INTO t VALUES (2, 2, 'x');"));
    CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.iteration().value(QStringLiteral("error")).toString().contains(QLatin1String("extra_col")),
             qPrintable(run.out));
    QCOMPARE(
        pgValue(QStringLiteral("SELECT count(*) FROM %1").arg(quoteQualified(m_schema, QStringLiteral("t")))),
        QStringLiteral("1"));
}

// An existing target whose columns would round what the source holds (a double into numeric(10,2),
// microseconds into timestamp(0)) is refused at table add, naming the column; widened, it is taken.
void TestPostgresCopy::lossyTargetColumnRefusedAtAdd() {
    sqliteExec(QStringLiteral("CREATE TABLE t (id INTEGER PRIMARY KEY, at TEXT NOT NULL, amount REAL);"
                              "INSERT INTO t VALUES (1, '2025-01-01T00:00:00.123456Z', 0.125)"));
    const QString target = quoteQualified(m_schema, QStringLiteral("t"));
    m_admin->execute(
        QStringLiteral(
            "CREATE TABLE %1 (id bigint PRIMARY KEY, at timestamptz NOT NULL, amount numeric(10,2))")
            .arg(target));
    const QStringList add{QStringLiteral("table"),       QStringLiteral("add"),
                          QStringLiteral("--source"),    QStringLiteral("lite:t"),
                          QStringLiteral("--target"),    QStringLiteral("pg:%1.t").arg(m_schema),
                          QStringLiteral("--watermark"), QStringLiteral("at")};
    CliResult refused = cli(add);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QLatin1String("target column 'amount'")) &&
                 refused.err.contains(QLatin1String("(numeric(10,2))")) &&
                 refused.err.contains(QLatin1String("would round the source's floating-point values")),
             qPrintable(refused.err));
    m_admin->execute(QStringLiteral("ALTER TABLE %1 ALTER amount TYPE double precision, ALTER at TYPE "
                                    "timestamp(0) with time zone")
                         .arg(target));
    refused = cli(add);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(
        refused.err.contains(QLatin1String("target column 'at'")) &&
            refused.err.contains(QLatin1String("keeps 0 fraction digits of a second where the source has 6")),
        qPrintable(refused.err));
    m_admin->execute(QStringLiteral("ALTER TABLE %1 ALTER at TYPE timestamptz").arg(target));
    const CliResult taken = cli(add);
    QVERIFY2(taken.exitCode == 0, qPrintable(taken.err));
    const CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
    QCOMPARE(
        pgValue(QStringLiteral("SELECT amount || ' ' || extract(microseconds FROM at) FROM %1").arg(target)),
        QStringLiteral("0.125 123456"));
}

// The target server stops while a window is being written: the iteration fails with a clear
// error, target and watermark stay as they were, and the run after the restart is exact.
void TestPostgresCopy::serverStoppedMidCopy() {
    QTemporaryDir stateDir;
    const QString state = stateDir.filePath(QStringLiteral("cluster.state"));
    QProcess start;
    start.start(QStringLiteral("bash"),
                {scriptPath("pgcluster.sh"), QStringLiteral("start"), QStringLiteral("--state"), state});
    QVERIFY(start.waitForFinished(120000));
    const QString startOut = QString::fromUtf8(start.readAllStandardOutput());
    QVERIFY2(start.exitCode() == 0, qPrintable(startOut + QString::fromUtf8(start.readAllStandardError())));
    const QString port = startOut.trimmed().section(QLatin1Char('\n'), -1).section(QLatin1Char('='), 1);
    const auto stopCluster = qScopeGuard([&] {
        QProcess::execute(QStringLiteral("bash"), {scriptPath("pgcluster.sh"), QStringLiteral("stop"),
                                                   QStringLiteral("--state"), state});
    });
    QVERIFY2(!port.isEmpty(), qPrintable(startOut));
    QFile stateFile(state);
    QVERIFY(stateFile.open(QIODevice::ReadOnly));
    const QString stateText = QString::fromUtf8(stateFile.readAll());
    const auto stateValue = [&](const QString &key) {
        const QRegularExpression re(QStringLiteral("^%1='([^']*)'$").arg(key),
                                    QRegularExpression::MultilineOption);
        return re.match(stateText).captured(1);
    };

    sqliteExec(
        QStringLiteral("CREATE TABLE big (id INTEGER PRIMARY KEY, v INTEGER NOT NULL);"
                       "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 5000) "
                       "INSERT INTO big SELECT i, i FROM g;"));
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("far"),
                  QStringLiteral("--postgres"), conninfo(port)})
                 .exitCode,
             0);
    CliResult add = cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                         QStringLiteral("lite:big"), QStringLiteral("--target"), QStringLiteral("far:big"),
                         QStringLiteral("--watermark"), QStringLiteral("v"), QStringLiteral("--batch-size"),
                         QStringLiteral("500")});
    QVERIFY2(add.exitCode == 0, qPrintable(add.err));
    // A first run creates the target; then the window 1..5000 is written again from scratch.
    sqliteExec(QStringLiteral("UPDATE big SET v = -v"));
    QCOMPARE(cli({QStringLiteral("run")}).exitCode, 0);
    sqliteExec(QStringLiteral("UPDATE big SET v = -v"));

    PostgresConnector far(pgSpec(port));
    QCOMPARE(far.query(QStringLiteral("SELECT count(*) FROM public.big")).value(0).value(0),
             QStringLiteral("5000"));
    far.execute(QStringLiteral("DELETE FROM public.big"));
    // When row 2500 arrives, the server is stopped (immediate mode, like a crash or a kill)
    // and the writing backend waits for its end: deterministic, no timing involved.
    const QString stopCommand =
        QStringLiteral("nohup %1/pg_ctl -D %2 stop -m immediate >/dev/null 2>&1 &")
            .arg(stateValue(QStringLiteral("BINDIR")), stateValue(QStringLiteral("DATADIR")));
    far.execute(
        QStringLiteral("CREATE FUNCTION public.stop_server() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN "
                       "IF NEW.v = 2500 THEN EXECUTE format('COPY (SELECT 1) TO PROGRAM %L', $c$%1$c$); "
                       "PERFORM pg_sleep(60); END IF; RETURN NEW; END $f$")
            .arg(stopCommand));
    far.execute(
        QStringLiteral("CREATE TRIGGER stop_server BEFORE INSERT ON public.big FOR EACH ROW EXECUTE FUNCTION "
                       "public.stop_server()"));
    const QString watermarkBefore =
        far.query(QStringLiteral("SELECT watermark FROM public.tidemark_state")).value(0).value(0);

    CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.iteration().value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
    const QString error = run.iteration().value(QStringLiteral("error")).toString();
    QVERIFY2(error.contains(QLatin1String("connection 'far'")), qPrintable(error));
    QCOMPARE(run.iteration().value(QStringLiteral("watermark_after")).toVariant(),
             run.iteration().value(QStringLiteral("watermark_before")).toVariant());

    QProcess resume;
    resume.start(QStringLiteral("bash"),
                 {scriptPath("pgcluster.sh"), QStringLiteral("resume"), QStringLiteral("--state"), state});
    QVERIFY(resume.waitForFinished(120000));
    QVERIFY2(resume.exitCode() == 0, qPrintable(QString::fromUtf8(resume.readAllStandardError())));
    PostgresConnector back(pgSpec(port));
    QCOMPARE(back.query(QStringLiteral("SELECT count(*) FROM public.big")).value(0).value(0),
             QStringLiteral("0"));
    QCOMPARE(back.query(QStringLiteral("SELECT watermark FROM public.tidemark_state")).value(0).value(0),
             watermarkBefore);
    back.execute(QStringLiteral("DROP TRIGGER stop_server ON public.big"));
    // The workspace still says -1 (the first run's max); put the target back in line with it.
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    QCOMPARE(run.iteration().value(QStringLiteral("rows_written")).toInt(), 5000);
    QCOMPARE(back.query(QStringLiteral("SELECT count(DISTINCT v) || '/' || count(*) FROM public.big"))
                 .value(0)
                 .value(0),
             QStringLiteral("5000/5000"));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.iteration().value(QStringLiteral("status")).toString(), QStringLiteral("no_new_rows"));
}

QTEST_GUILESS_MAIN(TestPostgresCopy)
#include "tst_postgrescopy.moc"
