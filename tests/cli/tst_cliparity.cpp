// SPDX-License-Identifier: MIT
// The command line does what the window does, through the real binary:
// table edit (only the options given change, refused while a run holds the table, a position
// made meaningless refused or reset as a backfill), table purge (forgets a removed table and
// frees its target), connection edit / remove / test, and help on every command.

#include "tests/support/clifixture.h"
#include "tests/support/testsupport.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QSysInfo>
#include <QTest>

#include <optional>

using namespace tidemark::test;

namespace {

QStringList L(std::initializer_list<const char *> parts) {
    QStringList list;
    for (const char *part : parts)
        list << QString::fromUtf8(part);
    return list;
}

} // namespace

class TestCliParity : public QObject, protected CliFixture {
    Q_OBJECT

private slots:
    void init() {
        startFixture();
        makeOrders(m_src, 3);
        setupConnections();
    }
    void cleanup() { stopFixture(); }

    void helpPrintsOneCommandsUsage_data();
    void helpPrintsOneCommandsUsage();
    void helpAndUnknownOptionsAreRefusedNamingThem();
    void editChangesOnlyTheOptionsGiven();
    void editValidatesAsAddDoes();
    void editIsRefusedWhileARunHoldsTheTable();
    void editIsRefusedWhileARunHasTheTableQueued();
    void editOfThePositionNeedsResetPosition();
    void editMovingTheTargetReleasesTheOldOne();
    void purgeFreesTheTargetForANewTable();
    void purgeRefusesALiveTableAndAskedTargets();
    void purgeOfATargetThatCannotBeReachedNeedsYes();
    void connectionEditChangesOnlyWhatIsGiven();
    void connectionRemoveIsRefusedWhileATableUsesIt();
    void connectionTestOpensTheConnection();

private:
    qint64 addOrders(const QString &target = QStringLiteral("dst:orders")) {
        return addTable({QStringLiteral("--source"), QStringLiteral("src:orders"), QStringLiteral("--target"),
                         target, QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    }
    QJsonObject table(qint64 id, bool archived = false) const {
        QStringList args = L({"table", "list", "--json"});
        if (archived)
            args << QStringLiteral("--archived");
        for (const QJsonValue &value : parseJsonArray(cli(args).out))
            if (value.toObject().value(QStringLiteral("id")).toInteger() == id)
                return value.toObject();
        return {};
    }
    QJsonObject connectionNamed(const QString &name) const {
        for (const QJsonValue &value : parseJsonArray(cli(L({"connection", "list", "--json"})).out))
            if (value.toObject().value(QStringLiteral("name")).toString() == name)
                return value.toObject();
        return {};
    }
    QStringList causes(qint64 id) const {
        QStringList result;
        for (const QStringList &row : queryRows(m_ws,
                                                QStringLiteral("SELECT cause FROM watermark_changes WHERE "
                                                               "table_id = ?1 ORDER BY id"),
                                                {id}))
            result << row.first();
        return result;
    }
    qint64 stateRows(const QString &db, qint64 tableId) const {
        if (!tableExists(db, QStringLiteral("tidemark_state")))
            return 0;
        return queryValue(db, QStringLiteral("SELECT count(*) FROM tidemark_state WHERE table_id = ?1"),
                          {tableId})
            .toLongLong();
    }
    void expectRefused(const CliResult &result, const QStringList &mentions) const {
        QVERIFY2(result.exitCode == 2, qPrintable(result.describe()));
        QVERIFY2(result.errLines().size() == 1, qPrintable(result.describe()));
        for (const QString &mention : mentions)
            QVERIFY2(result.err.contains(mention),
                     qPrintable(mention + QStringLiteral(" not in ") + result.err));
    }
};

void TestCliParity::helpPrintsOneCommandsUsage_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("mentions"); // in stdout
    QTest::addColumn<QStringList>("leftOut");  // other commands' entries, not in stdout
    QTest::newRow("table --help") << L({"table", "--help"})
                                  << L({"table edit ID", "table purge ID", "table add"})
                                  << L({"schedule add", "connection add"});
    QTest::newRow("help table") << L({"help", "table"}) << L({"table edit ID", "table restore ID"})
                                << L({"history [--run"});
    QTest::newRow("table edit --help")
        << L({"table", "edit", "--help"})
        << L({"table edit ID", "--reset-position", "--max-jump", "--source CONN:TABLE"})
        << L({"table purge", "schedule"});
    QTest::newRow("help table edit") << L({"help", "table", "edit"})
                                     << L({"table edit ID", "--reset-position"}) << L({"table purge"});
    QTest::newRow("table purge -h") << L({"table", "purge", "-h"})
                                    << L({"table purge ID [--yes]", "tidemark_state"}) << L({"table edit"});
    QTest::newRow("table resume --help")
        << L({"table", "resume", "--help"}) << L({"table resume ID"}) << L({"table add"});
    QTest::newRow("help connection test")
        << L({"help", "connection", "test"}) << L({"connection test NAME"}) << L({"connection add"});
    QTest::newRow("connection --help")
        << L({"connection", "--help"})
        << L({"connection edit NAME", "connection remove NAME", "connection test NAME"}) << L({"table add"});
    QTest::newRow("run --help") << L({"run", "--help"}) << L({"run [--table ID]", "run --adopt"})
                                << L({"table add"});
    QTest::newRow("help run") << L({"help", "run"}) << L({"run [--table ID]"}) << L({"history"});
    QTest::newRow("schedule --help") << L({"schedule", "--help"})
                                     << L({"schedule add NAME", "schedule next NAME"}) << L({"table add"});
    QTest::newRow("help") << L({"help"}) << L({"Commands:", "table edit ID", "schedule add"})
                          << QStringList();
}

void TestCliParity::helpPrintsOneCommandsUsage() {
    QFETCH(QStringList, args);
    QFETCH(QStringList, mentions);
    QFETCH(QStringList, leftOut);
    // No workspace needed for help: run it without -w.
    const CliResult result = runCli(args, m_dir->path());
    CLI_EXIT(result, 0);
    QVERIFY2(result.err.isEmpty(), qPrintable(result.err));
    for (const QString &mention : mentions)
        QVERIFY2(result.out.contains(mention),
                 qPrintable(mention + QStringLiteral(" not in:\n") + result.out));
    for (const QString &other : leftOut)
        QVERIFY2(!result.out.contains(other), qPrintable(other + QStringLiteral(" in:\n") + result.out));
}

void TestCliParity::helpAndUnknownOptionsAreRefusedNamingThem() {
    const qint64 id = addOrders();
    expectRefused(cli(L({"table", "edit", "1", "--bogus"})), L({"table edit", "bogus"}));
    expectRefused(cli(L({"connection", "test", "src", "--frobnicate"})),
                  L({"connection test", "frobnicate"}));
    expectRefused(runCli(L({"help", "no-such-command"}), m_dir->path()), L({"help", "no-such-command"}));
    expectRefused(cli(L({"table", "frob"})), L({"table", "frob", "tidemark-cli table --help"}));
    // Nothing was changed by the refused edit.
    QCOMPARE(table(id).value(QStringLiteral("mode")).toString(), QStringLiteral("append"));
}

void TestCliParity::editChangesOnlyTheOptionsGiven() {
    const qint64 id = addOrders();
    CLI_EXIT(cli(L({"run"})), 0);
    const QJsonObject before = table(id);
    QCOMPARE(before.value(QStringLiteral("last_watermark")).toString().left(16),
             QStringLiteral("2025-01-01T00:03"));

    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                  QStringLiteral("--mode"), QStringLiteral("merge"), QStringLiteral("--lookback"),
                  QStringLiteral("1h"), QStringLiteral("--batch-size"), QStringLiteral("500"),
                  QStringLiteral("--expect-rows"), QStringLiteral("--max-future"), QStringLiteral("2h")}),
             0);
    QJsonObject after = table(id);
    QCOMPARE(after.value(QStringLiteral("mode")).toString(), QStringLiteral("merge"));
    QCOMPARE(after.value(QStringLiteral("lookback")).toString(), QStringLiteral("1h"));
    QCOMPARE(after.value(QStringLiteral("batch_size")).toInteger(), 500);
    QCOMPARE(after.value(QStringLiteral("expect_rows")).toBool(), true);
    QCOMPARE(after.value(QStringLiteral("max_future")).toString(), QStringLiteral("2h"));
    // Merge took the source's primary key, as table add does.
    QCOMPARE(after.value(QStringLiteral("key_columns")).toArray().first().toString(), QStringLiteral("id"));
    // What was not given stays, the position above all.
    for (const char *field : {"source", "target", "watermark_column", "watermark_type", "last_watermark",
                              "initial_watermark", "max_skipped", "active", "commit_per_batch"})
        QVERIFY2(after.value(QString::fromUtf8(field)) == before.value(QString::fromUtf8(field)), field);
    QVERIFY(!causes(id).contains(QStringLiteral("edit")));

    // A flag goes back with --no-…; --paused pauses.
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                  QStringLiteral("--no-expect-rows"), QStringLiteral("--paused")}),
             0);
    after = table(id);
    QCOMPARE(after.value(QStringLiteral("expect_rows")).toBool(), false);
    QCOMPARE(after.value(QStringLiteral("active")).toBool(), false);
    QCOMPARE(after.value(QStringLiteral("mode")).toString(), QStringLiteral("merge"));

    // The edited table runs on from where it stood: 2 new rows, not 5.
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("resume"), QString::number(id)}), 0);
    makeOrders(m_src, 2, 4);
    CLI_EXIT(cli(L({"run"})), 0);
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(5));
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id)}),
                  L({"table edit 1", "nothing to change"}));
}

