// SPDX-License-Identifier: MIT
// `tidemark-cli schedule add|list|next|pause|resume|remove` as the contract says, and every
// refusal: exit 2, one stderr line naming the culprit, nothing changed.

#include "tests/support/testsupport.h"

#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace tidemark::test;

// Runs `call` once (QVERIFY2 evaluates its message eagerly) and checks its exit code.
#define CLI_EXIT(call, code)                                                                                 \
    do {                                                                                                     \
        const CliResult result_ = (call);                                                                    \
        QVERIFY2(result_.exitCode == (code), qPrintable(result_.describe()));                                \
    } while (false)

class tst_ScheduleCli : public QObject {
    Q_OBJECT

private slots:
    void init();
    void addListPauseResumeRemove();
    void nextGivesUtcInstantsAcrossDst();
    void refusalsExitTwoAndChangeNothing_data();
    void refusalsExitTwoAndChangeNothing();
    void historyJsonHasScheduleField();

private:
    QString path(const QString &name) const { return m_dir->filePath(name); }
    CliResult cli(const QStringList &args) const {
        return runCli(QStringList{QStringLiteral("-w"), m_ws} + args, m_dir->path());
    }
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

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_ws;
};

void tst_ScheduleCli::init() {
    m_dir = std::make_unique<QTemporaryDir>(fastTempTemplate());
    QVERIFY(m_dir->isValid());
    m_ws = path(QStringLiteral("w.tidemark"));
    CLI_EXIT(cli({QStringLiteral("init")}), 0);
    makeOrders(path(QStringLiteral("src.db")), 3);
    CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                  QStringLiteral("--sqlite"), path(QStringLiteral("src.db"))}),
             0);
    CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
                  QStringLiteral("--sqlite"), path(QStringLiteral("dst.db"))}),
             0);
    const CliResult table =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    CLI_EXIT(table, 0);
    QCOMPARE(table.out.trimmed(), QStringLiteral("1"));
}

void tst_ScheduleCli::addListPauseResumeRemove() {
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
    QCOMPARE(QSet<QString>(keys.begin(), keys.end()), contractFields);
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

void tst_ScheduleCli::nextGivesUtcInstantsAcrossDst() {
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

void tst_ScheduleCli::refusalsExitTwoAndChangeNothing_data() {
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
}

void tst_ScheduleCli::refusalsExitTwoAndChangeNothing() {
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

void tst_ScheduleCli::historyJsonHasScheduleField() {
    CLI_EXIT(cli({QStringLiteral("run")}), 0);
    const CliResult history = cli({QStringLiteral("history"), QStringLiteral("--json")});
    const QJsonArray runs = parseJsonArray(history.out);
    QVERIFY2(runs.size() == 1, qPrintable(history.describe()));
    const QJsonObject run = runs.at(0).toObject();
    QVERIFY(run.contains(QStringLiteral("schedule")));
    QVERIFY(run[QStringLiteral("schedule")].isNull()); // a run by hand
    QCOMPARE(run[QStringLiteral("trigger")].toString(), QStringLiteral("cli"));
}

QTEST_GUILESS_MAIN(tst_ScheduleCli)
#include "tst_schedulecli.moc"
