// SPDX-License-Identifier: MIT
// `tidemark-cli schedule add|list|next|pause|resume|remove` as the contract says, and every
// refusal: exit 2, one stderr line naming the culprit, nothing changed.

#include "tests/support/clifixture.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <memory>

using namespace tidemark::test;

class TestScheduleCli : public QObject, protected CliFixture {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }
    void init();
    void addListPauseResumeRemove();
    void nextGivesUtcInstantsAcrossDst();
    void refusalsExitTwoAndChangeNothing_data();
    void refusalsExitTwoAndChangeNothing();
    void rareCronIsAccepted();
    void historyJsonHasScheduleField();
    void scheduleAlertsAddEditList();
    void serveRunsTheSchedulesHook();

private:
    CliResult schedule(const QStringList &args) const {
        return cli(QStringList{QStringLiteral("schedule")} + args);
    }
    QJsonArray scheduleList() const {
        bool ok = false;
        const QJsonArray array =
            parseJsonArray(schedule({QStringLiteral("list"), QStringLiteral("--json")}).out, &ok);
        if (!ok)
            qWarning("schedule list --json did not print one array");
        return array;
    }
};

void TestScheduleCli::init() {
    startFixture();
    makeOrders(m_src, 3);
    setupConnections();
    const CliResult table =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    CLI_EXIT(table, 0);
    QCOMPARE(table.out.trimmed(), QStringLiteral("1"));
}

void TestScheduleCli::addListPauseResumeRemove() {
    CLI_EXIT(schedule({QStringLiteral("add"), QStringLiteral("nightly"), QStringLiteral("--cron"),
                       QStringLiteral("0 2 * * mon-fri"), QStringLiteral("--tz"),
                       QStringLiteral("Europe/Paris"), QStringLiteral("--table"), QStringLiteral("1"),
                       QStringLiteral("--concurrency"), QStringLiteral("3"), QStringLiteral("--retries"),
                       QStringLiteral("2"), QStringLiteral("--timeout"), QStringLiteral("15m")}),
             0);
    CLI_EXIT(schedule({QStringLiteral("add"), QStringLiteral("often"), QStringLiteral("--cron"),
                       QStringLiteral("*/10 * * * * *"), QStringLiteral("--tz"), QStringLiteral("UTC"),
                       QStringLiteral("--paused")}),
             0);

    QJsonArray list = scheduleList();
    QCOMPARE(list.size(), 2);
    const QJsonObject nightly = list.at(0).toObject(); // by name
    const QSet<QString> contractFields{
        QStringLiteral("name"),        QStringLiteral("cron"),        QStringLiteral("tz"),
        QStringLiteral("tables"),      QStringLiteral("concurrency"), QStringLiteral("retries"),
        QStringLiteral("timeout"),     QStringLiteral("active"),      QStringLiteral("next_run_at"),
        QStringLiteral("last_run_id"), QStringLiteral("last_status")};
    const QStringList keys = nightly.keys();
    // The contract's fields, extended (never renamed) by the schedule's own alerts.
    QCOMPARE(QSet<QString>(keys.begin(), keys.end()),
             contractFields + QSet<QString>{QStringLiteral("alerts")});
    QVERIFY(nightly[QStringLiteral("alerts")].isNull());
    QCOMPARE(nightly[QStringLiteral("name")].toString(), QStringLiteral("nightly"));
    QCOMPARE(nightly[QStringLiteral("cron")].toString(), QStringLiteral("0 2 * * mon-fri"));
    QCOMPARE(nightly[QStringLiteral("tz")].toString(), QStringLiteral("Europe/Paris"));
    QCOMPARE(nightly[QStringLiteral("tables")].toArray(), QJsonArray{1});
    QCOMPARE(nightly[QStringLiteral("concurrency")].toInt(), 3);
    QCOMPARE(nightly[QStringLiteral("retries")].toInt(), 2);
    QCOMPARE(nightly[QStringLiteral("timeout")].toString(), QStringLiteral("15m"));
    QCOMPARE(nightly[QStringLiteral("active")].toBool(), true);
    const QDateTime next =
        QDateTime::fromString(nightly[QStringLiteral("next_run_at")].toString(), Qt::ISODateWithMs);
    QVERIFY(next.isValid());
    QVERIFY(nightly[QStringLiteral("next_run_at")].toString().endsWith(QLatin1Char('Z')));
    QVERIFY(next > QDateTime::currentDateTimeUtc());
    QVERIFY(nightly[QStringLiteral("last_run_id")].isNull());
    QVERIFY(nightly[QStringLiteral("last_status")].isNull());
    const QJsonObject often = list.at(1).toObject();
    QCOMPARE(often[QStringLiteral("tables")].toArray(), QJsonArray()); // all active
    QCOMPARE(often[QStringLiteral("active")].toBool(), false);
    QVERIFY(often[QStringLiteral("next_run_at")].isNull()); // paused
    QVERIFY(often[QStringLiteral("timeout")].isNull());

    CLI_EXIT(schedule({QStringLiteral("pause"), QStringLiteral("nightly")}), 0);
    CLI_EXIT(schedule({QStringLiteral("resume"), QStringLiteral("often")}), 0);
    list = scheduleList();
    QCOMPARE(list.at(0)[QStringLiteral("active")].toBool(), false);
    QCOMPARE(list.at(1)[QStringLiteral("active")].toBool(), true);
    QVERIFY(!list.at(1)[QStringLiteral("next_run_at")].isNull());

    const CliResult text = schedule({QStringLiteral("list")});
    CLI_EXIT(text, 0);
    QVERIFY(text.out.contains(QStringLiteral("nightly")));
    QVERIFY(text.out.contains(QStringLiteral("Europe/Paris")));

    CLI_EXIT(schedule({QStringLiteral("remove"), QStringLiteral("nightly")}), 0);
    list = scheduleList();
    QCOMPARE(list.size(), 1);
    QCOMPARE(list.at(0)[QStringLiteral("name")].toString(), QStringLiteral("often"));
}

