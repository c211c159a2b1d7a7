// SPDX-License-Identifier: MIT
// History says what happened: when the target committed but the workspace could
// not follow (its lock held by another connection, or every write to it failing as on a full
// disk), the record never says `failed` with 0 written, never stays `running`, and the next run
// completes it from the target's state row. Through the real binary, stopped at the engine's
// fault points while this test holds the workspace's write lock from its own connection.

#include "model/storage/workspace.h"
#include "tests/support/clifixture.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QCoreApplication>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include <memory>

#include <csignal>

using namespace tidemark;
using namespace tidemark::test;

namespace {

constexpr int kRows = 100000;
const QString kCommittedNote =
    QStringLiteral("committed to the target; the workspace will catch up from the target's state row");

} // namespace

class TestHistoryAfter : public QObject, protected CliFixture {
    Q_OBJECT

private:
    // A PostgreSQL target (public.m_pgTable) instead of dst.db when set.
    std::unique_ptr<PgSession> m_pg;
    QString m_pgTable;

    // A workspace copying kRows orders from src.db to dst.db (or m_pgTable).
    void setupOrders(const QStringList &extra = {}) {
        makeOrders(m_src, kRows);
        CLI_EXIT(cli({QStringLiteral("init")}), 0);
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                      QStringLiteral("--sqlite"), m_src}),
                 0);
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
                      m_pg ? QStringLiteral("--postgres") : QStringLiteral("--sqlite"),
                      m_pg ? pgConninfo() : m_dst}),
                 0);
        const CliResult added =
            cli(QStringList{QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
                            QStringLiteral("src:orders"), QStringLiteral("--target"),
                            QStringLiteral("dst:") + (m_pg ? m_pgTable : QStringLiteral("orders")),
                            QStringLiteral("--watermark"), QStringLiteral("updated_at")} +
                extra);
        CLI_EXIT(added, 0);
    }

    // `sql` with %1 standing for the target table, on the target.
    qint64 targetValue(const QString &sql) {
        if (m_pg)
            return m_pg->value(sql.arg(QStringLiteral("public.") + m_pgTable)).toLongLong();
        return queryValue(m_dst, sql.arg(QStringLiteral("orders"))).toLongLong();
    }
    qint64 targetRows() { return targetValue(QStringLiteral("SELECT count(*) FROM %1")); }

    // Drops the PostgreSQL target and the state row owning it: the suites share one server.
    void forgetPostgresTarget() {
        if (!m_pg)
            return;
        m_pg->exec(QStringLiteral("DROP TABLE IF EXISTS public.%1").arg(m_pgTable));
        if (!m_pg->value(QStringLiteral("SELECT to_regclass('public.tidemark_state')")).isEmpty())
            m_pg->exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE target_table = $1"),
                       {QStringLiteral("\"public\".\"%1\"").arg(m_pgTable)});
    }

    // Starts `run --json`, stopping at each of `points` (TIDEMARK_FAULT_STOP); its workspace writes
    // give up on a held lock after 200 ms instead of ten seconds.
    void startRun(QProcess &process, const QString &points) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
        env.insert(QStringLiteral("TIDEMARK_FAULT_STOP"), points);
        env.insert(QStringLiteral("TIDEMARK_TEST_WORKSPACE_BUSY_MS"), QStringLiteral("200"));
        process.setProcessEnvironment(env);
        process.setWorkingDirectory(m_dir->path());
        process.start(cliPath(),
                      {QStringLiteral("-w"), m_ws, QStringLiteral("run"), QStringLiteral("--json")});
        QVERIFY(process.waitForStarted());
    }

    // Waits until the process stops itself at its next fault point; fails when it ends instead.
    static void waitStopped(QProcess &process, const QString &point) {
        QTRY_VERIFY_WITH_TIMEOUT(processState(process.processId()) == QLatin1Char('T') ||
                                     process.state() == QProcess::NotRunning,
                                 120000);
        QVERIFY2(process.state() == QProcess::Running,
                 qPrintable(QStringLiteral("never stopped at %1; stdout: %2; stderr: %3")
                                .arg(point, QString::fromUtf8(process.readAllStandardOutput()),
                                     QString::fromUtf8(process.readAllStandardError()))));
    }

    static void resume(QProcess &process) { ::kill(pid_t(process.processId()), SIGCONT); }

    // The finished run's `run --json`, with its one iteration.
    static QJsonObject finishedRun(QProcess &process, int expectedExit) {
        if (!process.waitForFinished(120000))
            QTest::qFail("the run never ended", __FILE__, __LINE__);
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        const QString err = QString::fromUtf8(process.readAllStandardError());
        const QString what =
            QStringLiteral("exit %1; stdout: %2; stderr: %3").arg(process.exitCode()).arg(out, err);
        if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != expectedExit)
            QTest::qFail(qPrintable(what), __FILE__, __LINE__);
        const QJsonObject run = parseJsonObject(out);
        if (run.value(QStringLiteral("iterations")).toArray().size() != 1)
            QTest::qFail(qPrintable(what), __FILE__, __LINE__);
        return run;
    }

    static QJsonObject onlyIteration(const QJsonObject &run) {
        return run.value(QStringLiteral("iterations")).toArray().first().toObject();
    }

    // `history --json` of run `runId`.
    QJsonObject historyOf(qint64 runId) {
        const CliResult history = cli({QStringLiteral("history"), QStringLiteral("--run"),
                                       QString::number(runId), QStringLiteral("--json")});
        if (history.exitCode != 0)
            QTest::qFail(qPrintable(history.describe()), __FILE__, __LINE__);
        const QJsonArray runs = parseJsonArray(history.out);
        return runs.isEmpty() ? QJsonObject() : runs.first().toObject();
    }

    QString lastWatermark() {
        const QJsonArray tables = parseJsonArray(
            cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out);
        return tables.first().toObject().value(QStringLiteral("last_watermark")).toString();
    }

    // The next run finds nothing new, copies nothing twice and catches the workspace up.
    void nextRunCopiesNothing() {
        const CliResult next = cli({QStringLiteral("run"), QStringLiteral("--json")});
        CLI_EXIT(next, 0);
        const QJsonObject iteration = onlyIteration(parseJsonObject(next.out));
        QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("no_new_rows"));
        QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInteger(), 0);
        QCOMPARE(targetRows(), qint64(kRows));
        QCOMPARE(targetValue(QStringLiteral("SELECT count(DISTINCT id) FROM %1")), qint64(kRows));
    }

