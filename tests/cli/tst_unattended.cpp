// SPDX-License-Identifier: MIT
// What an unattended run must never hide, through the real tidemark-cli: one row dated far in the
// future (or an integer id that jumps by a billion) is held back and warned about instead of
// freezing the table behind green runs; an iteration killed inside its transaction claims no
// row in history that the target lacks; rejected rows the workspace cannot take are counted.

#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace tidemark::test;

class TestUnattended : public QObject {
    Q_OBJECT

private slots:
    void init();
    void futureRowIsHeldBackNotFrozen();
    void integerJumpIsHeldBack();
    void guardOptionsNameTheirType();
    void killedTransactionClaimsNoRows();
    void rejectsTheWorkspaceCannotTakeAreCounted();
    void sourceBehindThePositionIsAnAlarm();
    void stalledTableIsAnAlarm();
    void stalledTableAlarmIsSentOnce();

private:
    QString path(const QString &name) const { return m_dir->filePath(name); }
    CliResult cli(const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), m_ws} + args, m_dir->path());
    }
    QJsonObject runJson(const QStringList &extra = {}) {
        const CliResult run = cli(QStringList{QStringLiteral("run"), QStringLiteral("--json")} + extra);
        if (run.exitCode != 0)
            qWarning("%s", qPrintable(run.describe()));
        return parseJsonObject(run.out);
    }
    static QJsonObject onlyIteration(const QJsonObject &run) {
        return run.value(QStringLiteral("iterations")).toArray().at(0).toObject();
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_ws;
};

void TestUnattended::init() {
    m_dir = std::make_unique<QTemporaryDir>(fastTempTemplate());
    QVERIFY(m_dir->isValid());
    m_ws = tidemark::test::testWorkspaceLocation(*m_dir, QStringLiteral("w.tidemark"));
    QCOMPARE(cli({QStringLiteral("init")}).exitCode, 0);
    for (const char *name : {"src", "dst"})
        QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QString::fromLatin1(name),
                      QStringLiteral("--sqlite"), path(QString::fromLatin1(name) + QStringLiteral(".db"))})
                     .exitCode,
                 0);
}

void TestUnattended::futureRowIsHeldBackNotFrozen() {
    const QString src = path(QStringLiteral("src.db"));
    const QString dst = path(QStringLiteral("dst.db"));
    makeOrders(src, 5);
    // A typo: year 3000.
    execSql(src, QStringLiteral("INSERT INTO orders VALUES (6, 'typo', 1.0, '3000-01-01T00:00:00.000000Z')"));
    const CliResult added =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));

    QJsonObject iteration = onlyIteration(runJson());
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
    QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInt(), 5);
    QCOMPARE(iteration.value(QStringLiteral("rows_future")).toInt(), 1);
    QCOMPARE(iteration.value(QStringLiteral("watermark_after")).toString(), orderTimestamp(5));
    const QString error = iteration.value(QStringLiteral("error")).toString();
    QVERIFY2(error.contains(QStringLiteral("table 1 (src:orders)")) &&
                 error.contains(QStringLiteral("key {\"id\":6}")) && error.contains(QStringLiteral("3000")),
             qPrintable(error));
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(5));

    // Rows that come later are still copied: the table is not frozen behind the typo.
    makeOrders(src, 3, 7);
    iteration = onlyIteration(runJson());
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
    QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInt(), 3);
    QCOMPARE(iteration.value(QStringLiteral("rows_future")).toInt(), 1);
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(8));

    // table list flags it, in JSON and in text.
    const CliResult listed = cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")});
    const QJsonObject table = parseJsonArray(listed.out).at(0).toObject();
    QCOMPARE(table.value(QStringLiteral("rows_held_back")).toInt(), 1);
    QCOMPARE(table.value(QStringLiteral("health")).toString(), QStringLiteral("held_back"));
    QCOMPARE(table.value(QStringLiteral("max_future")).toString(), QStringLiteral("1d"));
    QVERIFY(
        cli({QStringLiteral("table"), QStringLiteral("list")})
            .out.contains(QStringLiteral("table 1 (src:orders) is held_back: table 1 (src:orders): 1 rows")));

    // Once the row is corrected, it is copied and the table is fine again.
    execSql(src, QStringLiteral("UPDATE orders SET updated_at = '2025-06-01T00:00:00.000000Z' WHERE id = 6"));
    iteration = onlyIteration(runJson());
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(iteration.value(QStringLiteral("rows_future")).toInt(), 0);
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(9));
    QCOMPARE(
        parseJsonArray(cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out)
            .at(0)
            .toObject()
            .value(QStringLiteral("rows_held_back"))
            .toInt(),
        0);
}