void TestScheduleCli::nextGivesUtcInstantsAcrossDst() {
    // Paris leaves winter time on Sunday 29 March 2026: 02:00 local is 01:00Z before, 00:00Z after.
    CLI_EXIT(
        schedule({QStringLiteral("add"), QStringLiteral("nightly"), QStringLiteral("--cron"),
                  QStringLiteral("0 2 * * mon-fri"), QStringLiteral("--tz"), QStringLiteral("Europe/Paris")}),
        0);
    const CliResult text =
        schedule({QStringLiteral("next"), QStringLiteral("nightly"), QStringLiteral("--count"),
                  QStringLiteral("3"), QStringLiteral("--after"), QStringLiteral("2026-03-26T12:00:00Z")});
    CLI_EXIT(text, 0);
    QCOMPARE(text.out, QStringLiteral(
                           "2026-03-27T01:00:00.000Z\n2026-03-30T00:00:00.000Z\n2026-03-31T00:00:00.000Z\n"));
    const CliResult json = schedule(
        {QStringLiteral("next"), QStringLiteral("nightly"), QStringLiteral("--count"), QStringLiteral("2"),
         QStringLiteral("--after"), QStringLiteral("2026-03-26 12:00:00"), QStringLiteral("--json")});
    CLI_EXIT(json, 0);
    QCOMPARE(parseJsonArray(json.out), (QJsonArray{QStringLiteral("2026-03-27T01:00:00.000Z"),
                                                   QStringLiteral("2026-03-30T00:00:00.000Z")}));
}

