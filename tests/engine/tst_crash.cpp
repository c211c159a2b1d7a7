// SPDX-License-Identifier: MIT
// The crash test: a child `tidemark-cli run` is SIGKILLed at many points of a large copy (after
// various delays, and at the engine's fault points), then rerun to completion; the target must
// equal the source exactly, whichever point the kills landed on. The delays only vary WHERE a
// kill lands; the assertion holds wherever it lands.
#include "model/common/error.h"
#include "model/common/sqlquote.h"
#include "model/storage/sqlitedb.h"
#include "tests/support/testsupport.h"

#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <sys/types.h>

using namespace tidemark;
using namespace tidemark::test;

namespace {

constexpr int kInitialRows = 200000;
constexpr int kAddedRows = 100000;

// Rows first..last: three rows share each second (ties), `shift` moves the ids' seconds back so
// the first new rows tie with the old maximum. Timestamps spelled "YYYY-MM-DDTHH:MM:SS.sssZ".
void insertRows(const QString &path, int first, int last, int shift) {
    // Built by concatenation: the SQL holds printf/strftime '%' patterns that QString::arg would eat.
    execSql(path, QStringLiteral("WITH RECURSIVE c(i) AS (SELECT ") + QString::number(first) +
                      QStringLiteral(" UNION ALL SELECT i + 1 FROM c WHERE i < ") + QString::number(last) +
                      QStringLiteral(") INSERT INTO orders (id, updated_at, customer, amount, note) "
                                     "SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', 1735689600 + (i - ") +
                      QString::number(shift) +
                      QStringLiteral(") / 3, 'unixepoch'), 'customer ' || (i % 977), i * 0.25, "
                                     "printf('%060d', i) FROM c"));
}

struct Outcome {
    bool crashed = false;
    int exitCode = -1;
    QString out;
    QString err;
};

class CrashHarness {
public:
    CrashHarness() {
        m_ws = m_dir.filePath(QStringLiteral("ws.tidemark"));
        m_src = m_dir.filePath(QStringLiteral("source.db"));
        m_dst = m_dir.filePath(QStringLiteral("target.db"));
    }

    bool isValid() const { return m_dir.isValid(); }
    QString ws() const { return m_ws; }
    QString src() const { return m_src; }
    QString dst() const { return m_dst; }

    // Runs `tidemark-cli -w WS run --json`, SIGKILLed after `killAfterMs` (< 0: never), by the
    // fault point `faultPoint` (empty: none), or shortly after its `killAfterCommits`-th commit.
    Outcome run(int killAfterMs, const QString &faultPoint = QString(), int killAfterCommits = 0) {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
        env.remove(QStringLiteral("TIDEMARK_FAULT_POINT"));
        if (!faultPoint.isEmpty())
            env.insert(QStringLiteral("TIDEMARK_FAULT_POINT"), faultPoint);
        process.setProcessEnvironment(env);
        process.start(cliPath(),
                      {QStringLiteral("-w"), m_ws, QStringLiteral("run"), QStringLiteral("--json")});
        Outcome outcome;
        if (!process.waitForStarted(30000)) {
            outcome.err = process.errorString();
            return outcome;
        }
        if (killAfterMs >= 0 && !process.waitForFinished(killAfterMs) && process.state() == QProcess::Running)
            ::kill(pid_t(process.processId()), SIGKILL);
        if (killAfterCommits > 0) {
            // Watch the target's state row (WAL: reading never blocks the writer) and kill a
            // moment after the child's n-th commit, wherever in the next batch that lands.
            QString last = stateRow();
            m_lastState = last;
            int commits = 0;
            while (process.state() == QProcess::Running && commits < killAfterCommits) {
                process.waitForFinished(2);
                const QString now = stateRow();
                m_lastState = now;
                if (now != last) {
                    ++commits;
                    last = now;
                }
            }
            if (process.state() == QProcess::Running) {
                process.waitForFinished(commits * 7 % 20);
                if (process.state() == QProcess::Running)
                    ::kill(pid_t(process.processId()), SIGKILL);
            }
        }
        process.waitForFinished(300000);
        outcome.crashed = process.exitStatus() == QProcess::CrashExit;
        outcome.exitCode = outcome.crashed ? -1 : process.exitCode();
        outcome.out = QString::fromUtf8(process.readAllStandardOutput());
        outcome.err = QString::fromUtf8(process.readAllStandardError());
        return outcome;
    }

