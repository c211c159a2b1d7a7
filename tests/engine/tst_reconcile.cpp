// SPDX-License-Identifier: MIT
// Reconcile (model/engine/reconciler.h): the target rows whose key the source deleted are found
// by bucket sums of the keys, removed or marked only when --apply asks and the table's policy
// says so, all in one target transaction or none (SIGKILL between the deletes and the commit),
// never above --max-delete-ratio, never from an empty source, never within the delete grace.
// SQLite -> SQLite through the real tidemark-cli; SQLite -> PostgreSQL against the real server
// (TIDEMARK_PG_PORT, see scripts/pgcluster.sh).
#include "model/engine/faultpoint.h"
#include "model/engine/reconciler.h"
#include "model/engine/verifier.h"
#include "tests/engine/enginefixture.h"
#include "tests/support/pgsession.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

class TestReconcile : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void dryReportThenRemove();
    void markStampsTheRows();
    void guardsRefuseAndDeleteNothing();
    void graceKeepsRecentRows();
    void killedMidReconcileDeletesNothing();
    void sourceReadShortIsRefused();
    void keylessTableIsRefused();
    void eachCopyRemovesWhatTheSourceDeleted();
    void postgresTargetRemovesTheSame();

private:
    // orders with `rows` rows in the source, copied once, then `deleted` of them deleted in the
    // source (ids 7, 7 + 97, ...).
    qint64 addCopiedOrders(int rows, const QList<int> &deleted, const QStringList &options = {});
    CliResult cli(const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), m_fixture->wsPath} + args);
    }
    QJsonObject reconcileJson(qint64 id, bool apply, int expectedExit = 0);
    // The "pg" connection, and this test's schema in it (dropped by cleanup()).
    void addPostgres();

    std::unique_ptr<EngineFixture> m_fixture;
    QString m_pgSchema;
    bool m_usedPostgres = false;
};

namespace {

QList<int> scattered(int count, int step = 97) {
    QList<int> ids;
    for (int i = 0; i < count; ++i)
        ids << 7 + i * step;
    return ids;
}

QString idList(const QList<int> &ids) {
    QStringList texts;
    for (const int id : ids)
        texts << QString::number(id);
    return texts.join(QLatin1Char(','));
}

} // namespace

void TestReconcile::init() {
    m_fixture = std::make_unique<EngineFixture>();
    static int tests = 0;
    m_pgSchema = QStringLiteral("reconcile_%1_%2").arg(QCoreApplication::applicationPid()).arg(++tests);
}

void TestReconcile::cleanup() {
    if (m_usedPostgres) {
        PgSession pg;
        pg.exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(m_pgSchema));
        // The state rows of the dropped tables; a PostgreSQL source alone never made the table.
        if (pg.value(QStringLiteral("SELECT to_regclass('public.tidemark_state') IS NOT NULL")) ==
            QLatin1String("t"))
            pg.exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE starts_with(target_table, $1)"),
                    {quoteIdentifier(m_pgSchema) + QLatin1Char('.')});
    }
    m_usedPostgres = false;
    m_fixture.reset();
}

qint64 TestReconcile::addCopiedOrders(int rows, const QList<int> &deleted, const QStringList &options) {
    makeOrders(m_fixture->src, rows);
    const CliResult added = cli(QStringList{QStringLiteral("table"), QStringLiteral("add"),
                                            QStringLiteral("--source"), QStringLiteral("src:orders"),
                                            QStringLiteral("--target"), QStringLiteral("dst:orders"),
                                            QStringLiteral("--watermark"), QStringLiteral("updated_at")} +
                                options);
    if (added.exitCode != 0)
        qWarning("%s", qPrintable(added.describe()));
    const qint64 id = added.out.trimmed().toLongLong();
    const CliResult run = cli({QStringLiteral("run")});
    if (run.exitCode != 0)
        qWarning("%s", qPrintable(run.describe()));
    if (!deleted.isEmpty())
        execSql(m_fixture->src, QStringLiteral("DELETE FROM orders WHERE id IN (%1)").arg(idList(deleted)));
    return id;
}

