// SPDX-License-Identifier: MIT
// `tidemark-cli serve` as real processes: a seconds-level schedule copies new rows on each
// firing; a second runner beside it stands by, copies nothing twice and takes over when the
// first is killed; SIGTERM cancels a running iteration, the run ends cancelled, exit 0; a firing
// that cannot start its run (the workspace locked) is recorded and alerted, and the schedule
// fires again once the workspace takes writes; under libfaketime, the runner's wall clock
// stepped back an hour, forward a day and back again never stalls the schedule.

#include "model/sqlite/sqlitedb.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdio>
#include <memory>

using namespace tidemark::test;

namespace {

constexpr int kGenerous = 90000; // waiting for things to happen, never a claim about speed

// One `serve` process with short heartbeats; its stderr is kept for the assertions.
class ServeProcess {
public:
    ServeProcess(const QString &workspace, const QString &dir, const QStringList &extraEnv = {}) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
        env.insert(QStringLiteral("TIDEMARK_TEST_RUNNER_HEARTBEAT_MS"), QStringLiteral("200"));
        env.insert(QStringLiteral("TIDEMARK_TEST_RUN_HEARTBEAT_MS"), QStringLiteral("200"));
        for (const QString &entry : extraEnv)
            env.insert(entry.section(QLatin1Char('='), 0, 0), entry.section(QLatin1Char('='), 1));
        m_process.setProcessEnvironment(env);
        m_process.setWorkingDirectory(dir);
        m_process.start(cliPath(), {QStringLiteral("-w"), workspace, QStringLiteral("serve")});
    }
    ~ServeProcess() {
        if (m_process.state() != QProcess::NotRunning) {
            ::kill(pid_t(m_process.processId()), SIGCONT);
            m_process.kill();
            m_process.waitForFinished(10000);
        }
    }
    bool started() { return m_process.waitForStarted(30000); }
    qint64 pid() const { return m_process.processId(); }
    QString err() {
        m_err += QString::fromUtf8(m_process.readAllStandardError());
        return m_err;
    }
    void signal(int sig) { ::kill(pid_t(m_process.processId()), sig); }
    // True when the kernel shows the process stopped (SIGSTOP by a fault point).
    bool isStopped() const {
        QFile stat(QStringLiteral("/proc/%1/stat").arg(m_process.processId()));
        if (!stat.open(QIODevice::ReadOnly))
            return false;
        const QByteArray text = stat.readAll();
        const qsizetype paren = text.lastIndexOf(')');
        return paren > 0 && text.mid(paren + 2, 1) == "T";
    }
    QProcess &process() { return m_process; }

private:
    QProcess m_process;
    QString m_err;
};

} // namespace

class TestServe : public QObject {
    Q_OBJECT

private slots:
    void init();
    void firesCopiesAndHandsOverWithoutDuplicates();
    void sigtermCancelsTheRunningIteration();
    void timeoutCancelsALongIteration();
    void firingThatCannotStartIsRecordedAndTheScheduleGoesOn();
    void clockStepsNeitherStallNorDoubleFire();
    void replacedWorkspaceFileEndsTheRunner();

private:
    QString path(const QString &name) const { return m_dir->filePath(name); }
    CliResult cli(const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), m_ws} + args, m_dir->path());
    }
    // Workspace with src.db -> dst.db "orders" (append, watermark updated_at); returns the table id.
    QString addOrdersTable(const QStringList &extra = {});
    // Rows in dst.db's orders; 0 before the first copy made it.
    qint64 targetRows() const {
        const QString dst = path(QStringLiteral("dst.db"));
        return QFileInfo::exists(dst) && tableExists(dst, QStringLiteral("orders"))
                   ? countRows(dst, QStringLiteral("orders"))
                   : 0;
    }
    // src.db's orders with `rows` rows (integer watermark id) and table 1 copying it to dst.db in
    // batches of one row (a target column of another affinity keeps the engine off the
    // one-statement push-down path): an iteration that takes seconds.
    void addLongTable(int rows) {
        execSql(path(QStringLiteral("src.db")),
                QStringLiteral(
                    "CREATE TABLE orders (id INTEGER PRIMARY KEY, v TEXT); "
                    "INSERT INTO orders (id, v) WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
                    "FROM c WHERE i < %1) SELECT i, 'row ' || i FROM c")
                    .arg(rows));
        execSql(path(QStringLiteral("dst.db")),
                QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, v)"));
        const CliResult added =
            cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                 QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders"),
                 QStringLiteral("--watermark"), QStringLiteral("id"), QStringLiteral("--batch-size"),
                 QStringLiteral("1"), QStringLiteral("--max-skipped"), QStringLiteral("1")});
        QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    }
    qint64 runningRuns() const {
        return queryValue(m_ws, QStringLiteral("SELECT count(*) FROM runs WHERE status = 'running'"))
            .toLongLong();
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_ws;
};