void TestUnattended::integerJumpIsHeldBack() {
    const QString src = path(QStringLiteral("src.db"));
    execSql(src, QStringLiteral("CREATE TABLE events (id INTEGER PRIMARY KEY, v TEXT); "
                                "INSERT INTO events VALUES (1, 'a'), (2, 'b'), (3, 'c')"));
    const CliResult added = cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                                 QStringLiteral("src:events"), QStringLiteral("--target"),
                                 QStringLiteral("dst:events"), QStringLiteral("--watermark"),
                                 QStringLiteral("id"), QStringLiteral("--max-jump"), QStringLiteral("1000")});
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    QCOMPARE(onlyIteration(runJson()).value(QStringLiteral("rows_written")).toInt(), 3);

    execSql(src,
            QStringLiteral("INSERT INTO events VALUES (4, 'd'), (9223372036854775807, 'max'), (5, 'e')"));
    const QJsonObject iteration = onlyIteration(runJson());
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
    QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInt(), 2);
    QCOMPARE(iteration.value(QStringLiteral("rows_future")).toInt(), 1);
    QCOMPARE(iteration.value(QStringLiteral("watermark_after")).toInteger(), qint64(5));
    QVERIFY2(iteration.value(QStringLiteral("error")).toString().contains(QStringLiteral("max jump 1000")),
             qPrintable(iteration.value(QStringLiteral("error")).toString()));
}

void TestUnattended::guardOptionsNameTheirType() {
    makeOrders(path(QStringLiteral("src.db")), 2);
    const QStringList base{QStringLiteral("table"),      QStringLiteral("add"),
                           QStringLiteral("--source"),   QStringLiteral("src:orders"),
                           QStringLiteral("--target"),   QStringLiteral("dst:orders"),
                           QStringLiteral("--watermark")};
    CliResult refused = cli(
        base + QStringList{QStringLiteral("updated_at"), QStringLiteral("--max-jump"), QStringLiteral("10")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("--max-jump")) &&
                 refused.err.contains(QStringLiteral("updated_at")),
             qPrintable(refused.err));
    refused =
        cli(base + QStringList{QStringLiteral("id"), QStringLiteral("--max-future"), QStringLiteral("1d")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("--max-future")), qPrintable(refused.err));
    for (const QString &bad : {QStringLiteral("0"), QStringLiteral("-1"), QStringLiteral("10s"),
                               QStringLiteral("9999d"), QStringLiteral("soon")}) {
        refused = cli(base + QStringList{QStringLiteral("updated_at"), QStringLiteral("--max-future"), bad});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("--max-future")), qPrintable(refused.err));
    }
    for (const QString &bad :
         {QStringLiteral("0"), QStringLiteral("-1"), QStringLiteral("9223372036854775808")}) {
        refused = cli(base + QStringList{QStringLiteral("id"), QStringLiteral("--max-jump"), bad});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains(QStringLiteral("--max-jump")), qPrintable(refused.err));
    }
    const CliResult none = cli(base + QStringList{QStringLiteral("updated_at"),
                                                  QStringLiteral("--max-future"), QStringLiteral("none")});
    QVERIFY2(none.exitCode == 0, qPrintable(none.describe()));
}

