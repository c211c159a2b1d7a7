// SPDX-License-Identifier: MIT
// The crash test: a child `tidemark-cli run` is SIGKILLed at many points of a copy (after various
// delays, at the engine's fault points, and just after its k-th batch commit), then rerun to
// completion; the target must equal the source exactly, whichever point the kills landed on. The
// delays only vary WHERE a kill lands; the assertion holds wherever it lands. Rows cover both
// paths (push-down, streaming), both commit granularities and SQLite and PostgreSQL targets;
// PostgreSQL rows need TIDEMARK_PG_PORT (skipped without it, failed under CI=true).
#include "model/common/error.h"
#include "model/common/sqlquote.h"
#include "model/sqlite/sqlitedb.h"
#include "model/storage/workspace.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>
#include <csignal>
#include <memory>
#include <sys/types.h>

using namespace tidemark;
using namespace tidemark::test;

namespace {

constexpr int kInitialRows = 30000;
constexpr int kAddedRows = 15000;
constexpr int kBatchRows = 1000; // streaming rows: a window of many batches

struct Outcome {
    bool crashed = false;
    int exitCode = -1;
    QString out;
    QString err;
};

// The source table `orders` and its copy, each in SQLite or in a PostgreSQL schema of its own.
class CrashHarness {
public:
    CrashHarness(bool sourcePg, bool targetPg)
        : m_sourcePg(sourcePg)
        , m_targetPg(targetPg) {
        m_ws = testWorkspaceLocation(m_dir, QStringLiteral("ws.tidemark"));
        m_src = m_dir.filePath(QStringLiteral("source.db"));
        m_dst = m_dir.filePath(QStringLiteral("target.db"));
        if (sourcePg || targetPg) {
            m_pg = std::make_unique<PgSession>();
            m_schema = QStringLiteral("crash_") + QUuid::createUuid().toString(QUuid::Id128).left(12);
            m_pg->exec(QStringLiteral("CREATE SCHEMA %1").arg(quoteIdentifier(m_schema)));
        }
    }

    ~CrashHarness() {
        if (!m_pg)
            return;
        try {
            m_pg->exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
            if (!m_workspaceId.isEmpty() &&
                !m_pg->value(QStringLiteral("SELECT to_regclass('public.tidemark_state')")).isEmpty())
                m_pg->exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE workspace_id = $1"),
                           {m_workspaceId});
        } catch (const std::exception &error) {
            qWarning("cleanup of schema %s: %s", qPrintable(m_schema), error.what());
        }
    }

    bool isValid() const { return m_dir.isValid(); }
    QString ws() const { return m_ws; }

    // The CLI's arguments for the connections "src" and "dst" and the tables' names.
    QStringList connectionArgs(bool target) const {
        const bool pg = target ? m_targetPg : m_sourcePg;
        return pg ? QStringList{QStringLiteral("--postgres"), pgConninfo()}
                  : QStringList{QStringLiteral("--sqlite"), target ? m_dst : m_src};
    }
    QString tableName(bool target) const {
        const bool pg = target ? m_targetPg : m_sourcePg;
        const QString name =
            target && m_sourcePg && m_targetPg ? QStringLiteral("orders_copy") : QStringLiteral("orders");
        return pg ? m_schema + QLatin1Char('.') + name : name;
    }
    void setWorkspaceId(const QString &id) { m_workspaceId = id; }

    // No primary key on the source: a target created from it has none either, so a row copied
    // twice in append mode shows up as a duplicate instead of a constraint error.
    void createSource() {
        if (m_sourcePg) {
            m_pg->exec(QStringLiteral("CREATE TABLE %1 (id bigint NOT NULL, updated_at timestamptz NOT NULL, "
                                      "customer text, amount double precision, note text)")
                           .arg(qualified(false)));
            m_pg->exec(QStringLiteral("CREATE INDEX ON %1 (updated_at)").arg(qualified(false)));
        } else {
            execSql(m_src,
                    QStringLiteral("CREATE TABLE orders (id INTEGER NOT NULL, updated_at TEXT NOT NULL, "
                                   "customer TEXT, amount REAL, note TEXT)"));
            execSql(m_src, QStringLiteral("CREATE INDEX orders_updated_at ON orders (updated_at)"));
        }
    }