void TestServe::init() {
    m_dir = std::make_unique<QTemporaryDir>(fastTempTemplate());
    QVERIFY(m_dir->isValid());
    m_ws = path(QStringLiteral("w.tidemark"));
    QCOMPARE(cli({QStringLiteral("init")}).exitCode, 0);
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                  QStringLiteral("--sqlite"), path(QStringLiteral("src.db"))})
                 .exitCode,
             0);
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
                  QStringLiteral("--sqlite"), path(QStringLiteral("dst.db"))})
                 .exitCode,
             0);
}

QString TestServe::addOrdersTable(const QStringList &extra) {
    const CliResult added = cli(QStringList{QStringLiteral("table"), QStringLiteral("add"),
                                            QStringLiteral("--source"), QStringLiteral("src:orders"),
                                            QStringLiteral("--target"), QStringLiteral("dst:orders"),
                                            QStringLiteral("--watermark"), QStringLiteral("updated_at")} +
                                extra);
    if (added.exitCode != 0)
        qWarning("%s", qPrintable(added.describe()));
    return added.out.trimmed();
}

void TestServe::firesCopiesAndHandsOverWithoutDuplicates() {
    const QString src = path(QStringLiteral("src.db"));
    const QString dst = path(QStringLiteral("dst.db"));
    makeOrders(src, 5);
    QCOMPARE(addOrdersTable(), QStringLiteral("1"));
    const CliResult scheduled =
        cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("every-second"),
             QStringLiteral("--cron"), QStringLiteral("* * * * * *"), QStringLiteral("--tz"),
             QStringLiteral("UTC")});
    QVERIFY2(scheduled.exitCode == 0, qPrintable(scheduled.describe()));

    ServeProcess first(m_ws, m_dir->path());
    QVERIFY(first.started());
    QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == 5, qPrintable(first.err()), kGenerous);
    QVERIFY(first.err().contains(QStringLiteral("active runner")));

    // New rows are copied by a later firing.
    makeOrders(src, 5, 6);
    QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == 10, qPrintable(first.err()), kGenerous);

    // A second runner beside it stands by.
    ServeProcess second(m_ws, m_dir->path());
    QVERIFY(second.started());
    QTRY_VERIFY2_WITH_TIMEOUT(second.err().contains(QStringLiteral("standby")), qPrintable(second.err()),
                              kGenerous);
    makeOrders(src, 5, 11);
    QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == 15, qPrintable(first.err()), kGenerous);
    QCOMPARE(queryValue(m_ws, QStringLiteral("SELECT count(*) FROM runs WHERE pid = ?1"), {second.pid()})
                 .toLongLong(),
             qint64(0));

    // The first dies without a word: the second takes over and copies what comes next.
    first.signal(SIGKILL);
    QVERIFY(first.process().waitForFinished(30000));
    recoverAfterKill(dst); // a firing may have been in a commit of the target
    makeOrders(src, 5, 16);
    QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == 20, qPrintable(second.err()), kGenerous);
    QVERIFY2(second.err().contains(QStringLiteral("active runner")), qPrintable(second.err()));
    QVERIFY(queryValue(m_ws, QStringLiteral("SELECT count(*) FROM runs WHERE pid = ?1"), {second.pid()})
                .toLongLong() > 0);

    // Nothing copied twice, nothing missed.
    QCOMPARE(queryValue(dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(),
             qint64(20));
    QCOMPARE(countRows(dst, QStringLiteral("orders")), countRows(src, QStringLiteral("orders")));

    // Runs fired by the schedule say so in history.
    const CliResult history = cli({QStringLiteral("history"), QStringLiteral("--json"),
                                   QStringLiteral("--limit"), QStringLiteral("3")});
    QCOMPARE(history.exitCode, 0);
    const QJsonArray runs = parseJsonArray(history.out);
    QVERIFY(!runs.isEmpty());
    for (const QJsonValue &run : runs) {
        QCOMPARE(run[QStringLiteral("trigger")].toString(), QStringLiteral("schedule"));
        QCOMPARE(run[QStringLiteral("schedule")].toString(), QStringLiteral("every-second"));
    }
    const QJsonArray schedules = parseJsonArray(
        cli({QStringLiteral("schedule"), QStringLiteral("list"), QStringLiteral("--json")}).out);
    QCOMPARE(schedules.size(), 1);
    QVERIFY(schedules.at(0)[QStringLiteral("last_run_id")].toInteger() > 0);

    // SIGTERM: exit 0 within the contract's 10 s, no run left running, the heartbeat row gone.
    second.signal(SIGTERM);
    QVERIFY(second.process().waitForFinished(10000));
    QCOMPARE(second.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(second.process().exitCode(), 0);
    QCOMPARE(runningRuns(), qint64(0));
    QCOMPARE(queryValue(m_ws, QStringLiteral("SELECT count(*) FROM runner")).toLongLong(), qint64(0));
}

void TestServe::sigtermCancelsTheRunningIteration() {
    // Hundreds of thousands of batches still to go when the SIGTERM lands, so the cancel (polled
    // every 100 ms) is sure to find the iteration running.
    addLongTable(500000);
    QCOMPARE(
        cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("s"), QStringLiteral("--cron"),
             QStringLiteral("* * * * * *"), QStringLiteral("--tz"), QStringLiteral("UTC")})
            .exitCode,
        0);

    // The runner stops itself after its first batch is written, mid-iteration; SIGTERM is
    // delivered while it is stopped and handled as soon as it goes on.
    ServeProcess serve(m_ws, m_dir->path(), {QStringLiteral("TIDEMARK_FAULT_STOP=after_batch_write")});
    QVERIFY(serve.started());
    QTRY_VERIFY2_WITH_TIMEOUT(serve.isStopped(), qPrintable(serve.err()), kGenerous);
    QCOMPARE(runningRuns(), qint64(1));
    serve.signal(SIGTERM);
    serve.signal(SIGCONT);
    QVERIFY2(serve.process().waitForFinished(10000), qPrintable(serve.err()));
    QCOMPARE(serve.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(serve.process().exitCode(), 0);

    QCOMPARE(runningRuns(), qint64(0));
    const QList<QStringList> runs = queryRows(m_ws, QStringLiteral("SELECT status FROM runs"));
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs.at(0).at(0), QStringLiteral("cancelled"));
    const QList<QStringList> iterations = queryRows(m_ws, QStringLiteral("SELECT status FROM iterations"));
    QCOMPARE(iterations.size(), 1);
    QCOMPARE(iterations.at(0).at(0), QStringLiteral("cancelled"));
    // Rolled back: the target holds nothing of the window.
    QCOMPARE(targetRows(), qint64(0));
}

