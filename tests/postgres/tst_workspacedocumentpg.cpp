// SPDX-License-Identifier: MIT
// `workspace export` -> `workspace apply` with a PostgreSQL target (TIDEMARK_PG_PORT, see
// scripts/pgcluster.sh): the new workspace takes the target over with its position, so its next
// run copies the new rows only, once; the old workspace's run is then refused, naming the owner.

#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace tidemark::test;

class TestWorkspaceDocumentPg : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void roundTripIntoPostgresGoesOn();
    void cleanupTestCase();

private:
    QString path(const QString &name) const { return m_dir.filePath(name); }
    CliResult cli(const QString &workspace, const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), workspace} + args, m_dir.path());
    }
    QString rows(const QString &what) {
        PgSession pg;
        return pg.value(QStringLiteral("SELECT %1 FROM public.%2").arg(what, m_table));
    }
    void forgetTable() {
        PgSession pg;
        pg.exec(QStringLiteral("DROP TABLE IF EXISTS public.%1").arg(m_table));
        if (pg.value(QStringLiteral("SELECT count(*) FROM information_schema.columns WHERE table_schema = "
                                    "'public' AND table_name = 'tidemark_state' AND column_name = "
                                    "'target_table'")) == QLatin1String("1"))
            pg.exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE target_table = $1"),
                    {QStringLiteral("\"public\".\"%1\"").arg(m_table)});
    }

    QTemporaryDir m_dir;
    // Its own table name: the suites share one server.
    QString m_table = QStringLiteral("wsdoc_%1").arg(QCoreApplication::applicationPid());
};

void TestWorkspaceDocumentPg::initTestCase() {
    TIDEMARK_REQUIRE_POSTGRES();
    QVERIFY(m_dir.isValid());
    forgetTable();
}

void TestWorkspaceDocumentPg::cleanupTestCase() {
    if (!pgPort().isEmpty())
        forgetTable();
}

void TestWorkspaceDocumentPg::roundTripIntoPostgresGoesOn() {
    const QString original = path(QStringLiteral("a.tidemark"));
    QCOMPARE(cli(original, {QStringLiteral("init")}).exitCode, 0);
    QCOMPARE(cli(original, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                            QStringLiteral("--sqlite"), path(QStringLiteral("src.db"))})
                 .exitCode,
             0);
    QCOMPARE(cli(original, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                            QStringLiteral("--postgres"), pgConninfo()})
                 .exitCode,
             0);
    makeOrders(path(QStringLiteral("src.db")), 10);
    const CliResult added = cli(original, {QStringLiteral("table"), QStringLiteral("add"),
                                           QStringLiteral("--source"), QStringLiteral("src:orders"),
                                           QStringLiteral("--target"), QStringLiteral("pg:") + m_table,
                                           QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
    QCOMPARE(cli(original, {QStringLiteral("run")}).exitCode, 0);
    QCOMPARE(rows(QStringLiteral("count(*)")), QStringLiteral("10"));

    const CliResult exported = cli(
        original, {QStringLiteral("workspace"), QStringLiteral("export"), path(QStringLiteral("doc.json"))});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.describe()));
    const QString copy = path(QStringLiteral("b.tidemark"));
    QCOMPARE(cli(copy, {QStringLiteral("init")}).exitCode, 0);
    const CliResult applied =
        cli(copy, {QStringLiteral("workspace"), QStringLiteral("apply"), path(QStringLiteral("doc.json"))});
    QVERIFY2(applied.exitCode == 0, qPrintable(applied.describe()));
    QFile document(path(QStringLiteral("doc.json")));
    QVERIFY(document.open(QIODevice::ReadOnly));
    QCOMPARE(cli(copy, {QStringLiteral("workspace"), QStringLiteral("export")}).out.toUtf8(),
             document.readAll());

    makeOrders(path(QStringLiteral("src.db")), 5, 11);
    const CliResult ran = cli(copy, {QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(ran.exitCode == 0, qPrintable(ran.describe()));
    const QJsonObject iteration =
        parseJsonObject(ran.out).value(QStringLiteral("iterations")).toArray().at(0).toObject();
    QCOMPARE(iteration.value(QStringLiteral("rows_read")).toInt(), 5);
    QCOMPARE(rows(QStringLiteral("count(*)")), QStringLiteral("15"));
    QCOMPARE(rows(QStringLiteral("count(DISTINCT id)")), QStringLiteral("15"));

    // The target now belongs to the copy: the original's run writes nothing and says whose it is.
    makeOrders(path(QStringLiteral("src.db")), 2, 16);
    const CliResult refused = cli(original, {QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.out.contains(QStringLiteral("of workspace %1").arg(copy)),
             qPrintable(refused.describe()));
    QCOMPARE(rows(QStringLiteral("count(*)")), QStringLiteral("15"));
}

QTEST_GUILESS_MAIN(TestWorkspaceDocumentPg)
#include "tst_workspacedocumentpg.moc"
