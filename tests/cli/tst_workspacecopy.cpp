// SPDX-License-Identifier: MIT
// `workspace copy DEST` through the real tidemark-cli: a file workspace moves onto the server and
// back to a file, with its tables (ids and positions), schedules, history and audit trail; each
// copy takes the targets over, so runs go on where they stopped (no re-copy, no duplicate), and
// the workspace copied from refuses to run, naming the copy. Refused: a DEST that exists, and a
// copy while a run is going.
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace tidemark::test;

class TestWorkspaceCopy : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void fileToServerToFileGoesOnWhereItStopped();
    void refusesAnExistingDestination();
    void refusesWhileARunIsGoing();
    void leavesATargetAnotherWorkspaceOwns();

private:
    QString path(const QString &name) const { return m_dir->filePath(name); }
    QString server() const {
        return QStringLiteral("postgresql://tidemark@127.0.0.1:%1/tidemark?schema=%2")
            .arg(pgPort(), m_schema);
    }
    CliResult cli(const QString &workspace, const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), workspace} + args, m_dir->path());
    }
    // init, the connections src and dst (SQLite files here) and table 1, src:orders into
    // dst:orders, then `more`; false (the test failed) when a step did not pass.
    bool setUp(const QString &workspace, const QList<QStringList> &more = {});
    // A file workspace copying src:orders into dst:orders, run once (5 rows), with a schedule.
    QString ranWorkspace();

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_schema;
};

void TestWorkspaceCopy::init() {
    TIDEMARK_REQUIRE_POSTGRES();
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_schema = QStringLiteral("copy_%1_%2").arg(QCoreApplication::applicationPid()).arg(std::rand() % 100000);
}

void TestWorkspaceCopy::cleanup() {
    if (!pgPort().isEmpty())
        PgSession().exec(QStringLiteral("DROP SCHEMA IF EXISTS \"%1\" CASCADE").arg(m_schema));
}