void TestScheduleCli::refusalsExitTwoAndChangeNothing_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("culprit");
    const QString add = QStringLiteral("add");
    const QString cron = QStringLiteral("--cron");
    const QString daily = QStringLiteral("0 3 * * *");
    QTest::newRow("bad cron field") << QStringList{add, QStringLiteral("x"), cron,
                                                   QStringLiteral("0 3 * * 9")}
                                    << QStringLiteral("day-of-week");
    QTest::newRow("quartz question mark")
        << QStringList{add, QStringLiteral("x"), cron, QStringLiteral("0 0 3 ? * *")} << QStringLiteral("?");
    QTest::newRow("too few fields") << QStringList{add, QStringLiteral("x"), cron, QStringLiteral("0 3 *")}
                                    << QStringLiteral("0 3 *");
    QTest::newRow("missing cron") << QStringList{add, QStringLiteral("x")} << QStringLiteral("--cron");
    QTest::newRow("unknown zone")
        << QStringList{add,   QStringLiteral("x"),    cron,
                       daily, QStringLiteral("--tz"), QStringLiteral("Mars/Olympus_Mons")}
        << QStringLiteral("Mars/Olympus_Mons");
    QTest::newRow("unknown table") << QStringList{add,
                                                  QStringLiteral("x"),
                                                  cron,
                                                  daily,
                                                  QStringLiteral("--table"),
                                                  QStringLiteral("1"),
                                                  QStringLiteral("--table"),
                                                  QStringLiteral("42")}
                                   << QStringLiteral("42");
    QTest::newRow("duplicate name") << QStringList{add, QStringLiteral("kept"), cron, daily}
                                    << QStringLiteral("kept");
    QTest::newRow("bad concurrency") << QStringList{add,
                                                    QStringLiteral("x"),
                                                    cron,
                                                    daily,
                                                    QStringLiteral("--concurrency"),
                                                    QStringLiteral("0")}
                                     << QStringLiteral("--concurrency");
    QTest::newRow("bad retries") << QStringList{add,   QStringLiteral("x"),         cron,
                                                daily, QStringLiteral("--retries"), QStringLiteral("two")}
                                 << QStringLiteral("--retries");
    QTest::newRow("bad timeout")
        << QStringList{add,   QStringLiteral("x"),         cron,
                       daily, QStringLiteral("--timeout"), QStringLiteral("15 minutes")}
        << QStringLiteral("--timeout");
    QTest::newRow("zero timeout") << QStringList{add,   QStringLiteral("x"),         cron,
                                                 daily, QStringLiteral("--timeout"), QStringLiteral("0s")}
                                  << QStringLiteral("--timeout");
    QTest::newRow("unknown option") << QStringList{add, QStringLiteral("x"), cron, daily,
                                                   QStringLiteral("--every")}
                                    << QStringLiteral("every");
    QTest::newRow("pause unknown") << QStringList{QStringLiteral("pause"), QStringLiteral("nope")}
                                   << QStringLiteral("nope");
    QTest::newRow("resume unknown") << QStringList{QStringLiteral("resume"), QStringLiteral("nope")}
                                    << QStringLiteral("nope");
    QTest::newRow("remove unknown") << QStringList{QStringLiteral("remove"), QStringLiteral("nope")}
                                    << QStringLiteral("nope");
    QTest::newRow("next unknown") << QStringList{QStringLiteral("next"), QStringLiteral("nope")}
                                  << QStringLiteral("nope");
    QTest::newRow("next bad after") << QStringList{QStringLiteral("next"), QStringLiteral("kept"),
                                                   QStringLiteral("--after"), QStringLiteral("yesterday")}
                                    << QStringLiteral("yesterday");
    QTest::newRow("unknown subcommand") << QStringList{QStringLiteral("frob")} << QStringLiteral("frob");
    QTest::newRow("bad alert status") << QStringList{add,
                                                     QStringLiteral("x"),
                                                     cron,
                                                     daily,
                                                     QStringLiteral("--hook"),
                                                     QStringLiteral("true"),
                                                     QStringLiteral("--on"),
                                                     QStringLiteral("failed,sad")}
                                      << QStringLiteral("sad");
    QTest::newRow("webhook secret in clear")
        << QStringList{add,
                       QStringLiteral("x"),
                       cron,
                       daily,
                       QStringLiteral("--webhook"),
                       QStringLiteral("https://hooks.example.com/notify?token=s3cr3tvalue")}
        << QStringLiteral("token");
    QTest::newRow("--on without a hook")
        << QStringList{add,   QStringLiteral("x"),    cron,
                       daily, QStringLiteral("--on"), QStringLiteral("failed")}
        << QStringLiteral("--hook");
    QTest::newRow("edit unknown") << QStringList{QStringLiteral("edit"), QStringLiteral("nope"),
                                                 QStringLiteral("--retries"), QStringLiteral("1")}
                                  << QStringLiteral("nope");
    QTest::newRow("edit nothing") << QStringList{QStringLiteral("edit"), QStringLiteral("kept")}
                                  << QStringLiteral("nothing to change");
    QTest::newRow("edit bad cron") << QStringList{QStringLiteral("edit"), QStringLiteral("kept"), cron,
                                                  QStringLiteral("61 * * * *")}
                                   << QStringLiteral("minute");
    // Valid fields, but a date that never comes: refused at once instead of a schedule that
    // silently never runs.
    QTest::newRow("cron never fires")
        << QStringList{add, QStringLiteral("x"), cron, QStringLiteral("0 0 30 2 *")}
        << QStringLiteral("--cron '0 0 30 2 *' never fires");
    QTest::newRow("edit cron never fires") << QStringList{QStringLiteral("edit"), QStringLiteral("kept"),
                                                          cron, QStringLiteral("0 12 31 4,6,9,11 *")}
                                           << QStringLiteral("--cron '0 12 31 4,6,9,11 *' never fires");
    QTest::newRow("edit webhook secret")
        << QStringList{QStringLiteral("edit"), QStringLiteral("kept"), QStringLiteral("--webhook"),
                       QStringLiteral("https://user:pa55word@hooks.example.com/x")}
        << QStringLiteral("password");
}

