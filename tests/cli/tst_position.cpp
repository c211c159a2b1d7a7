// SPDX-License-Identifier: MIT
// `table position` and `table set-position` through the real tidemark-cli: the position as the
// workspace and the target's state row hold it; a hand move that keeps the target's rows, asks
// before skipping or doubling rows, is refused while the table runs, and is recorded.

#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace tidemark::test;

class TestPosition : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }
    void init();
    void positionShowsWorkspaceAndTarget();
    void forwardAsksThenSkipsAndIsRecorded();
    void backOnAppendAsksAndMergeRecopies();
    void refusedWhileTheTableRuns();

private:
    QString path(const QString &name) const { return m_dir->filePath(name); }
    CliResult cli(const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), m_ws} + args, m_dir->path());
    }
    void addTable(const QStringList &extra = {}) {
        const CliResult added = cli(QStringList{QStringLiteral("table"), QStringLiteral("add"),
                                                QStringLiteral("--source"), QStringLiteral("src:orders"),
                                                QStringLiteral("--target"), QStringLiteral("dst:orders"),
                                                QStringLiteral("--watermark"), QStringLiteral("updated_at")} +
                                    extra);
        QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    }
    QJsonObject position() {
        const CliResult shown = cli({QStringLiteral("table"), QStringLiteral("position"), QStringLiteral("1"),
                                     QStringLiteral("--json")});
        if (shown.exitCode != 0)
            qWarning("%s", qPrintable(shown.describe()));
        return parseJsonObject(shown.out);
    }
    CliResult setPosition(const QString &watermark, bool yes) {
        QStringList args{QStringLiteral("table"), QStringLiteral("set-position"), QStringLiteral("1"),
                         QStringLiteral("--watermark"), watermark};
        if (yes)
            args << QStringLiteral("--yes");
        return cli(args);
    }
    qint64 dstRows() const { return countRows(path(QStringLiteral("dst.db")), QStringLiteral("orders")); }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_ws;
};

void TestPosition::init() {
    m_dir = std::make_unique<QTemporaryDir>(fastTempTemplate());
    QVERIFY(m_dir->isValid());
    m_ws = testWorkspaceLocation(*m_dir, QStringLiteral("w.tidemark"));
    QCOMPARE(cli({QStringLiteral("init")}).exitCode, 0);
    for (const char *name : {"src", "dst"})
        QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QString::fromLatin1(name),
                      QStringLiteral("--sqlite"), path(QString::fromLatin1(name) + QStringLiteral(".db"))})
                     .exitCode,
                 0);
    makeOrders(path(QStringLiteral("src.db")), 10);
}

void TestPosition::positionShowsWorkspaceAndTarget() {
    addTable();
    QJsonObject shown = position();
    QVERIFY(shown.value(QStringLiteral("watermark")).isNull());
    QVERIFY(shown.value(QStringLiteral("target_watermark")).isNull());
    QVERIFY(shown.value(QStringLiteral("in_sync")).toBool());
    QCOMPARE(cli({QStringLiteral("run")}).exitCode, 0);
    shown = position();
    QCOMPARE(shown.value(QStringLiteral("watermark")).toString(), orderTimestamp(10));
    QCOMPARE(shown.value(QStringLiteral("target_watermark")).toString(), orderTimestamp(10));
    QVERIFY(shown.value(QStringLiteral("in_sync")).toBool());
    const CliResult text = cli({QStringLiteral("table"), QStringLiteral("position"), QStringLiteral("1")});
    QVERIFY2(text.out.contains(QStringLiteral("workspace: ") + orderTimestamp(10)), qPrintable(text.out));
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("position"), QStringLiteral("7")}).exitCode, 2);
}

void TestPosition::forwardAsksThenSkipsAndIsRecorded() {
    addTable();
    QCOMPARE(cli({QStringLiteral("run")}).exitCode, 0);
    makeOrders(path(QStringLiteral("src.db")), 10, 11); // rows 11..20
    const CliResult refused = setPosition(orderTimestamp(15), false);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("never copies the rows in between")) &&
                 refused.err.contains(QStringLiteral("--yes")),
             qPrintable(refused.err));
    QCOMPARE(position().value(QStringLiteral("watermark")).toString(), orderTimestamp(10)); // unchanged

    const CliResult moved = setPosition(orderTimestamp(15), true);
    QVERIFY2(moved.exitCode == 0, qPrintable(moved.describe()));
    const QJsonObject shown = position();
    QCOMPARE(shown.value(QStringLiteral("watermark")).toString(), orderTimestamp(15));
    QCOMPARE(shown.value(QStringLiteral("target_watermark")).toString(), orderTimestamp(15));
    QCOMPARE(execWorkspaceSql(m_ws,
                              QStringLiteral("SELECT cause FROM watermark_changes ORDER BY id DESC LIMIT 1")),
             QStringLiteral("set-position"));
    // Only rows 16..20 are copied: 11..15 were passed over on purpose.
    QCOMPARE(cli({QStringLiteral("run")}).exitCode, 0);
    QCOMPARE(dstRows(), qint64(15));
    QCOMPARE(queryValue(path(QStringLiteral("dst.db")), QStringLiteral("SELECT count(*) FROM orders WHERE id "
                                                                       "BETWEEN 11 AND 15"))
                 .toLongLong(),
             qint64(0));
}

void TestPosition::backOnAppendAsksAndMergeRecopies() {
    addTable();
    QCOMPARE(cli({QStringLiteral("run")}).exitCode, 0);
    const CliResult refused = setPosition(orderTimestamp(5), false);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("append table")) &&
                 refused.err.contains(QStringLiteral("backfill 1 --from")),
             qPrintable(refused.err));

    // A merge table moves back without asking: the rerun re-copies rows 6..10 onto themselves.
    execWorkspaceSql(
        m_ws, QStringLiteral("UPDATE tables SET mode = 'merge', key_columns = '[\"id\"]' WHERE id = 1"));
    const CliResult moved = setPosition(orderTimestamp(5), false);
    QVERIFY2(moved.exitCode == 0, qPrintable(moved.describe()));
    const CliResult rerun = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(rerun.exitCode, 0);
    const QJsonObject iteration =
        parseJsonObject(rerun.out).value(QStringLiteral("iterations")).toArray().at(0).toObject();
    QCOMPARE(iteration.value(QStringLiteral("rows_read")).toInt(), 5);
    QCOMPARE(dstRows(), qint64(10));
}

void TestPosition::refusedWhileTheTableRuns() {
    makeStreamingOrdersTarget(path(QStringLiteral("dst.db")));
    addTable({QStringLiteral("--batch-size"), QStringLiteral("2"), QStringLiteral("--max-skipped"),
              QStringLiteral("1")});
    QProcess running;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    env.insert(QStringLiteral("TIDEMARK_FAULT_STOP"), QStringLiteral("after_batch_write"));
    running.setProcessEnvironment(env);
    running.start(cliPath(), {QStringLiteral("-w"), m_ws, QStringLiteral("run")});
    QVERIFY(running.waitForStarted(30000));
    QTRY_COMPARE_WITH_TIMEOUT(processState(running.processId()), QChar(u'T'), 60000);
    const CliResult refused = setPosition(orderTimestamp(5), true);
    ::kill(pid_t(running.processId()), SIGCONT);
    QVERIFY(running.waitForFinished(120000));
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("is being copied by run")), qPrintable(refused.err));
    QCOMPARE(running.exitCode(), 0);
    QCOMPARE(dstRows(), qint64(10));
}

QTEST_GUILESS_MAIN(TestPosition)
#include "tst_position.moc"