    // A SQLite target whose "note" column has another affinity than the source's (none, which
    // keeps every text as it is): a table that may skip rows then streams into SQLite, where it
    // would otherwise push down until a row is refused.
    void createTargetThatStreams() {
        execSql(m_dst, QStringLiteral("CREATE TABLE orders (id INTEGER NOT NULL, updated_at TEXT NOT NULL, "
                                      "customer TEXT, amount REAL, note)"));
    }

    // Rows first..last: three rows share each second (ties), `shift` moves the ids' seconds back so
    // the first new rows tie with the old maximum (shift 1: row N + 1 shares row N's second). SQLite spells
    // timestamps "YYYY-MM-DDTHH:MM:SS.sssZ".
    void insertRows(int first, int last, int shift) {
        const QString from = QString::number(first), to = QString::number(last),
                      back = QString::number(shift);
        if (m_sourcePg) {
            m_pg->exec(QStringLiteral("INSERT INTO ") + qualified(false) +
                       QStringLiteral(" SELECT i, to_timestamp(1735689600 + (i - ") + back +
                       QStringLiteral(") / 3), 'customer ' || (i % 977), i * 0.25, lpad(i::text, 60, '0') "
                                      "FROM generate_series(") +
                       from + QStringLiteral(", ") + to + QStringLiteral(") AS i"));
            return;
        }
        // Built by concatenation: the SQL holds printf/strftime '%' patterns that QString::arg would eat.
        execSql(m_src, QStringLiteral("WITH RECURSIVE c(i) AS (SELECT ") + from +
                           QStringLiteral(" UNION ALL SELECT i + 1 FROM c WHERE i < ") + to +
                           QStringLiteral(") INSERT INTO orders (id, updated_at, customer, amount, note) "
                                          "SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', 1735689600 + (i - ") +
                           back +
                           QStringLiteral(") / 3, 'unixepoch'), 'customer ' || (i % 977), i * 0.25, "
                                          "printf('%060d', i) FROM c"));
    }

    // Every tenth old row changes and moves past everything (merge tables must pick that up).
    void updateRows(int upToId) {
        if (m_sourcePg) {
            m_pg->exec(
                QStringLiteral("UPDATE %1 SET amount = amount + 1, updated_at = to_timestamp(1735689600 + "
                               "200000 + id / 3) WHERE id % 10 = 0 AND id <= $1")
                    .arg(qualified(false)),
                {upToId});
            return;
        }
        execSql(m_src, QStringLiteral("UPDATE orders SET amount = amount + 1, updated_at = strftime("
                                      "'%Y-%m-%dT%H:%M:%fZ', 1735689600 + 200000 + id / 3, 'unixepoch') "
                                      "WHERE id % 10 = 0 AND id <= ") +
                           QString::number(upToId));
    }

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
            // Watch the target's state row (reading never blocks the writer) and kill a moment
            // after the child's n-th commit, wherever in the next batch that lands.
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

    // The target's state rows as text ("" while there are none, or while the target is busy).
    // Every column: whatever the state table's definition, a commit changes one of them.
    QString stateRow() {
        try {
            if (m_targetPg) {
                if (m_pg->value(QStringLiteral("SELECT to_regclass('public.tidemark_state')")).isEmpty())
                    return {};
                QStringList rows;
                for (const QStringList &row : m_pg->query(
                         QStringLiteral("SELECT * FROM public.tidemark_state WHERE workspace_id = $1"),
                         {m_workspaceId}))
                    rows << row.join(QLatin1Char('/'));
                return rows.join(QLatin1Char(','));
            }
            if (!QFile::exists(m_dst))
                return {};
            SqliteDb db(m_dst, SqliteDb::Mode::ReadWrite); // see sqliteHasOrders
            SqliteStatement exists(
                db, QStringLiteral("SELECT 1 FROM sqlite_master WHERE name = 'tidemark_state'"));
            if (!exists.step())
                return {};
            SqliteStatement select(db, QStringLiteral("SELECT * FROM tidemark_state"));
            QStringList rows;
            while (select.step()) {
                QStringList row;
                for (int i = 0; i < select.columnCount(); ++i)
                    row << select.columnText(i);
                rows << row.join(QLatin1Char('/'));
            }
            return rows.join(QLatin1Char(','));
        } catch (const std::exception &) { // tidemark::Error too
            return m_lastState;            // busy while the child writes: nothing new seen
        }
    }