void TestScheduleCli::refusalsExitTwoAndChangeNothing() {
    QFETCH(QStringList, args);
    QFETCH(QString, culprit);
    CLI_EXIT(schedule({QStringLiteral("add"), QStringLiteral("kept"), QStringLiteral("--cron"),
                       QStringLiteral("30 1 * * *"), QStringLiteral("--tz"), QStringLiteral("UTC")}),
             0);
    const QString before = schedule({QStringLiteral("list"), QStringLiteral("--json")}).out;
    const CliResult refused = schedule(args);
    CLI_EXIT(refused, 2);
    QVERIFY2(refused.errLines().size() == 1, qPrintable(refused.describe()));
    QVERIFY2(refused.errLines().first().contains(culprit), qPrintable(refused.describe()));
    QVERIFY2(refused.out.isEmpty(), qPrintable(refused.describe()));
    QCOMPARE(schedule({QStringLiteral("list"), QStringLiteral("--json")}).out, before);
}

// Only "never" is refused: a cron that fires once in four years (or eight, across 2100) is kept.
void TestScheduleCli::rareCronIsAccepted() {
    CLI_EXIT(schedule({QStringLiteral("add"), QStringLiteral("leap"), QStringLiteral("--cron"),
                       QStringLiteral("0 0 29 2 *"), QStringLiteral("--tz"), QStringLiteral("UTC")}),
             0);
    const CliResult next =
        schedule({QStringLiteral("next"), QStringLiteral("leap"), QStringLiteral("--after"),
                  QStringLiteral("2097-01-01T00:00:00Z"), QStringLiteral("--count"), QStringLiteral("2"),
                  QStringLiteral("--json")});
    CLI_EXIT(next, 0);
    QCOMPARE(parseJsonArray(next.out), QJsonArray({QStringLiteral("2104-02-29T00:00:00.000Z"),
                                                   QStringLiteral("2108-02-29T00:00:00.000Z")}));
}