void TestCliParity::editValidatesAsAddDoes() {
    const qint64 id = addTable(L({"--source", "src:orders", "--target", "dst:orders", "--watermark",
                                  "updated_at", "--mode", "merge", "--lookback", "1h"}));
    // Back to append while the lookback stays: refused as table add refuses it.
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                       QStringLiteral("--mode"), QStringLiteral("append")}),
                  L({"table edit 1", "--lookback needs --mode merge"}));
    QCOMPARE(table(id).value(QStringLiteral("mode")).toString(), QStringLiteral("merge"));
    CLI_EXIT(
        cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id), QStringLiteral("--mode"),
             QStringLiteral("append"), QStringLiteral("--lookback"), QString()}),
        0);
    QCOMPARE(table(id).value(QStringLiteral("mode")).toString(), QStringLiteral("append"));
    QVERIFY(table(id).value(QStringLiteral("lookback")).isNull());
    // The guards of add: --max-jump on a timestamp watermark, a key that does not exist.
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                       QStringLiteral("--max-jump"), QStringLiteral("5")}),
                  L({"table edit 1", "--max-jump"}));
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                       QStringLiteral("--key"), QStringLiteral("nope")}),
                  L({"table edit 1", "nope"}));
    // A removed table is not edited: restore it first.
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(id)}), 0);
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                       QStringLiteral("--batch-size"), QStringLiteral("7")}),
                  L({"table restore 1"}));
}