void TestReconcile::addPostgres() {
    m_usedPostgres = true;
    ConnectionSpec pg;
    pg.name = QStringLiteral("pg");
    pg.kind = ConnectionKind::Postgres;
    pg.conninfo = pgConninfo();
    m_fixture->ws->addConnection(pg);
    PgSession().exec(QStringLiteral("CREATE SCHEMA %1").arg(m_pgSchema));
}

QJsonObject TestReconcile::reconcileJson(qint64 id, bool apply, int expectedExit) {
    QStringList args{QStringLiteral("reconcile"), QString::number(id), QStringLiteral("--json")};
    if (apply)
        args << QStringLiteral("--apply");
    const CliResult result = cli(args);
    if (result.exitCode != expectedExit)
        qWarning("%s", qPrintable(result.describe()));
    return QJsonDocument::fromJson(result.out.toUtf8()).object();
}

// A dry report changes nothing; --apply needs a policy; with `remove` the target equals the
// source again, found by reading only the buckets that hold the deleted keys.
void TestReconcile::dryReportThenRemove() {
    const QList<int> deleted = scattered(10);
    const qint64 id =
        addCopiedOrders(2000, deleted, {QStringLiteral("--delete-grace"), QStringLiteral("0s")});
    QJsonObject report = reconcileJson(id, false);
    QCOMPARE(report.value(QStringLiteral("gone")).toInteger(), 10);
    QCOMPARE(report.value(QStringLiteral("to_remove")).toInteger(), 10);
    QCOMPARE(report.value(QStringLiteral("source_rows")).toInteger(), 1990);
    QCOMPARE(report.value(QStringLiteral("target_rows")).toInteger(), 2000);
    QCOMPARE(report.value(QStringLiteral("method")).toString(), QStringLiteral("ranges"));
    QVERIFY(report.value(QStringLiteral("ranges_read")).toInteger() <= 10);
    QCOMPARE(report.value(QStringLiteral("sample_keys")).toArray().size(), 5);
    QCOMPARE(report.value(QStringLiteral("applied")).toBool(), false);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 2000);

    const CliResult ignored =
        cli({QStringLiteral("reconcile"), QString::number(id), QStringLiteral("--apply")});
    QCOMPARE(ignored.exitCode, 2);
    QVERIFY2(ignored.err.contains(QStringLiteral("table edit %1 --deletes remove|mark:COLUMN").arg(id)),
             qPrintable(ignored.err));

    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                  QStringLiteral("--deletes"), QStringLiteral("remove")})
                 .exitCode,
             0);
    report = reconcileJson(id, true);
    QCOMPARE(report.value(QStringLiteral("removed")).toInteger(), 10);
    QCOMPARE(report.value(QStringLiteral("applied")).toBool(), true);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 1990);
    const VerifyResult verified = verifyTable(*m_fixture->ws, id);
    QVERIFY2(verified.matches, qPrintable(verified.difference));
    // Nothing left to do.
    QCOMPARE(reconcileJson(id, true).value(QStringLiteral("gone")).toInteger(), 0);
}

void TestReconcile::markStampsTheRows() {
    const qint64 id = addCopiedOrders(500, scattered(4),
                                      {QStringLiteral("--delete-grace"), QStringLiteral("0s"),
                                       QStringLiteral("--deletes"), QStringLiteral("mark:deleted_at")});
    // The column must exist in the target: named when it does not.
    const CliResult missing =
        cli({QStringLiteral("reconcile"), QString::number(id), QStringLiteral("--apply")});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains(QStringLiteral("has no column 'deleted_at'")), qPrintable(missing.err));
    execSql(m_fixture->dst, QStringLiteral("ALTER TABLE orders ADD COLUMN deleted_at TEXT"));
    const QJsonObject report = reconcileJson(id, true);
    QCOMPARE(report.value(QStringLiteral("removed")).toInteger(), 4);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 500);
    QCOMPARE(
        queryValue(m_fixture->dst, QStringLiteral("SELECT group_concat(id) FROM (SELECT id FROM orders WHERE "
                                                  "deleted_at IS NOT NULL ORDER BY id)"))
            .toString(),
        idList(scattered(4)));
    QVERIFY(Watermark::timestamp(
        queryValue(m_fixture->dst, QStringLiteral("SELECT max(deleted_at) FROM orders")).toString()));
    // Marked once: a second pass finds them gone still, and stamps nothing again.
    QCOMPARE(reconcileJson(id, true).value(QStringLiteral("removed")).toInteger(), 0);
}

