// SPDX-License-Identifier: MIT
// The edges of the CLI contract where rows used to be lost silently: names PostgreSQL
// would cut, two writers on one target, backfills that mean what they say, private workspaces,
// numbers out of range. Through the real binary.

#include "model/storage/workspace.h"
#include "tests/support/clifixture.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>
#include <vector>

#include <csignal>
#include <sys/stat.h>

using namespace tidemark;
using namespace tidemark::test;

// Racing first runs: trials, and processes racing in each.
constexpr int kRaceTrials = 4;
constexpr int kRacers = 3;

class TestCliEdges : public QObject, protected CliFixture {
    Q_OBJECT

private:
    // A PostgreSQL connection "pg" that is never reached: `table add` checks names without it.
    void addUnreachablePostgres() {
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                      QStringLiteral("--postgres"), QStringLiteral("host=127.0.0.1 port=1 dbname=none")}),
                 0);
    }

    // This test's workspace and `other`, each with src, dst and "pg" (the test server) and a
    // table copying src:orders (10 rows) into `target`: `ours` and `theirs`.
    void bothCopyOrdersInto(const QString &other, const QString &target, qint64 &ours, qint64 &theirs) {
        for (const QString &workspace : {m_ws, other}) {
            setupConnections(workspace);
            CLI_EXIT(cliOn(workspace, {QStringLiteral("connection"), QStringLiteral("add"),
                                       QStringLiteral("pg"), QStringLiteral("--postgres"), pgConninfo()}),
                     0);
        }
        makeOrders(m_src, 10, 1, QStringLiteral("orders"), false);
        ours = addTableOn(m_ws, ordersArgs(target));
        theirs = addTableOn(other, ordersArgs(target));
    }

    CliResult tableAddOn(const QString &workspace, const QStringList &args) const {
        return cliOn(workspace, QStringList{QStringLiteral("table"), QStringLiteral("add")} + args);
    }
    CliResult tableAdd(const QStringList &args) const { return tableAddOn(m_ws, args); }

    static QStringList ordersArgs(const QString &target, const QStringList &extra = {}) {
        return QStringList{QStringLiteral("--source"),    QStringLiteral("src:orders"),
                           QStringLiteral("--target"),    target,
                           QStringLiteral("--watermark"), QStringLiteral("updated_at")} +
               extra;
    }

    // Exit 2 with exactly one stderr line holding every one of `needles`.
    static void expectRefusal(const CliResult &result, const QStringList &needles) {
        QVERIFY2(result.exitCode == 2, qPrintable(result.describe()));
        QCOMPARE(result.errLines().size(), 1);
        for (const QString &needle : needles)
            QVERIFY2(result.err.contains(needle),
                     qPrintable(needle + QStringLiteral(" not in: ") + result.err));
    }

    // Runs tidemark-cli with the given umask (the test's own is left alone).
    CliResult runWithUmask(const QStringList &args, mode_t mask) const {
        QProcess process;
        process.setWorkingDirectory(m_dir->path());
        process.setChildProcessModifier([mask] { ::umask(mask); });
        process.start(cliPath(), args);
        CliResult result;
        if (!process.waitForStarted(30000) || !process.waitForFinished(120000)) {
            result.crashed = true;
            return result;
        }
        result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        result.out = QString::fromUtf8(process.readAllStandardOutput());
        result.err = QString::fromUtf8(process.readAllStandardError());
        return result;
    }

    static int modeOf(const QString &file) {
        struct stat info {};
        return ::stat(QFile::encodeName(file).constData(), &info) == 0 ? int(info.st_mode & 0777) : -1;
    }

    // Starts tidemark-cli on the workspace and waits until it stops itself at fault point `point`.
    void startStoppedAt(QProcess &process, const QString &point, const QStringList &args) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
        env.insert(QStringLiteral("TIDEMARK_FAULT_STOP"), point);
        process.setProcessEnvironment(env);
        process.setWorkingDirectory(m_dir->path());
        process.start(cliPath(), QStringList{QStringLiteral("-w"), m_ws} + args);
        QVERIFY(process.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(processState(process.processId()) == QLatin1Char('T') ||
                                     process.state() == QProcess::NotRunning,
                                 120000);
        QVERIFY2(process.state() == QProcess::Running,
                 qPrintable(QStringLiteral("never stopped at ") + point + QStringLiteral(": ") +
                            QString::fromUtf8(process.readAllStandardError())));
    }

    // SIGINT while stopped (it stays pending), then SIGCONT: the signal lands right at the point.
    static void interruptAndContinue(QProcess &process) {
        ::kill(pid_t(process.processId()), SIGINT);
        ::kill(pid_t(process.processId()), SIGCONT);
    }

    // Drops public.`table` and the state rows that own it: the suites share one server.
    static void forgetPostgresTable(PgSession &pg, const QString &table) {
        pg.exec(QStringLiteral("DROP TABLE IF EXISTS public.%1").arg(table));
        if (pg.value(QStringLiteral("SELECT count(*) FROM information_schema.columns WHERE table_schema = "
                                    "'public' AND table_name = 'tidemark_state' AND column_name = "
                                    "'target_table'")) == QLatin1String("1"))
            pg.exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE target_table = $1"),
                    {QStringLiteral("\"public\".\"%1\"").arg(table)});
    }