void TestScheduleCli::historyJsonHasScheduleField() {
    CLI_EXIT(cli({QStringLiteral("run")}), 0);
    const CliResult history = cli({QStringLiteral("history"), QStringLiteral("--json")});
    const QJsonArray runs = parseJsonArray(history.out);
    QVERIFY2(runs.size() == 1, qPrintable(history.describe()));
    const QJsonObject run = runs.at(0).toObject();
    QVERIFY(run.contains(QStringLiteral("schedule")));
    QVERIFY(run[QStringLiteral("schedule")].isNull()); // a run by hand
    QCOMPARE(run[QStringLiteral("trigger")].toString(), QStringLiteral("cli"));
}

// A schedule's own alerts: set by `schedule add`/`edit` (only the options given change), shown
// by `schedule list` beside the contract's fields.
void TestScheduleCli::scheduleAlertsAddEditList() {
    CLI_EXIT(schedule({QStringLiteral("add"), QStringLiteral("nightly"), QStringLiteral("--cron"),
                       QStringLiteral("0 2 * * *"), QStringLiteral("--tz"), QStringLiteral("UTC"),
                       QStringLiteral("--hook"), QStringLiteral("/usr/local/bin/page-team"),
                       QStringLiteral("--on"), QStringLiteral("failed,warning")}),
             0);
    CLI_EXIT(schedule({QStringLiteral("add"), QStringLiteral("plain"), QStringLiteral("--cron"),
                       QStringLiteral("0 3 * * *"), QStringLiteral("--tz"), QStringLiteral("UTC")}),
             0);
    QJsonArray list = scheduleList();
    QCOMPARE(list.size(), 2);
    QJsonObject nightly = list.at(0).toObject();
    QCOMPARE(nightly[QStringLiteral("cron")].toString(), QStringLiteral("0 2 * * *"));
    QJsonObject alerts = nightly[QStringLiteral("alerts")].toObject();
    QCOMPARE(alerts[QStringLiteral("hook")].toString(), QStringLiteral("/usr/local/bin/page-team"));
    QVERIFY(alerts[QStringLiteral("webhook")].isNull());
    QCOMPARE(alerts[QStringLiteral("on")].toArray(),
             QJsonArray({QStringLiteral("failed"), QStringLiteral("warning")}));
    QVERIFY(list.at(1).toObject()[QStringLiteral("alerts")].isNull());
    const CliResult text = schedule({QStringLiteral("list")});
    QVERIFY2(text.out.contains(QStringLiteral("hook on failed,warning")), qPrintable(text.describe()));

    // Edit: the options given change, the rest stays.
    CLI_EXIT(schedule({QStringLiteral("edit"), QStringLiteral("nightly"), QStringLiteral("--webhook"),
                       QStringLiteral("https://hooks.example.com/notify?token=${TEAM_TOKEN}"),
                       QStringLiteral("--retries"), QStringLiteral("2")}),
             0);
    nightly = scheduleList().at(0).toObject();
    alerts = nightly[QStringLiteral("alerts")].toObject();
    QCOMPARE(alerts[QStringLiteral("hook")].toString(), QStringLiteral("/usr/local/bin/page-team"));
    QCOMPARE(alerts[QStringLiteral("webhook")].toString(),
             QStringLiteral("https://hooks.example.com/notify?token=${TEAM_TOKEN}"));
    QCOMPARE(nightly[QStringLiteral("retries")].toInt(), 2);
    QCOMPARE(nightly[QStringLiteral("cron")].toString(), QStringLiteral("0 2 * * *"));
    CLI_EXIT(schedule({QStringLiteral("edit"), QStringLiteral("nightly"), QStringLiteral("--table"),
                       QStringLiteral("1")}),
             0);
    QCOMPARE(scheduleList().at(0).toObject()[QStringLiteral("tables")].toArray(), QJsonArray({1}));
    CLI_EXIT(schedule({QStringLiteral("edit"), QStringLiteral("nightly"), QStringLiteral("--all-tables")}),
             0);
    QCOMPARE(scheduleList().at(0).toObject()[QStringLiteral("tables")].toArray(), QJsonArray());
    // "" removes a channel; with neither left the schedule has no alerts of its own.
    CLI_EXIT(schedule({QStringLiteral("edit"), QStringLiteral("nightly"), QStringLiteral("--hook"), QString(),
                       QStringLiteral("--webhook"), QString()}),
             0);
    QVERIFY(scheduleList().at(0).toObject()[QStringLiteral("alerts")].isNull());
}