// 10 % of the rows deleted, and an emptied source: refused, exit 1, the guard named, nothing
// deleted.
void TestReconcile::guardsRefuseAndDeleteNothing() {
    const qint64 id = addCopiedOrders(1000, scattered(100, 10),
                                      {QStringLiteral("--delete-grace"), QStringLiteral("0s"),
                                       QStringLiteral("--deletes"), QStringLiteral("remove")});
    QJsonObject report = reconcileJson(id, true, 1);
    QCOMPARE(report.value(QStringLiteral("refused_by")).toString(), QStringLiteral("max-delete-ratio"));
    QVERIFY2(
        report.value(QStringLiteral("refusal")).toString().contains(QStringLiteral("--max-delete-ratio 5%")),
        qPrintable(report.value(QStringLiteral("refusal")).toString()));
    QCOMPARE(report.value(QStringLiteral("removed")).toInteger(), 0);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 1000);
    // Allowed once the operator says so.
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                  QStringLiteral("--max-delete-ratio"), QStringLiteral("15%")})
                 .exitCode,
             0);
    QCOMPARE(reconcileJson(id, true).value(QStringLiteral("removed")).toInteger(), 100);

    execSql(m_fixture->src, QStringLiteral("DELETE FROM orders"));
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("edit"), QString::number(id),
                  QStringLiteral("--max-delete-ratio"), QStringLiteral("100")})
                 .exitCode,
             0);
    report = reconcileJson(id, true, 1);
    QCOMPARE(report.value(QStringLiteral("refused_by")).toString(), QStringLiteral("empty-source"));
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 900);
}

// The default grace: rows copied a moment ago are kept, and counted as such.
void TestReconcile::graceKeepsRecentRows() {
    const qint64 id =
        addCopiedOrders(300, scattered(3), {QStringLiteral("--deletes"), QStringLiteral("remove")});
    QJsonObject report = reconcileJson(id, true);
    QCOMPARE(report.value(QStringLiteral("gone")).toInteger(), 3);
    QCOMPARE(report.value(QStringLiteral("within_grace")).toInteger(), 3);
    QCOMPARE(report.value(QStringLiteral("removed")).toInteger(), 0);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 300);

    // Copied ten minutes ago: still within the default hour without a schedule; past one run
    // interval once a schedule runs the table every five minutes.
    execWorkspaceSql(m_fixture->wsPath, QStringLiteral("UPDATE watermark_changes SET at = ?1"),
                     {QDateTime::currentDateTimeUtc().addSecs(-600).toString(Qt::ISODateWithMs)});
    QCOMPARE(reconcileJson(id, true).value(QStringLiteral("within_grace")).toInteger(), 3);
    QCOMPARE(cli({QStringLiteral("schedule"), QStringLiteral("add"), QStringLiteral("often"),
                  QStringLiteral("--cron"), QStringLiteral("*/5 * * * *"), QStringLiteral("--table"),
                  QString::number(id)})
                 .exitCode,
             0);
    report = reconcileJson(id, true);
    QCOMPARE(report.value(QStringLiteral("within_grace")).toInteger(), 0);
    QCOMPARE(report.value(QStringLiteral("removed")).toInteger(), 3);
}