// SIGKILL just before the window's one transaction commits, its rows streamed into it: the
// transaction dies with the process, so the closed iteration says 0 written and shows the rows
// its last progress record had pending (the first batch's) as rolled back.
void TestUnattended::killedTransactionClaimsNoRows() {
    const QString src = path(QStringLiteral("src.db"));
    const QString dst = path(QStringLiteral("dst.db"));
    makeOrders(src, 10);
    makeStreamingOrdersTarget(dst);
    const CliResult added =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at"), QStringLiteral("--batch-size"),
             QStringLiteral("4"), QStringLiteral("--max-skipped"), QStringLiteral("1")});
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    QProcess killed;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    env.insert(QStringLiteral("TIDEMARK_FAULT_POINT"), QStringLiteral("before_target_commit"));
    // Paused after its first batch for longer than the progress record's 1 s pace, so that
    // batch's progress reaches the workspace before the kill.
    env.insert(QStringLiteral("TIDEMARK_FAULT_STOP"), QStringLiteral("after_batch_write"));
    killed.setProcessEnvironment(env);
    killed.start(cliPath(), {QStringLiteral("-w"), m_ws, QStringLiteral("run")});
    QVERIFY(killed.waitForStarted(30000));
    QTRY_COMPARE_WITH_TIMEOUT(processState(killed.processId()), QChar(u'T'), 60000);
    QTest::qWait(1200);
    ::kill(pid_t(killed.processId()), SIGCONT);
    QVERIFY(killed.waitForFinished(120000));
    QCOMPARE(killed.exitStatus(), QProcess::CrashExit);
    recoverAfterKill(dst);

    // history closes the dead run and shows what it holds.
    const CliResult history = cli({QStringLiteral("history"), QStringLiteral("--json")});
    QVERIFY2(history.exitCode == 0, qPrintable(history.describe()));
    const QJsonObject iteration = onlyIteration(parseJsonArray(history.out).at(0).toObject());
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));
    QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInt(), 0);
    QCOMPARE(iteration.value(QStringLiteral("rows_read")).toInt(), 4);
    QCOMPARE(iteration.value(QStringLiteral("rows_rolled_back")).toInt(), 4);
    QCOMPARE(iteration.value(QStringLiteral("rows_pending")).toInt(), 0);
    QCOMPARE(tableExists(dst, QStringLiteral("orders")) ? countRows(dst, QStringLiteral("orders")) : 0,
             qint64(0));

    // The rerun copies the window once.
    const QJsonObject rerun = onlyIteration(runJson());
    QCOMPARE(rerun.value(QStringLiteral("rows_written")).toInt(), 10);
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(10));
}

// The target commits 4 rejected rows' count while another process holds the workspace's write
// lock: their contents cannot be recorded, and the iteration says how many were lost.
void TestUnattended::rejectsTheWorkspaceCannotTakeAreCounted() {
    const QString src = path(QStringLiteral("src.db"));
    const QString dst = path(QStringLiteral("dst.db"));
    makeOrders(src, 10);
    // amount = id * 1.5: rows 7 to 10 break the target's CHECK.
    execSql(dst,
            QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount REAL "
                           "CHECK (amount < 10), updated_at TIMESTAMP NOT NULL)"));
    const CliResult added =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at"), QStringLiteral("--max-skipped"),
             QStringLiteral("10")});
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));

    QProcess run;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    env.insert(QStringLiteral("TIDEMARK_FAULT_STOP"), QStringLiteral("before_target_commit"));
    env.insert(QStringLiteral("TIDEMARK_TEST_WORKSPACE_BUSY_MS"), QStringLiteral("300"));
    run.setProcessEnvironment(env);
    run.start(cliPath(), {QStringLiteral("-w"), m_ws, QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY(run.waitForStarted(30000));
    QTRY_COMPARE_WITH_TIMEOUT(processState(run.processId()), QChar(u'T'), 60000);
    {
        const tidemark::test::WorkspaceWriteLock holder(m_ws);
        ::kill(pid_t(run.processId()), SIGCONT);
        QVERIFY(run.waitForFinished(120000));
    }
    const QJsonObject iteration =
        onlyIteration(parseJsonObject(QString::fromUtf8(run.readAllStandardOutput())));
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
    QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInt(), 6);
    QCOMPARE(iteration.value(QStringLiteral("rows_skipped")).toInt(), 4);
    const QString error = iteration.value(QStringLiteral("error")).toString();
    QVERIFY2(error.contains(QStringLiteral("the contents of 4 of the 4 rejected rows could not be recorded")),
             qPrintable(error));
    QCOMPARE(countRows(dst, QStringLiteral("orders")), qint64(6));
}

