// SPDX-License-Identifier: MIT
// End-to-end tests of the tidemark-cli contract (docs/design.md, "The headless CLI — a contract"),
// through the real binary: names, exit codes, stdout/stderr and JSON fields.

#include "model/common/error.h"
#include "model/common/timestamp.h"
#include "model/domain/runpage.h"
#include "tests/support/clifixture.h"
#include "tests/support/historyfill.h"
#include "tests/support/testsupport.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTest>

#include <memory>

#include <csignal>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// Number fields must be JSON numbers holding integers.
bool isInteger(const QJsonValue &value) {
    return value.isDouble() && value.toDouble() == double(value.toInteger());
}

qint64 micros(const QString &text) {
    const std::optional<ParsedTimestamp> parsed = parseTimestamp(text);
    return parsed ? parsed->micros : -1;
}

bool isIsoUtc(const QJsonValue &value) {
    static const QRegularExpression pattern(
        QStringLiteral(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$)"));
    return value.isString() && pattern.match(value.toString()).hasMatch();
}

QByteArray fileHash(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

bool containsAnyOf(const QString &text, const QStringList &needles) {
    for (const QString &needle : needles) {
        if (text.contains(needle, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace

class TestCli : public QObject, protected CliFixture {
    Q_OBJECT

private:
    // init + connections "src" and "dst" (both SQLite; the target file exists).
    void setupWorkspace() {
        execSql(m_dst, QStringLiteral("CREATE TABLE IF NOT EXISTS unrelated (x INTEGER)"));
        setupConnections();
    }

    qint64 addOrders(const QString &table = QStringLiteral("orders"), const QStringList &extra = {}) {
        return addTable(QStringList{QStringLiteral("--source"), QStringLiteral("src:") + table,
                                    QStringLiteral("--target"), QStringLiteral("dst:") + table,
                                    QStringLiteral("--watermark"), QStringLiteral("updated_at")} +
                        extra);
    }

    // `run --json` plus extra arguments; checks the exit code and returns the parsed object.
    QJsonObject runJson(const QStringList &extra, int expectedExit) {
        const CliResult result = cli(QStringList{QStringLiteral("run"), QStringLiteral("--json")} + extra);
        if (result.exitCode != expectedExit) {
            QTest::qFail(
                qPrintable(QStringLiteral("run exit %1 expected: ").arg(expectedExit) + result.describe()),
                __FILE__, __LINE__);
            return {};
        }
        bool ok = false;
        const QJsonObject object = parseJsonObject(result.out, &ok);
        if (!ok)
            QTest::qFail(
                qPrintable(QStringLiteral("run --json did not print one JSON object: ") + result.out),
                __FILE__, __LINE__);
        return object;
    }

    QJsonObject iterationFor(const QJsonObject &run, qint64 tableId) {
        for (const QJsonValue &value : run.value(QStringLiteral("iterations")).toArray()) {
            if (value.toObject().value(QStringLiteral("table_id")).toInteger() == tableId)
                return value.toObject();
        }
        return {};
    }

    QJsonArray tableList() {
        const CliResult result =
            cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")});
        bool ok = false;
        const QJsonArray array = parseJsonArray(result.out, &ok);
        if (result.exitCode != 0 || !ok)
            QTest::qFail(qPrintable(QStringLiteral("table list --json: ") + result.describe()), __FILE__,
                         __LINE__);
        return array;
    }

    QJsonObject tableEntry(qint64 id) {
        for (const QJsonValue &value : tableList()) {
            if (value.toObject().value(QStringLiteral("id")).toInteger() == id)
                return value.toObject();
        }
        return {};
    }

    // Source table "big" (`rows` rows) copied by batches of 100, each committed: a run over it
    // is long, and its progress shows in the target.
    qint64 addBigTable(int rows) {
        makeOrders(m_src, rows, 1, QStringLiteral("big"));
        return addTable({QStringLiteral("--source"), QStringLiteral("src:big"), QStringLiteral("--target"),
                         QStringLiteral("dst:big"), QStringLiteral("--watermark"), QStringLiteral("id"),
                         QStringLiteral("--batch-size"), QStringLiteral("100"),
                         QStringLiteral("--commit-per-batch")});
    }

    // Starts `run --json` plus `extra` and returns once the copy of "big" is under way (its
    // first batches are committed).
    void startRunUnderWay(QProcess &process, const QStringList &extra = {}) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
        process.setProcessEnvironment(env);
        process.start(
            cliPath(),
            QStringList{QStringLiteral("-w"), m_ws, QStringLiteral("run"), QStringLiteral("--json")} + extra);
        QVERIFY(process.waitForStarted());
        const auto underWay = [this] {
            try {
                return tableExists(m_dst, QStringLiteral("big")) &&
                       countRows(m_dst, QStringLiteral("big")) > 0;
            } catch (const Error &) {
                return false; // the run holds the target's write lock longer than a read waits
            }
        };
        QTRY_VERIFY_WITH_TIMEOUT(underWay(), 120000);
    }

    // The iteration shape of `run --json` and `history --json`.
    void checkIterationShape(const QJsonObject &iteration) {
        for (const char *field : {"table_id", "duration_ms", "rows_read", "rows_written", "rows_skipped"})
            QVERIFY2(isInteger(iteration.value(QLatin1String(field))), field);
        for (const char *field : {"source", "target", "status"})
            QVERIFY2(iteration.value(QLatin1String(field)).isString(), field);
        for (const char *field : {"started_at", "watermark_before", "watermark_after", "error"})
            QVERIFY2(iteration.contains(QLatin1String(field)), field);
        QVERIFY2(isIsoUtc(iteration.value(QStringLiteral("started_at"))),
                 qPrintable(iteration.value(QStringLiteral("started_at")).toVariant().toString()));
        QVERIFY(iteration.value(QStringLiteral("duration_ms")).toInteger() >= 0);
        const QJsonValue error = iteration.value(QStringLiteral("error"));
        QVERIFY(error.isNull() || error.isString());
        for (const char *field : {"watermark_before", "watermark_after"}) {
            const QJsonValue value = iteration.value(QLatin1String(field));
            QVERIFY2(value.isNull() || (value.isString() && !value.toString().isEmpty()) || isInteger(value),
                     field);
        }
    }

private slots:
    void init() { startFixture(); }
    void cleanup() { stopFixture(); }

    void versionAndHelp() {
        const CliResult version = runCli({QStringLiteral("--version")});
        CLI_EXIT(version, 0);
        QCOMPARE(version.out, QStringLiteral("tidemark-cli %1\n").arg(QStringLiteral(TIDEMARK_VERSION)));
        const CliResult help = runCli({QStringLiteral("--help")});
        CLI_EXIT(help, 0);
        QVERIFY(help.out.contains(QStringLiteral("table add")));
        QVERIFY(help.out.contains(QStringLiteral("backfill")));
    }

    void unknownCommandAndOptionExit2() {
        setupWorkspace();
        const CliResult command = cli({QStringLiteral("frobnicate")});
        CLI_EXIT(command, 2);
        QCOMPARE(command.errLines().size(), 1);
        QVERIFY(command.err.contains(QStringLiteral("frobnicate")));

        const CliResult option = cli({QStringLiteral("run"), QStringLiteral("--frobnicate")});
        CLI_EXIT(option, 2);
        QCOMPARE(option.errLines().size(), 1);
        QVERIFY(option.err.contains(QStringLiteral("frobnicate")));

        const CliResult sub = cli({QStringLiteral("table"), QStringLiteral("frobnicate")});
        CLI_EXIT(sub, 2);
        QCOMPARE(sub.errLines().size(), 1);
        QVERIFY(sub.err.contains(QStringLiteral("frobnicate")));

        const CliResult global = runCli({QStringLiteral("--frobnicate"), QStringLiteral("init")});
        CLI_EXIT(global, 2);
        QCOMPARE(global.errLines().size(), 1);

        // Nothing ran: no run was recorded.
        const CliResult history = cli({QStringLiteral("history"), QStringLiteral("--json")});
        CLI_EXIT(history, 0);
        QCOMPARE(parseJsonArray(history.out).size(), 0);
    }

    void initRefusesOverwrite() {
        CLI_EXIT(cli({QStringLiteral("init")}), 0);
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                      QStringLiteral("--sqlite"), m_src}),
                 0);
        const bool aFile = !serverWorkspaces();
        QVERIFY(!aFile || QFileInfo::exists(m_ws));
        const QByteArray before = aFile ? fileHash(m_ws) : QByteArray();
        const CliResult again = cli({QStringLiteral("init")});
        CLI_EXIT(again, 2);
        QCOMPARE(again.errLines().size(), 1);
        QVERIFY2(again.err.contains(aFile ? QFileInfo(m_ws).fileName()
                                          : WorkspaceLocation::resolve(m_ws).schema()),
                 qPrintable(again.err));
        if (aFile)
            QCOMPARE(fileHash(m_ws), before);
        // What was there is still there.
        QCOMPARE(
            parseJsonArray(
                cli({QStringLiteral("connection"), QStringLiteral("list"), QStringLiteral("--json")}).out)
                .size(),
            1);

        // An unrelated existing file is not overwritten either.
        const QString other = path(QStringLiteral("notes.txt"));
        QFile file(other);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("keep me");
        file.close();
        const CliResult onFile = runCli({QStringLiteral("-w"), other, QStringLiteral("init")});
        CLI_EXIT(onFile, 2);
        QCOMPARE(onFile.errLines().size(), 1);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("keep me"));
    }

    void workspaceArgumentAndEnvironment() {
        // No workspace at all: usage error.
        const CliResult none = runCli({QStringLiteral("table"), QStringLiteral("list")});
        CLI_EXIT(none, 2);
        QCOMPARE(none.errLines().size(), 1);

        // A missing workspace file is named.
        const CliResult missing = runCli({QStringLiteral("-w"), path(QStringLiteral("nowhere.tidemark")),
                                          QStringLiteral("table"), QStringLiteral("list")});
        CLI_EXIT(missing, 2);
        QCOMPARE(missing.errLines().size(), 1);
        QVERIFY(missing.err.contains(QStringLiteral("nowhere.tidemark")));
        QVERIFY(!QFileInfo::exists(path(QStringLiteral("nowhere.tidemark"))));

        // A file that is not a workspace is refused and left alone.
        const QString foreign = path(QStringLiteral("foreign.db"));
        execSql(foreign, QStringLiteral("CREATE TABLE t (x INTEGER)"));
        const QByteArray foreignHash = fileHash(foreign);
        const CliResult notWorkspace =
            runCli({QStringLiteral("-w"), foreign, QStringLiteral("table"), QStringLiteral("list")});
        CLI_EXIT(notWorkspace, 2);
        QCOMPARE(notWorkspace.errLines().size(), 1);
        QVERIFY(notWorkspace.err.contains(QStringLiteral("foreign.db")));
        QCOMPARE(fileHash(foreign), foreignHash);

        // TIDEMARK_WORKSPACE is the fallback.
        const CliResult created = runCli({QStringLiteral("init")}, m_dir->path(), m_ws);
        CLI_EXIT(created, 0);
        QVERIFY(serverWorkspaces() || QFileInfo::exists(m_ws));
        const CliResult listed = runCli(
            {QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}, m_dir->path(), m_ws);
        CLI_EXIT(listed, 0);
        QCOMPARE(parseJsonArray(listed.out).size(), 0);
    }

    void connectionAddAndList() {
        CLI_EXIT(cli({QStringLiteral("init")}), 0);
        // A relative SQLite path is stored absolute (resolved where the operator typed it).
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                      QStringLiteral("--sqlite"), QStringLiteral("src.db")}),
                 0);
        CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                      QStringLiteral("--postgres"),
                      QStringLiteral("host=localhost port=5432 dbname=shop user=alice"),
                      QStringLiteral("--password-env"), QStringLiteral("SHOP_PASSWORD")}),
                 0);
        const CliResult list =
            cli({QStringLiteral("connection"), QStringLiteral("list"), QStringLiteral("--json")});
        CLI_EXIT(list, 0);
        bool ok = false;
        const QJsonArray array = parseJsonArray(list.out, &ok);
        QVERIFY2(ok, qPrintable(list.out));
        QCOMPARE(array.size(), 2);
        QJsonObject src;
        QJsonObject pg;
        for (const QJsonValue &value : array) {
            if (value.toObject().value(QStringLiteral("name")).toString() == QLatin1String("src"))
                src = value.toObject();
            else
                pg = value.toObject();
        }
        QCOMPARE(src.value(QStringLiteral("kind")).toString(), QStringLiteral("sqlite"));
        QCOMPARE(src.value(QStringLiteral("path")).toString(), QFileInfo(m_src).absoluteFilePath());
        QCOMPARE(pg.value(QStringLiteral("kind")).toString(), QStringLiteral("postgres"));
        QCOMPARE(pg.value(QStringLiteral("password_env")).toString(), QStringLiteral("SHOP_PASSWORD"));

        const CliResult text = cli({QStringLiteral("connection"), QStringLiteral("list")});
        CLI_EXIT(text, 0);
        QVERIFY(text.out.contains(QStringLiteral("src")));
        QVERIFY(text.out.contains(QStringLiteral("pg")));

        // Duplicate name, password inside CONNINFO, both kinds at once: refused, nothing added.
        const QList<QStringList> refused{
            {QStringLiteral("src"), QStringLiteral("--sqlite"), QStringLiteral("other.db")},
            {QStringLiteral("pw"), QStringLiteral("--postgres"),
             QStringLiteral("host=localhost dbname=shop user=alice password=hunter2")},
            {QStringLiteral("both"), QStringLiteral("--sqlite"), QStringLiteral("a.db"),
             QStringLiteral("--postgres"), QStringLiteral("host=localhost")},
            {QStringLiteral("neither")},
        };
        for (const QStringList &args : refused) {
            const CliResult result =
                cli(QStringList{QStringLiteral("connection"), QStringLiteral("add")} + args);
            CLI_EXIT(result, 2);
            QCOMPARE(result.errLines().size(), 1);
            QVERIFY2(!result.err.contains(QStringLiteral("hunter2")), qPrintable(result.err));
        }
        const CliResult after =
            cli({QStringLiteral("connection"), QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(parseJsonArray(after.out).size(), 2);
    }

    void tableAddPrintsOnlyIdAndListsFields() {
        setupWorkspace();
        makeOrders(m_src, 5);
        const CliResult result = cli(
            {QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("src:orders"), QStringLiteral("--target"), QStringLiteral("dst:orders_copy"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at"), QStringLiteral("--tiebreak"),
             QStringLiteral("id"), QStringLiteral("--key"), QStringLiteral("id"), QStringLiteral("--mode"),
             QStringLiteral("merge"), QStringLiteral("--lookback"), QStringLiteral("2h"),
             QStringLiteral("--max-skipped"), QStringLiteral("3"), QStringLiteral("--expect-rows")});
        CLI_EXIT(result, 0);
        QVERIFY2(QRegularExpression(QStringLiteral("^[0-9]+\\n?$")).match(result.out).hasMatch(),
                 qPrintable(result.out));
        const qint64 id = result.out.trimmed().toLongLong();
        QVERIFY(id > 0);

        const QJsonArray tables = tableList();
        QCOMPARE(tables.size(), 1);
        const QJsonObject table = tables.first().toObject();
        QVERIFY(isInteger(table.value(QStringLiteral("id"))));
        QCOMPARE(table.value(QStringLiteral("id")).toInteger(), id);
        QCOMPARE(table.value(QStringLiteral("source")).toString(), QStringLiteral("src:orders"));
        QCOMPARE(table.value(QStringLiteral("target")).toString(), QStringLiteral("dst:orders_copy"));
        QCOMPARE(table.value(QStringLiteral("watermark_column")).toString(), QStringLiteral("updated_at"));
        QCOMPARE(table.value(QStringLiteral("tiebreak_column")).toString(), QStringLiteral("id"));
        QVERIFY(table.value(QStringLiteral("key_columns")).isArray());
        QCOMPARE(table.value(QStringLiteral("key_columns")).toArray(), QJsonArray{QStringLiteral("id")});
        QCOMPARE(table.value(QStringLiteral("mode")).toString(), QStringLiteral("merge"));
        QCOMPARE(table.value(QStringLiteral("lookback")).toString(), QStringLiteral("2h"));
        QVERIFY(table.contains(QStringLiteral("last_watermark")));
        QVERIFY(table.value(QStringLiteral("last_watermark")).isNull());
        QCOMPARE(table.value(QStringLiteral("active")), QJsonValue(true));
        QCOMPARE(table.value(QStringLiteral("watermark_type")).toString(), QStringLiteral("timestamp"));
        QCOMPARE(table.value(QStringLiteral("max_skipped")).toInteger(), 3);
        QCOMPARE(table.value(QStringLiteral("expect_rows")), QJsonValue(true));

        // A second table gets a new id; ids are not reused after a remove.
        const qint64 second = addOrders();
        QVERIFY(second > id);
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(second)}), 0);
        // Its own target: the removed table still owns dst:orders.
        const qint64 third = addTable({QStringLiteral("--source"), QStringLiteral("src:orders"),
                                       QStringLiteral("--target"), QStringLiteral("dst:orders_third"),
                                       QStringLiteral("--watermark"), QStringLiteral("updated_at")});
        QVERIFY(third > second);
        QCOMPARE(tableList().size(), 2);

        const CliResult text = cli({QStringLiteral("table"), QStringLiteral("list")});
        CLI_EXIT(text, 0);
        QVERIFY(text.out.contains(QStringLiteral("src:orders")));
    }

    void tableAddRefusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("culprits");
        const QString wm = QStringLiteral("--watermark");
        const QString src = QStringLiteral("--source");
        const QString dst = QStringLiteral("--target");
        const QString orders = QStringLiteral("src:orders");
        const QString out = QStringLiteral("dst:out");
        const QString upd = QStringLiteral("updated_at");
        QTest::newRow("missing source connection")
            << QStringList{src, QStringLiteral("nope:orders"), dst, out, wm, upd}
            << QStringList{QStringLiteral("nope")};
        QTest::newRow("missing target connection")
            << QStringList{src, orders, dst, QStringLiteral("nodst:out"), wm, upd}
            << QStringList{QStringLiteral("nodst")};
        QTest::newRow("missing source table")
            << QStringList{src, QStringLiteral("src:nosuch"), dst, out, wm, upd}
            << QStringList{QStringLiteral("nosuch")};
        QTest::newRow("missing watermark column")
            << QStringList{src, orders, dst, out, wm, QStringLiteral("nocol")}
            << QStringList{QStringLiteral("nocol")};
        QTest::newRow("unusable watermark type")
            << QStringList{src, orders, dst, out, wm, QStringLiteral("customer")}
            << QStringList{QStringLiteral("customer")};
        QTest::newRow("lookback without merge")
            << QStringList{src, orders, dst, out, wm, upd, QStringLiteral("--lookback"), QStringLiteral("2h")}
            << QStringList{QStringLiteral("lookback")};
        QTest::newRow("merge without key or primary key") << QStringList{src,
                                                                         QStringLiteral("src:nopk"),
                                                                         dst,
                                                                         out,
                                                                         wm,
                                                                         upd,
                                                                         QStringLiteral("--mode"),
                                                                         QStringLiteral("merge")}
                                                          << QStringList{QStringLiteral("nopk")};
        QTest::newRow("merge with missing key column") << QStringList{src,
                                                                      orders,
                                                                      dst,
                                                                      out,
                                                                      wm,
                                                                      upd,
                                                                      QStringLiteral("--mode"),
                                                                      QStringLiteral("merge"),
                                                                      QStringLiteral("--key"),
                                                                      QStringLiteral("nokey")}
                                                       << QStringList{QStringLiteral("nokey")};
        QTest::newRow("bad mode")
            << QStringList{src, orders, dst, out, wm, upd, QStringLiteral("--mode"), QStringLiteral("upsert")}
            << QStringList{QStringLiteral("mode"), QStringLiteral("upsert")};
        QTest::newRow("bad initial watermark")
            << QStringList{src,
                           orders,
                           dst,
                           out,
                           wm,
                           upd,
                           QStringLiteral("--initial-watermark"),
                           QStringLiteral("yesterday")}
            << QStringList{QStringLiteral("initial"), QStringLiteral("yesterday")};
        QTest::newRow("bad lookback value")
            << QStringList{src,
                           orders,
                           dst,
                           out,
                           wm,
                           upd,
                           QStringLiteral("--mode"),
                           QStringLiteral("merge"),
                           QStringLiteral("--lookback"),
                           QStringLiteral("fortnight")}
            << QStringList{QStringLiteral("lookback"), QStringLiteral("fortnight")};
        QTest::newRow("watermark missing")
            << QStringList{src, orders, dst, out} << QStringList{QStringLiteral("watermark")};
        QTest::newRow("source not CONN:TABLE")
            << QStringList{src, QStringLiteral("orders"), dst, out, wm, upd}
            << QStringList{QStringLiteral("--source")};
        QTest::newRow("negative max skipped") << QStringList{src,
                                                             orders,
                                                             dst,
                                                             out,
                                                             wm,
                                                             upd,
                                                             QStringLiteral("--max-skipped"),
                                                             QStringLiteral("-1")}
                                              << QStringList{QStringLiteral("max-skipped")};
        QTest::newRow("missing tiebreak column") << QStringList{src,
                                                                orders,
                                                                dst,
                                                                out,
                                                                wm,
                                                                upd,
                                                                QStringLiteral("--tiebreak"),
                                                                QStringLiteral("notie")}
                                                 << QStringList{QStringLiteral("notie")};
    }

    void tableAddRefusals() {
        QFETCH(QStringList, args);
        QFETCH(QStringList, culprits);
        setupWorkspace();
        makeOrders(m_src, 5);
        makeOrders(m_src, 3, 1, QStringLiteral("nopk"), false);
        addOrders();
        const CliResult before =
            cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")});
        CLI_EXIT(before, 0);

        const CliResult result = cli(QStringList{QStringLiteral("table"), QStringLiteral("add")} + args);
        CLI_EXIT(result, 2);
        QVERIFY2(result.out.isEmpty(), qPrintable(result.out));
        QVERIFY2(result.errLines().size() == 1, qPrintable(result.err));
        QVERIFY2(containsAnyOf(result.err, culprits), qPrintable(result.err));

        const CliResult after =
            cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")});
        CLI_EXIT(after, 0);
        QCOMPARE(after.out, before.out);
    }

    void runJsonFieldsAndTypes() {
        setupWorkspace();
        makeOrders(m_src, 10);
        const qint64 id = addOrders();
        const QJsonObject run = runJson({}, 0);
        QVERIFY(!QTest::currentTestFailed());
        QVERIFY(isInteger(run.value(QStringLiteral("run_id"))));
        QVERIFY(run.value(QStringLiteral("run_id")).toInteger() > 0);
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        const QJsonArray iterations = run.value(QStringLiteral("iterations")).toArray();
        QCOMPARE(iterations.size(), 1);
        const QJsonObject it = iterations.first().toObject();
        checkIterationShape(it);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(it.value(QStringLiteral("table_id")).toInteger(), id);
        QCOMPARE(it.value(QStringLiteral("source")).toString(), QStringLiteral("src:orders"));
        QCOMPARE(it.value(QStringLiteral("target")).toString(), QStringLiteral("dst:orders"));
        QCOMPARE(it.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(it.value(QStringLiteral("rows_read")).toInteger(), 10);
        QCOMPARE(it.value(QStringLiteral("rows_written")).toInteger(), 10);
        QCOMPARE(it.value(QStringLiteral("rows_skipped")).toInteger(), 0);
        QVERIFY(it.value(QStringLiteral("watermark_before")).isNull());
        QVERIFY(isIsoUtc(it.value(QStringLiteral("watermark_after"))));
        QCOMPARE(micros(it.value(QStringLiteral("watermark_after")).toString()), micros(orderTimestamp(10)));
        QVERIFY(it.value(QStringLiteral("error")).isNull());
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);

        // The control table follows.
        const QJsonObject table = tableEntry(id);
        QCOMPARE(table.value(QStringLiteral("last_watermark")), it.value(QStringLiteral("watermark_after")));

        // Without --json: one line per iteration and a summary, exit 0.
        const CliResult text = cli({QStringLiteral("run")});
        CLI_EXIT(text, 0);
        QVERIFY(text.out.contains(QStringLiteral("src:orders")));
        QVERIFY(text.out.contains(QStringLiteral("no_new_rows")));
    }

    void incrementalSecondRun() {
        setupWorkspace();
        makeOrders(m_src, 10);
        const qint64 id = addOrders();
        const QJsonObject first = iterationFor(runJson({}, 0), id);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(first.value(QStringLiteral("rows_written")).toInteger(), 10);

        makeOrders(m_src, 5, 11);
        const QJsonObject run2 = runJson({}, 0);
        QVERIFY(!QTest::currentTestFailed());
        const QJsonObject second = iterationFor(run2, id);
        QCOMPARE(second.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(second.value(QStringLiteral("rows_read")).toInteger(), 5);
        QCOMPARE(second.value(QStringLiteral("rows_written")).toInteger(), 5);
        QCOMPARE(second.value(QStringLiteral("watermark_before")),
                 first.value(QStringLiteral("watermark_after")));
        QCOMPARE(micros(second.value(QStringLiteral("watermark_after")).toString()),
                 micros(orderTimestamp(15)));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 15);
        QCOMPARE(queryValue(m_dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(), 15);

        const QJsonObject third = iterationFor(runJson({}, 0), id);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(third.value(QStringLiteral("status")).toString(), QStringLiteral("no_new_rows"));
        QCOMPARE(third.value(QStringLiteral("rows_read")).toInteger(), 0);
        QCOMPARE(third.value(QStringLiteral("watermark_after")),
                 second.value(QStringLiteral("watermark_after")));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 15);
    }

    void pausedTableIsSkipped() {
        setupWorkspace();
        makeOrders(m_src, 5);
        const qint64 id = addOrders(QStringLiteral("orders"), {QStringLiteral("--paused")});
        QCOMPARE(tableEntry(id).value(QStringLiteral("active")), QJsonValue(false));

        const QJsonObject skipped = iterationFor(runJson({}, 0), id);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(skipped.value(QStringLiteral("status")).toString(), QStringLiteral("skipped"));
        QCOMPARE(skipped.value(QStringLiteral("rows_written")).toInteger(), 0);
        QVERIFY(!tableExists(m_dst, QStringLiteral("orders")) ||
                countRows(m_dst, QStringLiteral("orders")) == 0);

        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("resume"), QString::number(id)}), 0);
        QCOMPARE(tableEntry(id).value(QStringLiteral("active")), QJsonValue(true));
        const QJsonObject copied = iterationFor(runJson({}, 0), id);
        QCOMPARE(copied.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 5);

        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("pause"), QString::number(id)}), 0);
        QCOMPARE(tableEntry(id).value(QStringLiteral("active")), QJsonValue(false));

        // Unknown ids are usage errors naming the id.
        for (const QString &sub :
             {QStringLiteral("pause"), QStringLiteral("resume"), QStringLiteral("remove")}) {
            const CliResult result = cli({QStringLiteral("table"), sub, QStringLiteral("999")});
            CLI_EXIT(result, 2);
            QCOMPARE(result.errLines().size(), 1);
            QVERIFY(result.err.contains(QStringLiteral("999")));
        }
        const CliResult badRun =
            cli({QStringLiteral("run"), QStringLiteral("--table"), QStringLiteral("999")});
        CLI_EXIT(badRun, 2);
        QCOMPARE(badRun.errLines().size(), 1);
        QVERIFY(badRun.err.contains(QStringLiteral("999")));

        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(id)}), 0);
        QCOMPARE(tableList().size(), 0);
    }

    void brokenTableNextToHealthyOne() {
        setupWorkspace();
        makeOrders(m_src, 5);
        makeOrders(m_src, 5, 1, QStringLiteral("gone"));
        const qint64 healthy = addOrders();
        const qint64 broken = addOrders(QStringLiteral("gone"));
        execSql(m_src, QStringLiteral("DROP TABLE gone"));

        const CliResult result = cli({QStringLiteral("run"), QStringLiteral("--json")});
        CLI_EXIT(result, 1);
        bool ok = false;
        const QJsonObject run = parseJsonObject(result.out, &ok);
        QVERIFY2(ok, qPrintable(result.out));
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        const QJsonObject good = iterationFor(run, healthy);
        const QJsonObject bad = iterationFor(run, broken);
        checkIterationShape(good);
        checkIterationShape(bad);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(good.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(good.value(QStringLiteral("rows_written")).toInteger(), 5);
        QCOMPARE(bad.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QVERIFY(bad.value(QStringLiteral("error")).isString());
        QVERIFY2(bad.value(QStringLiteral("error")).toString().contains(QStringLiteral("gone")),
                 qPrintable(bad.value(QStringLiteral("error")).toString()));
        QVERIFY(bad.value(QStringLiteral("watermark_after")).isNull());
        QVERIFY2(result.err.contains(QStringLiteral("gone")), qPrintable(result.err));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 5);
        QVERIFY(tableEntry(broken).value(QStringLiteral("last_watermark")).isNull());
    }

    void dryRun() {
        setupWorkspace();
        makeOrders(m_src, 10);
        const qint64 id = addOrders();
        const QJsonObject first = iterationFor(runJson({}, 0), id);
        QVERIFY(!QTest::currentTestFailed());
        makeOrders(m_src, 4, 11);

        const QJsonObject run = runJson({QStringLiteral("--dry-run")}, 0);
        QVERIFY(!QTest::currentTestFailed());
        const QJsonObject it = iterationFor(run, id);
        checkIterationShape(it);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(it.value(QStringLiteral("status")).toString(), QStringLiteral("dry_run"));
        QCOMPARE(it.value(QStringLiteral("rows_read")).toInteger(), 4);
        QCOMPARE(it.value(QStringLiteral("rows_written")).toInteger(), 0);
        QCOMPARE(it.value(QStringLiteral("watermark_before")),
                 first.value(QStringLiteral("watermark_after")));
        QCOMPARE(micros(it.value(QStringLiteral("watermark_after")).toString()), micros(orderTimestamp(14)));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);
        QCOMPARE(tableEntry(id).value(QStringLiteral("last_watermark")),
                 first.value(QStringLiteral("watermark_after")));

        // The real run afterwards copies exactly that window.
        const QJsonObject real = iterationFor(runJson({}, 0), id);
        QCOMPARE(real.value(QStringLiteral("rows_written")).toInteger(), 4);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 14);
    }

    void historyNewestFirst() {
        setupWorkspace();
        makeOrders(m_src, 3);
        const qint64 id = addOrders();
        const qint64 run1 = runJson({}, 0).value(QStringLiteral("run_id")).toInteger();
        makeOrders(m_src, 2, 4);
        const qint64 run2 =
            runJson({QStringLiteral("--dry-run")}, 0).value(QStringLiteral("run_id")).toInteger();
        const qint64 run3 = runJson({QStringLiteral("--concurrency"), QStringLiteral("1")}, 0)
                                .value(QStringLiteral("run_id"))
                                .toInteger();
        QVERIFY(!QTest::currentTestFailed());
        QVERIFY(run1 < run2 && run2 < run3);

        const CliResult result = cli({QStringLiteral("history"), QStringLiteral("--json")});
        CLI_EXIT(result, 0);
        bool ok = false;
        const QJsonArray runs = parseJsonArray(result.out, &ok);
        QVERIFY2(ok, qPrintable(result.out));
        QCOMPARE(runs.size(), 3);
        QCOMPARE(runs.at(0).toObject().value(QStringLiteral("run_id")).toInteger(), run3);
        QCOMPARE(runs.at(1).toObject().value(QStringLiteral("run_id")).toInteger(), run2);
        QCOMPARE(runs.at(2).toObject().value(QStringLiteral("run_id")).toInteger(), run1);
        for (const QJsonValue &value : runs) {
            const QJsonObject run = value.toObject();
            QCOMPARE(run.value(QStringLiteral("trigger")).toString(), QStringLiteral("cli"));
            QVERIFY(run.value(QStringLiteral("host")).isString());
            QVERIFY(isIsoUtc(run.value(QStringLiteral("started_at"))));
            QVERIFY(isIsoUtc(run.value(QStringLiteral("finished_at"))));
            QVERIFY(isInteger(run.value(QStringLiteral("concurrency"))));
            QVERIFY(run.value(QStringLiteral("dry_run")).isBool());
            QVERIFY(run.value(QStringLiteral("status")).isString());
            const QJsonArray iterations = run.value(QStringLiteral("iterations")).toArray();
            QCOMPARE(iterations.size(), 1);
            checkIterationShape(iterations.first().toObject());
            QVERIFY(!QTest::currentTestFailed());
            QCOMPARE(iterations.first().toObject().value(QStringLiteral("table_id")).toInteger(), id);
        }
        QCOMPARE(runs.at(0).toObject().value(QStringLiteral("concurrency")).toInteger(), 1);
        QCOMPARE(runs.at(1).toObject().value(QStringLiteral("dry_run")), QJsonValue(true));
        QCOMPARE(runs.at(1).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("dry_run"));
        const QJsonObject last =
            runs.at(0).toObject().value(QStringLiteral("iterations")).toArray().first().toObject();
        QCOMPARE(last.value(QStringLiteral("rows_written")).toInteger(), 2);
        QCOMPARE(runs.at(2)
                     .toObject()
                     .value(QStringLiteral("iterations"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("rows_written"))
                     .toInteger(),
                 3);

        const CliResult limited = cli({QStringLiteral("history"), QStringLiteral("--limit"),
                                       QStringLiteral("1"), QStringLiteral("--json")});
        CLI_EXIT(limited, 0);
        const QJsonArray one = parseJsonArray(limited.out);
        QCOMPARE(one.size(), 1);
        QCOMPARE(one.first().toObject().value(QStringLiteral("run_id")).toInteger(), run3);

        const CliResult single = cli({QStringLiteral("history"), QStringLiteral("--run"),
                                      QString::number(run1), QStringLiteral("--json")});
        CLI_EXIT(single, 0);
        const QJsonArray only = parseJsonArray(single.out);
        QCOMPARE(only.size(), 1);
        QCOMPARE(only.first().toObject().value(QStringLiteral("run_id")).toInteger(), run1);

        const CliResult text = cli({QStringLiteral("history")});
        CLI_EXIT(text, 0);
        QVERIFY(text.out.contains(QStringLiteral("src:orders")));

        const CliResult badLimit =
            cli({QStringLiteral("history"), QStringLiteral("--limit"), QStringLiteral("many")});
        CLI_EXIT(badLimit, 2);
        QCOMPARE(badLimit.errLines().size(), 1);
        QVERIFY(badLimit.err.contains(QStringLiteral("--limit")));
    }

    // A long history streams: 100 runs by default, all with --limit 0, valid JSON either way;
    // --table keeps that table's runs, each with its iteration only.
    void historyStreamsWithADefaultLimit() {
        setupWorkspace();
        makeOrders(m_src, 3);
        execSql(m_src, QStringLiteral("CREATE TABLE orders2 AS SELECT * FROM orders"));
        QCOMPARE(addOrders(), 1);
        QCOMPARE(addOrders(QStringLiteral("orders2")), 2);
        constexpr int kRuns = 1050;
        fillHistory(m_ws, kRuns, 3);
        QList<RunCursor> order;
        for (int run = 1; run <= kRuns; ++run)
            order << RunCursor{historyRunStart(run), run};
        std::sort(order.begin(), order.end(), newerFirst);
        const auto ids = [](const QJsonArray &runs) {
            QList<qint64> list;
            for (const QJsonValue &run : runs)
                list << run.toObject().value(QStringLiteral("run_id")).toInteger();
            return list;
        };
        QList<qint64> expected;
        for (const RunCursor &cursor : order)
            expected << cursor.runId;

        const CliResult byDefault = cli({QStringLiteral("history"), QStringLiteral("--json")});
        CLI_EXIT(byDefault, 0);
        bool ok = false;
        const QJsonArray newest = parseJsonArray(byDefault.out, &ok);
        QVERIFY2(ok, qPrintable(byDefault.out.left(200)));
        QCOMPARE(ids(newest), expected.mid(0, 100));
        QVERIFY(byDefault.out.endsWith(QStringLiteral("]\n")));

        const CliResult all = cli({QStringLiteral("history"), QStringLiteral("--json"),
                                   QStringLiteral("--limit"), QStringLiteral("0")});
        CLI_EXIT(all, 0);
        const QJsonArray every = parseJsonArray(all.out, &ok);
        QVERIFY(ok);
        QCOMPARE(ids(every), expected);
        // The same bytes a whole array would give: one compact line.
        QCOMPARE(all.out.toUtf8(), QJsonDocument(every).toJson(QJsonDocument::Compact) + '\n');
        const QJsonObject run42 = every.at(int(expected.indexOf(42))).toObject();
        int copiedBy42 = 0;
        for (int t = 1; t <= 3; ++t)
            copiedBy42 += historyCopies(42, t) ? 1 : 0;
        QCOMPARE(run42.value(QStringLiteral("iterations")).toArray().size(), copiedBy42);

        const CliResult table =
            cli({QStringLiteral("history"), QStringLiteral("--json"), QStringLiteral("--table"),
                 QStringLiteral("2"), QStringLiteral("--limit"), QStringLiteral("0")});
        CLI_EXIT(table, 0);
        const QJsonArray tableRuns = parseJsonArray(table.out, &ok);
        QVERIFY(ok);
        QList<qint64> copied;
        for (qint64 id : expected) {
            if (historyCopies(int(id), 2))
                copied << id;
        }
        QCOMPARE(ids(tableRuns), copied);
        for (const QJsonValue &value : tableRuns) {
            const QJsonArray iterations = value.toObject().value(QStringLiteral("iterations")).toArray();
            QCOMPARE(iterations.size(), 1);
            const QJsonObject it = iterations.first().toObject();
            QCOMPARE(it.value(QStringLiteral("table_id")).toInteger(), 2);
            QCOMPARE(
                it.value(QStringLiteral("rows_written")).toInteger(),
                historyRowsWritten(int(value.toObject().value(QStringLiteral("run_id")).toInteger()), 2));
        }

        const CliResult text =
            cli({QStringLiteral("history"), QStringLiteral("--limit"), QStringLiteral("3")});
        CLI_EXIT(text, 0);
        QCOMPARE(text.out.count(
                     QRegularExpression(QStringLiteral("^run \\d+ "), QRegularExpression::MultilineOption)),
                 3);
        const CliResult unknown =
            cli({QStringLiteral("history"), QStringLiteral("--table"), QStringLiteral("9")});
        CLI_EXIT(unknown, 2);
        QVERIFY(unknown.err.contains(QStringLiteral("table 9")));
        QVERIFY(runCli({QStringLiteral("--help")}).out.contains(QStringLiteral("the newest 100 runs")));
    }

    void backfillDeleteNewer() {
        setupWorkspace();
        makeOrders(m_src, 10);
        const qint64 id = addOrders();
        runJson({}, 0);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);

        // --from without fraction or zone means UTC.
        const CliResult result =
            cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--from"),
                 QStringLiteral("2025-01-01T00:05:00"), QStringLiteral("--delete-newer")});
        CLI_EXIT(result, 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 5);
        QCOMPARE(micros(tableEntry(id).value(QStringLiteral("last_watermark")).toString()),
                 micros(orderTimestamp(5)));

        const QJsonObject rerun = iterationFor(runJson({}, 0), id);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(rerun.value(QStringLiteral("rows_read")).toInteger(), 5);
        QCOMPARE(rerun.value(QStringLiteral("rows_written")).toInteger(), 5);
        QCOMPARE(micros(rerun.value(QStringLiteral("watermark_before")).toString()),
                 micros(orderTimestamp(5)));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);
        QCOMPARE(queryValue(m_dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(), 10);
    }

    void backfillTruncate() {
        setupWorkspace();
        makeOrders(m_src, 10);
        const qint64 id = addOrders();
        runJson({}, 0);
        QVERIFY(!QTest::currentTestFailed());

        const CliResult result =
            cli({QStringLiteral("backfill"), QString::number(id), QStringLiteral("--truncate")});
        CLI_EXIT(result, 0);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 0);

        const QJsonObject rerun = iterationFor(runJson({}, 0), id);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(rerun.value(QStringLiteral("rows_written")).toInteger(), 10);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);
    }

    void backfillKeep() {
        setupWorkspace();
        makeOrders(m_src, 10);
        const qint64 append = addOrders();
        const qint64 merge =
            addTable({QStringLiteral("--source"), QStringLiteral("src:orders"), QStringLiteral("--target"),
                      QStringLiteral("dst:orders_merged"), QStringLiteral("--watermark"),
                      QStringLiteral("updated_at"), QStringLiteral("--mode"), QStringLiteral("merge")});
        runJson({}, 0);
        QVERIFY(!QTest::currentTestFailed());
        const QJsonValue appendWatermark = tableEntry(append).value(QStringLiteral("last_watermark"));
        const QString from = QStringLiteral("2025-01-01T00:05:00Z");

        // Keeping an append table's rows would duplicate them: refused without --yes.
        const CliResult refused = cli({QStringLiteral("backfill"), QString::number(append),
                                       QStringLiteral("--from"), from, QStringLiteral("--keep")});
        CLI_EXIT(refused, 2);
        QCOMPARE(refused.errLines().size(), 1);
        QCOMPARE(tableEntry(append).value(QStringLiteral("last_watermark")), appendWatermark);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);

        const CliResult confirmed =
            cli({QStringLiteral("backfill"), QString::number(append), QStringLiteral("--from"), from,
                 QStringLiteral("--keep"), QStringLiteral("--yes")});
        CLI_EXIT(confirmed, 0);
        QCOMPARE(micros(tableEntry(append).value(QStringLiteral("last_watermark")).toString()),
                 micros(orderTimestamp(5)));
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 10);

        // Merge: keep is safe, and the rerun re-copies the window without doubling.
        const CliResult keepMerge = cli({QStringLiteral("backfill"), QString::number(merge),
                                         QStringLiteral("--from"), from, QStringLiteral("--keep")});
        CLI_EXIT(keepMerge, 0);
        const QJsonObject rerun =
            iterationFor(runJson({QStringLiteral("--table"), QString::number(merge)}, 0), merge);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(rerun.value(QStringLiteral("rows_read")).toInteger(), 5);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders_merged")), 10);

        // Usage errors: no action, two actions, no --from, unknown table.
        const QList<QStringList> bad{
            {QStringLiteral("backfill"), QString::number(merge), QStringLiteral("--from"), from},
            {QStringLiteral("backfill"), QString::number(merge), QStringLiteral("--from"), from,
             QStringLiteral("--keep"), QStringLiteral("--truncate")},
            {QStringLiteral("backfill"), QString::number(merge), QStringLiteral("--keep")},
            {QStringLiteral("backfill"), QStringLiteral("999"), QStringLiteral("--from"), from,
             QStringLiteral("--keep")},
            {QStringLiteral("backfill"), QString::number(merge), QStringLiteral("--from"),
             QStringLiteral("not a time"), QStringLiteral("--keep")},
        };
        for (const QStringList &args : bad) {
            const CliResult result = cli(args);
            CLI_EXIT(result, 2);
            QVERIFY2(result.errLines().size() == 1, qPrintable(result.err));
        }
    }

    void verifyMatchAndMismatch() {
        setupWorkspace();
        makeOrders(m_src, 10);
        const qint64 id =
            addOrders(QStringLiteral("orders"), {QStringLiteral("--mode"), QStringLiteral("merge"),
                                                 QStringLiteral("--key"), QStringLiteral("id")});
        runJson({}, 0);
        QVERIFY(!QTest::currentTestFailed());

        const CliResult match = cli({QStringLiteral("verify"), QStringLiteral("--json")});
        CLI_EXIT(match, 0);
        bool ok = false;
        QJsonArray results = parseJsonArray(match.out, &ok);
        QVERIFY2(ok, qPrintable(match.out));
        QCOMPARE(results.size(), 1);
        QJsonObject result = results.first().toObject();
        QCOMPARE(result.value(QStringLiteral("table_id")).toInteger(), id);
        QCOMPARE(result.value(QStringLiteral("source")).toString(), QStringLiteral("src:orders"));
        QCOMPARE(result.value(QStringLiteral("target")).toString(), QStringLiteral("dst:orders"));
        QCOMPARE(result.value(QStringLiteral("matches")), QJsonValue(true));
        QCOMPARE(result.value(QStringLiteral("source_rows")).toInteger(), 10);
        QCOMPARE(result.value(QStringLiteral("target_rows")).toInteger(), 10);
        for (const char *field : {"missing_in_target", "extra_in_target", "differing"}) {
            QVERIFY2(isInteger(result.value(QLatin1String(field))), field);
            QCOMPARE(result.value(QLatin1String(field)).toInteger(), 0);
        }
        QVERIFY(result.contains(QStringLiteral("difference")));

        execSql(m_dst, QStringLiteral("DELETE FROM orders WHERE id = 3"));
        const CliResult mismatch = cli({QStringLiteral("verify"), QStringLiteral("--json")});
        CLI_EXIT(mismatch, 1);
        results = parseJsonArray(mismatch.out, &ok);
        QVERIFY2(ok, qPrintable(mismatch.out));
        result = results.first().toObject();
        QCOMPARE(result.value(QStringLiteral("matches")), QJsonValue(false));
        QCOMPARE(result.value(QStringLiteral("source_rows")).toInteger(), 10);
        QCOMPARE(result.value(QStringLiteral("target_rows")).toInteger(), 9);
        QCOMPARE(result.value(QStringLiteral("missing_in_target")).toInteger(), 1);
        QVERIFY(result.value(QStringLiteral("difference")).isString());
        QVERIFY(!result.value(QStringLiteral("difference")).toString().isEmpty());

        const CliResult text =
            cli({QStringLiteral("verify"), QStringLiteral("--table"), QString::number(id)});
        CLI_EXIT(text, 1);
        QVERIFY2((text.out + text.err).contains(QStringLiteral("src:orders")),
                 qPrintable(text.out + text.err));
        QVERIFY(!text.errLines().isEmpty());
    }

    void hostileTableName() {
        setupWorkspace();
        const QString name = QStringLiteral("we\"ird; tbl");
        makeOrders(m_src, 3, 1, name);
        const qint64 id = addOrders(name);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(tableEntry(id).value(QStringLiteral("source")).toString(), QStringLiteral("src:") + name);

        const QJsonObject it = iterationFor(runJson({}, 0), id);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(it.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(it.value(QStringLiteral("rows_written")).toInteger(), 3);
        QCOMPARE(it.value(QStringLiteral("source")).toString(), QStringLiteral("src:") + name);
        QVERIFY(tableExists(m_dst, name));
        QCOMPARE(countRows(m_dst, name), 3);
        QCOMPARE(countRows(m_src, name), 3);
        QVERIFY(tableExists(m_dst, QStringLiteral("unrelated")));

        const CliResult verify =
            cli({QStringLiteral("verify"), QStringLiteral("--table"), QString::number(id)});
        CLI_EXIT(verify, 0);
    }
    void integerWatermarkAndOverwrite() {
        setupWorkspace();
        makeOrders(m_src, 6);
        const qint64 byId =
            addTable({QStringLiteral("--source"), QStringLiteral("src:orders"), QStringLiteral("--target"),
                      QStringLiteral("dst:by_id"), QStringLiteral("--watermark"), QStringLiteral("id"),
                      QStringLiteral("--initial-watermark"), QStringLiteral("2")});
        const qint64 whole =
            addTable({QStringLiteral("--source"), QStringLiteral("src:orders"), QStringLiteral("--target"),
                      QStringLiteral("dst:whole"), QStringLiteral("--mode"), QStringLiteral("overwrite")});
        QVERIFY(!QTest::currentTestFailed());
        QJsonObject entry = tableEntry(byId);
        QCOMPARE(entry.value(QStringLiteral("watermark_type")).toString(), QStringLiteral("integer"));
        QCOMPARE(entry.value(QStringLiteral("initial_watermark")).toInteger(), 2);
        QVERIFY(tableEntry(whole).value(QStringLiteral("watermark_column")).isNull());

        const QJsonObject run = runJson({}, 0);
        QVERIFY(!QTest::currentTestFailed());
        const QJsonObject it = iterationFor(run, byId);
        checkIterationShape(it);
        QVERIFY(!QTest::currentTestFailed());
        // The initial watermark is exclusive: ids 3..6.
        QCOMPARE(it.value(QStringLiteral("rows_written")).toInteger(), 4);
        QCOMPARE(it.value(QStringLiteral("watermark_before")).toInteger(), 2);
        QCOMPARE(it.value(QStringLiteral("watermark_after")).toInteger(), 6);
        QCOMPARE(tableEntry(byId).value(QStringLiteral("last_watermark")).toInteger(), 6);
        QCOMPARE(countRows(m_dst, QStringLiteral("by_id")), 4);
        QCOMPARE(iterationFor(run, whole).value(QStringLiteral("status")).toString(),
                 QStringLiteral("succeeded"));
        QCOMPARE(countRows(m_dst, QStringLiteral("whole")), 6);

        // Overwrite replaces the whole target on every run.
        makeOrders(m_src, 2, 7);
        const QJsonObject again = runJson({}, 0);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(countRows(m_dst, QStringLiteral("whole")), 8);
        QCOMPARE(iterationFor(again, byId).value(QStringLiteral("rows_written")).toInteger(), 2);
        QCOMPARE(countRows(m_dst, QStringLiteral("by_id")), 6);

        const CliResult backfill =
            cli({QStringLiteral("backfill"), QString::number(byId), QStringLiteral("--from"),
                 QStringLiteral("4"), QStringLiteral("--delete-newer"), QStringLiteral("--json")});
        CLI_EXIT(backfill, 0);
        const QJsonObject result = parseJsonObject(backfill.out);
        QCOMPARE(result.value(QStringLiteral("watermark_before")).toInteger(), 8);
        QCOMPARE(result.value(QStringLiteral("watermark_after")).toInteger(), 4);
        QCOMPARE(countRows(m_dst, QStringLiteral("by_id")), 2);
    }

    void interruptCancelsTheRun() {
        setupWorkspace();
        const int rows = 200000;
        const qint64 id = addBigTable(rows);
        QVERIFY(!QTest::currentTestFailed());

        QProcess process;
        startRunUnderWay(process);
        QVERIFY(!QTest::currentTestFailed());
        ::kill(pid_t(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(300000));
        const QString out = QString::fromUtf8(process.readAllStandardOutput());
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QVERIFY2(process.exitCode() == 1, qPrintable(out + err));
        bool ok = false;
        const QJsonObject run = parseJsonObject(out, &ok);
        QVERIFY2(ok, qPrintable(out));
        QCOMPARE(iterationFor(run, id).value(QStringLiteral("status")).toString(),
                 QStringLiteral("cancelled"));
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("cancelled"));
        const qint64 kept = countRows(m_dst, QStringLiteral("big"));
        QVERIFY(kept < rows);

        // The rerun resumes after the committed batches: nothing lost, nothing doubled.
        const QJsonObject rerun = iterationFor(runJson({}, 0), id);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(rerun.value(QStringLiteral("rows_written")).toInteger() + kept, qint64(rows));
        QCOMPARE(countRows(m_dst, QStringLiteral("big")), qint64(rows));
        QCOMPARE(queryValue(m_dst, QStringLiteral("SELECT count(DISTINCT id) FROM big")).toLongLong(),
                 qint64(rows));
    }

    void removedTableIsArchived() {
        setupWorkspace();
        makeOrders(m_src, 5);
        makeOrders(m_src, 3, 1, QStringLiteral("items"));
        makeOrders(m_src, 1, 1, QStringLiteral("third"));
        const qint64 id =
            addOrders(QStringLiteral("orders"), {QStringLiteral("--tiebreak"), QStringLiteral("id")});
        const qint64 other = addOrders(QStringLiteral("items"));
        QVERIFY(!QTest::currentTestFailed());
        runJson({}, 0);
        const QJsonObject before = tableEntry(id);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 5);

        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(id)}), 0);
        // Hidden from both lists and from a plain run...
        QCOMPARE(tableList().size(), 1);
        QCOMPARE(tableList().first().toObject().value(QStringLiteral("id")).toInteger(), other);
        const CliResult text = cli({QStringLiteral("table"), QStringLiteral("list")});
        CLI_EXIT(text, 0);
        QVERIFY2(!text.out.contains(QStringLiteral("src:orders")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("src:items")), qPrintable(text.out));
        const QJsonObject plain = runJson({}, 0);
        QVERIFY(!QTest::currentTestFailed());
        QVERIFY(iterationFor(plain, id).isEmpty());
        // ...listed on request...
        const CliResult archived = cli({QStringLiteral("table"), QStringLiteral("list"),
                                        QStringLiteral("--archived"), QStringLiteral("--json")});
        CLI_EXIT(archived, 0);
        const QJsonArray archivedList = parseJsonArray(archived.out);
        QCOMPARE(archivedList.size(), 1);
        QCOMPARE(archivedList.first().toObject().value(QStringLiteral("id")).toInteger(), id);
        // ...and a run naming it is refused, saying how to bring it back.
        const CliResult refused =
            cli({QStringLiteral("run"), QStringLiteral("--table"), QString::number(id)});
        CLI_EXIT(refused, 2);
        QCOMPARE(refused.errLines().size(), 1);
        QVERIFY2(refused.err.contains(QStringLiteral("table %1").arg(id)), qPrintable(refused.err));
        QVERIFY2(refused.err.contains(QStringLiteral("src:orders")), qPrintable(refused.err));
        QVERIFY2(refused.err.contains(QStringLiteral("table restore %1").arg(id)), qPrintable(refused.err));
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("remove"), QString::number(id)}), 2);
        // Ids are never reused, not even while a table is archived.
        const qint64 third = addOrders(QStringLiteral("third"));
        QVERIFY(third > other);

        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("restore"), QString::number(id)}), 0);
        const QJsonObject after = tableEntry(id);
        QCOMPARE(after, before); // same id, same configuration, same position
        const CliResult again =
            cli({QStringLiteral("table"), QStringLiteral("restore"), QString::number(id)});
        CLI_EXIT(again, 2);
        QVERIFY2(again.err.contains(QString::number(id)), qPrintable(again.err));
        CLI_EXIT(cli({QStringLiteral("table"), QStringLiteral("restore"), QStringLiteral("999")}), 2);

        // It carries on from where it was: only the new rows, each once.
        makeOrders(m_src, 2, 6);
        const QJsonObject resumed =
            iterationFor(runJson({QStringLiteral("--table"), QString::number(id)}, 0), id);
        QCOMPARE(resumed.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(resumed.value(QStringLiteral("rows_written")).toInteger(), 2);
        QCOMPARE(countRows(m_dst, QStringLiteral("orders")), 7);
    }

    void killedRunIsInterrupted() {
        setupWorkspace();
        const int rows = 200000;
        const qint64 big = addBigTable(rows);
        makeOrders(m_src, 50, 1, QStringLiteral("small"));
        const qint64 small = addOrders(QStringLiteral("small"));
        QVERIFY(!QTest::currentTestFailed());

        // One table at a time: "small" is still queued when "big" is killed mid-copy, as power
        // loss would.
        QProcess process;
        startRunUnderWay(process, {QStringLiteral("--concurrency"), QStringLiteral("1")});
        QVERIFY(!QTest::currentTestFailed());
        const qint64 pid = process.processId();
        ::kill(pid_t(pid), SIGKILL);
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitStatus(), QProcess::CrashExit);
        // The kill may land in a commit of the target.
        recoverAfterKill(m_dst);
        const qint64 kept = countRows(m_dst, QStringLiteral("big"));
        QVERIFY(kept < rows);

        // The next command to open the workspace closes the run and its iterations.
        const CliResult history = cli({QStringLiteral("history"), QStringLiteral("--json")});
        CLI_EXIT(history, 0);
        const QJsonArray runs = parseJsonArray(history.out);
        QCOMPARE(runs.size(), 1);
        const QJsonObject run = runs.first().toObject();
        QCOMPARE(run.value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));
        const QString why = QStringLiteral("process %1 on host").arg(pid);
        for (const qint64 id : {big, small}) {
            const QJsonObject iteration = iterationFor(run, id);
            QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));
            QVERIFY2(iteration.value(QStringLiteral("error")).toString().contains(why),
                     qPrintable(iteration.value(QStringLiteral("error")).toString()));
        }
        const CliResult text = cli({QStringLiteral("history")});
        CLI_EXIT(text, 0);
        QVERIFY2(!text.out.contains(QStringLiteral("running")), qPrintable(text.out));

        // The rerun copies everything exactly once. (One table at a time: two iterations
        // writing one SQLite target file at once can meet "database is locked", which is not
        // what this test is about.)
        const QJsonObject rerun = runJson({QStringLiteral("--concurrency"), QStringLiteral("1")}, 0);
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(iterationFor(rerun, big).value(QStringLiteral("status")).toString(),
                 QStringLiteral("succeeded"));
        QCOMPARE(iterationFor(rerun, big).value(QStringLiteral("rows_written")).toInteger() + kept,
                 qint64(rows));
        QCOMPARE(countRows(m_dst, QStringLiteral("big")), qint64(rows));
        QCOMPARE(queryValue(m_dst, QStringLiteral("SELECT count(DISTINCT id) FROM big")).toLongLong(),
                 qint64(rows));
        QCOMPARE(countRows(m_dst, QStringLiteral("small")), 50);
        QCOMPARE(queryValue(m_dst, QStringLiteral("SELECT count(DISTINCT id) FROM small")).toLongLong(), 50);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
