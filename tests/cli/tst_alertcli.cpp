// SPDX-License-Identifier: MIT
// The alert commands of tidemark-cli, end to end through the real binary: `alert set|show|test|
// clear`, a failing `run` firing the hook, a dead run's alert sent by whoever closes it, and a
// secret in a webhook URL refused before anything is stored.

#include "model/sqlite/sqlitedb.h"
#include "tests/support/clifixture.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QScopeGuard>
#include <QTest>

#include <memory>

using namespace tidemark;
using namespace tidemark::test;

namespace {

QByteArray fileBytes(const QString &path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestAlertCli : public QObject, protected CliFixture {
    Q_OBJECT

private:
    // A workspace with table 1 (src:orders, healthy) and table 2 (src:gone, whose source is dropped).
    void setupWorkspace() {
        execSql(m_dst, QStringLiteral("CREATE TABLE IF NOT EXISTS unrelated (x INTEGER)"));
        setupConnections();
        makeOrders(m_src, 5);
        makeOrders(m_src, 5, 1, QStringLiteral("gone"));
        for (const QString &table : {QStringLiteral("orders"), QStringLiteral("gone")})
            CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                          QStringLiteral("src:") + table, QStringLiteral("--target"),
                          QStringLiteral("dst:") + table, QStringLiteral("--watermark"),
                          QStringLiteral("updated_at")}),
                     0);
    }

    QString hookFile() const { return path(QStringLiteral("hook-stdin.json")); }
    // A hook that keeps its stdin and says something on stdout (which must not reach ours).
    void setHook() {
        CLI_EXIT(cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--hook"),
                      QStringLiteral("cat >> '%1'; echo hook-was-here").arg(hookFile())}),
                 0);
    }

