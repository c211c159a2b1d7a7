// SPDX-License-Identifier: MIT
// Roles in a server workspace, through the real tidemark-cli and through psql's way in (a libpq
// session of the same login): the owner grants; an operator runs but may not add a table; a
// viewer reads but may not run; the server refuses each of them the same writes; a revoked user
// may do nothing; a workspace file has no roles. Who started each run and who moved each position
// is the server's word (its login), and a file's its user's.
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <stdexcept>

#include <pwd.h>
#include <unistd.h>

using namespace tidemark::test;

class TestRoles : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void enforcedByTidemarkAndByTheServer();
    void aFileHasNoRoles();

private:
    QString location(const QString &user) const {
        return QStringLiteral("postgresql://%1@127.0.0.1:%2/tidemark?schema=%3")
            .arg(user, pgPort(), m_schema);
    }
    CliResult as(const QString &user, const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), location(user)} + args, m_dir.path());
    }
    // What the server says to `sql` run as `user` ("" when it is done).
    QString serverSays(const QString &user, const QString &sql) {
        try {
            PgSession(
                QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark user=%2 options=-csearch_path=%3")
                    .arg(pgPort(), user, m_schema))
                .exec(sql);
            return {};
        } catch (const std::runtime_error &error) {
            return QString::fromUtf8(error.what());
        }
    }

    QTemporaryDir m_dir;
    QString m_schema;
    QString m_bob;
    QString m_carol;
};

void TestRoles::initTestCase() {
    TIDEMARK_REQUIRE_POSTGRES();
    QVERIFY(m_dir.isValid());
    const QString suffix = QString::number(QCoreApplication::applicationPid());
    m_schema = QStringLiteral("roles_") + suffix;
    m_bob = QStringLiteral("bob_") + suffix;
    m_carol = QStringLiteral("carol_") + suffix;
    PgSession admin;
    // Generated identifiers: DDL takes no bound parameters.
    for (const QString &user : {m_bob, m_carol})
        admin.exec(QStringLiteral("CREATE ROLE %1 LOGIN").arg(user));
}

void TestRoles::cleanupTestCase() {
    if (pgPort().isEmpty())
        return;
    PgSession admin;
    admin.exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(m_schema));
    for (const QString &role : {QStringLiteral("admin"), QStringLiteral("analyst"),
                                QStringLiteral("operator"), QStringLiteral("viewer")})
        admin.exec(QStringLiteral("DROP ROLE IF EXISTS %1_%2").arg(m_schema, role));
    for (const QString &user : {m_bob, m_carol})
        admin.exec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(user));
}