// The source restored from an older backup: its highest watermark is below the position. The run
// warns, naming both, where it used to end a quiet "no new rows".
void TestUnattended::sourceBehindThePositionIsAnAlarm() {
    const QString src = path(QStringLiteral("src.db"));
    makeOrders(src, 10);
    const CliResult added =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    QCOMPARE(onlyIteration(runJson()).value(QStringLiteral("rows_written")).toInt(), 10);
    QCOMPARE(onlyIteration(runJson()).value(QStringLiteral("status")).toString(),
             QStringLiteral("no_new_rows"));

    execSql(src, QStringLiteral("DELETE FROM orders WHERE id > 6"));
    const QJsonObject iteration = onlyIteration(runJson());
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
    QVERIFY(iteration.value(QStringLiteral("source_behind")).toBool());
    const QString error = iteration.value(QStringLiteral("error")).toString();
    QVERIFY2(error.contains(QStringLiteral("the source is behind the position")) &&
                 error.contains(orderTimestamp(6)) && error.contains(orderTimestamp(10)),
             qPrintable(error));
    QCOMPARE(
        parseJsonArray(cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out)
            .at(0)
            .toObject()
            .value(QStringLiteral("health"))
            .toString(),
        QStringLiteral("source_behind"));

    // Emptied: no row at all is behind too.
    execSql(src, QStringLiteral("DELETE FROM orders"));
    QVERIFY(onlyIteration(runJson()).value(QStringLiteral("source_behind")).toBool());
}

void TestUnattended::stalledTableIsAnAlarm() {
    const QString src = path(QStringLiteral("src.db"));
    makeOrders(src, 5);
    const CliResult added =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at"), QStringLiteral("--stale-after"),
             QStringLiteral("120m")});
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    const auto listed = [this] {
        return parseJsonArray(
                   cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out)
            .at(0)
            .toObject();
    };
    QCOMPARE(listed().value(QStringLiteral("stale_after")).toString(), QStringLiteral("2h"));
    QCOMPARE(listed().value(QStringLiteral("health")).toString(), QStringLiteral("ok"));
    QCOMPARE(onlyIteration(runJson()).value(QStringLiteral("rows_written")).toInt(), 5);
    QCOMPARE(listed().value(QStringLiteral("health")).toString(), QStringLiteral("ok"));

    // Three days without a run: the position has stood still for longer than 2h, and nobody
    // looked at the source since (the workspace's clock moved back stands for the days passed).
    const QString threeDaysAgo = QStringLiteral("2026-01-01T00:00:00.000Z");
    execSql(m_ws, QStringLiteral("UPDATE watermark_changes SET at = ?1"), {threeDaysAgo});
    execSql(m_ws, QStringLiteral("UPDATE tables SET created_at = ?1"), {threeDaysAgo});
    execSql(m_ws, QStringLiteral("UPDATE iterations SET started_at = ?1, finished_at = ?1"), {threeDaysAgo});
    QJsonObject table = listed();
    QCOMPARE(table.value(QStringLiteral("health")).toString(), QStringLiteral("stalled"));
    const QString reason = table.value(QStringLiteral("health_reason")).toString();
    QVERIFY2(reason.contains(QStringLiteral("its position has not moved since %1").arg(threeDaysAgo)) &&
                 reason.contains(QStringLiteral("stale after 2h")) &&
                 reason.contains(QStringLiteral("no run has copied it since %1").arg(threeDaysAgo)),
             qPrintable(reason));
    QVERIFY(cli({QStringLiteral("table"), QStringLiteral("list")})
                .out.contains(QStringLiteral("table 1 (src:orders) is stalled: its position has not moved")));

    // A paused table stands still on purpose.
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("pause"), QStringLiteral("1")}).exitCode, 0);
    QCOMPARE(listed().value(QStringLiteral("health")).toString(), QStringLiteral("ok"));
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("resume"), QStringLiteral("1")}).exitCode, 0);
    QCOMPARE(listed().value(QStringLiteral("health")).toString(), QStringLiteral("stalled"));

    // A run that finds nothing new looked: a quiet source is no stall.
    QCOMPARE(onlyIteration(runJson()).value(QStringLiteral("status")).toString(),
             QStringLiteral("no_new_rows"));
    QCOMPARE(listed().value(QStringLiteral("health")).toString(), QStringLiteral("ok"));
    // Nor is a position that moves.
    execSql(m_ws, QStringLiteral("UPDATE iterations SET started_at = ?1, finished_at = ?1"), {threeDaysAgo});
    makeOrders(src, 2, 6);
    QCOMPARE(onlyIteration(runJson()).value(QStringLiteral("rows_written")).toInt(), 2);
    QCOMPARE(listed().value(QStringLiteral("health")).toString(), QStringLiteral("ok"));

    // Edited off; a value out of range names the option and the range.
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("edit"), QStringLiteral("1"),
                  QStringLiteral("--stale-after"), QStringLiteral("none")})
                 .exitCode,
             0);
    QVERIFY(listed().value(QStringLiteral("stale_after")).isNull());
    const CliResult refused = cli({QStringLiteral("table"), QStringLiteral("edit"), QStringLiteral("1"),
                                   QStringLiteral("--stale-after"), QStringLiteral("30s")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("table edit: --stale-after: '30s' is not from 1m to 3650d")),
             qPrintable(refused.err));
}