// SIGKILL after the deletes, before the commit: none of them stay; the rerun removes them all.
void TestReconcile::killedMidReconcileDeletesNothing() {
    const qint64 id = addCopiedOrders(1000, scattered(8),
                                      {QStringLiteral("--delete-grace"), QStringLiteral("0s"),
                                       QStringLiteral("--deletes"), QStringLiteral("remove")});
    qputenv("TIDEMARK_FAULT_POINT", "reconcile.removed");
    const CliResult killed =
        cli({QStringLiteral("reconcile"), QString::number(id), QStringLiteral("--apply")});
    qunsetenv("TIDEMARK_FAULT_POINT");
    QVERIFY2(killed.crashed || killed.exitCode != 0, qPrintable(killed.describe()));
    recoverAfterKill(m_fixture->dst);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 1000);
    QCOMPARE(reconcileJson(id, true).value(QStringLiteral("removed")).toInteger(), 8);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 992);
    QVERIFY(verifyTable(*m_fixture->ws, id).matches);
}

// Rows that go from the source between its sums and the read of its keys (or a read that stops
// early): fewer keys than the sums counted in the buckets read, so nothing is deleted. A
// PostgreSQL source reads each in a snapshot of its own (a SQLite connection keeps one for
// both). 100,000 rows: the buckets of the deleted keys hold other rows too (about 1.5 each).
void TestReconcile::sourceReadShortIsRefused() {
    TIDEMARK_REQUIRE_POSTGRES();
    addPostgres();
    PgSession session;
    session.exec(
        QStringLiteral("CREATE TABLE %1.orders (id bigint PRIMARY KEY, updated_at timestamptz NOT NULL)")
            .arg(m_pgSchema));
    session.exec(QStringLiteral("INSERT INTO %1.orders SELECT g, timestamptz '2025-01-01 00:00:00+00' + g * "
                                "interval '1 second' FROM generate_series(1, 100000) g")
                     .arg(m_pgSchema));
    TableDraft draft = EngineFixture::draft(m_pgSchema + QStringLiteral(".orders"),
                                            QStringLiteral("updated_at"), QStringLiteral("orders"));
    draft.spec.sourceConnection = QStringLiteral("pg");
    draft.spec.deletes.action = DeletePolicy::Action::Remove;
    draft.spec.deletes.grace = QStringLiteral("0s");
    draft.spec.deletes.maxPercent = 100;
    const qint64 id = m_fixture->addTable(draft);
    QCOMPARE(m_fixture->run(id).status, IterationStatus::Succeeded);
    session.exec(
        QStringLiteral("DELETE FROM %1.orders WHERE id IN (%2)").arg(m_pgSchema, idList(scattered(5))));

    setFaultHook([&](const char *name) {
        if (QByteArray(name) == "reconcile.summed")
            PgSession().exec(QStringLiteral("DELETE FROM %1.orders").arg(m_pgSchema));
    });
    const ReconcileResult result = reconcileTable(*m_fixture->ws, id, true, QDateTime::currentDateTimeUtc());
    setFaultHook({});
    QCOMPARE(result.refusedBy, QStringLiteral("source-read"));
    QVERIFY2(result.refusal.contains(QStringLiteral("came back short")), qPrintable(result.refusal));
    QCOMPARE(result.removed, 0);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 100000);
}