void TestServe::timeoutCancelsALongIteration() {
    addLongTable(2000000); // far longer than the 1 s timeout
    QCOMPARE(cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("s"),
                  QStringLiteral("--cron"), QStringLiteral("* * * * * *"), QStringLiteral("--tz"),
                  QStringLiteral("UTC"), QStringLiteral("--timeout"), QStringLiteral("1s")})
                 .exitCode,
             0);
    ServeProcess serve(m_ws, m_dir->path());
    QVERIFY(serve.started());
    const auto cancelledRuns = [&] {
        return queryValue(m_ws, QStringLiteral("SELECT count(*) FROM runs WHERE status = 'cancelled'"))
            .toLongLong();
    };
    QTRY_VERIFY2_WITH_TIMEOUT(cancelledRuns() > 0, qPrintable(serve.err()), kGenerous);
    // The runner logs the run's end once its record reaches it, a moment after the workspace.
    QTRY_VERIFY2_WITH_TIMEOUT(serve.err().contains(QStringLiteral("timed out")), qPrintable(serve.err()),
                              kGenerous);
    const QString log =
        queryValue(m_ws, QStringLiteral("SELECT group_concat(message, ' | ') FROM iteration_logs "
                                        "WHERE iteration_id = (SELECT min(id) FROM iterations "
                                        "WHERE status = 'cancelled')"))
            .toString();
    QVERIFY2(log.contains(QStringLiteral("timeout")), qPrintable(log));
    QCOMPARE(targetRows(), qint64(0)); // rolled back
    serve.signal(SIGTERM);
    QVERIFY(serve.process().waitForFinished(10000));
    QCOMPARE(serve.process().exitCode(), 0);
    QCOMPARE(runningRuns(), qint64(0));
}