bool TestWorkspaceCopy::setUp(const QString &workspace, const QList<QStringList> &more) {
    const QList<QStringList> steps =
        QList<QStringList>{
            {QStringLiteral("init")},
            {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
             QStringLiteral("--sqlite"), path(QStringLiteral("src.db"))},
            {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
             QStringLiteral("--sqlite"), path(QStringLiteral("dst.db"))},
            {QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at")},
        } +
        more;
    for (const QStringList &step : steps) {
        const CliResult done = cli(workspace, step);
        if (done.exitCode != 0) {
            QTest::qFail(qPrintable(done.describe()), __FILE__, __LINE__);
            return false;
        }
    }
    return true;
}

QString TestWorkspaceCopy::ranWorkspace() {
    const QString workspace = path(QStringLiteral("one.tidemark"));
    makeOrders(path(QStringLiteral("src.db")), 5);
    const bool done =
        setUp(workspace, {{QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("nightly"),
                           QStringLiteral("--cron"), QStringLiteral("0 2 * * *"), QStringLiteral("--tz"),
                           QStringLiteral("UTC")},
                          {QStringLiteral("run")}});
    return done ? workspace : QString();
}

void TestWorkspaceCopy::fileToServerToFileGoesOnWhereItStopped() {
    const QString one = ranWorkspace();
    QVERIFY(!one.isEmpty());
    const QString dst = path(QStringLiteral("dst.db"));
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(5));

    // File → server.
    const CliResult toServer = cli(one, {QStringLiteral("workspace"), QStringLiteral("copy"), server()});
    QVERIFY2(toServer.exitCode == 0, qPrintable(toServer.describe()));
    QVERIFY2(toServer.out.contains(QStringLiteral("took over the target of table 1 (dst:orders)")),
             qPrintable(toServer.describe()));
    QVERIFY2(toServer.out.contains(QStringLiteral("copied runs: 1 row(s)")), qPrintable(toServer.describe()));
    // The file runs nothing more, and says where its tables went.
    const CliResult oldRun = cli(one, {QStringLiteral("run")});
    QCOMPARE(oldRun.exitCode, 2);
    QVERIFY2(oldRun.err.contains(m_schema) && oldRun.err.contains(QStringLiteral("copied to")),
             qPrintable(oldRun.describe()));

    // The server goes on from the position: only the new rows, once.
    makeOrders(path(QStringLiteral("src.db")), 5, 6);
    const CliResult serverRun = cli(server(), {QStringLiteral("run")});
    QVERIFY2(serverRun.exitCode == 0, qPrintable(serverRun.describe()));
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(10));
    QCOMPARE(queryValue(dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(),
             qint64(10));
    const QJsonArray runs =
        parseJsonArray(cli(server(), {QStringLiteral("history"), QStringLiteral("--json")}).out);
    QCOMPARE(runs.size(), 2);
    QCOMPARE(runs.at(0)[QStringLiteral("run_id")].toInteger(), 2); // newest first, ids kept
    QCOMPARE(runs.at(0)[QStringLiteral("iterations")][0][QStringLiteral("rows_written")].toInteger(), 5);
    QCOMPARE(runs.at(1)[QStringLiteral("run_id")].toInteger(), 1);
    const QJsonArray schedules = parseJsonArray(
        cli(server(), {QStringLiteral("schedule"), QStringLiteral("list"), QStringLiteral("--json")}).out);
    QCOMPARE(schedules.size(), 1);
    QCOMPARE(schedules.at(0)[QStringLiteral("name")].toString(), QStringLiteral("nightly"));

    // The server's id sequences follow the copied ids.
    const CliResult addedOnServer = cli(
        server(), {QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                   QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders_too"),
                   QStringLiteral("--watermark"), QStringLiteral("updated_at"), QStringLiteral("--paused")});
    QVERIFY2(addedOnServer.exitCode == 0, qPrintable(addedOnServer.describe()));
    QCOMPARE(addedOnServer.out.trimmed(), QStringLiteral("2"));

    // Server → file.
    const QString two = path(QStringLiteral("two.tidemark"));
    const CliResult toFile = cli(server(), {QStringLiteral("workspace"), QStringLiteral("copy"), two});
    QVERIFY2(toFile.exitCode == 0, qPrintable(toFile.describe()));
    const CliResult serverAgain = cli(server(), {QStringLiteral("run")});
    QCOMPARE(serverAgain.exitCode, 2);
    QVERIFY2(serverAgain.err.contains(two), qPrintable(serverAgain.describe()));
    makeOrders(path(QStringLiteral("src.db")), 5, 11);
    const CliResult fileRun = cli(two, {QStringLiteral("run")});
    QVERIFY2(fileRun.exitCode == 0, qPrintable(fileRun.describe()));
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(15));
    QCOMPARE(queryValue(dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(),
             qint64(15));
    QCOMPARE(parseJsonArray(cli(two, {QStringLiteral("history"), QStringLiteral("--json")}).out).size(), 3);
    // The audit trail came along, with each take-over in it.
    QCOMPARE(
        execWorkspaceSql(two, QStringLiteral("SELECT count(*) FROM watermark_changes WHERE cause = 'adopt'")),
        QStringLiteral("2"));
    // A new table draws an id after the copied ones.
    const CliResult added = cli(two, {QStringLiteral("table"), QStringLiteral("add"),
                                      QStringLiteral("--source"), QStringLiteral("src:orders"),
                                      QStringLiteral("--target"), QStringLiteral("dst:orders_again"),
                                      QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    QCOMPARE(added.out.trimmed(), QStringLiteral("3"));
}

void TestWorkspaceCopy::refusesAnExistingDestination() {
    const QString one = ranWorkspace();
    QVERIFY(!one.isEmpty());
    const QString existing = path(QStringLiteral("existing.tidemark"));
    QCOMPARE(cli(existing, {QStringLiteral("init")}).exitCode, 0);
    const CliResult ontoFile = cli(one, {QStringLiteral("workspace"), QStringLiteral("copy"), existing});
    QCOMPARE(ontoFile.exitCode, 2);
    QVERIFY2(ontoFile.err.contains(QStringLiteral("already exists")), qPrintable(ontoFile.describe()));
    QCOMPARE(cli(server(), {QStringLiteral("init")}).exitCode, 0);
    const CliResult ontoServer = cli(one, {QStringLiteral("workspace"), QStringLiteral("copy"), server()});
    QCOMPARE(ontoServer.exitCode, 2);
    QVERIFY2(ontoServer.err.contains(QStringLiteral("already exists")), qPrintable(ontoServer.describe()));
    // Nothing changed: the workspace still runs.
    QCOMPARE(cli(one, {QStringLiteral("run")}).exitCode, 0);
}

void TestWorkspaceCopy::refusesWhileARunIsGoing() {
    const QString one = ranWorkspace();
    QVERIFY(!one.isEmpty());
    // A run another process is in the middle of, as its row says: alive, beating.
    execWorkspaceSql(one,
                     QStringLiteral("UPDATE runs SET status = 'running', finished_at = NULL, pid = ?1, "
                                    "heartbeat_expires_at = '2999-01-01T00:00:00.000Z' WHERE id = 1"),
                     {QCoreApplication::applicationPid()});
    const QString two = path(QStringLiteral("two.tidemark"));
    const CliResult refused = cli(one, {QStringLiteral("workspace"), QStringLiteral("copy"), two});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("run 1")), qPrintable(refused.describe()));
    QVERIFY(!QFileInfo::exists(two));
    execWorkspaceSql(one, QStringLiteral("UPDATE runs SET status = 'succeeded' WHERE id = 1"));
    QCOMPARE(cli(one, {QStringLiteral("run")}).exitCode, 0); // not marked as copied
}

// The copy takes over the targets the workspace copied owns, never one another workspace owns
// (its table there was refused by the owner): that one is named, and its owner copies on.
void TestWorkspaceCopy::leavesATargetAnotherWorkspaceOwns() {
    const QString owner = ranWorkspace();
    QVERIFY(!owner.isEmpty());
    const QString other = path(QStringLiteral("other.tidemark"));
    QVERIFY(setUp(other));
    QCOMPARE(cli(other, {QStringLiteral("run")}).exitCode, 1); // refused: the first workspace owns it

    const CliResult copied = cli(
        other, {QStringLiteral("workspace"), QStringLiteral("copy"), path(QStringLiteral("third.tidemark"))});
    QCOMPARE(copied.exitCode, 1);
    QVERIFY2(copied.out.contains(QStringLiteral("not taken over: table 1 (dst:orders)")) &&
                 copied.out.contains(owner),
             qPrintable(copied.describe()));
    makeOrders(path(QStringLiteral("src.db")), 5, 6);
    QCOMPARE(cli(owner, {QStringLiteral("run")}).exitCode, 0);
    QCOMPARE(countRows(path(QStringLiteral("dst.db")), QStringLiteral("orders")), qint64(10));
}

QTEST_GUILESS_MAIN(TestWorkspaceCopy)
#include "tst_workspacecopy.moc"
