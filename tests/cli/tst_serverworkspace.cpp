// SPDX-License-Identifier: MIT
// A team's workspace on a PostgreSQL server, through real processes: CLIs and a `serve` with
// different HOMEs (as on different machines) share one server workspace; what one process runs
// is seen by another's `history` at once; the schema is created by `init` and never twice; a
// password never rides in the workspace's name.
#include "model/common/error.h"
#include "model/storage/workspace.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <signal.h>

using namespace tidemark;
using namespace tidemark::test;

namespace {

constexpr int kGenerous = 90000; // waiting for things to happen, never a claim about speed

// A process environment of its own: HOME (so no keychain, no config, no log is shared), the
// workspace named only by TIDEMARK_WORKSPACE and TIDEMARK_WORKSPACE_SCHEMA.
QProcessEnvironment userEnvironment(const QString &home, const QString &uri, const QString &schema) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("TIDEMARK_WORKSPACE"), uri);
    env.insert(QStringLiteral("TIDEMARK_WORKSPACE_SCHEMA"), schema);
    env.insert(QStringLiteral("TIDEMARK_TEST_RUNNER_HEARTBEAT_MS"), QStringLiteral("200"));
    env.insert(QStringLiteral("TIDEMARK_TEST_RUN_HEARTBEAT_MS"), QStringLiteral("200"));
    return env;
}

CliResult runAs(const QProcessEnvironment &env, const QString &dir, const QStringList &args) {
    QProcess process;
    process.setProcessEnvironment(env);
    process.setWorkingDirectory(dir);
    process.start(cliPath(), args);
    CliResult result;
    if (!process.waitForStarted(30000) || !process.waitForFinished(300000)) {
        process.kill();
        process.waitForFinished(5000);
        result.crashed = true;
    }
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    result.exitCode = result.crashed || process.exitStatus() == QProcess::CrashExit ? -1 : process.exitCode();
    return result;
}

} // namespace

class TestServerWorkspace : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void initCreatesTheSchemaOnce();
    void twoClisAndARunnerShareOneWorkspace();
    void passwordInTheUriIsRefused();
    void lostConnectionIsOpenedAgain();
    void passwordFromLibpqNeverStored();

private:
    QString path(const QString &name) const { return m_dir->filePath(name); }
    QString home(const QString &who) const {
        QDir(m_dir->path()).mkpath(who);
        return path(who);
    }
    CliResult as(const QString &who, const QStringList &args) {
        return runAs(userEnvironment(home(who), m_uri, m_schema), m_dir->path(), args);
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_uri;
    QString m_schema;
};

void TestServerWorkspace::init() {
    TIDEMARK_REQUIRE_POSTGRES();
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_uri = QStringLiteral("postgresql://tidemark@127.0.0.1:%1/tidemark").arg(pgPort());
    m_schema = QStringLiteral("team_%1_%2").arg(QCoreApplication::applicationPid()).arg(std::rand() % 100000);
}

void TestServerWorkspace::cleanup() {
    if (!m_schema.isEmpty() && !pgPort().isEmpty())
        PgSession().exec(QStringLiteral("DROP SCHEMA IF EXISTS \"%1\" CASCADE").arg(m_schema));
}

void TestServerWorkspace::initCreatesTheSchemaOnce() {
    // -w and --workspace-schema name it as the variables do.
    const CliResult created = runCli(
        {QStringLiteral("-w"), m_uri, QStringLiteral("--workspace-schema"), m_schema, QStringLiteral("init")},
        m_dir->path());
    QVERIFY2(created.exitCode == 0, qPrintable(created.describe()));
    QCOMPARE(
        PgSession()
                .value(QStringLiteral("SELECT count(*) FROM pg_tables WHERE schemaname = $1"), {m_schema})
                .toInt() > 5,
        true);
    const CliResult again = as(QStringLiteral("bob"), {QStringLiteral("init")});
    QCOMPARE(again.exitCode, 2);
    QVERIFY2(again.err.contains(QStringLiteral("already exists")), qPrintable(again.describe()));
    // Another schema of the same database is another workspace, and one that holds none is named.
    const CliResult missing = runCli({QStringLiteral("-w"), m_uri + QStringLiteral("?schema=nobody_here"),
                                      QStringLiteral("table"), QStringLiteral("list")},
                                     m_dir->path());
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains(QStringLiteral("nobody_here")), qPrintable(missing.describe()));
    // No log file named after the URI, no file of any kind beside the commands.
    QCOMPARE(QDir(m_dir->path()).entryList(QDir::Files), QStringList());
}