void TestServe::firingThatCannotStartIsRecordedAndTheScheduleGoesOn() {
    const QString src = path(QStringLiteral("src.db"));
    makeOrders(src, 5);
    QCOMPARE(addOrdersTable(), QStringLiteral("1"));
    QCOMPARE(cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("every-second"),
                  QStringLiteral("--cron"), QStringLiteral("* * * * * *"), QStringLiteral("--tz"),
                  QStringLiteral("UTC")})
                 .exitCode,
             0);
    const QString alerts = path(QStringLiteral("alerts.jsonl"));
    const CliResult alertSet =
        cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--hook"),
             QStringLiteral("cat >> '%1'").arg(alerts), QStringLiteral("--on"), QStringLiteral("failed")});
    QVERIFY2(alertSet.exitCode == 0, qPrintable(alertSet.describe()));

    // Writes wait 300 ms for the lock, not 10 s.
    ServeProcess serve(m_ws, m_dir->path(), {QStringLiteral("TIDEMARK_TEST_WORKSPACE_BUSY_MS=300")});
    QVERIFY(serve.started());
    QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == 5, qPrintable(serve.err()), kGenerous);

    {
        // Another process holds the workspace's write lock for 3 s: the firings meanwhile fail
        // before their runs exist.
        tidemark::SqliteDb holder(m_ws, tidemark::SqliteDb::Mode::ReadWrite);
        holder.exec(QStringLiteral("BEGIN IMMEDIATE"));
        QTRY_VERIFY2_WITH_TIMEOUT(serve.err().contains(QStringLiteral("failed before its run existed")),
                                  qPrintable(serve.err()), kGenerous);
        QTest::qWait(2000);
        holder.exec(QStringLiteral("COMMIT"));
    }
    // The alert went out, naming the schedule and why.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(alerts).size() > 0, kGenerous);
    QFile alertFile(alerts);
    QVERIFY(alertFile.open(QIODevice::ReadOnly));
    const QJsonObject alert = parseJsonObject(QString::fromUtf8(alertFile.readLine()));
    QCOMPARE(alert.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
    QCOMPARE(alert.value(QStringLiteral("schedule")).toString(), QStringLiteral("every-second"));
    QVERIFY2(
        alert.value(QStringLiteral("error")).toString().contains(QStringLiteral("could not start its run")),
        qPrintable(alert.value(QStringLiteral("error")).toString()));

    // The schedule was never left "running" without a run: new rows are copied by the next
    // firings, and no firing was skipped for a run that did not exist.
    makeOrders(src, 5, 6);
    QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == 10, qPrintable(serve.err()), kGenerous);
    QVERIFY2(!serve.err().contains(QStringLiteral("(starting)")), qPrintable(serve.err()));
    // Once a firing started its run again, the heartbeat says the last firing went fine.
    QTRY_VERIFY_WITH_TIMEOUT(
        queryValue(m_ws, QStringLiteral("SELECT last_firing_error IS NULL AND last_firing_at IS NOT NULL "
                                        "FROM runner"))
                .toLongLong() == 1,
        kGenerous);
    const CliResult runners = cli({QStringLiteral("runners"), QStringLiteral("--json")});
    QCOMPARE(runners.exitCode, 0);
    const QJsonObject runner = parseJsonArray(runners.out).at(0).toObject();
    QCOMPARE(runner.value(QStringLiteral("pid")).toInteger(), serve.pid());
    QVERIFY(runner.value(QStringLiteral("alive")).toBool());
    QCOMPARE(runner.value(QStringLiteral("last_firing")).toObject().value(QStringLiteral("failed")).toBool(),
             false);

    serve.signal(SIGTERM);
    QVERIFY(serve.process().waitForFinished(30000));
    QCOMPARE(runningRuns(), qint64(0));
}