    // Every row of one side as comparable text ("id|customer|note|4 x amount|epoch seconds"), sorted;
    // empty when the table does not exist.
    QStringList rows(bool target) {
        const bool pg = target ? m_targetPg : m_sourcePg;
        QStringList result;
        if (pg) {
            if (m_pg->value(QStringLiteral("SELECT to_regclass($1)"), {qualified(target)}).isEmpty())
                return {};
            for (const QStringList &row :
                 m_pg->query(QStringLiteral("SELECT id, customer, note, round(amount * 4)::bigint, "
                                            "extract(epoch FROM updated_at::timestamptz)::bigint FROM %1")
                                 .arg(qualified(target))))
                result << row.join(QLatin1Char('|'));
        } else {
            const QString path = target ? m_dst : m_src;
            if (!sqliteHasOrders(path))
                return {};
            SqliteDb db(path, SqliteDb::Mode::ReadWrite);
            SqliteStatement select(
                db, QStringLiteral("SELECT id, customer, note, CAST(round(amount * 4) AS INTEGER), "
                                   "CAST(strftime('%s', updated_at) AS INTEGER) FROM orders"));
            while (select.step()) {
                QStringList row;
                for (int i = 0; i < 5; ++i)
                    row << select.columnText(i);
                result << row.join(QLatin1Char('|'));
            }
        }
        result.sort();
        return result;
    }

    qint64 targetRows() {
        if (m_targetPg)
            return m_pg->value(QStringLiteral("SELECT to_regclass($1)"), {qualified(true)}).isEmpty()
                       ? 0
                       : m_pg->value(QStringLiteral("SELECT count(*) FROM %1").arg(qualified(true)))
                             .toLongLong();
        if (!sqliteHasOrders(m_dst))
            return 0;
        return sqliteScalar(m_dst, QStringLiteral("SELECT count(*) FROM orders")).toLongLong();
    }

private:
    QString qualified(bool target) const {
        const bool pg = target ? m_targetPg : m_sourcePg;
        const QString name = tableName(target);
        return pg ? quoteQualified(m_schema, name.mid(m_schema.size() + 1)) : quoteIdentifier(name);
    }

    // Read-write connections throughout: after a kill the WAL may need recovery, which a
    // read-only connection cannot do.
    static bool sqliteHasOrders(const QString &path) {
        return QFile::exists(path) &&
               sqliteScalar(path, QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = 'orders'"))
                       .toLongLong() > 0;
    }

    static QVariant sqliteScalar(const QString &path, const QString &sql) {
        SqliteDb db(path, SqliteDb::Mode::ReadWrite);
        SqliteStatement statement(db, sql);
        return statement.step() ? statement.columnVariant(0) : QVariant();
    }

    bool m_sourcePg;
    bool m_targetPg;
    QTemporaryDir m_dir{fastTempTemplate()};
    QString m_ws;
    QString m_src;
    QString m_dst;
    QString m_schema;
    QString m_workspaceId;
    QString m_lastState;
    std::unique_ptr<PgSession> m_pg;
};

// Rows no side has twice and both sides have: the sorted lists are equal and hold distinct ids.
int duplicateIds(const QStringList &rows) {
    QSet<QString> ids;
    for (const QString &row : rows)
        ids.insert(row.section(QLatin1Char('|'), 0, 0));
    return int(rows.size() - ids.size());
}

} // namespace

class TestCrash : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }
    void killedRunsResumeExactly_data();
    void killedRunsResumeExactly();
};