    // Rows in one side and not the other (both ways), plus the row-count difference.
    qint64 difference() {
        SqliteDb db(m_dst, SqliteDb::Mode::ReadWriteCreate);
        SqliteStatement attach(db, QStringLiteral("ATTACH DATABASE ?1 AS s"));
        attach.bind(1, m_src).run();
        bool hasTarget = false;
        {
            SqliteStatement exists(
                db, QStringLiteral("SELECT count(*) FROM main.sqlite_master WHERE name = 'orders'"));
            exists.step();
            hasTarget = exists.columnInt64(0) > 0;
        }
        if (!hasTarget)
            return -1;
        SqliteStatement diff(
            db, QStringLiteral("SELECT (SELECT count(*) FROM (SELECT * FROM main.orders EXCEPT "
                               "SELECT * FROM s.orders)) + (SELECT count(*) FROM (SELECT * FROM "
                               "s.orders EXCEPT SELECT * FROM main.orders)) + abs((SELECT count(*) "
                               "FROM main.orders) - (SELECT count(*) FROM s.orders))"));
        diff.step();
        return diff.columnInt64(0);
    }

    // The target's state row as text ("" while there is none). Read-write connection: after a
    // kill the WAL may need recovery, which a read-only connection cannot do.
    QString stateRow() {
        try {
            if (!QFile::exists(m_dst))
                return {};
            return scalar(m_dst,
                          QStringLiteral("SELECT (SELECT group_concat(watermark || '/' || tiebreak || '/' || "
                                         "run_id) FROM tidemark_state) WHERE EXISTS (SELECT 1 FROM "
                                         "sqlite_master WHERE name = 'tidemark_state')"))
                .toString();
        } catch (const Error &) {
            return m_lastState; // busy while the child writes: nothing new seen
        }
    }