void TestReconcile::keylessTableIsRefused() {
    makeOrders(m_fixture->src, 10, 1, QStringLiteral("orders"), false);
    const qint64 id =
        m_fixture->addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    m_fixture->run(id);
    const CliResult refused = cli({QStringLiteral("reconcile"), QString::number(id)});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("has no key")) &&
                 refused.err.contains(QStringLiteral("--key")),
             qPrintable(refused.err));
    // Asked for at add (or edit), it is refused there already; and an overwrite needs none.
    const QStringList add{QStringLiteral("table"),     QStringLiteral("add"),
                          QStringLiteral("--source"),  QStringLiteral("src:orders"),
                          QStringLiteral("--target"),  QStringLiteral("dst:other"),
                          QStringLiteral("--deletes"), QStringLiteral("remove")};
    const CliResult keyless =
        cli(add + QStringList{QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    QCOMPARE(keyless.exitCode, 2);
    QVERIFY2(keyless.err.contains(QStringLiteral("--deletes remove needs a key")), qPrintable(keyless.err));
    const CliResult overwrite = cli(add + QStringList{QStringLiteral("--mode"), QStringLiteral("overwrite")});
    QCOMPARE(overwrite.exitCode, 2);
    QVERIFY2(overwrite.err.contains(QStringLiteral("an overwrite copies the whole table")),
             qPrintable(overwrite.err));
}

// --deletes remove with the copy: each run's iteration removes what the source deleted since,
// counted as rows_deleted; a refused share ends it warning, naming the guard, deleting nothing.
void TestReconcile::eachCopyRemovesWhatTheSourceDeleted() {
    addCopiedOrders(1000, {},
                    {QStringLiteral("--delete-grace"), QStringLiteral("0s"), QStringLiteral("--deletes"),
                     QStringLiteral("remove")});
    execSql(m_fixture->src, QStringLiteral("DELETE FROM orders WHERE id IN (%1)").arg(idList(scattered(6))));
    const auto runIteration = [&] {
        const CliResult run = cli({QStringLiteral("run"), QStringLiteral("--json")});
        return QJsonDocument::fromJson(run.out.toUtf8())
            .object()
            .value(QStringLiteral("iterations"))
            .toArray()
            .at(0)
            .toObject();
    };
    QJsonObject iteration = runIteration();
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("no_new_rows"));
    QCOMPARE(iteration.value(QStringLiteral("rows_deleted")).toInteger(), 6);
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 994);
    const QJsonObject history =
        QJsonDocument::fromJson(cli({QStringLiteral("history"), QStringLiteral("--json")}).out.toUtf8())
            .array()
            .at(0)
            .toObject();
    QCOMPARE(history.value(QStringLiteral("iterations"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("rows_deleted"))
                 .toInteger(),
             6);

    execSql(m_fixture->src, QStringLiteral("DELETE FROM orders WHERE id > 800"));
    iteration = runIteration();
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
    QCOMPARE(iteration.value(QStringLiteral("rows_deleted")).toInteger(), 0);
    QVERIFY2(
        iteration.value(QStringLiteral("error")).toString().contains(QStringLiteral("--max-delete-ratio")),
        qPrintable(iteration.value(QStringLiteral("error")).toString()));
    QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders")), 994);
}

// The same on a PostgreSQL target: its own bucket sums, its own deletes.
void TestReconcile::postgresTargetRemovesTheSame() {
    TIDEMARK_REQUIRE_POSTGRES();
    addPostgres();
    makeOrders(m_fixture->src, 3000);
    TableDraft draft = EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at"));
    draft.spec.targetConnection = QStringLiteral("pg");
    draft.spec.targetTable = m_pgSchema + QStringLiteral(".orders_copy");
    draft.spec.deletes.action = DeletePolicy::Action::Remove;
    draft.spec.deletes.grace = QStringLiteral("0s");
    const qint64 id = m_fixture->addTable(draft);
    QCOMPARE(m_fixture->run(id).status, IterationStatus::Succeeded);
    const QList<int> deleted = scattered(12, 211);
    execSql(m_fixture->src, QStringLiteral("DELETE FROM orders WHERE id IN (%1)").arg(idList(deleted)));

    const ReconcileResult result = reconcileTable(*m_fixture->ws, id, true, QDateTime::currentDateTimeUtc());
    QVERIFY(result.byRanges);
    QCOMPARE(result.gone, 12);
    QCOMPARE(result.removed, 12);
    QCOMPARE(PgSession().value(QStringLiteral("SELECT count(*) FROM %1.orders_copy").arg(m_pgSchema)).toInt(),
             2988);
    QVERIFY(verifyTable(*m_fixture->ws, id).matches);
}

QTEST_GUILESS_MAIN(TestReconcile)
#include "tst_reconcile.moc"
