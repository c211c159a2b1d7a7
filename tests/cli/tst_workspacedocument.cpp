// SPDX-License-Identifier: MIT
// `workspace export` and `workspace apply` through the real tidemark-cli: the document holds no
// secret and its keys are sorted; export -> apply on an empty workspace -> export gives the same
// bytes, and the next run goes on exactly where the original stopped (no row copied twice, none
// lost); the plan comes first, --dry-run changes nothing, removals need --prune, and a running
// table's position is not changed.

#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace tidemark::test;

class TestWorkspaceDocument : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }
    void init();
    void roundTripGivesSameBytesAndRunGoesOn();
    void planComesFirstAndDryRunChangesNothing();
    void removalsNeedPrune();
    void positionMoveIsRecordedWithItsCause();
    void positionChangeRefusedWhileTheTableRuns();
    void badDocumentsAreRefusedNamingTheKey();

private:
    QString path(const QString &name) const { return m_dir->filePath(name); }
    CliResult cli(const QString &workspace, const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), workspace} + args, m_dir->path());
    }
    CliResult cli(const QStringList &args) { return cli(m_ws, args); }
    QByteArray exported(const QString &workspace) {
        const CliResult result = cli(workspace, {QStringLiteral("workspace"), QStringLiteral("export")});
        if (result.exitCode != 0)
            qWarning("%s", qPrintable(result.describe()));
        return result.out.toUtf8();
    }
    void writeFile(const QString &name, const QByteArray &bytes) {
        QFile file(path(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(bytes);
    }
    QString newWorkspace(const QString &name) {
        const QString workspace = testWorkspaceLocation(*m_dir, name);
        const CliResult created = cli(workspace, {QStringLiteral("init")});
        if (created.exitCode != 0)
            qWarning("%s", qPrintable(created.describe()));
        return workspace;
    }
    CliResult apply(const QString &workspace, const QString &file, const QStringList &extra = {}) {
        return cli(workspace,
                   QStringList{QStringLiteral("workspace"), QStringLiteral("apply"), path(file)} + extra);
    }
    qint64 dstRows() const { return countRows(path(QStringLiteral("dst.db")), QStringLiteral("orders")); }
    qint64 dstDistinctIds() const {
        return queryValue(path(QStringLiteral("dst.db")),
                          QStringLiteral("SELECT COUNT(DISTINCT id) FROM orders"))
            .toLongLong();
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_ws;
};

// A workspace with what a document carries: two connections (one PostgreSQL, never reached, with
// its password in a variable and a cap), two tables (one paused, one copied up to row 10), a
// schedule of one table, alerts whose webhook secret is a reference, and a max concurrency.
void TestWorkspaceDocument::init() {
    m_dir = std::make_unique<QTemporaryDir>(fastTempTemplate());
    QVERIFY(m_dir->isValid());
    m_ws = newWorkspace(QStringLiteral("a.tidemark"));
    for (const char *name : {"src", "dst"})
        QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QString::fromLatin1(name),
                      QStringLiteral("--sqlite"), path(QString::fromLatin1(name) + QStringLiteral(".db"))})
                     .exitCode,
                 0);
    const CliResult pg =
        cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("warehouse"),
             QStringLiteral("--postgres"), QStringLiteral("host=db.invalid dbname=dw user=etl"),
             QStringLiteral("--password-env"), QStringLiteral("DW_PASSWORD")});
    QVERIFY2(pg.exitCode == 0, qPrintable(pg.describe()));
    makeOrders(path(QStringLiteral("src.db")), 10);
    makeOrders(path(QStringLiteral("src.db")), 3, 1, QStringLiteral("customers"));
    for (const QStringList &table :
         {QStringList{QStringLiteral("--source"), QStringLiteral("src:orders"), QStringLiteral("--target"),
                      QStringLiteral("dst:orders"), QStringLiteral("--watermark"),
                      QStringLiteral("updated_at"), QStringLiteral("--tiebreak"), QStringLiteral("id"),
                      QStringLiteral("--mode"), QStringLiteral("merge"), QStringLiteral("--batch-size"),
                      QStringLiteral("4")},
          QStringList{QStringLiteral("--source"), QStringLiteral("src:customers"), QStringLiteral("--target"),
                      QStringLiteral("dst:customers"), QStringLiteral("--watermark"), QStringLiteral("id"),
                      QStringLiteral("--paused"), QStringLiteral("--expect-rows")}}) {
        const CliResult added = cli(QStringList{QStringLiteral("table"), QStringLiteral("add")} + table);
        QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    }
    QCOMPARE(cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("nightly"),
                  QStringLiteral("--cron"), QStringLiteral("0 2 * * *"), QStringLiteral("--tz"),
                  QStringLiteral("UTC"), QStringLiteral("--table"), QStringLiteral("1")})
                 .exitCode,
             0);
    const CliResult alerts = cli({QStringLiteral("alert"), QStringLiteral("set"), QStringLiteral("--webhook"),
                                  QStringLiteral("https://hooks.example.invalid/T?token=${HOOK_TOKEN}")});
    QVERIFY2(alerts.exitCode == 0, qPrintable(alerts.describe()));
    QCOMPARE(cli({QStringLiteral("workspace"), QStringLiteral("set"), QStringLiteral("--max-concurrency"),
                  QStringLiteral("4")})
                 .exitCode,
             0);
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("set"), QStringLiteral("warehouse"),
                  QStringLiteral("--max-connections"), QStringLiteral("2")})
                 .exitCode,
             0);
    const CliResult ran = cli({QStringLiteral("run")});
    QVERIFY2(ran.exitCode == 0, qPrintable(ran.describe()));
    QCOMPARE(dstRows(), qint64(10));
}