void TestCliParity::editIsRefusedWhileARunHoldsTheTable() {
    const qint64 id = addOrders();
    // A live run's lease: this test process is alive on this host, and the lease runs for an hour.
    const QString later =
        QDateTime::currentDateTimeUtc().addSecs(3600).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzzZ"));
    execSql(m_ws,
            QStringLiteral("INSERT INTO leases (table_id, run_id, host, pid, acquired_at, expires_at) VALUES "
                           "(?1, 77, ?2, ?3, ?4, ?4)"),
            {id, QSysInfo::machineHostName(), QCoreApplication::applicationPid(), later});
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                       QStringLiteral("--batch-size"), QStringLiteral("7")}),
                  L({"table edit", "table 1", "run 77"}));
    QCOMPARE(table(id).value(QStringLiteral("batch_size")).toInteger(), 10000);
    // The lease is the run's, not the refused edit's: still there.
    QCOMPARE(
        queryValue(m_ws, QStringLiteral("SELECT run_id FROM leases WHERE table_id = ?1"), {id}).toLongLong(),
        77);
    execSql(m_ws, QStringLiteral("DELETE FROM leases"));
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                  QStringLiteral("--batch-size"), QStringLiteral("7")}),
             0);
    QCOMPARE(table(id).value(QStringLiteral("batch_size")).toInteger(), 7);
    // The edit's own lease is gone again: a run copies the table.
    QCOMPARE(queryValue(m_ws, QStringLiteral("SELECT count(*) FROM leases")).toLongLong(), 0);
    CLI_EXIT(cli(L({"run"})), 0);
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(3));
}