void TestCrash::killedRunsResumeExactly_data() {
    QTest::addColumn<bool>("sourcePg");
    QTest::addColumn<bool>("targetPg");
    QTest::addColumn<bool>("streaming"); // forced by --max-skipped where the pairing has a push-down
    QTest::addColumn<bool>("perBatch");
    QTest::addColumn<bool>("merge");
    // SQLite -> SQLite: every path.
    QTest::newRow("sqlite->sqlite | push-down | append") << false << false << false << false << false;
    QTest::newRow("sqlite->sqlite | push-down | merge") << false << false << false << false << true;
    QTest::newRow("sqlite->sqlite | streaming | append") << false << false << true << false << false;
    QTest::newRow("sqlite->sqlite | per batch | append") << false << false << true << true << false;
    QTest::newRow("sqlite->sqlite | per batch | merge") << false << false << true << true << true;
    // PostgreSQL targets: streamed from SQLite, pushed down inside the server.
    QTest::newRow("sqlite->postgres | streaming | append") << false << true << true << false << false;
    QTest::newRow("sqlite->postgres | per batch | merge") << false << true << true << true << true;
    QTest::newRow("postgres->postgres | push-down | append") << true << true << false << false << false;
    QTest::newRow("postgres->postgres | push-down | merge") << true << true << false << false << true;
    QTest::newRow("postgres->postgres | per batch | append") << true << true << true << true << false;
}