void TestWorkspaceDocument::roundTripGivesSameBytesAndRunGoesOn() {
    const QByteArray original = exported(m_ws);
    QVERIFY(!original.isEmpty());
    // Written to a file, the same bytes as on stdout.
    const CliResult toFile =
        cli({QStringLiteral("workspace"), QStringLiteral("export"), path(QStringLiteral("a.json"))});
    QVERIFY2(toFile.exitCode == 0, qPrintable(toFile.describe()));
    QFile file(path(QStringLiteral("a.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), original);

    // Reviewable: sorted keys, settings and positions, no secret (the variable's name only).
    const QJsonObject document = QJsonDocument::fromJson(original).object();
    QCOMPARE(document.keys(),
             (QStringList{QStringLiteral("alerts"), QStringLiteral("connections"), QStringLiteral("format"),
                          QStringLiteral("max_concurrency"), QStringLiteral("schedules"),
                          QStringLiteral("tables"), QStringLiteral("version")}));
    // The caps travel with it.
    QCOMPARE(document.value(QStringLiteral("max_concurrency")).toInt(), 4);
    QVERIFY(original.contains("\"max_connections\": 2"));
    const QJsonObject orders = document.value(QStringLiteral("tables")).toArray().at(0).toObject();
    QCOMPARE(orders.value(QStringLiteral("target")).toString(), QStringLiteral("dst:orders"));
    QCOMPARE(orders.value(QStringLiteral("batch_size")).toInt(), 4);
    QCOMPARE(orders.value(QStringLiteral("position")).toObject().value(QStringLiteral("tiebreak")).toInt(),
             10);
    QVERIFY(original.contains("\"password_env\": \"DW_PASSWORD\""));
    QVERIFY(original.contains("${HOOK_TOKEN}"));
    QCOMPARE(document.value(QStringLiteral("schedules"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("tables")),
             QJsonValue(QJsonArray{QStringLiteral("dst:orders")}));

    const QString copy = newWorkspace(QStringLiteral("b.tidemark"));
    const CliResult applied = apply(copy, QStringLiteral("a.json"));
    QVERIFY2(applied.exitCode == 0, qPrintable(applied.describe()));
    QVERIFY2(applied.out.contains(QStringLiteral("add table src:orders -> dst:orders at position")),
             qPrintable(applied.out));
    QCOMPARE(exported(copy), original);
    // Applying it again finds nothing to do.
    const CliResult again = apply(copy, QStringLiteral("a.json"));
    QVERIFY2(again.exitCode == 0 && again.out.contains(QStringLiteral("nothing to change")),
             qPrintable(again.describe()));

    // The copy's run goes on after row 10: the new rows only, nothing copied twice.
    makeOrders(path(QStringLiteral("src.db")), 5, 11);
    const CliResult ran = cli(copy, {QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(ran.exitCode == 0, qPrintable(ran.describe()));
    const QJsonObject iteration =
        parseJsonObject(ran.out).value(QStringLiteral("iterations")).toArray().at(0).toObject();
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(iteration.value(QStringLiteral("rows_read")).toInt(), 5);
    QCOMPARE(dstRows(), qint64(15));
    QCOMPARE(dstDistinctIds(), qint64(15));
    const QJsonObject position =
        parseJsonObject(cli(copy, {QStringLiteral("table"), QStringLiteral("position"), QStringLiteral("1"),
                                   QStringLiteral("--json")})
                            .out);
    QVERIFY(position.value(QStringLiteral("in_sync")).toBool());
    QCOMPARE(position.value(QStringLiteral("tiebreak")).toInt(), 15);
}

void TestWorkspaceDocument::planComesFirstAndDryRunChangesNothing() {
    QJsonObject document = QJsonDocument::fromJson(exported(m_ws)).object();
    QJsonArray tables = document.value(QStringLiteral("tables")).toArray();
    QJsonObject orders = tables.at(0).toObject();
    orders.insert(QStringLiteral("batch_size"), 500);
    orders.insert(QStringLiteral("active"), false);
    tables.replace(0, orders);
    document.insert(QStringLiteral("tables"), tables);
    writeFile(QStringLiteral("changed.json"), QJsonDocument(document).toJson());
    const QByteArray before = exported(m_ws);

    const CliResult dry = apply(m_ws, QStringLiteral("changed.json"), {QStringLiteral("--dry-run")});
    QVERIFY2(dry.exitCode == 0, qPrintable(dry.describe()));
    QVERIFY2(dry.out.contains(QStringLiteral("change table 1 (dst:orders): batch_size")),
             qPrintable(dry.out));
    QVERIFY2(dry.out.contains(QStringLiteral("pause table 1 (dst:orders)")), qPrintable(dry.out));
    QVERIFY2(dry.out.contains(QStringLiteral("dry run: 2 change(s) planned, nothing changed")),
             qPrintable(dry.out));
    QCOMPARE(exported(m_ws), before);

    const CliResult applied = apply(m_ws, QStringLiteral("changed.json"));
    QVERIFY2(applied.exitCode == 0, qPrintable(applied.describe()));
    QVERIFY(applied.out.indexOf(QStringLiteral("pause table 1")) <
            applied.out.indexOf(QStringLiteral("applied 2")));
    QCOMPARE(exported(m_ws), QJsonDocument(document).toJson(QJsonDocument::Indented));
}

void TestWorkspaceDocument::removalsNeedPrune() {
    QJsonObject document = QJsonDocument::fromJson(exported(m_ws)).object();
    QJsonArray tables = document.value(QStringLiteral("tables")).toArray();
    tables.removeAt(1); // dst:customers
    document.insert(QStringLiteral("tables"), tables);
    document.insert(QStringLiteral("schedules"), QJsonArray());
    writeFile(QStringLiteral("smaller.json"), QJsonDocument(document).toJson());

    const CliResult kept = apply(m_ws, QStringLiteral("smaller.json"));
    QVERIFY2(kept.exitCode == 0, qPrintable(kept.describe()));
    QVERIFY2(kept.out.contains(QStringLiteral("keep table 2 (src:customers -> dst:customers)")),
             qPrintable(kept.out));
    QVERIFY2(kept.out.contains(QStringLiteral("keep schedule nightly")), qPrintable(kept.out));
    QVERIFY2(kept.out.contains(QStringLiteral("nothing to change")), qPrintable(kept.out));
    QCOMPARE(
        parseJsonArray(cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out)
            .size(),
        2);

    const CliResult pruned = apply(m_ws, QStringLiteral("smaller.json"), {QStringLiteral("--prune")});
    QVERIFY2(pruned.exitCode == 0, qPrintable(pruned.describe()));
    QVERIFY2(pruned.out.contains(QStringLiteral("remove table 2")), qPrintable(pruned.out));
    QVERIFY2(pruned.out.contains(QStringLiteral("remove schedule nightly")), qPrintable(pruned.out));
    QCOMPARE(
        parseJsonArray(cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")}).out)
            .size(),
        1);
    // A removed table is archived, as table remove leaves it: restore brings it back.
    QCOMPARE(parseJsonArray(cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json"),
                                 QStringLiteral("--archived")})
                                .out)
                 .size(),
             1);
    QCOMPARE(exported(m_ws), QJsonDocument(document).toJson(QJsonDocument::Indented));
}

void TestWorkspaceDocument::positionMoveIsRecordedWithItsCause() {
    QJsonObject document = QJsonDocument::fromJson(exported(m_ws)).object();
    QJsonArray tables = document.value(QStringLiteral("tables")).toArray();
    QJsonObject orders = tables.at(0).toObject();
    orders.insert(QStringLiteral("position"), QJsonObject{{QStringLiteral("watermark"), orderTimestamp(6)},
                                                          {QStringLiteral("tiebreak"), 6}});
    tables.replace(0, orders);
    document.insert(QStringLiteral("tables"), tables);
    writeFile(QStringLiteral("back.json"), QJsonDocument(document).toJson());

    const CliResult applied = apply(m_ws, QStringLiteral("back.json"));
    QVERIFY2(applied.exitCode == 0, qPrintable(applied.describe()));
    QVERIFY2(applied.out.contains(QStringLiteral("move table 1 (dst:orders): position")),
             qPrintable(applied.out));
    const QJsonObject position = parseJsonObject(cli({QStringLiteral("table"), QStringLiteral("position"),
                                                      QStringLiteral("1"), QStringLiteral("--json")})
                                                     .out);
    QCOMPARE(position.value(QStringLiteral("target_tiebreak")).toInt(), 6);
    QVERIFY(position.value(QStringLiteral("in_sync")).toBool());
    QCOMPARE(execWorkspaceSql(m_ws, QStringLiteral("SELECT cause FROM watermark_changes WHERE table_id = 1 "
                                                   "ORDER BY id DESC LIMIT 1")),
             QStringLiteral("apply"));
    // A merge table moved back copies rows 7..10 again onto themselves: still ten rows.
    QCOMPARE(cli({QStringLiteral("run")}).exitCode, 0);
    QCOMPARE(dstRows(), qint64(10));
}

void TestWorkspaceDocument::positionChangeRefusedWhileTheTableRuns() {
    // A commit per batch takes the batch-by-batch path, where the run can be held after a batch.
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("edit"), QStringLiteral("1"),
                  QStringLiteral("--commit-per-batch")})
                 .exitCode,
             0);
    QJsonObject document = QJsonDocument::fromJson(exported(m_ws)).object();
    QJsonArray tables = document.value(QStringLiteral("tables")).toArray();
    QJsonObject orders = tables.at(0).toObject();
    orders.insert(QStringLiteral("position"), QJsonValue(QJsonValue::Null));
    tables.replace(0, orders);
    document.insert(QStringLiteral("tables"), tables);
    writeFile(QStringLiteral("reset.json"), QJsonDocument(document).toJson());
    makeOrders(path(QStringLiteral("src.db")), 6, 11);

    QProcess running;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    env.insert(QStringLiteral("TIDEMARK_FAULT_STOP"), QStringLiteral("after_batch_write"));
    running.setProcessEnvironment(env);
    running.start(cliPath(), {QStringLiteral("-w"), m_ws, QStringLiteral("run"), QStringLiteral("--table"),
                              QStringLiteral("1")});
    QVERIFY(running.waitForStarted(30000));
    QTRY_COMPARE_WITH_TIMEOUT(processState(running.processId()), QChar(u'T'), 60000);
    const CliResult refused = apply(m_ws, QStringLiteral("reset.json"));
    ::kill(pid_t(running.processId()), SIGCONT);
    QVERIFY(running.waitForFinished(120000));
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("table 1 (dst:orders) is running")),
             qPrintable(refused.err));
    QVERIFY2(refused.out.isEmpty(), qPrintable(refused.out));
    QCOMPARE(running.exitCode(), 0);
    QCOMPARE(dstRows(), qint64(16));
}