void TestCliParity::editIsRefusedWhileARunHasTheTableQueued() {
    const qint64 id = addOrders();
    // A live run (this test process, a heartbeat good for an hour) that has planned the table but
    // not started it: no lease yet, and still not the moment to change its settings.
    const QString now = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzzZ"));
    const QString later =
        QDateTime::currentDateTimeUtc().addSecs(3600).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzzZ"));
    execSql(m_ws,
            QStringLiteral(
                "INSERT INTO runs (\"trigger\", host, pid, started_at, status, concurrency, dry_run, "
                "heartbeat_at, heartbeat_expires_at) VALUES ('cli', ?1, ?2, ?3, 'running', 1, 0, ?3, ?4)"),
            {QSysInfo::machineHostName(), QCoreApplication::applicationPid(), now, later});
    const qint64 run = queryValue(m_ws, QStringLiteral("SELECT max(id) FROM runs")).toLongLong();
    execSql(m_ws,
            QStringLiteral("INSERT INTO iterations (run_id, table_id, source, target, status) VALUES "
                           "(?1, ?2, 'src:orders', 'dst:orders', 'queued')"),
            {run, id});
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                       QStringLiteral("--batch-size"), QStringLiteral("7")}),
                  L({"table edit", "table 1", "queued"}));
    QCOMPARE(table(id).value(QStringLiteral("batch_size")).toInteger(), 10000);
    // The refusal left no lease of its own behind.
    QCOMPARE(queryValue(m_ws, QStringLiteral("SELECT count(*) FROM leases")).toLongLong(), 0);
    execSql(m_ws, QStringLiteral("UPDATE iterations SET status = 'cancelled'"));
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                  QStringLiteral("--batch-size"), QStringLiteral("7")}),
             0);
    QCOMPARE(table(id).value(QStringLiteral("batch_size")).toInteger(), 7);
}

void TestCliParity::editOfThePositionNeedsResetPosition() {
    const qint64 id = addOrders();
    CLI_EXIT(cli(L({"run"})), 0);
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(3));
    const QJsonObject before = table(id);

    // A timestamp position means nothing to an integer column: refused, with the way out.
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                       QStringLiteral("--watermark"), QStringLiteral("id")}),
                  L({"table edit", "watermark column (updated_at -> id)", "--reset-position"}));
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                       QStringLiteral("--source"), QStringLiteral("src:other")}),
                  L({"table edit", "other"}));
    QCOMPARE(table(id), before);

    const CliResult reset =
        cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
             QStringLiteral("--watermark"), QStringLiteral("id"), QStringLiteral("--reset-position")});
    CLI_EXIT(reset, 0);
    QVERIFY2(reset.out.contains(QStringLiteral("position reset")), qPrintable(reset.out));
    const QJsonObject after = table(id);
    QCOMPARE(after.value(QStringLiteral("watermark_column")).toString(), QStringLiteral("id"));
    QCOMPARE(after.value(QStringLiteral("watermark_type")).toString(), QStringLiteral("integer"));
    QVERIFY(after.value(QStringLiteral("last_watermark")).isNull());
    // As a backfill --truncate: the target is empty, its state row at the initial watermark.
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(0));
    QCOMPARE(stateRows(m_dst, id), qint64(1));
    QVERIFY2(causes(id).contains(QStringLiteral("edit")), qPrintable(causes(id).join(QLatin1Char(','))));

    // The next run copies everything once, by the new column.
    CLI_EXIT(cli(L({"run"})), 0);
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(3));
    QCOMPARE(table(id).value(QStringLiteral("last_watermark")).toInteger(), 3);
    makeOrders(m_src, 1, 4);
    CLI_EXIT(cli(L({"run"})), 0);
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(4));
}

void TestCliParity::editMovingTheTargetReleasesTheOldOne() {
    const qint64 id = addOrders();
    CLI_EXIT(cli(L({"run"})), 0);
    QCOMPARE(stateRows(m_dst, id), qint64(1));
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                       QStringLiteral("--target"), QStringLiteral("dst:orders2")}),
                  L({"the target (dst:orders -> dst:orders2)", "--reset-position"}));
    const QString other = path(QStringLiteral("other.db"));
    CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("other"),
                  QStringLiteral("--sqlite"), other}),
             0);
    CLI_EXIT(
        cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id), QStringLiteral("--target"),
             QStringLiteral("other:orders"), QStringLiteral("--reset-position")}),
        0);
    // The old target keeps its rows, no longer its state row: another table may write there.
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(3));
    QCOMPARE(stateRows(m_dst, id), qint64(0));
    CLI_EXIT(cli(L({"run"})), 0);
    QCOMPARE(countRows(other, QStringLiteral("orders")), qint64(3));
    QCOMPARE(stateRows(other, id), qint64(1));
    execSql(m_dst, QStringLiteral("DELETE FROM orders"));
    const qint64 second = addOrders();
    QVERIFY(second > id);
    CLI_EXIT(cli({QStringLiteral("run"), QStringLiteral("--table"), QString::number(second)}), 0);
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(3));
}