    qint64 targetRows() {
        // Two statements: SQLite resolves table names when it prepares, even in a CASE branch.
        if (!QFile::exists(m_dst) ||
            scalar(m_dst, QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = 'orders'"))
                    .toLongLong() == 0)
            return 0;
        return scalar(m_dst, QStringLiteral("SELECT count(*) FROM orders")).toLongLong();
    }

    qint64 distinctTargetIds() {
        return scalar(m_dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong();
    }

    static QVariant scalar(const QString &path, const QString &sql) {
        SqliteDb db(path, SqliteDb::Mode::ReadWrite);
        SqliteStatement statement(db, sql);
        return statement.step() ? statement.columnVariant(0) : QVariant();
    }

private:
    QTemporaryDir m_dir;
    QString m_ws;
    QString m_src;
    QString m_dst;
    QString m_lastState;
};

} // namespace

class TestCrash : public QObject {
    Q_OBJECT

private slots:
    void killedRunsResumeExactly_data();
    void killedRunsResumeExactly();
};

void TestCrash::killedRunsResumeExactly_data() {
    QTest::addColumn<bool>("merge");
    QTest::addColumn<bool>("perBatch");
    QTest::newRow("append, one commit per window") << false << false;
    QTest::newRow("append, commit per batch") << false << true;
    QTest::newRow("merge, one commit per window") << true << false;
    QTest::newRow("merge, commit per batch") << true << true;
}

void TestCrash::killedRunsResumeExactly() {
    QFETCH(bool, merge);
    QFETCH(bool, perBatch);
    CrashHarness h;
    QVERIFY(h.isValid());

    // No primary key on the source: a target created from it has none either, so a row copied
    // twice in append mode shows up as a duplicate instead of a constraint error.
    execSql(h.src(), QStringLiteral("CREATE TABLE orders (id INTEGER NOT NULL, updated_at TEXT NOT NULL, "
                                    "customer TEXT, amount REAL, note TEXT)"));
    insertRows(h.src(), 1, kInitialRows, 0);
    execSql(h.src(), QStringLiteral("CREATE INDEX orders_updated_at ON orders (updated_at)"));

    for (const QStringList &args :
         {QStringList{QStringLiteral("init")},
          QStringList{QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                      QStringLiteral("--sqlite"), h.src()},
          QStringList{QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
                      QStringLiteral("--sqlite"), h.dst()}}) {
        const CliResult result = runCli(QStringList{QStringLiteral("-w"), h.ws()} + args);
        QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
    }
    QStringList add = {QStringLiteral("-w"),          h.ws(),
                       QStringLiteral("table"),       QStringLiteral("add"),
                       QStringLiteral("--source"),    QStringLiteral("src:orders"),
                       QStringLiteral("--target"),    QStringLiteral("dst:orders"),
                       QStringLiteral("--watermark"), QStringLiteral("updated_at"),
                       QStringLiteral("--tiebreak"),  QStringLiteral("id")};
    if (merge)
        add << QStringLiteral("--mode") << QStringLiteral("merge") << QStringLiteral("--key")
            << QStringLiteral("id");
    if (perBatch)
        add << QStringLiteral("--commit-per-batch") << QStringLiteral("--batch-size")
            << QStringLiteral("5000");
    const CliResult added = runCli(add);
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    const QString tableId = added.out.trimmed();

    QStringList trail;   // where each kill landed, for the log
    bool pending = true; // the source holds rows the target does not reflect yet
    auto killAt = [&](int delayMs, const QString &point) {
        const Outcome outcome = h.run(delayMs, point);
        trail << QStringLiteral("%1: %2, target %3 rows")
                     .arg(point.isEmpty() ? QStringLiteral("%1 ms").arg(delayMs) : point,
                          outcome.crashed ? QStringLiteral("killed")
                                          : QStringLiteral("exit %1").arg(outcome.exitCode))
                     .arg(h.targetRows());
        // A fault point on a table with work pending must be reached; a run that was not killed
        // must have succeeded (its exit code is the contract's) and copied everything.
        if (!point.isEmpty() && pending)
            QVERIFY2(outcome.crashed,
                     qPrintable(QStringLiteral("%1 was not reached: %2").arg(point, outcome.err)));
        if (!outcome.crashed) {
            QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
            pending = false;
        } else if (point == QLatin1String("after_target_commit") && !perBatch) {
            pending = false; // the whole window committed; only the workspace lags
        }
    };
    auto killAfter = [&](int commits) {
        const Outcome outcome = h.run(-1, QString(), commits);
        trail << QStringLiteral("after %1 commits: %2, target %3 rows")
                     .arg(commits)
                     .arg(outcome.crashed ? QStringLiteral("killed")
                                          : QStringLiteral("exit %1").arg(outcome.exitCode))
                     .arg(h.targetRows());
        if (!outcome.crashed) {
            QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
            pending = false;
        }
    };
    auto killSeries = [&](const QList<int> &delays) {
        pending = true;
        killAt(-1, QStringLiteral("before_target_commit"));
        if (perBatch) {
            killAt(-1, QStringLiteral("after_batch_write"));
            // Each of these commits one batch and dies before the workspace follows: reconcile.
            killAt(-1, QStringLiteral("after_target_commit"));
            killAt(-1, QStringLiteral("after_target_commit"));
        }
        for (int delay : delays)
            killAt(delay, QString());
        if (perBatch) {
            for (int commits : {1, 3, 6})
                killAfter(commits);
        }
        killAt(-1, QStringLiteral("after_target_commit"));
        killAt(-1, QStringLiteral("before_target_commit"));
    };

    killSeries({30, 80, 150, 300, 600});
    if (QTest::currentTestFailed())
        return;

    // More rows land, the first ones tied with the old maximum; merge tables also see updates.
    insertRows(h.src(), kInitialRows + 1, kInitialRows + kAddedRows, 2);
    if (merge)
        execSql(h.src(), QStringLiteral("UPDATE orders SET amount = amount + 1, updated_at = strftime("
                                        "'%Y-%m-%dT%H:%M:%fZ', 1735689600 + 200000 + id / 3, 'unixepoch') "
                                        "WHERE id % 10 = 0 AND id <= ") +
                             QString::number(kInitialRows));
    killSeries({50, 250, 500});
    if (QTest::currentTestFailed())
        return;

    const Outcome final = h.run(-1);
    qInfo("%s", qPrintable(trail.join(QStringLiteral("; "))));
    QVERIFY2(!final.crashed && final.exitCode == 0, qPrintable(final.err));
    bool ok = false;
    const QJsonObject report = parseJsonObject(final.out, &ok);
    QVERIFY2(ok, qPrintable(final.out));
    const QString status =
        report.value(QStringLiteral("iterations")).toArray().first()[QStringLiteral("status")].toString();
    QVERIFY2(status == QLatin1String("succeeded") || status == QLatin1String("no_new_rows"),
             qPrintable(final.out));

    QCOMPARE(h.targetRows(), qint64(kInitialRows + kAddedRows));
    QCOMPARE(h.distinctTargetIds(), qint64(kInitialRows + kAddedRows));
    QCOMPARE(h.difference(), 0);

    // And the workspace agrees: nothing left to copy, verify matches.
    const Outcome again = h.run(-1);
    const QJsonObject second = parseJsonObject(again.out, &ok);
    QVERIFY2(ok, qPrintable(again.out + again.err));
    QCOMPARE(
        second.value(QStringLiteral("iterations")).toArray().first()[QStringLiteral("rows_read")].toInt(), 0);
    const CliResult verify =
        runCli({QStringLiteral("-w"), h.ws(), QStringLiteral("verify"), QStringLiteral("--table"), tableId});
    QVERIFY2(verify.exitCode == 0, qPrintable(verify.describe()));
    QCOMPARE(h.difference(), 0);
}

QTEST_GUILESS_MAIN(TestCrash)
#include "tst_crash.moc"