void TestCrash::killedRunsResumeExactly() {
    QFETCH(bool, sourcePg);
    QFETCH(bool, targetPg);
    QFETCH(bool, streaming);
    QFETCH(bool, perBatch);
    QFETCH(bool, merge);
    if ((sourcePg || targetPg) && !pgUnavailableReason().isEmpty()) {
        if (pgMissingIsFailure())
            QFAIL(qPrintable(QStringLiteral("CI=true and no PostgreSQL: ") + pgUnavailableReason()));
        QSKIP(qPrintable(pgUnavailableReason()));
    }
    CrashHarness h(sourcePg, targetPg);
    QVERIFY(h.isValid());
    h.createSource();
    h.insertRows(1, kInitialRows, 0);

    for (const QStringList &args :
         {QStringList{QStringLiteral("init")},
          QStringList{QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src")} +
              h.connectionArgs(false),
          QStringList{QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst")} +
              h.connectionArgs(true)}) {
        const CliResult result = runCli(QStringList{QStringLiteral("-w"), h.ws()} + args);
        QVERIFY2(result.exitCode == 0, qPrintable(result.describe()));
    }
    h.setWorkspaceId(Workspace::open(h.ws())->workspaceId());
    QStringList add = {QStringLiteral("-w"),          h.ws(),
                       QStringLiteral("table"),       QStringLiteral("add"),
                       QStringLiteral("--source"),    QStringLiteral("src:") + h.tableName(false),
                       QStringLiteral("--target"),    QStringLiteral("dst:") + h.tableName(true),
                       QStringLiteral("--watermark"), QStringLiteral("updated_at"),
                       QStringLiteral("--tiebreak"),  QStringLiteral("id")};
    if (merge)
        add << QStringLiteral("--mode") << QStringLiteral("merge") << QStringLiteral("--key")
            << QStringLiteral("id");
    if (streaming)
        add << QStringLiteral("--batch-size") << QString::number(kBatchRows);
    if (perBatch)
        add << QStringLiteral("--commit-per-batch");
    else if (streaming && sourcePg == targetPg)
        add << QStringLiteral("--max-skipped") << QStringLiteral("1"); // no push-down into PostgreSQL
    if (streaming && !perBatch && !sourcePg && !targetPg)
        h.createTargetThatStreams();
    const CliResult added = runCli(add);
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    const QString tableId = added.out.trimmed();

    QStringList trail;   // where each kill landed, for the log
    bool pending = true; // the source holds rows the target does not reflect yet
    auto note = [&](const QString &what, const Outcome &outcome) {
        trail << QStringLiteral("%1: %2, target %3 rows")
                     .arg(what, outcome.crashed ? QStringLiteral("killed")
                                                : QStringLiteral("exit %1").arg(outcome.exitCode))
                     .arg(h.targetRows());
    };
    // Whatever a kill hit, the target may hold the whole window by then (a timed kill after the
    // last commit; the commit of a window's last batch, or of the whole window): the next run
    // only reconciles, and an empty window opens no target transaction, so it reaches no
    // commit point.
    auto windowStillPending = [&] {
        return h.rows(true) != h.rows(false);
    };
    auto killAt = [&](int delayMs, const QString &point) {
        const Outcome outcome = h.run(delayMs, point);
        note(point.isEmpty() ? QStringLiteral("%1 ms").arg(delayMs) : point, outcome);
        // A fault point on a table with work pending must be reached; a run that was not killed
        // must have succeeded (its exit code is the contract's) and copied everything.
        if (!point.isEmpty() && pending)
            QVERIFY2(outcome.crashed,
                     qPrintable(QStringLiteral("%1 was not reached: %2").arg(point, outcome.err)));
        if (!outcome.crashed) {
            QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
            pending = false;
        } else {
            pending = windowStillPending();
        }
    };
    auto killAfter = [&](int commits) {
        const Outcome outcome = h.run(-1, QString(), commits);
        note(QStringLiteral("after %1 commits").arg(commits), outcome);
        if (!outcome.crashed) {
            QVERIFY2(outcome.exitCode == 0, qPrintable(outcome.err));
            pending = false;
        } else {
            pending = windowStillPending();
        }
    };
    // `windowCommitFirst`: kill after the window's commit while it is still pending (the
    // workspace lags the target: the next run must reconcile), before the delays get a chance
    // to finish the window; otherwise the delays land on a pending window first.
    auto killSeries = [&](const QList<int> &delays, bool windowCommitFirst) {
        pending = true;
        killAt(-1, QStringLiteral("before_target_commit"));
        if (streaming)
            killAt(-1, QStringLiteral("after_batch_write"));
        if (perBatch) {
            // Each of these commits one batch and dies before the workspace follows: reconcile.
            killAt(-1, QStringLiteral("after_target_commit"));
            killAt(-1, QStringLiteral("after_target_commit"));
            for (int commits : {1, 3, 6})
                killAfter(commits);
        }
        if (windowCommitFirst)
            killAt(-1, QStringLiteral("after_target_commit"));
        for (int delay : delays)
            killAt(delay, QString());
        killAt(-1, QStringLiteral("after_target_commit"));
        killAt(-1, QStringLiteral("before_target_commit"));
    };

    killSeries({30, 80, 150, 300}, false);
    if (QTest::currentTestFailed())
        return;

    // More rows land, the first ones tied with the old maximum; merge tables also see updates.
    h.insertRows(kInitialRows + 1, kInitialRows + kAddedRows, 1);
    if (merge)
        h.updateRows(kInitialRows);
    killSeries({50, 250}, true);
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

    const QStringList source = h.rows(false);
    const QStringList target = h.rows(true);
    QCOMPARE(source.size(), kInitialRows + kAddedRows);
    QCOMPARE(duplicateIds(target), 0);
    QCOMPARE(target.size(), source.size());
    QVERIFY(target == source); // (QCOMPARE would print 45,000 rows)

    // And the workspace agrees: nothing left to copy, verify matches.
    const Outcome again = h.run(-1);
    const QJsonObject second = parseJsonObject(again.out, &ok);
    QVERIFY2(ok, qPrintable(again.out + again.err));
    QCOMPARE(
        second.value(QStringLiteral("iterations")).toArray().first()[QStringLiteral("rows_read")].toInt(), 0);
    const CliResult verify =
        runCli({QStringLiteral("-w"), h.ws(), QStringLiteral("verify"), QStringLiteral("--table"), tableId});
    QVERIFY2(verify.exitCode == 0, qPrintable(verify.describe()));
    QVERIFY(h.rows(true) == source);
}

QTEST_GUILESS_MAIN(TestCrash)
#include "tst_crash.moc"