void TestCliParity::purgeFreesTheTargetForANewTable() {
    const qint64 id = addOrders();
    CLI_EXIT(cli(L({"run"})), 0);
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(id)}), 0);

    // The removed table still holds its target, and the refusal names a command that exists.
    const CliResult taken = cli(
        L({"table", "add", "--source", "src:orders", "--target", "dst:orders", "--watermark", "updated_at"}));
    expectRefused(taken, L({"table purge 1", "table restore 1"}));

    // Rows are still in the target: purge asks first.
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("purge"), QString::number(id)}),
                  L({"table purge", "3 rows", "--yes"}));
    QVERIFY(!table(id, true).isEmpty());
    QCOMPARE(stateRows(m_dst, id), qint64(1));

    const CliResult purged =
        cli({QStringLiteral("table"), QStringLiteral("purge"), QString::number(id), QStringLiteral("--yes")});
    CLI_EXIT(purged, 0);
    QVERIFY2(purged.out.contains(QStringLiteral("its 3 rows stay")), qPrintable(purged.out));
    // Forgotten: in neither list; its state row is gone from the target, its rows are not.
    QVERIFY(table(id, true).isEmpty());
    QVERIFY(table(id).isEmpty());
    QCOMPARE(stateRows(m_dst, id), qint64(0));
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(3));
    QVERIFY(causes(id).endsWith(QStringLiteral("purge")));
    // History stays.
    QVERIFY(queryValue(m_ws, QStringLiteral("SELECT count(*) FROM iterations WHERE table_id = ?1"), {id})
                .toLongLong() > 0);

    // A new table takes the target, and its run is not refused as someone else's target.
    execSql(m_dst, QStringLiteral("DELETE FROM orders"));
    const qint64 second = addOrders();
    QVERIFY(second > id); // ids are never reused
    CLI_EXIT(cli(L({"run"})), 0);
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(3));
    QCOMPARE(stateRows(m_dst, second), qint64(1));
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("purge"), QString::number(id)}),
                  L({"table purge", "table 1 does not exist"}));
}

void TestCliParity::purgeRefusesALiveTableAndAskedTargets() {
    const qint64 id = addOrders();
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("purge"), QString::number(id)}),
                  L({"table purge", "is not removed", "table remove 1"}));
    QVERIFY(!table(id).isEmpty());
    // Never run: no target file, nothing to ask about.
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(id)}), 0);
    QVERIFY(!QFile::exists(m_dst));
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("purge"), QString::number(id)}), 0);
    QVERIFY(!QFile::exists(m_dst));
    QVERIFY(table(id, true).isEmpty());
}

void TestCliParity::purgeOfATargetThatCannotBeReachedNeedsYes() {
    const qint64 id = addOrders();
    CLI_EXIT(cli(L({"run"})), 0);
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(id)}), 0);
    // The window may remove a connection that only removed tables use; the state row in that
    // target then cannot be cleared.
    execSql(m_ws, QStringLiteral("DELETE FROM connections WHERE name = 'dst'"));
    expectRefused(cli({QStringLiteral("table"), QStringLiteral("purge"), QString::number(id)}),
                  L({"table purge", "'dst' no longer exists", "--yes"}));
    QVERIFY(!table(id, true).isEmpty());
    const CliResult purged =
        cli({QStringLiteral("table"), QStringLiteral("purge"), QString::number(id), QStringLiteral("--yes")});
    CLI_EXIT(purged, 0);
    QCOMPARE(purged.errLines().size(), 1);
    QVERIFY2(purged.err.contains(QStringLiteral("warning")) &&
                 purged.err.contains(QStringLiteral("run --adopt")),
             qPrintable(purged.err));
    QVERIFY(table(id, true).isEmpty());
    // Honest about it: the state row is still in the target.
    QCOMPARE(stateRows(m_dst, id), qint64(1));
}