void TestServerWorkspace::twoClisAndARunnerShareOneWorkspace() {
    const QString src = path(QStringLiteral("src.db"));
    const QString dst = path(QStringLiteral("dst.db"));
    makeOrders(src, 5);
    QCOMPARE(as(QStringLiteral("alice"), {QStringLiteral("init")}).exitCode, 0);
    for (const auto &[name, file] :
         {std::pair{QStringLiteral("src"), src}, std::pair{QStringLiteral("dst"), dst}}) {
        const CliResult added =
            as(QStringLiteral("alice"),
               {QStringLiteral("connection"), QStringLiteral("add"), name, QStringLiteral("--sqlite"), file});
        QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    }
    const CliResult table =
        as(QStringLiteral("alice"),
           {QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
            QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
            QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    QVERIFY2(table.exitCode == 0, qPrintable(table.describe()));

    // Bob, elsewhere, sees Alice's table and runs it; Alice's history shows his run at once.
    const CliResult list = as(QStringLiteral("bob"),
                              {QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")});
    QVERIFY2(list.exitCode == 0, qPrintable(list.describe()));
    QCOMPARE(parseJsonArray(list.out).size(), 1);
    const CliResult run = as(QStringLiteral("bob"), {QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(5));
    const CliResult history =
        as(QStringLiteral("alice"), {QStringLiteral("history"), QStringLiteral("--json")});
    QVERIFY2(history.exitCode == 0, qPrintable(history.describe()));
    const QJsonArray runs = parseJsonArray(history.out);
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs.at(0)[QStringLiteral("status")].toString(), QStringLiteral("succeeded"));
    QCOMPARE(runs.at(0)[QStringLiteral("trigger")].toString(), QStringLiteral("cli"));

    // A runner, a third HOME, takes the schedule; new rows arrive once, whoever reads.
    const CliResult scheduled =
        as(QStringLiteral("alice"),
           {QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("every-second"),
            QStringLiteral("--cron"), QStringLiteral("* * * * * *"), QStringLiteral("--tz"),
            QStringLiteral("UTC")});
    QVERIFY2(scheduled.exitCode == 0, qPrintable(scheduled.describe()));
    QProcess serve;
    serve.setProcessEnvironment(userEnvironment(home(QStringLiteral("runner")), m_uri, m_schema));
    serve.setWorkingDirectory(m_dir->path());
    serve.start(cliPath(), {QStringLiteral("serve")});
    QVERIFY(serve.waitForStarted(30000));
    QString serveErr;
    const auto err = [&] {
        serveErr += QString::fromUtf8(serve.readAllStandardError());
        return serveErr;
    };
    makeOrders(src, 5, 6);
    QTRY_VERIFY2_WITH_TIMEOUT(countRows(dst, QStringLiteral("orders")) == 10, qPrintable(err()), kGenerous);
    QTRY_VERIFY2_WITH_TIMEOUT(err().contains(QStringLiteral("active runner")), qPrintable(err()), kGenerous);
    // The runner that fires schedules first; on a server workspace it takes queued work too.
    const QJsonArray runners =
        parseJsonArray(as(QStringLiteral("bob"), {QStringLiteral("runners"), QStringLiteral("--json")}).out);
    QCOMPARE(runners.size(), 2);
    QCOMPARE(runners.at(0)[QStringLiteral("pid")].toInteger(), serve.processId());
    QCOMPARE(runners.at(0)[QStringLiteral("role")].toString(), QStringLiteral("scheduler"));
    QCOMPARE(runners.at(1)[QStringLiteral("pid")].toInteger(), serve.processId());
    QCOMPARE(runners.at(1)[QStringLiteral("role")].toString(), QStringLiteral("worker"));

    // While the runner fires, Bob runs by hand too: the lease keeps them from copying twice.
    makeOrders(src, 5, 11);
    const CliResult byHand = as(QStringLiteral("bob"), {QStringLiteral("run")});
    QVERIFY2(byHand.exitCode == 0 || byHand.exitCode == 1, qPrintable(byHand.describe()));
    QTRY_VERIFY2_WITH_TIMEOUT(countRows(dst, QStringLiteral("orders")) == 15, qPrintable(err()), kGenerous);

    ::kill(pid_t(serve.processId()), SIGTERM);
    QVERIFY(serve.waitForFinished(20000));
    QCOMPARE(serve.exitCode(), 0);
    QCOMPARE(queryValue(dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(),
             qint64(15));
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(15));
    const QJsonArray all = parseJsonArray(
        as(QStringLiteral("alice"), {QStringLiteral("history"), QStringLiteral("--json")}).out);
    QVERIFY(all.size() >= 3);
    bool scheduleRun = false;
    for (const QJsonValue &each : all) {
        QVERIFY2(each[QStringLiteral("status")].toString() != QStringLiteral("running"),
                 qPrintable(QString::fromUtf8(QJsonDocument(each.toObject()).toJson())));
        scheduleRun =
            scheduleRun || each[QStringLiteral("schedule")].toString() == QStringLiteral("every-second");
    }
    QVERIFY(scheduleRun);
    // The runner's heartbeat row is gone with it.
    QCOMPARE(
        parseJsonArray(as(QStringLiteral("bob"), {QStringLiteral("runners"), QStringLiteral("--json")}).out)
            .size(),
        0);
}

void TestServerWorkspace::passwordInTheUriIsRefused() {
    const QString secret = QStringLiteral("s3cret-%1").arg(std::rand());
    const CliResult refused =
        runCli({QStringLiteral("-w"),
                QStringLiteral("postgresql://tidemark:%1@127.0.0.1:%2/tidemark").arg(secret, pgPort()),
                QStringLiteral("init")},
               m_dir->path());
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("PGPASSWORD")), qPrintable(refused.describe()));
    QVERIFY2(!refused.err.contains(secret), qPrintable(refused.describe()));
    QCOMPARE(
        PgSession().value(QStringLiteral("SELECT count(*) FROM pg_namespace WHERE nspname = 'tidemark'")),
        QStringLiteral("0"));
}

// The workspace server ends the session (pg_terminate_backend, as a restart does): the call that
// meets the loss fails naming the workspace, nothing half-written stays, the next call connects
// again by itself.
void TestServerWorkspace::lostConnectionIsOpenedAgain() {
    // Its sessions named after its schema: the suites beside it on the cluster keep theirs.
    const QString location =
        m_uri + QStringLiteral("?schema=") + m_schema + QStringLiteral("&application_name=") + m_schema;
    const std::unique_ptr<Workspace> workspace = Workspace::create(location);
    TableSpec spec;
    spec.sourceConnection = QStringLiteral("src");
    spec.sourceTable = QStringLiteral("orders");
    spec.targetConnection = QStringLiteral("dst");
    spec.targetTable = QStringLiteral("orders");
    const qint64 id = workspace->addTable(spec);
    PgSession admin;
    QCOMPARE(admin.value(QStringLiteral("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                                        "application_name = $1"),
                         {m_schema})
                     .toInt() >= 1,
             true);
    try {
        workspace->setActive(id, false);
        QFAIL("a write on a terminated session succeeded");
    } catch (const Error &error) {
        QVERIFY2(error.message().contains(m_schema), qPrintable(error.message()));
    }
    QCOMPARE(workspace->table(id)->active, true); // the failed write left nothing
    workspace->setActive(id, false);
    QCOMPARE(Workspace::open(location)->table(id)->active, false);
}

// A server that asks for a password (scram): PGPASSWORD gives it, and it lands nowhere — not in
// the workspace's rows, not in what the commands print, not in a file beside them.
void TestServerWorkspace::passwordFromLibpqNeverStored() {
    const QString role = QStringLiteral("teamrole_%1").arg(QCoreApplication::applicationPid());
    const QString secret = QStringLiteral("Zq9-%1-unlikely").arg(std::rand());
    PgSession admin;
    admin.exec(QStringLiteral("DROP ROLE IF EXISTS \"%1\"").arg(role));
    admin.exec(QStringLiteral("CREATE ROLE \"%1\" LOGIN PASSWORD '%2'").arg(role, secret));
    admin.exec(QStringLiteral("GRANT CREATE ON DATABASE tidemark_pw TO \"%1\"").arg(role));
    const QString uri =
        QStringLiteral("postgresql://%1@127.0.0.1:%2/tidemark_pw?schema=%3").arg(role, pgPort(), m_schema);
    QProcessEnvironment env = userEnvironment(home(QStringLiteral("carol")), uri, QString());
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE_SCHEMA"));
    // Without the password: refused, naming where libpq looks.
    const CliResult without = runAs(env, m_dir->path(), {QStringLiteral("init")});
    QCOMPARE(without.exitCode, 2);
    env.insert(QStringLiteral("PGPASSWORD"), secret);
    makeOrders(path(QStringLiteral("src.db")), 3);
    QString printed;
    for (const QStringList &args :
         {QStringList{QStringLiteral("init")},
          QStringList{QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                      QStringLiteral("--sqlite"), path(QStringLiteral("src.db"))},
          QStringList{QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
                      QStringLiteral("--sqlite"), path(QStringLiteral("dst.db"))},
          QStringList{QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                      QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
                      QStringLiteral("--watermark"), QStringLiteral("updated_at")},
          QStringList{QStringLiteral("run"), QStringLiteral("--json")},
          QStringList{QStringLiteral("history"), QStringLiteral("--json")}}) {
        const CliResult result = runAs(env, m_dir->path(), args);
        QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
        printed += result.out + result.err;
    }
    QCOMPARE(countRows(path(QStringLiteral("dst.db")), QStringLiteral("orders")), qint64(3));
    QVERIFY(!printed.contains(secret));
    PgSession owner(
        QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark_pw user=tidemark password=tidemark")
            .arg(pgPort()));
    const QList<QStringList> tables =
        owner.query(QStringLiteral("SELECT tablename FROM pg_tables WHERE schemaname = $1"), {m_schema});
    QVERIFY(tables.size() > 5);
    for (const QStringList &table : tables) {
        const QString rows = owner.value(
            QStringLiteral("SELECT coalesce(string_agg(row_to_json(t)::text, ' '), '') FROM \"%1\".\"%2\" t")
                .arg(m_schema, table.first()));
        QVERIFY2(!rows.contains(secret), qPrintable(table.first()));
    }
    // The target's state row names the workspace without it too.
    QVERIFY(
        !queryRows(path(QStringLiteral("dst.db")), QStringLiteral("SELECT * FROM tidemark_state")).isEmpty());
    for (const QStringList &row :
         queryRows(path(QStringLiteral("dst.db")), QStringLiteral("SELECT * FROM tidemark_state")))
        QVERIFY(!row.join(QLatin1Char(' ')).contains(secret));
    for (const QString &file : QDir(m_dir->path()).entryList(QDir::Files)) {
        QFile each(path(file));
        QVERIFY(each.open(QIODevice::ReadOnly));
        QVERIFY2(!each.readAll().contains(secret.toUtf8()), qPrintable(file));
    }
    owner.exec(QStringLiteral("DROP SCHEMA \"%1\" CASCADE").arg(m_schema));
    owner.exec(QStringLiteral("REVOKE CREATE ON DATABASE tidemark_pw FROM \"%1\"").arg(role));
    admin.exec(QStringLiteral("DROP ROLE \"%1\"").arg(role));
}

QTEST_GUILESS_MAIN(TestServerWorkspace)
#include "tst_serverworkspace.moc"