// Cron's `run` of other tables raises a stalled table's alarm through the workspace's hook: once,
// though two processes end at the same time, and once more after the table moved and stalled
// again.
void TestUnattended::stalledTableAlarmIsSentOnce() {
    const QString src = path(QStringLiteral("src.db"));
    makeOrders(src, 5);
    for (const QStringList &extra :
         {QStringList{QStringLiteral("dst:orders"), QStringLiteral("--stale-after"), QStringLiteral("2h")},
          QStringList{QStringLiteral("dst:other")}}) {
        const CliResult added =
            cli(QStringList{QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                            QStringLiteral("src:orders"), QStringLiteral("--watermark"),
                            QStringLiteral("updated_at"), QStringLiteral("--target")} +
                extra);
        QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    }
    const QString alarms = path(QStringLiteral("alarms.jsonl"));
    QCOMPARE(cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--hook"),
                  QStringLiteral("cat >> '%1'").arg(alarms)})
                 .exitCode,
             0);
    QVERIFY(cli({QStringLiteral("alert"), QStringLiteral("show")}).out.contains(QStringLiteral("stalled")));
    QCOMPARE(runJson().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    const auto tableAlarms = [&] {
        QList<QJsonObject> found;
        QFile file(alarms);
        if (!file.open(QIODevice::ReadOnly))
            return found;
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QJsonObject object = parseJsonObject(QString::fromUtf8(line));
            if (object.value(QStringLiteral("kind")).toString() == QLatin1String("table_health"))
                found.append(object);
        }
        return found;
    };
    const auto standStill = [&] {
        const QString threeDaysAgo = QStringLiteral("2026-01-01T00:00:00.000Z");
        execSql(m_ws, QStringLiteral("UPDATE watermark_changes SET at = ?1 WHERE table_id = 1"),
                {threeDaysAgo});
        execSql(m_ws, QStringLiteral("UPDATE tables SET created_at = ?1 WHERE id = 1"), {threeDaysAgo});
        execSql(m_ws,
                QStringLiteral("UPDATE iterations SET started_at = ?1, finished_at = ?1 WHERE table_id = 1"),
                {threeDaysAgo});
    };
    const auto runOtherTwiceAtOnce = [&] {
        QProcess first;
        QProcess second;
        for (QProcess *process : {&first, &second})
            process->start(cliPath(), {QStringLiteral("-w"), m_ws, QStringLiteral("run"),
                                       QStringLiteral("--table"), QStringLiteral("2")});
        for (QProcess *process : {&first, &second})
            QVERIFY2(process->waitForFinished(60000), process->readAllStandardError().constData());
    };
    standStill();
    runOtherTwiceAtOnce();
    QList<QJsonObject> raised = tableAlarms();
    QCOMPARE(raised.size(), 1);
    QCOMPARE(raised.first().value(QStringLiteral("table_id")).toInt(), 1);
    QCOMPARE(raised.first().value(QStringLiteral("health")).toString(), QStringLiteral("stalled"));
    QVERIFY(raised.first()
                .value(QStringLiteral("reason"))
                .toString()
                .contains(QStringLiteral("is its schedule firing?")));
    // Still stalled: not sent again.
    runOtherTwiceAtOnce();
    QCOMPARE(tableAlarms().size(), 1);

    // Its run looks at the source (nothing new: not stalled), then it stands still again.
    QCOMPARE(onlyIteration(runJson({QStringLiteral("--table"), QStringLiteral("1")}))
                 .value(QStringLiteral("status"))
                 .toString(),
             QStringLiteral("no_new_rows"));
    standStill();
    runOtherTwiceAtOnce();
    QCOMPARE(tableAlarms().size(), 2);

    // A schedule's alerts are its runs': --on stalled there is refused, saying where it goes.
    const CliResult refused =
        cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("nightly"),
             QStringLiteral("--cron"), QStringLiteral("0 2 * * *"), QStringLiteral("--hook"),
             QStringLiteral("true"), QStringLiteral("--on"), QStringLiteral("stalled")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("alert set --on ...,stalled")), qPrintable(refused.err));
}

QTEST_GUILESS_MAIN(TestUnattended)
#include "tst_unattended.moc"