void TestWorkspaceDocument::badDocumentsAreRefusedNamingTheKey() {
    QJsonObject document = QJsonDocument::fromJson(exported(m_ws)).object();
    QJsonArray tables = document.value(QStringLiteral("tables")).toArray();
    QJsonObject orders = tables.at(0).toObject();
    orders.insert(QStringLiteral("mode"), QStringLiteral("upsert"));
    tables.replace(0, orders);
    document.insert(QStringLiteral("tables"), tables);
    writeFile(QStringLiteral("bad.json"), QJsonDocument(document).toJson());
    const QByteArray before = exported(m_ws);
    const CliResult refused = apply(m_ws, QStringLiteral("bad.json"));
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(
        refused.err.contains(QStringLiteral("tables[0].mode: 'upsert' is not append, merge or overwrite")),
        qPrintable(refused.err));
    writeFile(QStringLiteral("notjson.json"), "{\"format\": ");
    const CliResult notJson = apply(m_ws, QStringLiteral("notjson.json"));
    QCOMPARE(notJson.exitCode, 2);
    QVERIFY2(notJson.err.contains(QStringLiteral("notjson.json: not JSON")), qPrintable(notJson.err));
    QCOMPARE(exported(m_ws), before);
}

QTEST_GUILESS_MAIN(TestWorkspaceDocument)
#include "tst_workspacedocument.moc"