// A real `serve` fires a failing schedule every second: the schedule's hook gets the run's JSON
// (the run names the schedule), and so does the workspace's: one's alerts add to the other's.
void TestScheduleCli::serveRunsTheSchedulesHook() {
    const QString scheduleFile = path(QStringLiteral("schedule-hook.jsonl"));
    const QString workspaceFile = path(QStringLiteral("workspace-hook.jsonl"));
    CLI_EXIT(cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--hook"),
                  QStringLiteral("cat >> '%1'; echo >> '%1'").arg(workspaceFile)}),
             0);
    CLI_EXIT(
        schedule({QStringLiteral("add"), QStringLiteral("every-second"), QStringLiteral("--cron"),
                  QStringLiteral("* * * * * *"), QStringLiteral("--tz"), QStringLiteral("UTC"),
                  QStringLiteral("--hook"), QStringLiteral("cat >> '%1'; echo >> '%1'").arg(scheduleFile),
                  QStringLiteral("--on"), QStringLiteral("failed")}),
        0);
    execSql(path(QStringLiteral("src.db")), QStringLiteral("DROP TABLE orders")); // every run fails

    QProcess serve;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    env.insert(QStringLiteral("TIDEMARK_TEST_RUNNER_HEARTBEAT_MS"), QStringLiteral("200"));
    env.insert(QStringLiteral("TIDEMARK_TEST_RUN_HEARTBEAT_MS"), QStringLiteral("200"));
    serve.setProcessEnvironment(env);
    serve.setWorkingDirectory(m_dir->path());
    serve.start(cliPath(), {QStringLiteral("-w"), m_ws, QStringLiteral("serve")});
    QVERIFY(serve.waitForStarted(30000));
    const auto lines = [](const QString &file) {
        QFile f(file);
        return f.open(QIODevice::ReadOnly)
                   ? QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)
                   : QStringList();
    };
    QTRY_VERIFY2_WITH_TIMEOUT(!lines(scheduleFile).isEmpty(),
                              qPrintable(QString::fromUtf8(serve.readAllStandardError())), 90000);
    const QJsonObject run = parseJsonObject(lines(scheduleFile).first());
    const qint64 runId = run[QStringLiteral("run_id")].toInteger();
    // The workspace's hook got that run too.
    const auto workspaceHookGot = [&] {
        const QStringList got = lines(workspaceFile);
        return std::any_of(got.cbegin(), got.cend(), [runId](const QString &line) {
            return parseJsonObject(line)[QStringLiteral("run_id")].toInteger() == runId;
        });
    };
    QTRY_VERIFY_WITH_TIMEOUT(workspaceHookGot(), 90000);
    ::kill(pid_t(serve.processId()), SIGTERM);
    QVERIFY(serve.waitForFinished(10000));
    QCOMPARE(serve.exitCode(), 0);

    QVERIFY(runId > 0);
    QCOMPARE(run[QStringLiteral("status")].toString(), QStringLiteral("failed"));
    QCOMPARE(run[QStringLiteral("trigger")].toString(), QStringLiteral("schedule"));
    QCOMPARE(run[QStringLiteral("schedule")].toString(), QStringLiteral("every-second"));
    QCOMPARE(run[QStringLiteral("workspace")].toString(), m_ws);
}

QTEST_GUILESS_MAIN(TestScheduleCli)
#include "tst_schedulecli.moc"