private slots:
    void init() { startFixture(); }
    void cleanup() { stopFixture(); }

    void failingRunFiresTheHook() {
        setupWorkspace();
        setHook();
        execSql(m_src, QStringLiteral("DROP TABLE gone"));

        const CliResult result = cli({QStringLiteral("run"), QStringLiteral("--json")});
        CLI_EXIT(result, 1);
        bool ok = false;
        const QJsonObject printed = parseJsonObject(result.out, &ok);
        QVERIFY2(ok, qPrintable(result.describe())); // the hook's output stayed out of stdout
        QVERIFY(!result.out.contains(QStringLiteral("hook-was-here")));

        const QJsonObject sent = parseJsonObject(QString::fromUtf8(fileBytes(hookFile())), &ok);
        QVERIFY2(ok, fileBytes(hookFile()).constData());
        QCOMPARE(sent.value(QStringLiteral("run_id")), printed.value(QStringLiteral("run_id")));
        QCOMPARE(sent.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QCOMPARE(sent.value(QStringLiteral("trigger")).toString(), QStringLiteral("cli"));
        QCOMPARE(sent.value(QStringLiteral("iterations")).toArray().size(), 2);
        // Field for field what `history --json` says about that run.
        const CliResult history =
            cli({QStringLiteral("history"), QStringLiteral("--json"), QStringLiteral("--run"),
                 QString::number(printed.value(QStringLiteral("run_id")).toInteger())});
        CLI_EXIT(history, 0);
        QJsonObject expected = parseJsonArray(history.out).at(0).toObject();
        QJsonObject actual = sent;
        actual.remove(QStringLiteral("workspace"));
        QCOMPARE(actual, expected);

        const QByteArray log = fileBytes(workspaceLogPath());
        QVERIFY2(log.contains("hook 'cat >>") && log.contains("exit code 0 in ") &&
                     log.contains("hook-was-here"),
                 log.constData());
    }

    // A hook sees PATH, HOME, LANG, LC_*, TZ, the TIDEMARK_* variables of its run and what
    // --hook-env names; never the workspace's secrets, not even when asked for them.
    void hookGetsAMinimalEnvironment() {
        const QList<QPair<QByteArray, QByteArray>> variables{{"TM_TEST_PG_PASSWORD", "pg-s3cret"},
                                                             {"TM_TEST_WEBHOOK_TOKEN", "wh-s3cret"},
                                                             {"TM_TEST_INHERITED", "inherited-s3cret"},
                                                             {"TIDEMARK_TEST_INHERITED", "tm-s3cret"},
                                                             {"TM_TEST_WANTED", "wanted-value"}};
        for (const auto &[name, value] : variables)
            qputenv(name.constData(), value);
        const auto unset = qScopeGuard([&] {
            for (const auto &[name, value] : variables)
                qunsetenv(name.constData());
        });
        setupWorkspace();
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                      QStringLiteral("--postgres"), QStringLiteral("host=127.0.0.1 dbname=x"),
                      QStringLiteral("--password-env"), QStringLiteral("TM_TEST_PG_PASSWORD")}),
                 0);
        const QString envFile = path(QStringLiteral("hook-env.txt"));
        CLI_EXIT(cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--hook"),
                      QStringLiteral("env > '%1'").arg(envFile), QStringLiteral("--hook-env"),
                      QStringLiteral("TM_TEST_WANTED"), QStringLiteral("--webhook"),
                      QStringLiteral("http://127.0.0.1:9/alert?token=${TM_TEST_WEBHOOK_TOKEN}"),
                      QStringLiteral("--webhook-timeout"), QStringLiteral("1s")}),
                 0);
        const CliResult shown =
            cli({QStringLiteral("alert"), QStringLiteral("show"), QStringLiteral("--json")});
        QCOMPARE(parseJsonObject(shown.out).value(QStringLiteral("hook_env")).toArray(),
                 QJsonArray{QStringLiteral("TM_TEST_WANTED")});

        // Asking for a secret is refused where it is asked ...
        for (const QString &secret :
             {QStringLiteral("TM_TEST_PG_PASSWORD"), QStringLiteral("TM_TEST_WEBHOOK_TOKEN")}) {
            const CliResult refused =
                cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--hook-env"),
                     QStringLiteral("TM_TEST_WANTED,") + secret});
            CLI_EXIT(refused, 2);
            QCOMPARE(refused.errLines().size(), 1);
            QVERIFY2(refused.err.contains(QStringLiteral("alert set: --hook-env: ") + secret),
                     qPrintable(refused.err));
        }
        const CliResult badName = cli({QStringLiteral("alert"), QStringLiteral("set"),
                                       QStringLiteral("--hook-env"), QStringLiteral("NOT-A-NAME")});
        CLI_EXIT(badName, 2);
        QVERIFY2(badName.err.contains(QStringLiteral("--hook-env")), qPrintable(badName.err));
        // ... and withheld when sent, even if the stored settings ask (an older workspace, a
        // connection added after the alert).
        execSql(m_ws, QStringLiteral("UPDATE alert_settings SET hook_env = "
                                     "'TM_TEST_WANTED,TM_TEST_PG_PASSWORD,TM_TEST_WEBHOOK_TOKEN'"));

        execSql(m_src, QStringLiteral("DROP TABLE gone"));
        CLI_EXIT(cli({QStringLiteral("run")}), 1);
        const QString dumped = QString::fromUtf8(fileBytes(envFile));
        QVERIFY2(!dumped.isEmpty(), "the hook did not run");
        QStringList names;
        for (const QString &line : dumped.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            names << line.section(QLatin1Char('='), 0, 0);
        QVERIFY2(dumped.contains(QStringLiteral("TM_TEST_WANTED=wanted-value\n")), qPrintable(dumped));
        QVERIFY2(dumped.contains(QStringLiteral("TIDEMARK_RUN_STATUS=failed\n")), qPrintable(dumped));
        for (const char *name : {"PATH", "TIDEMARK_RUN_ID", "TIDEMARK_WORKSPACE"})
            QVERIFY2(names.contains(QString::fromLatin1(name)), qPrintable(dumped));
        QVERIFY2(!dumped.contains(QStringLiteral("s3cret")), qPrintable(dumped));
        // Nothing else: what the shell itself sets (PWD, SHLVL, _) is all that may be added.
        const QStringList allowed{QStringLiteral("PATH"),
                                  QStringLiteral("HOME"),
                                  QStringLiteral("LANG"),
                                  QStringLiteral("TZ"),
                                  QStringLiteral("TM_TEST_WANTED"),
                                  QStringLiteral("TIDEMARK_RUN_ID"),
                                  QStringLiteral("TIDEMARK_RUN_STATUS"),
                                  QStringLiteral("TIDEMARK_WORKSPACE"),
                                  QStringLiteral("PWD"),
                                  QStringLiteral("OLDPWD"),
                                  QStringLiteral("SHLVL"),
                                  QStringLiteral("_")};
        for (const QString &name : std::as_const(names))
            QVERIFY2(allowed.contains(name) || name.startsWith(QStringLiteral("LC_")), qPrintable(name));
        const QByteArray log = fileBytes(workspaceLogPath());
        QVERIFY2(log.contains("TM_TEST_PG_PASSWORD holds a secret"), log.constData());

        // A schedule's hook asks the same way, and is refused the same secrets.
        CLI_EXIT(
            cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("s"),
                 QStringLiteral("--cron"), QStringLiteral("@daily"), QStringLiteral("--hook"),
                 QStringLiteral("true"), QStringLiteral("--hook-env"), QStringLiteral("TM_TEST_WANTED")}),
            0);
        const QJsonArray schedules = parseJsonArray(
            cli({QStringLiteral("schedule"), QStringLiteral("list"), QStringLiteral("--json")}).out);
        QCOMPARE(schedules.at(0)
                     .toObject()
                     .value(QStringLiteral("alerts"))
                     .toObject()
                     .value(QStringLiteral("hook_env")),
                 QJsonValue(QJsonArray{QStringLiteral("TM_TEST_WANTED")}));
        const CliResult edit = cli({QStringLiteral("schedule"), QStringLiteral("edit"), QStringLiteral("s"),
                                    QStringLiteral("--hook-env"), QStringLiteral("TM_TEST_PG_PASSWORD")});
        CLI_EXIT(edit, 2);
        QVERIFY2(edit.err.contains(QStringLiteral("schedule edit s: --hook-env: TM_TEST_PG_PASSWORD")),
                 qPrintable(edit.err));
    }

    void succeedingRunFiresNothing() {
        setupWorkspace();
        setHook();
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QVERIFY(!QFile::exists(hookFile()));
    }

    // A run whose process died is closed as interrupted by the next command that opens the
    // workspace, and that command sends its alert.
    void interruptedRunIsAlertedByWhoeverClosesIt() {
        setupWorkspace();
        setHook();
        CLI_EXIT(cli({QStringLiteral("run"), QStringLiteral("--table"), QStringLiteral("1")}), 0);
        // Make the run look owned by a process that is gone.
        QProcess gone;
        gone.start(QStringLiteral("true"), {});
        QVERIFY(gone.waitForStarted());
        const qint64 gonePid = gone.processId();
        QVERIFY(gone.waitForFinished());
        execSql(m_ws, QStringLiteral("UPDATE runs SET status = 'running', finished_at = NULL, pid = ?1"),
                {gonePid});

        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("list")}), 0);
        bool ok = false;
        const QJsonObject sent = parseJsonObject(QString::fromUtf8(fileBytes(hookFile())), &ok);
        QVERIFY2(ok, fileBytes(hookFile()).constData());
        QCOMPARE(sent.value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));
        QCOMPARE(sent.value(QStringLiteral("pid")).toInteger(), gonePid);
        // Closed once, alerted once.
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("list")}), 0);
        QCOMPARE(fileBytes(hookFile()).count('\n'), 1);
    }

    void setShowTestClear() {
        CLI_EXIT(cli({QStringLiteral("init")}), 0);
        CliResult shown = cli({QStringLiteral("alert"), QStringLiteral("show")});
        CLI_EXIT(shown, 0);
        QVERIFY2(shown.out.startsWith(QStringLiteral("no alerts")), qPrintable(shown.out));

        CLI_EXIT(cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--hook"),
                      QStringLiteral("cat > '%1'").arg(hookFile()), QStringLiteral("--hook-timeout"),
                      QStringLiteral("5s"), QStringLiteral("--on"), QStringLiteral("failed,cancelled")}),
                 0);
        CLI_EXIT(cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--webhook"),
                      QStringLiteral("https://alerts.example.com/n?token=${TIDEMARK_HOOK_TOKEN}")}),
                 0);
        shown = cli({QStringLiteral("alert"), QStringLiteral("show"), QStringLiteral("--json")});
        CLI_EXIT(shown, 0);
        const QJsonObject json = parseJsonObject(shown.out);
        QCOMPARE(json.value(QStringLiteral("hook")).toString(), QStringLiteral("cat > '%1'").arg(hookFile()));
        QCOMPARE(json.value(QStringLiteral("hook_timeout_ms")).toInteger(), 5000);
        QCOMPARE(json.value(QStringLiteral("webhook")).toString(),
                 QStringLiteral("https://alerts.example.com/n?token=${TIDEMARK_HOOK_TOKEN}"));
        QCOMPARE(json.value(QStringLiteral("on")).toArray(),
                 QJsonArray({QStringLiteral("failed"), QStringLiteral("cancelled")}));

        // The webhook's variable is not set here: the test names it and exits 1; the hook fires.
        CLI_EXIT(
            cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--webhook"), QString()}), 0);
        const CliResult tested = cli({QStringLiteral("alert"), QStringLiteral("test")});
        CLI_EXIT(tested, 0);
        QVERIFY2(tested.out.startsWith(QStringLiteral("hook: ok (exit code 0 in ")), qPrintable(tested.out));
        QCOMPARE(parseJsonObject(QString::fromUtf8(fileBytes(hookFile())))
                     .value(QStringLiteral("run_id"))
                     .toInteger(),
                 0);

        CLI_EXIT(cli({QStringLiteral("alert"), QStringLiteral("clear")}), 0);
        shown = cli({QStringLiteral("alert"), QStringLiteral("show")});
        QVERIFY2(shown.out.startsWith(QStringLiteral("no alerts")), qPrintable(shown.out));
        CLI_EXIT(cli({QStringLiteral("alert"), QStringLiteral("test")}), 2);
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("named");
        QTest::newRow("secret in query")
            << QStringList{QStringLiteral("--webhook"),
                           QStringLiteral("https://h.example.com/x?token=hunter2hunter2")}
            << QStringLiteral("environment variable");
        QTest::newRow("password") << QStringList{QStringLiteral("--webhook"),
                                                 QStringLiteral("https://u:hunter2hunter2@h.example.com/")}
                                  << QStringLiteral("environment variable");
        QTest::newRow("unknown status")
            << QStringList{QStringLiteral("--hook"), QStringLiteral("true"), QStringLiteral("--on"),
                           QStringLiteral("failed,exploded")}
            << QStringLiteral("exploded");
        QTest::newRow("bad duration") << QStringList{QStringLiteral("--hook"), QStringLiteral("true"),
                                                     QStringLiteral("--hook-timeout"), QStringLiteral("soon")}
                                      << QStringLiteral("--hook-timeout");
        QTest::newRow("nothing given") << QStringList{} << QStringLiteral("--hook");
        QTest::newRow("on without channel") << QStringList{QStringLiteral("--on"), QStringLiteral("failed")}
                                            << QStringLiteral("--webhook URL");
    }

    void refusals() {
        QFETCH(QStringList, args);
        QFETCH(QString, named);
        CLI_EXIT(cli({QStringLiteral("init")}), 0);
        const CliResult result = cli(QStringList{QStringLiteral("alert"), QStringLiteral("set")} + args);
        CLI_EXIT(result, 2);
        QCOMPARE(result.errLines().size(), 1);
        QVERIFY2(result.err.contains(named), qPrintable(result.err));
        QVERIFY2(cli({QStringLiteral("alert"), QStringLiteral("show")})
                     .out.startsWith(QStringLiteral("no alerts")),
                 "a refused alert set changed the settings");
        for (const QString &file : {m_ws, m_ws + QStringLiteral("-wal"), workspaceLogPath()})
            QVERIFY2(!fileBytes(file).contains("hunter2hunter2"), qPrintable(file));
        // A server workspace's every row, as `workspace export` writes them.
        QVERIFY(!cli({QStringLiteral("workspace"), QStringLiteral("export")})
                     .out.contains(QStringLiteral("hunter2")));
    }
};

QTEST_GUILESS_MAIN(TestAlertCli)
#include "tst_alertcli.moc"