// The runner's wall clock steps as NTP steps it (libfaketime, monotonic clock left real): an
// hour back, a day forward, a day back. New rows are copied within seconds after each step, and
// a firing never starts two runs at once.
void TestServe::clockStepsNeitherStallNorDoubleFire() {
    const QString libfaketime = QStringLiteral("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");
    if (!QFileInfo::exists(libfaketime)) {
        if (runningUnderCi())
            QFAIL("libfaketime is missing (Debian package faketime): scripts/deps.sh installs it");
        QSKIP("libfaketime is missing: apt-get install faketime");
    }
    const QString src = path(QStringLiteral("src.db"));
    makeOrders(src, 5);
    QCOMPARE(addOrdersTable(), QStringLiteral("1"));
    QCOMPARE(cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("every-second"),
                  QStringLiteral("--cron"), QStringLiteral("* * * * * *"), QStringLiteral("--tz"),
                  QStringLiteral("UTC")})
                 .exitCode,
             0);
    const QString offsetFile = path(QStringLiteral("faketime.rc"));
    const auto setOffset = [&offsetFile](const char *offset) {
        QFile file(offsetFile);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(offset);
        file.write("\n");
    };
    setOffset("+0");
    // An instrumented build loads its sanitizer runtime first unless told not to mind.
    const QString asan = qEnvironmentVariable("ASAN_OPTIONS");
    ServeProcess serve(
        m_ws, m_dir->path(),
        {QStringLiteral("LD_PRELOAD=") + libfaketime, QStringLiteral("FAKETIME_TIMESTAMP_FILE=") + offsetFile,
         QStringLiteral("FAKETIME_CACHE_DURATION=1"), QStringLiteral("FAKETIME_DONT_FAKE_MONOTONIC=1"),
         QStringLiteral("ASAN_OPTIONS=") + asan + (asan.isEmpty() ? QString() : QStringLiteral(":")) +
             QStringLiteral("verify_asan_link_order=0")});
    QVERIFY(serve.started());
    QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == 5, qPrintable(serve.err()), kGenerous);

    int rows = 5;
    for (const char *offset : {"-1h", "+1d", "+0"}) {
        setOffset(offset);
        QTest::qWait(1500); // past libfaketime's one-second cache of the file
        makeOrders(src, 5, rows + 1);
        rows += 5;
        // Seconds, not the hour or the day the step spans: the wait is generous for a loaded
        // machine, far below any step.
        QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == rows,
                                  qPrintable(offset + QStringLiteral(": ") + serve.err()), 60000);
    }
    // A schedule starts its next run only once the previous one ended: no two of its runs overlap.
    const QList<QStringList> runs =
        queryRows(m_ws, QStringLiteral("SELECT id, status FROM runs WHERE schedule = 'every-second' AND "
                                       "status = 'running'"));
    QVERIFY(runs.size() <= 1);
    QVERIFY2(!serve.err().contains(QStringLiteral("(starting)")), qPrintable(serve.err()));
    QCOMPARE(
        queryValue(path(QStringLiteral("dst.db")), QStringLiteral("SELECT count(DISTINCT id) FROM orders"))
            .toLongLong(),
        qint64(rows));

    serve.signal(SIGTERM);
    QVERIFY(serve.process().waitForFinished(30000));
    QCOMPARE(serve.process().exitCode(), 0);
}

// A workspace file replaced under a running `serve` (a restore from a backup): the runner stops
// acting on the old file and exits 3 at once, and a fresh one carries on from the new file with
// the target exact.
void TestServe::replacedWorkspaceFileEndsTheRunner() {
    const QString src = path(QStringLiteral("src.db"));
    makeOrders(src, 5);
    QCOMPARE(addOrdersTable(), QStringLiteral("1"));
    QCOMPARE(cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("every-second"),
                  QStringLiteral("--cron"), QStringLiteral("* * * * * *"), QStringLiteral("--tz"),
                  QStringLiteral("UTC")})
                 .exitCode,
             0);
    const QString backup = path(QStringLiteral("backup.tidemark"));
    execSql(m_ws, QStringLiteral("VACUUM INTO ?1"), {backup}); // before any copy: position none
    {
        ServeProcess serve(m_ws, m_dir->path());
        QVERIFY(serve.started());
        QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == 5, qPrintable(serve.err()), kGenerous);
        QCOMPARE(::rename(QFile::encodeName(backup).constData(), QFile::encodeName(m_ws).constData()), 0);
        QVERIFY(serve.process().waitForFinished(kGenerous));
        QCOMPARE(serve.process().exitStatus(), QProcess::NormalExit);
        QCOMPARE(serve.process().exitCode(), 3);
        QVERIFY2(serve.err().contains(QStringLiteral("was replaced under this runner")),
                 qPrintable(serve.err()));
    }
    recoverAfterKill(path(QStringLiteral("dst.db")));
    makeOrders(src, 5, 6);
    ServeProcess fresh(m_ws, m_dir->path());
    QVERIFY(fresh.started());
    // The restored workspace knew no position; the target's state row did: nothing copied twice.
    QTRY_VERIFY2_WITH_TIMEOUT(targetRows() == 10, qPrintable(fresh.err()), kGenerous);
    QCOMPARE(
        queryValue(path(QStringLiteral("dst.db")), QStringLiteral("SELECT count(DISTINCT id) FROM orders"))
            .toLongLong(),
        qint64(10));
    fresh.signal(SIGTERM);
    QVERIFY(fresh.process().waitForFinished(30000));
}

QTEST_GUILESS_MAIN(TestServe)
#include "tst_serve.moc"