private slots:
    void init() { startFixture(); }
    void cleanup() { stopFixture(); }

    // --- item 2: names PostgreSQL would cut at 63 bytes ---

    void postgresTargetNameOver63BytesRefused() {
        setupConnections();
        addUnreachablePostgres();
        makeOrders(m_src, 3);
        const QString long64 = QString(64, QLatin1Char('t'));
        expectRefusal(tableAdd(ordersArgs(QStringLiteral("pg:") + long64)),
                      {long64, QStringLiteral("64 bytes")});
        expectRefusal(tableAdd(ordersArgs(QStringLiteral("pg:") + long64 + QStringLiteral(".orders"))),
                      {QStringLiteral("--target schema"), QStringLiteral("64 bytes")});
        // 32 characters, 64 bytes in UTF-8: bytes count, not characters.
        const QString accented = QString(32, QChar(0x00E9));
        expectRefusal(tableAdd(ordersArgs(QStringLiteral("pg:public.") + accented)),
                      {accented, QStringLiteral("64 bytes")});
        QCOMPARE(
            cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out.trimmed(),
            QStringLiteral("[]"));
        // 63 bytes is what PostgreSQL keeps: accepted.
        QVERIFY(addTableOn(m_ws, ordersArgs(QStringLiteral("pg:") + QString(63, QLatin1Char('t')))) > 0);
    }

    void postgresTargetColumnOver63BytesRefused() {
        setupConnections();
        addUnreachablePostgres();
        const QString longColumn = QStringLiteral("c") + QString(63, QLatin1Char('x'));
        execSql(m_src,
                QStringLiteral("CREATE TABLE wide (id INTEGER PRIMARY KEY, \"%1\" TEXT)").arg(longColumn));
        expectRefusal(
            tableAdd({QStringLiteral("--source"), QStringLiteral("src:wide"), QStringLiteral("--target"),
                      QStringLiteral("pg:wide"), QStringLiteral("--watermark"), QStringLiteral("id")}),
            {longColumn, QStringLiteral("64 bytes")});
        // The same table into SQLite keeps its name whole: accepted.
        QVERIFY(addTableOn(m_ws, {QStringLiteral("--source"), QStringLiteral("src:wide"),
                                  QStringLiteral("--target"), QStringLiteral("dst:wide"),
                                  QStringLiteral("--watermark"), QStringLiteral("id")}) > 0);
    }

    void postgresSourceNamesOver63BytesRefused() {
        setupConnections();
        addUnreachablePostgres();
        const QString long70 = QString(70, QLatin1Char('s'));
        expectRefusal(
            tableAdd({QStringLiteral("--source"), QStringLiteral("pg:") + long70, QStringLiteral("--target"),
                      QStringLiteral("dst:copy"), QStringLiteral("--watermark"), QStringLiteral("id")}),
            {QStringLiteral("--source table"), long70, QStringLiteral("70 bytes")});
        expectRefusal(
            tableAdd({QStringLiteral("--source"), QStringLiteral("pg:events"), QStringLiteral("--target"),
                      QStringLiteral("dst:copy"), QStringLiteral("--watermark"), long70}),
            {QStringLiteral("--watermark column"), QStringLiteral("70 bytes")});
        expectRefusal(
            tableAdd({QStringLiteral("--source"), QStringLiteral("pg:events"), QStringLiteral("--target"),
                      QStringLiteral("dst:copy"), QStringLiteral("--watermark"), QStringLiteral("ts"),
                      QStringLiteral("--tiebreak"), long70}),
            {QStringLiteral("--tiebreak column"), QStringLiteral("70 bytes")});
        expectRefusal(
            tableAdd({QStringLiteral("--source"), QStringLiteral("pg:events"), QStringLiteral("--target"),
                      QStringLiteral("dst:copy"), QStringLiteral("--watermark"), QStringLiteral("ts"),
                      QStringLiteral("--mode"), QStringLiteral("merge"), QStringLiteral("--key"),
                      QStringLiteral("id,") + long70}),
            {QStringLiteral("--key column"), QStringLiteral("70 bytes")});
    }

    // --- item 3: one target table, one writer ---

    void sameTargetTwiceInOneWorkspaceRefused() {
        setupConnections();
        makeOrders(m_src, 5);
        makeOrders(m_src, 5, 1, QStringLiteral("other"));
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst_again"),
                      QStringLiteral("--sqlite"), m_dst}),
                 0);
        const qint64 first = addTableOn(m_ws, ordersArgs(QStringLiteral("dst:orders")));
        const QString owner = QStringLiteral("table %1").arg(first);
        for (const QString &target : {QStringLiteral("dst:orders"), QStringLiteral("dst:ORDERS"),
                                      QStringLiteral("dst_again:orders")}) {
            expectRefusal(
                tableAdd({QStringLiteral("--source"), QStringLiteral("src:other"), QStringLiteral("--target"),
                          target, QStringLiteral("--watermark"), QStringLiteral("updated_at")}),
                {target, owner});
        }
        // A removed table still owns its target: its rows and its state row are there.
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(first)}), 0);
        expectRefusal(tableAdd({QStringLiteral("--source"), QStringLiteral("src:other"),
                                QStringLiteral("--target"), QStringLiteral("dst:orders"),
                                QStringLiteral("--watermark"), QStringLiteral("updated_at")}),
                      {owner, QStringLiteral("removed"), QStringLiteral("table restore %1").arg(first)});
        QVERIFY(addTableOn(m_ws, {QStringLiteral("--source"), QStringLiteral("src:other"),
                                  QStringLiteral("--target"), QStringLiteral("dst:other"),
                                  QStringLiteral("--watermark"), QStringLiteral("updated_at")}) > 0);
    }

    void secondWorkspaceCannotWriteIntoAnOwnedTarget() {
        const QString other = path(QStringLiteral("other.tidemark"));
        setupConnections(m_ws);
        setupConnections(other);
        makeOrders(m_src, 10, 1, QStringLiteral("orders"), false); // keyless: a double copy doubles rows
        const qint64 ours = addTableOn(m_ws, ordersArgs(QStringLiteral("dst:orders")));
        const qint64 theirs = addTableOn(other, ordersArgs(QStringLiteral("dst:orders")));
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);

        const CliResult second = cliOn(other, {QStringLiteral("run"), QStringLiteral("--json")});
        QCOMPARE(second.exitCode, 1);
        QVERIFY2(
            second.out.contains(QStringLiteral("belongs to table %1 of workspace %2").arg(ours).arg(m_ws)),
            qPrintable(second.describe()));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);
        // A backfill from the second workspace may not empty it either.
        const CliResult truncate =
            cliOn(other, {QStringLiteral("backfill"), QString::number(theirs), QStringLiteral("--truncate")});
        QVERIFY2(truncate.exitCode != 0 && truncate.err.contains(QStringLiteral("belongs to table")),
                 qPrintable(truncate.describe()));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);

        // --adopt takes it over where the owner left it: only the new rows are copied.
        makeOrders(m_src, 5, 11, QStringLiteral("orders"), false);
        expectRefusal(cliOn(other, {QStringLiteral("run"), QStringLiteral("--adopt")}),
                      {QStringLiteral("--table")});
        const CliResult adopt = cliOn(other, {QStringLiteral("run"), QStringLiteral("--adopt"),
                                              QStringLiteral("--table"), QString::number(theirs)});
        CLI_EXIT(adopt, 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 15);
        QCOMPARE(queryValue(m_dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(), 15);
        QCOMPARE(
            queryValue(other, QStringLiteral("SELECT count(*) FROM watermark_changes WHERE cause = 'adopt'"))
                .toLongLong(),
            1);
        QFile log(WorkspaceLocation::logFileFor(other));
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(log.readAll().contains("adopted target 'dst:orders' from table"));

        // Now the first workspace is the second writer.
        makeOrders(m_src, 5, 16, QStringLiteral("orders"), false);
        const CliResult first = cli({QStringLiteral("run"), QStringLiteral("--json")});
        QCOMPARE(first.exitCode, 1);
        QVERIFY2(
            first.out.contains(QStringLiteral("belongs to table %1 of workspace %2").arg(theirs).arg(other)),
            qPrintable(first.describe()));
        CLI_EXIT(cliOn(other, {QStringLiteral("run")}), 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 20);
        QCOMPARE(queryValue(m_dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(), 20);
    }

    // Restoring a removed table must not bring back a second writer of its target.
    void restoreRefusedWhileAnotherTableOfTheWorkspaceWritesTheTarget() {
        setupConnections();
        makeOrders(m_src, 5);
        makeOrders(m_src, 5, 1, QStringLiteral("other"));
        const qint64 first = addTableOn(m_ws, ordersArgs(QStringLiteral("dst:orders")));
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(first)}), 0);
        // The removed table's connection goes (a removed table does not hold on to it) and the
        // file comes back under another name: nothing then says the removed table wrote there.
        Workspace::open(m_ws)->removeConnection(QStringLiteral("dst"));
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst_again"),
                      QStringLiteral("--sqlite"), m_dst}),
                 0);
        const qint64 second =
            addTableOn(m_ws, {QStringLiteral("--source"), QStringLiteral("src:other"),
                              QStringLiteral("--target"), QStringLiteral("dst_again:orders"),
                              QStringLiteral("--watermark"), QStringLiteral("updated_at")});
        QVERIFY(second > 0);
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
                      QStringLiteral("--sqlite"), m_dst}),
                 0);

        const QStringList restore{QStringLiteral("table"), QStringLiteral("restore"), QString::number(first)};
        expectRefusal(cli(restore),
                      {QStringLiteral("table %1 (src:orders -> dst:orders) cannot be restored").arg(first),
                       QStringLiteral("table %1 (src:other -> dst_again:orders)").arg(second)});
        // Not even when told to: inside one workspace the rule has no exception.
        expectRefusal(cli(restore + QStringList{QStringLiteral("--yes")}),
                      {QStringLiteral("table %1").arg(second)});
        QCOMPARE(Workspace::open(m_ws)->tables().size(), 1);
        QVERIFY(Workspace::open(m_ws)->archivedTable(first));

        // Once the other table is removed, the first one comes back.
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(second)}), 0);
        CLI_EXIT(cli(restore), 0);
        QVERIFY(Workspace::open(m_ws)->table(first));
    }

    void restoreRefusedWhenAnotherWorkspaceOwnsTheTarget() {
        const QString other = path(QStringLiteral("other.tidemark"));
        setupConnections(m_ws);
        setupConnections(other);
        makeOrders(m_src, 10, 1, QStringLiteral("orders"), false);
        const qint64 ours = addTableOn(m_ws, ordersArgs(QStringLiteral("dst:orders")));
        const qint64 theirs = addTableOn(other, ordersArgs(QStringLiteral("dst:orders")));
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(ours)}), 0);
        // The other workspace takes the target over while ours is removed.
        CLI_EXIT(cliOn(other, {QStringLiteral("run"), QStringLiteral("--adopt"), QStringLiteral("--table"),
                               QString::number(theirs)}),
                 0);

        const QStringList restore{QStringLiteral("table"), QStringLiteral("restore"), QString::number(ours)};
        expectRefusal(cli(restore),
                      {QStringLiteral("table %1 (src:orders -> dst:orders) cannot be restored").arg(ours),
                       QStringLiteral("table %1 of workspace %2").arg(theirs).arg(other),
                       QStringLiteral("--yes")});
        QVERIFY(Workspace::open(m_ws)->archivedTable(ours));

        // Told to, it comes back; its runs still write nothing there (the target is the lock).
        CLI_EXIT(cli(restore + QStringList{QStringLiteral("--yes")}), 0);
        QVERIFY(Workspace::open(m_ws)->table(ours));
        makeOrders(m_src, 5, 11, QStringLiteral("orders"), false);
        CLI_EXIT(cliOn(other, {QStringLiteral("run")}), 0);
        QCOMPARE(cli({QStringLiteral("run")}).exitCode, 1);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 15);
    }

    void restoreGoesOnWhenTheTargetCannotBeChecked() {
        setupConnections();
        makeOrders(m_src, 5);
        const qint64 id = addTableOn(m_ws, ordersArgs(QStringLiteral("dst:orders")));
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(id)}), 0);
        // The target file is no database now.
        QFile::remove(m_dst);
        QFile garbage(m_dst);
        QVERIFY(garbage.open(QIODevice::WriteOnly));
        garbage.write(QByteArray(4096, 'x'));
        garbage.close();
        const CliResult restored =
            cli({QStringLiteral("table"), QStringLiteral("restore"), QString::number(id)});
        CLI_EXIT(restored, 0);
        QCOMPARE(restored.errLines().size(), 1);
        QVERIFY2(restored.err.contains(QStringLiteral("warning: table %1 is restored").arg(id)),
                 qPrintable(restored.err));
        QVERIFY(Workspace::open(m_ws)->table(id));
    }

    void secondWorkspaceCannotWriteIntoAnOwnedPostgresTarget() {
        TIDEMARK_REQUIRE_POSTGRES();
        const QString other = path(QStringLiteral("other.tidemark"));
        // Its own table name: the suites share one server.
        const QString table = QStringLiteral("edges_owned_%1").arg(QCoreApplication::applicationPid());
        PgSession pg;
        forgetPostgresTable(pg, table);
        const QString target = QStringLiteral("pg:") + table;
        qint64 ours = 0;
        qint64 theirs = 0;
        bothCopyOrdersInto(other, target, ours, theirs);
        QVERIFY(!QTest::currentTestFailed());
        const auto rows = [&] {
            return pg.value(QStringLiteral("SELECT count(*) FROM public.%1").arg(table));
        };
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(rows(), QStringLiteral("10"));

        const CliResult second = cliOn(other, {QStringLiteral("run"), QStringLiteral("--json")});
        QCOMPARE(second.exitCode, 1);
        QVERIFY2(
            second.out.contains(QStringLiteral("belongs to table %1 of workspace %2").arg(ours).arg(m_ws)),
            qPrintable(second.describe()));
        QCOMPARE(rows(), QStringLiteral("10"));

        makeOrders(m_src, 5, 11, QStringLiteral("orders"), false);
        CLI_EXIT(cliOn(other, {QStringLiteral("run"), QStringLiteral("--adopt"), QStringLiteral("--table"),
                               QString::number(theirs)}),
                 0);
        QCOMPARE(rows(), QStringLiteral("15"));
        const CliResult first = cli({QStringLiteral("run"), QStringLiteral("--json")});
        QCOMPARE(first.exitCode, 1);
        QVERIFY2(
            first.out.contains(QStringLiteral("belongs to table %1 of workspace %2").arg(theirs).arg(other)),
            qPrintable(first.describe()));
        QCOMPARE(rows(), QStringLiteral("15"));
        forgetPostgresTable(pg, table);
    }

    // As restoreRefusedWhenAnotherWorkspaceOwnsTheTarget, the owner record in a PostgreSQL target.
    void restoreRefusedWhenAnotherWorkspaceOwnsThePostgresTarget() {
        TIDEMARK_REQUIRE_POSTGRES();
        const QString other = path(QStringLiteral("other.tidemark"));
        const QString table = QStringLiteral("edges_restore_%1").arg(QCoreApplication::applicationPid());
        PgSession pg;
        forgetPostgresTable(pg, table);
        const QString target = QStringLiteral("pg:") + table;
        qint64 ours = 0;
        qint64 theirs = 0;
        bothCopyOrdersInto(other, target, ours, theirs);
        QVERIFY(!QTest::currentTestFailed());
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(ours)}), 0);
        CLI_EXIT(cliOn(other, {QStringLiteral("run"), QStringLiteral("--adopt"), QStringLiteral("--table"),
                               QString::number(theirs)}),
                 0);

        const QStringList restore{QStringLiteral("table"), QStringLiteral("restore"), QString::number(ours)};
        expectRefusal(cli(restore),
                      {QStringLiteral("table %1 (src:orders -> %2) cannot be restored").arg(ours).arg(target),
                       QStringLiteral("table %1 of workspace %2").arg(theirs).arg(other),
                       QStringLiteral("--yes")});
        QVERIFY(Workspace::open(m_ws)->archivedTable(ours));
        CLI_EXIT(cli(restore + QStringList{QStringLiteral("--yes")}), 0);
        QVERIFY(Workspace::open(m_ws)->table(ours));
        makeOrders(m_src, 5, 11, QStringLiteral("orders"), false);
        CLI_EXIT(cliOn(other, {QStringLiteral("run")}), 0);
        QCOMPARE(cli({QStringLiteral("run")}).exitCode, 1);
        QCOMPARE(pg.value(QStringLiteral("SELECT count(*) FROM public.%1").arg(table)), QStringLiteral("15"));
        forgetPostgresTable(pg, table);
    }

    // Two workspaces' first runs into one fresh target at the same time: one owns it, the other
    // writes nothing (the unique index on target_table decides when both checks found no owner).
    // Each workspace adds a table copying src:orders into `target`, and all run at once: one run
    // copies, every other fails naming the owner — never with the catalog's raw "duplicate key
    // value violates unique constraint pg_type_typname_nsp_index" or "already exists".
    void racingFirstRuns(const QStringList &workspaces, const QString &target,
                         const std::function<qint64()> &targetRows) {
        for (const QString &workspace : workspaces)
            addTableOn(workspace, ordersArgs(target));
        std::vector<std::unique_ptr<QProcess>> processes;
        for (const QString &workspace : workspaces) {
            auto &process = processes.emplace_back(std::make_unique<QProcess>());
            process->setWorkingDirectory(m_dir->path());
            process->start(cliPath(), {QStringLiteral("-w"), workspace, QStringLiteral("run")});
        }
        int succeeded = 0;
        QString output;
        for (const auto &process : processes) {
            QVERIFY(process->waitForFinished(120000));
            QCOMPARE(process->exitStatus(), QProcess::NormalExit);
            const QString err = QString::fromUtf8(process->readAllStandardError());
            output += err;
            if (process->exitCode() == 0)
                ++succeeded;
            else
                QVERIFY2(err.contains(QStringLiteral("belongs to")), qPrintable(err));
        }
        QVERIFY2(!output.contains(QStringLiteral("duplicate key")) &&
                     !output.contains(QStringLiteral("already exists")),
                 qPrintable(output));
        QVERIFY2(succeeded == 1, qPrintable(QStringLiteral("%1 runs succeeded: ").arg(succeeded) + output));
        QCOMPARE(targetRows(), qint64(10));
    }

    void racingFirstRunsIntoOneSqliteTarget() {
        makeOrders(m_src, 10, 1, QStringLiteral("orders"), false);
        for (int trial = 0; trial < kRaceTrials && !QTest::currentTestFailed(); ++trial) {
            QStringList workspaces;
            for (int racer = 0; racer < kRacers; ++racer) {
                workspaces << path(QStringLiteral("race%1_%2.tidemark").arg(trial).arg(racer));
                setupConnections(workspaces.last());
            }
            const QString table = QStringLiteral("orders_%1").arg(trial);
            racingFirstRuns(workspaces, QStringLiteral("dst:") + table,
                            [&] { return countRows(m_dst, table); });
        }
    }

    void racingFirstRunsIntoOnePostgresTarget() {
        TIDEMARK_REQUIRE_POSTGRES();
        PgSession pg;
        makeOrders(m_src, 10, 1, QStringLiteral("orders"), false);
        for (int trial = 0; trial < kRaceTrials && !QTest::currentTestFailed(); ++trial) {
            const QString table =
                QStringLiteral("edges_race_%1_%2").arg(QCoreApplication::applicationPid()).arg(trial);
            forgetPostgresTable(pg, table);
            QStringList workspaces;
            for (int racer = 0; racer < kRacers; ++racer) {
                workspaces << path(QStringLiteral("race%1_%2.tidemark").arg(trial).arg(racer));
                setupConnections(workspaces.last());
                CLI_EXIT(cliOn(workspaces.last(),
                               {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                                QStringLiteral("--postgres"), pgConninfo()}),
                         0);
            }
            racingFirstRuns(workspaces, QStringLiteral("pg:") + table, [&] {
                return pg.value(QStringLiteral("SELECT count(*) FROM public.%1").arg(table)).toLongLong();
            });
            forgetPostgresTable(pg, table);
        }
    }

    // --- item 8: an empty SQLite source with a TEXT watermark column ---

    void emptyTextWatermarkColumnAccepted() {
        setupConnections();
        execSql(m_src, QStringLiteral("CREATE TABLE events (id INTEGER PRIMARY KEY, at TEXT, n BLOB)"));
        const qint64 id = addTableOn(m_ws, {QStringLiteral("--source"), QStringLiteral("src:events"),
                                            QStringLiteral("--target"), QStringLiteral("dst:events"),
                                            QStringLiteral("--watermark"), QStringLiteral("at")});
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        execSql(m_src, QStringLiteral("INSERT INTO events (id, at) VALUES (1, '2025-01-01T00:00:00Z'), "
                                      "(2, '2025-01-02T00:00:00Z')"));
        CLI_EXIT(cli({QStringLiteral("run"), QStringLiteral("--table"), QString::number(id)}), 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("events")), 2);

        // A column whose declared type says nothing: the user says what it will hold.
        const QStringList untyped{QStringLiteral("--source"),    QStringLiteral("src:events"),
                                  QStringLiteral("--target"),    QStringLiteral("dst:events_n"),
                                  QStringLiteral("--watermark"), QStringLiteral("n")};
        expectRefusal(tableAdd(untyped), {QStringLiteral("--watermark-type")});
        QVERIFY(addTableOn(m_ws, untyped + QStringList{QStringLiteral("--watermark-type"),
                                                       QStringLiteral("integer")}) > 0);
        expectRefusal(
            tableAdd(untyped + QStringList{QStringLiteral("--watermark-type"), QStringLiteral("date")}),
            {QStringLiteral("--watermark-type")});
    }

    void nonEmptyUnusableWatermarkColumnStillRefused() {
        setupConnections();
        execSql(m_src, QStringLiteral("CREATE TABLE events (id INTEGER PRIMARY KEY, at TEXT)"));
        execSql(m_src, QStringLiteral("INSERT INTO events (id, at) VALUES (1, 'yesterday')"));
        const QStringList args{QStringLiteral("--source"),    QStringLiteral("src:events"),
                               QStringLiteral("--target"),    QStringLiteral("dst:events"),
                               QStringLiteral("--watermark"), QStringLiteral("at")};
        expectRefusal(tableAdd(args), {QStringLiteral("'at'")});
        expectRefusal(
            tableAdd(args + QStringList{QStringLiteral("--watermark-type"), QStringLiteral("timestamp")}),
            {QStringLiteral("'at'")});
    }

    // --- item 4: backfill --truncate is a full reload ---

    void backfillTruncateReloadsFromTheStart() {
        setupConnections();
        makeOrders(m_src, 10);
        const qint64 id = addTableOn(m_ws, ordersArgs(QStringLiteral("dst:orders")));
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);

        // --from with --truncate would empty the target and reload only the rows after it.
        const CliResult both = cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--from"),
                                    orderTimestamp(5), QStringLiteral("--truncate")});
        expectRefusal(both, {QStringLiteral("--from"), QStringLiteral("--truncate")});
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);

        CLI_EXIT(cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--truncate")}), 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 0);
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);
        CLI_EXIT(cli({QStringLiteral("verify")}), 0);
    }

    void backfillTruncateReloadsFromTheInitialWatermark() {
        setupConnections();
        makeOrders(m_src, 10);
        const qint64 id =
            addTableOn(m_ws, ordersArgs(QStringLiteral("dst:orders"),
                                        {QStringLiteral("--initial-watermark"), orderTimestamp(4)}));
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 6);
        CLI_EXIT(cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--truncate")}), 0);
        CLI_EXIT(cli({QStringLiteral("run")}), 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 6);
        QCOMPARE(queryValue(m_dst, QStringLiteral("SELECT min(id) FROM orders")).toLongLong(), 5);
    }

    // --- item 6: overwrite with --commit-per-batch ---

    void overwriteWithCommitPerBatchRefused() {
        setupConnections();
        makeOrders(m_src, 5);
        for (const QStringList &watermark :
             {QStringList{QStringLiteral("--watermark"), QStringLiteral("updated_at")}, QStringList{}}) {
            expectRefusal(tableAdd(QStringList{QStringLiteral("--source"), QStringLiteral("src:orders"),
                                               QStringLiteral("--target"), QStringLiteral("dst:orders"),
                                               QStringLiteral("--mode"), QStringLiteral("overwrite"),
                                               QStringLiteral("--commit-per-batch"),
                                               QStringLiteral("--batch-size"), QStringLiteral("2")} +
                                   watermark),
                          {QStringLiteral("--commit-per-batch"), QStringLiteral("overwrite")});
        }
        QCOMPARE(
            cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out.trimmed(),
            QStringLiteral("[]"));
    }

    // --- item 13: private by default ---

    void workspaceAndLogPrivateWhateverTheUmask() {
        // umask 0 would leave a file created the ordinary way readable by everyone.
        const CliResult init = runWithUmask({QStringLiteral("-w"), m_ws, QStringLiteral("init")}, 0);
        CLI_EXIT(init, 0);
        const CliResult add =
            runWithUmask({QStringLiteral("-w"), m_ws, QStringLiteral("connection"), QStringLiteral("add"),
                          QStringLiteral("src"), QStringLiteral("--sqlite"), m_src},
                         0);
        CLI_EXIT(add, 0);
        // A server workspace has no file; its log on this machine is private all the same.
        const QStringList files =
            serverWorkspaces() ? QStringList{workspaceLogPath()} : QStringList{m_ws, workspaceLogPath()};
        for (const QString &file : files) {
            QVERIFY2(QFileInfo::exists(file), qPrintable(file));
            QCOMPARE(QStringLiteral("%1").arg(modeOf(file), 0, 8), QStringLiteral("600"));
        }
    }

    // A target file the run creates is no more open than its source, whatever the umask (0
    // here: an ordinary create would make it 0644 or 0666); an existing one keeps its mode.
    void targetFileTakesItsSourcesPermissions_data() {
        QTest::addColumn<int>("sourceMode");
        QTest::newRow("0600") << 0600;
        QTest::newRow("0640") << 0640;
        QTest::newRow("0644") << 0644;
    }
    void targetFileTakesItsSourcesPermissions() {
        QFETCH(int, sourceMode);
        makeOrders(m_src, 3);
        QVERIFY(::chmod(QFile::encodeName(m_src).constData(), mode_t(sourceMode)) == 0);
        setupConnections();
        const QStringList table{QStringLiteral("--source"),    QStringLiteral("src:orders"),
                                QStringLiteral("--target"),    QStringLiteral("dst:orders"),
                                QStringLiteral("--watermark"), QStringLiteral("updated_at")};
        addTable(table);
        QVERIFY(!QFileInfo::exists(m_dst));
        CLI_EXIT(runWithUmask({QStringLiteral("-w"), m_ws, QStringLiteral("run")}, 0), 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(3));
        QCOMPARE(QString::number(modeOf(m_dst), 8), QString::number(sourceMode, 8));
        // No scratch file of the creation is left beside it.
        QCOMPARE(
            QDir(m_dir->path()).entryList({QStringLiteral("*.tidemark-new.*")}, QDir::Files | QDir::Hidden),
            QStringList());

        // A target file that exists keeps its mode, even a more open one: it is the operator's.
        const QString other = path(QStringLiteral("other.db"));
        QFile existing(other);
        QVERIFY(existing.open(QIODevice::WriteOnly));
        existing.close();
        QVERIFY(::chmod(QFile::encodeName(other).constData(), 0664) == 0);
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("other"),
                      QStringLiteral("--sqlite"), other}),
                 0);
        addTable({QStringLiteral("--source"), QStringLiteral("src:orders"), QStringLiteral("--target"),
                  QStringLiteral("other:orders"), QStringLiteral("--watermark"),
                  QStringLiteral("updated_at")});
        CLI_EXIT(runWithUmask({QStringLiteral("-w"), m_ws, QStringLiteral("run")}, 0), 0);
        QCOMPARE(countRows(other, QStringLiteral("orders")), qint64(3));
        QCOMPARE(QString::number(modeOf(other), 8), QStringLiteral("664"));
    }

    // A --sqlite path no run could open is refused when the connection is added, naming it.
    void connectionToADirectoryOrAMissingFolderRefused() {
        CLI_EXIT(cli({QStringLiteral("init")}), 0);
        const QString folder = path(QStringLiteral("data"));
        QVERIFY(QDir().mkpath(folder));
        const QString missing = path(QStringLiteral("nowhere/deeper/x.db"));
        for (const auto &[given, needle] :
             QList<QPair<QString, QString>>{{folder, QStringLiteral("is a directory")},
                                            {folder + QStringLiteral("/"), QStringLiteral("is a directory")},
                                            {missing, QStringLiteral("does not exist")}}) {
            const CliResult result = cli({QStringLiteral("connection"), QStringLiteral("add"),
                                          QStringLiteral("c"), QStringLiteral("--sqlite"), given});
            expectRefusal(result,
                          {QStringLiteral("connection add c"), needle, given == missing ? missing : folder});
        }
        QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("list"), QStringLiteral("--json")})
                     .out.trimmed(),
                 QStringLiteral("[]"));
        // A file that does not exist yet in a folder that does: a target to be created.
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("c"),
                      QStringLiteral("--sqlite"), folder + QStringLiteral("/new.db")}),
                 0);
    }

    void secretsInConninfoRefused() {
        CLI_EXIT(cli({QStringLiteral("init")}), 0);
        for (const QString &conninfo : {QStringLiteral("host=db dbname=x sslpassword=s3cret"),
                                        QStringLiteral("host=db password=s3cret"),
                                        QStringLiteral("postgresql://alice:s3cret@db:5432/x"),
                                        QStringLiteral("postgresql://alice@db/x?sslpassword=s3cret")}) {
            const CliResult result = cli({QStringLiteral("connection"), QStringLiteral("add"),
                                          QStringLiteral("pg"), QStringLiteral("--postgres"), conninfo});
            expectRefusal(result, {QStringLiteral("password")});
            QVERIFY2(!result.err.contains(QStringLiteral("s3cret")), qPrintable(result.err));
        }
        QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("list"), QStringLiteral("--json")})
                     .out.trimmed(),
                 QStringLiteral("[]"));
    }

    void notAWorkspaceCreatesNothingBesideIt() {
        const QString notes = path(QStringLiteral("notes.txt"));
        QFile file(notes);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("not a workspace\n");
        file.close();
        for (const QStringList &command : {QStringList{QStringLiteral("table"), QStringLiteral("list")},
                                           QStringList{QStringLiteral("run")}}) {
            const CliResult result = cliOn(notes, command);
            QCOMPARE(result.exitCode, 2);
            QVERIFY2(result.err.contains(notes), qPrintable(result.describe()));
        }
        QCOMPARE(QDir(m_dir->path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("notes.txt")});
    }

    // --- item 14: numbers in range, no empty conninfo, interrupts that say what happened ---

    void numbersOutOfRangeRefused() {
        setupConnections();
        makeOrders(m_src, 3);
        const QList<QStringList> refused{
            {QStringLiteral("run"), QStringLiteral("--concurrency"), QStringLiteral("99999999999")},
            {QStringLiteral("run"), QStringLiteral("--concurrency"), QStringLiteral("4294967297")},
            {QStringLiteral("run"), QStringLiteral("--concurrency"), QStringLiteral("0")},
            {QStringLiteral("history"), QStringLiteral("--limit"), QStringLiteral("4294967297")},
            {QStringLiteral("run"), QStringLiteral("--table"), QStringLiteral("99999999999999999999")},
            QStringList{QStringLiteral("table"), QStringLiteral("add")} +
                ordersArgs(QStringLiteral("dst:orders"),
                           {QStringLiteral("--batch-size"), QStringLiteral("4294967297")}),
            QStringList{QStringLiteral("table"), QStringLiteral("add")} +
                ordersArgs(QStringLiteral("dst:orders"),
                           {QStringLiteral("--max-skipped"), QStringLiteral("99999999999999999999")}),
        };
        for (const QStringList &args : refused) {
            const CliResult result = cli(args);
            expectRefusal(result, {args.at(args.size() - 2)});
        }
        QCOMPARE(queryValue(m_ws, QStringLiteral("SELECT count(*) FROM runs")).toLongLong(), 0);
        QCOMPARE(
            cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out.trimmed(),
            QStringLiteral("[]"));
    }

    void emptyConninfoRefused() {
        CLI_EXIT(cli({QStringLiteral("init")}), 0);
        for (const QString &conninfo : {QString(), QStringLiteral("   ")}) {
            expectRefusal(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                               QStringLiteral("--postgres"), conninfo}),
                          {QStringLiteral("CONNINFO is empty")});
        }
    }

    void interruptAfterTheCommitSaysTheRunSucceeded() {
        setupConnections();
        makeOrders(m_src, 10);
        addTableOn(m_ws, ordersArgs(QStringLiteral("dst:orders")));
        QProcess process;
        startStoppedAt(process, QStringLiteral("after_target_commit"), {QStringLiteral("run")});
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10); // committed before the stop
        interruptAndContinue(process);
        QVERIFY(process.waitForFinished(120000));
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY2(process.exitCode() == 0, qPrintable(err));
        QVERIFY2(!err.contains(QStringLiteral("roll back")) && !err.contains(QStringLiteral("rolled back")),
                 qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("too late to cancel")) &&
                     err.contains(QStringLiteral("succeeded")),
                 qPrintable(err));
    }

    void interruptDuringSetUpIsNotASilentKill() {
        setupConnections();
        makeOrders(m_src, 10);
        addTableOn(m_ws, ordersArgs(QStringLiteral("dst:orders")));
        QProcess process;
        startStoppedAt(process, QStringLiteral("cli_run_setup"), {QStringLiteral("run")});
        QVERIFY(!QTest::currentTestFailed());
        interruptAndContinue(process);
        QVERIFY(process.waitForFinished(120000));
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY2(process.exitCode() == 1, qPrintable(err));
        QVERIFY2(err.contains(QStringLiteral("before the run started")), qPrintable(err));
        QVERIFY(!QFileInfo::exists(m_dst) || !tableExists(m_dst, QStringLiteral("orders")));
    }
};

QTEST_GUILESS_MAIN(TestCliEdges)
#include "tst_cliedges.moc"