void TestRoles::enforcedByTidemarkAndByTheServer() {
    const QString owner = QStringLiteral("tidemark");
    makeOrders(m_dir.filePath(QStringLiteral("src.db")), 5);
    for (const QStringList &step : QList<QStringList>{
             {QStringLiteral("init")},
             {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
              QStringLiteral("--sqlite"), m_dir.filePath(QStringLiteral("src.db"))},
             {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
              QStringLiteral("--sqlite"), m_dir.filePath(QStringLiteral("dst.db"))},
             {QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
              QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
              QStringLiteral("--watermark"), QStringLiteral("updated_at")}}) {
        const CliResult done = as(owner, step);
        QVERIFY2(done.exitCode == 0, qPrintable(done.describe()));
    }
    const CliResult none = as(owner, {QStringLiteral("workspace"), QStringLiteral("roles")});
    QVERIFY2(none.exitCode == 0 && none.out.contains(QStringLiteral("no roles granted")),
             qPrintable(none.describe()));

    // The owner grants.
    for (const auto &[user, role] :
         {std::pair{m_bob, QStringLiteral("operator")}, std::pair{m_carol, QStringLiteral("viewer")}}) {
        const CliResult granted =
            as(owner, {QStringLiteral("workspace"), QStringLiteral("grant"), user, role});
        QVERIFY2(granted.exitCode == 0, qPrintable(granted.describe()));
    }
    const QJsonArray roles = parseJsonArray(
        as(owner, {QStringLiteral("workspace"), QStringLiteral("roles"), QStringLiteral("--json")}).out);
    QCOMPARE(roles.size(), 2);
    QCOMPARE(roles.at(0)[QStringLiteral("user")].toString(), m_bob);
    QCOMPARE(roles.at(0)[QStringLiteral("role")].toString(), QStringLiteral("operator"));
    QCOMPARE(roles.at(1)[QStringLiteral("user")].toString(), m_carol);
    QCOMPARE(roles.at(1)[QStringLiteral("role")].toString(), QStringLiteral("viewer"));

    // An operator runs, pauses and resumes, but does not add tables or grant roles.
    const CliResult added =
        as(m_bob, {QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                   QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:more"),
                   QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    QCOMPARE(added.exitCode, 2);
    QVERIFY2(added.err.contains(QStringLiteral("%1 is an operator: table add needs analyst").arg(m_bob)),
             qPrintable(added.describe()));
    const CliResult ran = as(m_bob, {QStringLiteral("run")});
    QVERIFY2(ran.exitCode == 0, qPrintable(ran.describe()));
    QCOMPARE(countRows(m_dir.filePath(QStringLiteral("dst.db")), QStringLiteral("orders")), qint64(5));
    for (const QString &action : {QStringLiteral("pause"), QStringLiteral("resume")}) {
        const CliResult done = as(m_bob, {QStringLiteral("table"), action, QStringLiteral("1")});
        QVERIFY2(done.exitCode == 0, qPrintable(done.describe()));
    }
    const CliResult bobGrants =
        as(m_bob, {QStringLiteral("workspace"), QStringLiteral("grant"), m_carol, QStringLiteral("analyst")});
    QCOMPARE(bobGrants.exitCode, 2);
    QVERIFY2(bobGrants.err.contains(QStringLiteral("needs admin")), qPrintable(bobGrants.describe()));

    // A viewer reads, and runs nothing. Who started the run and who moved the position is the
    // server's word.
    const CliResult history = as(m_carol, {QStringLiteral("history"), QStringLiteral("--json")});
    QVERIFY2(history.exitCode == 0, qPrintable(history.describe()));
    QCOMPARE(parseJsonArray(history.out).size(), 1);
    QCOMPARE(parseJsonArray(history.out).at(0)[QStringLiteral("started_by")].toString(), m_bob);
    const CliResult changes = as(m_carol, {QStringLiteral("table"), QStringLiteral("changes"),
                                           QStringLiteral("1"), QStringLiteral("--json")});
    QVERIFY2(changes.exitCode == 0, qPrintable(changes.describe()));
    QStringList whoDidWhat;
    for (const QJsonValue &change : parseJsonArray(changes.out))
        whoDidWhat << change[QStringLiteral("cause")].toString() + QLatin1Char(':') +
                          change[QStringLiteral("by")].toString();
    QVERIFY2(whoDidWhat.contains(QStringLiteral("run:") + m_bob), qPrintable(whoDidWhat.join(u' ')));
    const CliResult carolRuns = as(m_carol, {QStringLiteral("run")});
    QCOMPARE(carolRuns.exitCode, 2);
    QVERIFY2(carolRuns.err.contains(QStringLiteral("%1 is a viewer: run needs operator").arg(m_carol)),
             qPrintable(carolRuns.describe()));

    // The server refuses the same logins the same things, whatever client they use.
    QVERIFY(
        serverSays(m_carol, QStringLiteral("INSERT INTO runs (\"trigger\", host, pid, started_at, status) "
                                           "VALUES ('psql', 'h', 1, 'now', 'running')"))
            .contains(QStringLiteral("permission denied")));
    QVERIFY(serverSays(m_bob, QStringLiteral("UPDATE tables SET source_table = 'elsewhere' WHERE id = 1"))
                .contains(QStringLiteral("permission denied")));
    QVERIFY(serverSays(m_bob, QStringLiteral("DELETE FROM connections"))
                .contains(QStringLiteral("permission denied")));
    // Of the workspace's settings, an operator writes the lease token its runs draw, no other.
    QVERIFY(
        serverSays(m_bob, QStringLiteral("INSERT INTO meta (\"key\", value) VALUES ('max_concurrency', '1')"))
            .contains(QStringLiteral("row-level security")));
    QCOMPARE(
        serverSays(m_bob, QStringLiteral("UPDATE meta SET value = '1' WHERE \"key\" = 'schema_version'")),
        QString());
    PgSession admin;
    QCOMPARE(admin.value(
                 QStringLiteral("SELECT value FROM %1.meta WHERE \"key\" = 'schema_version'").arg(m_schema)),
             QStringLiteral("9"));
    QCOMPARE(serverSays(m_bob, QStringLiteral("UPDATE tables SET active = 1 WHERE id = 1")), QString());
    QCOMPARE(serverSays(m_carol, QStringLiteral("SELECT count(*) FROM iterations")), QString());
    // A row written outside Tidemark names its login, whatever name it claims.
    QCOMPARE(serverSays(m_bob,
                        QStringLiteral(
                            "INSERT INTO runs (\"trigger\", host, pid, started_at, status, "
                            "concurrency, started_by) VALUES ('psql', 'h', 1, 'now', 'failed', 1, 'alice')")),
             QString());
    QCOMPARE(serverSays(m_bob, QStringLiteral("UPDATE runs SET started_by = 'alice' WHERE id = 1")),
             QString());
    QCOMPARE(admin.query(QStringLiteral("SELECT started_by FROM %1.runs ORDER BY id").arg(m_schema)),
             (QList<QStringList>{{m_bob}, {m_bob}}));

    // Revoked, the viewer may do nothing, and is told who grants.
    const CliResult revoked = as(owner, {QStringLiteral("workspace"), QStringLiteral("revoke"), m_carol});
    QVERIFY2(revoked.exitCode == 0, qPrintable(revoked.describe()));
    const CliResult after = as(m_carol, {QStringLiteral("history")});
    QCOMPARE(after.exitCode, 2);
    QVERIFY2(after.err.contains(QStringLiteral("has no role")), qPrintable(after.describe()));
}

void TestRoles::aFileHasNoRoles() {
    const QString file = m_dir.filePath(QStringLiteral("w.tidemark"));
    QCOMPARE(runCli({QStringLiteral("-w"), file, QStringLiteral("init")}, m_dir.path()).exitCode, 0);
    const CliResult refused = runCli(
        {QStringLiteral("-w"), file, QStringLiteral("workspace"), QStringLiteral("roles")}, m_dir.path());
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("has no roles")), qPrintable(refused.describe()));

    // Who started a run is the process's login (from the password database, not $USER).
    makeOrders(m_dir.filePath(QStringLiteral("file-src.db")), 3);
    for (const QStringList &step : QList<QStringList>{
             {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
              QStringLiteral("--sqlite"), m_dir.filePath(QStringLiteral("file-src.db"))},
             {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
              QStringLiteral("--sqlite"), m_dir.filePath(QStringLiteral("file-dst.db"))},
             {QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
              QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
              QStringLiteral("--watermark"), QStringLiteral("updated_at")},
             {QStringLiteral("run")}}) {
        const CliResult done = runCli(QStringList{QStringLiteral("-w"), file} + step, m_dir.path());
        QVERIFY2(done.exitCode == 0, qPrintable(done.describe()));
    }
    const passwd *me = ::getpwuid(::geteuid());
    QVERIFY(me);
    const QJsonArray history = parseJsonArray(
        runCli({QStringLiteral("-w"), file, QStringLiteral("history"), QStringLiteral("--json")},
               m_dir.path())
            .out);
    QCOMPARE(history.at(0)[QStringLiteral("started_by")].toString(), QString::fromLocal8Bit(me->pw_name));
    const CliResult changes = runCli(
        {QStringLiteral("-w"), file, QStringLiteral("table"), QStringLiteral("changes"), QStringLiteral("1")},
        m_dir.path());
    QVERIFY2(changes.exitCode == 0 && changes.out.startsWith(QStringLiteral("AT")) &&
                 changes.out.contains(QStringLiteral(" run ")) &&
                 changes.out.contains(QString::fromLocal8Bit(me->pw_name)),
             qPrintable(changes.describe()));
}

QTEST_GUILESS_MAIN(TestRoles)
#include "tst_roles.moc"