private slots:
    void init() { startFixture(); }
    void cleanup() {
        forgetPostgresTarget();
        m_pg.reset();
        m_pgTable.clear();
        stopFixture();
    }

    // The workspace is locked right after the target commit, past its busy timeout: the copy
    // stands and the record says so (it used to say `failed`, 0 written); the workspace's
    // watermark lags until the next run catches it up from the target, copying nothing twice.
    void lockAfterCommitIsRecordedAsCommitted() {
        setupOrders();
        QProcess process;
        startRun(process, QStringLiteral("after_target_commit,workspace_behind"));
        waitStopped(process, QStringLiteral("after_target_commit"));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(kRows));
        {
            WorkspaceWriteLock lock(m_ws);
            resume(process);
            // The workspace could not follow the commit; released before the record is written.
            waitStopped(process, QStringLiteral("workspace_behind"));
        }
        resume(process);
        const QJsonObject run = finishedRun(process, 0);
        const QJsonObject iteration = onlyIteration(run);
        QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
        QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInteger(), kRows);
        QCOMPARE(iteration.value(QStringLiteral("rows_read")).toInteger(), kRows);
        QVERIFY2(iteration.value(QStringLiteral("error")).toString().contains(kCommittedNote),
                 qPrintable(iteration.value(QStringLiteral("error")).toString()));
        const QString after = iteration.value(QStringLiteral("watermark_after")).toString();
        QVERIFY(!after.isEmpty());

        // The history says the same, and the workspace's watermark has not moved yet.
        const qint64 runId = run.value(QStringLiteral("run_id")).toInteger();
        const QJsonObject recorded = onlyIteration(historyOf(runId));
        QCOMPARE(recorded.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
        QCOMPARE(recorded.value(QStringLiteral("rows_written")).toInteger(), kRows);
        QCOMPARE(recorded.value(QStringLiteral("watermark_after")).toString(), after);
        QVERIFY(recorded.value(QStringLiteral("error")).toString().contains(kCommittedNote));
        QVERIFY(lastWatermark().isEmpty());

        nextRunCopiesNothing();
        QCOMPARE(lastWatermark(), after);
        QCOMPARE(onlyIteration(historyOf(runId)), recorded);
    }

    // Every workspace write fails from before the target commit to the end of the process, as on
    // a full disk: the run's own output still says what was committed; the record it could not
    // write is closed (never left `running`) by the next command and completed from the target's
    // state row by the next run.
    void unwritableWorkspaceIsCompletedFromTheTarget_data() {
        QTest::addColumn<bool>("postgres");
        QTest::newRow("sqlite target") << false;
        QTest::newRow("postgres target") << true;
    }
    void unwritableWorkspaceIsCompletedFromTheTarget() {
        QFETCH(bool, postgres);
        if (postgres) {
            TIDEMARK_REQUIRE_POSTGRES();
            m_pg = std::make_unique<PgSession>();
            m_pgTable = QStringLiteral("history_after_%1").arg(QCoreApplication::applicationPid());
            forgetPostgresTarget();
        }
        setupOrders();
        QProcess process;
        startRun(process, QStringLiteral("before_target_commit"));
        waitStopped(process, QStringLiteral("before_target_commit"));
        QJsonObject run;
        {
            WorkspaceWriteLock lock(m_ws);
            resume(process);
            run = finishedRun(process, 0);
        }
        const QJsonObject reported = onlyIteration(run);
        QCOMPARE(targetRows(), qint64(kRows));
        QCOMPARE(reported.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
        QCOMPARE(reported.value(QStringLiteral("rows_written")).toInteger(), kRows);
        QVERIFY2(reported.value(QStringLiteral("error")).toString().contains(kCommittedNote),
                 qPrintable(reported.value(QStringLiteral("error")).toString()));
        const qint64 runId = run.value(QStringLiteral("run_id")).toInteger();
        QCOMPARE(queryValue(m_ws, QStringLiteral("SELECT status FROM iterations WHERE run_id = ?1"), {runId})
                     .toString(),
                 QStringLiteral("running"));

        // The next command to open the workspace closes it: never `running` once its process is gone.
        const QJsonObject closed = historyOf(runId);
        QCOMPARE(closed.value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));

        nextRunCopiesNothing();
        const QJsonObject completed = historyOf(runId);
        QCOMPARE(completed.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
        const QJsonObject iteration = onlyIteration(completed);
        QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
        QCOMPARE(iteration.value(QStringLiteral("rows_read")).toInteger(), kRows);
        QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInteger(), kRows);
        QCOMPARE(iteration.value(QStringLiteral("rows_skipped")).toInteger(), 0);
        QCOMPARE(iteration.value(QStringLiteral("watermark_after")).toString(),
                 reported.value(QStringLiteral("watermark_after")).toString());
        QCOMPARE(lastWatermark(), reported.value(QStringLiteral("watermark_after")).toString());
        QVERIFY2(iteration.value(QStringLiteral("error"))
                     .toString()
                     .contains(QStringLiteral("completed from the target's state row")),
                 qPrintable(iteration.value(QStringLiteral("error")).toString()));
    }

    // Killed right after its first batch commit (--commit-per-batch): the iteration stays
    // `interrupted` (its window was not done), but once the next run has read the target's state
    // row its record shows the rows that batch committed instead of whatever its last progress
    // write held.
    void killedMidWindowShowsTheCommittedBatch() {
        setupOrders(
            {QStringLiteral("--commit-per-batch"), QStringLiteral("--batch-size"), QStringLiteral("1000")});
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
        env.insert(QStringLiteral("TIDEMARK_FAULT_POINT"), QStringLiteral("after_target_commit"));
        process.setProcessEnvironment(env);
        process.start(cliPath(),
                      {QStringLiteral("-w"), m_ws, QStringLiteral("run"), QStringLiteral("--json")});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitStatus(), QProcess::CrashExit);
        const qint64 committed = countRows(m_dst, QStringLiteral("orders"));
        QVERIFY(committed > 0 && committed < kRows);

        const CliResult next = cli({QStringLiteral("run"), QStringLiteral("--json")});
        CLI_EXIT(next, 0);
        const QJsonObject resumed = onlyIteration(parseJsonObject(next.out));
        QCOMPARE(resumed.value(QStringLiteral("rows_written")).toInteger(), kRows - committed);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(kRows));

        const QJsonObject killed = historyOf(1);
        QCOMPARE(killed.value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));
        const QJsonObject iteration = onlyIteration(killed);
        QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));
        QCOMPARE(iteration.value(QStringLiteral("rows_written")).toInteger(), committed);
        QCOMPARE(iteration.value(QStringLiteral("watermark_after")).toString(),
                 resumed.value(QStringLiteral("watermark_before")).toString());
    }

    // The completion leaves a record alone while its iteration is open (its process, or the
    // interrupted-run repair, closes it first) and once it says what the state row says.
    void completionLeavesOpenAndCompleteRecordsAlone() {
        auto workspace = Workspace::create(m_ws);
        const qint64 runId = workspace->beginRun(QStringLiteral("cli"), 1, false);
        IterationRecord record;
        record.runId = runId;
        record.tableId = 7;
        record.status = IterationStatus::Running;
        record.id = workspace->addIteration(record);
        const CommittedIteration committed{record.id, runId, 7, 40, 2, QStringLiteral("40"), true};
        QVERIFY(!workspace->completeCommittedIteration(committed, runId + 1));

        record.status = IterationStatus::Interrupted;
        record.error = QStringLiteral("run 1 interrupted: process 1 on host h is gone");
        workspace->updateIteration(record);
        QVERIFY(workspace->completeCommittedIteration(committed, runId + 1));
        QVERIFY(!workspace->completeCommittedIteration(committed, runId + 1));
        QVERIFY(!workspace->completeCommittedIteration(
            CommittedIteration{record.id, runId + 1, 7, 50, 0, QStringLiteral("50"), true},
            runId + 1)); // not that run's iteration

        const IterationRecord completed = workspace->runs(1, runId).first().iterations.first();
        QCOMPARE(completed.status, IterationStatus::Warning);
        QCOMPARE(completed.rowsRead, qint64(42));
        QCOMPARE(completed.rowsWritten, qint64(40));
        QCOMPARE(completed.rowsSkipped, qint64(2));
        QCOMPARE(completed.watermarkAfter, QStringLiteral("40"));
        QVERIFY2(completed.error.contains(record.error) &&
                     completed.error.contains(QStringLiteral("completed from the target's state row")),
                 qPrintable(completed.error));
        QCOMPARE(completed.log.size(), 1);
        QVERIFY2(completed.log.first().message.contains(QStringLiteral("interrupted, 0 rows written")),
                 qPrintable(completed.log.first().message));
    }
};

QTEST_GUILESS_MAIN(TestHistoryAfter)
#include "tst_historyafter.moc"