void TestCliParity::connectionEditChangesOnlyWhatIsGiven() {
    const QString moved = path(QStringLiteral("moved.db"));
    QVERIFY(QFile::copy(m_src, moved));
    const qint64 id = addOrders();
    // A new file under a name a table uses: its position describes the old one.
    expectRefused(cli({QStringLiteral("connection"), QStringLiteral("edit"), QStringLiteral("src"),
                       QStringLiteral("--sqlite"), moved}),
                  L({"connection edit src", "table 1 (src:orders -> dst:orders)", "--yes"}));
    QCOMPARE(connectionNamed(QStringLiteral("src")).value(QStringLiteral("path")).toString(), m_src);
    CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("edit"), QStringLiteral("src"),
                  QStringLiteral("--sqlite"), moved, QStringLiteral("--yes")}),
             0);
    QCOMPARE(connectionNamed(QStringLiteral("src")).value(QStringLiteral("path")).toString(), moved);
    // A rename carries the tables with it.
    CLI_EXIT(cli(L({"connection", "edit", "src", "--name", "source"})), 0);
    QVERIFY(connectionNamed(QStringLiteral("src")).isEmpty());
    QCOMPARE(table(id).value(QStringLiteral("source")).toString(), QStringLiteral("source:orders"));
    CLI_EXIT(cli(L({"run"})), 0);
    QCOMPARE(countRows(m_dst, QStringLiteral("orders")), qint64(3));
    // Refusals name the connection and the option.
    expectRefused(cli(L({"connection", "edit", "source", "--password-env", "X"})),
                  L({"connection edit source", "--password-env"}));
    expectRefused(cli(L({"connection", "edit", "source"})),
                  L({"connection edit source", "nothing to change"}));
    expectRefused(cli(L({"connection", "edit", "nope", "--name", "x"})), L({"connection edit", "'nope'"}));
    expectRefused(
        cli({QStringLiteral("connection"), QStringLiteral("edit"), QStringLiteral("source"),
             QStringLiteral("--sqlite"), path(QStringLiteral("no/such/dir/x.db")), QStringLiteral("--yes")}),
        L({"connection edit source", "does not exist"}));
}

void TestCliParity::connectionRemoveIsRefusedWhileATableUsesIt() {
    const qint64 id = addOrders();
    expectRefused(cli(L({"connection", "remove", "dst"})),
                  L({"connection remove dst", "table 1", "table remove"}));
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(id)}), 0);
    // A removed table still needs it (to be restored, or purged).
    expectRefused(cli(L({"connection", "remove", "dst"})),
                  L({"connection remove dst", "removed table 1", "table purge"}));
    CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("purge"), QString::number(id)}), 0);
    CLI_EXIT(cli(L({"connection", "remove", "dst"})), 0);
    QVERIFY(connectionNamed(QStringLiteral("dst")).isEmpty());
    QVERIFY(!connectionNamed(QStringLiteral("src")).isEmpty());
    expectRefused(cli(L({"connection", "remove", "dst"})), L({"connection remove", "'dst' does not exist"}));
}

void TestCliParity::connectionTestOpensTheConnection() {
    const CliResult ok = cli(L({"connection", "test", "src"}));
    CLI_EXIT(ok, 0);
    QVERIFY2(ok.out.startsWith(QStringLiteral("ok: connection 'src'")) && ok.out.contains(m_src) &&
                 ok.out.contains(QStringLiteral("1 tables")),
             qPrintable(ok.out));
    // A target file not written yet: fine, and not created by the test.
    const CliResult notYet = cli(L({"connection", "test", "dst"}));
    CLI_EXIT(notYet, 0);
    QVERIFY2(notYet.out.contains(QStringLiteral("does not exist yet")), qPrintable(notYet.out));
    QVERIFY(!QFile::exists(m_dst));
    // A file that is no database: exit 1, one line naming the connection.
    QFile garbage(m_dst);
    QVERIFY(garbage.open(QIODevice::WriteOnly));
    garbage.write(QByteArray(4096, 'x'));
    garbage.close();
    const CliResult broken = cli(L({"connection", "test", "dst"}));
    CLI_EXIT(broken, 1);
    QCOMPARE(broken.errLines().size(), 1);
    QVERIFY2(broken.err.contains(QStringLiteral("connection test dst")), qPrintable(broken.err));
    expectRefused(cli(L({"connection", "test", "nope"})), L({"connection test", "'nope' does not exist"}));
}

QTEST_GUILESS_MAIN(TestCliParity)
#include "tst_cliparity.moc"
