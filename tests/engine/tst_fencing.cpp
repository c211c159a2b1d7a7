// SPDX-License-Identifier: MIT
// Fencing (docs/design.md, "Fencing"): every lease acquisition draws a token from a number that
// only rises, the target's compare-and-set refuses a token below the state row's fence, and a
// claim that takes an expired lease over raises that fence first. So a process frozen past its
// lease (SIGSTOP, a paused VM) and then continued commits nothing once another has taken its
// table over, even before that other one has committed: checked with two real processes, and on
// the state row of each engine (SQLite; PostgreSQL and MariaDB when their servers are there).
// Runs on workspace files and on server workspaces (tests/CMakeLists.txt).
#include "model/connectors/connectorfactory.h"
#include "model/connectors/statetable.h"
#include "tests/engine/enginefixture.h"
#include "tests/engine/processrace.h"
#include "tests/support/pgsession.h"

#include <QUuid>
#include <QtTest>

#include <csignal>

using namespace tidemark;
using namespace tidemark::test;

class TestFencing : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void frozenClaimCommitsNothingOnceTakenOver();
    void compareAndSetRefusesALowerToken_data();
    void compareAndSetRefusesALowerToken();
};

void TestFencing::initTestCase() {
    TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
}

void TestFencing::frozenClaimCommitsNothingOnceTakenOver() {
    EngineFixture f;
    makeOrders(f.src, 1000);
    const qint64 id =
        f.addTable(EngineFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
    QCOMPARE(f.run(id).status, IterationStatus::Succeeded); // the state row exists, with a fence
    const qint64 firstFence =
        queryValue(f.dst, QStringLiteral("SELECT fence FROM tidemark_state WHERE table_id = ?1"), {id})
            .toLongLong();
    QVERIFY(firstFence > 0);
    makeOrders(f.src, 500, 1001);

    // A stops before its write transaction; its lease (one second here) expires.
    QProcess frozen;
    detail::startRun(frozen, f.wsPath, kRaceBeforeWrite);
    QVERIFY(detail::waitStopped(frozen));
    QThread::msleep(kRaceLeaseTtlMs + 500);
    // B takes the lease over, raises the fence as it comes to write, and stops there.
    QProcess takeover;
    detail::startRun(takeover, f.wsPath, QStringLiteral("after_fence_raised"));
    QVERIFY(detail::waitStopped(takeover));
    const qint64 raised =
        queryValue(f.dst, QStringLiteral("SELECT fence FROM tidemark_state WHERE table_id = ?1"), {id})
            .toLongLong();
    QVERIFY2(raised > firstFence, qPrintable(QStringLiteral("%1 <= %2").arg(raised).arg(firstFence)));

    // A wakes up first: the window is still there to copy, the position unmoved, yet it writes nothing.
    ::kill(pid_t(frozen.processId()), SIGCONT);
    const RaceRun woken = detail::finish(frozen);
    QVERIFY2(woken.exitCode == 0, qPrintable(woken.err));
    QCOMPARE(woken.iteration.value(QStringLiteral("status")).toString(), QStringLiteral("skipped"));
    QCOMPARE(woken.iteration.value(QStringLiteral("rows_written")).toInteger(), 0);
    const QString reason = woken.iteration.value(QStringLiteral("error")).toString();
    QVERIFY2(reason.contains(QLatin1String("its lease was taken over")) &&
                 reason.contains(QLatin1String("nothing written")),
             qPrintable(reason));
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), qint64(1000));

    // B goes on and copies the window once.
    ::kill(pid_t(takeover.processId()), SIGCONT);
    const RaceRun second = detail::finish(takeover);
    QVERIFY2(second.exitCode == 0, qPrintable(second.err));
    QCOMPARE(second.iteration.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    QCOMPARE(second.iteration.value(QStringLiteral("rows_written")).toInteger(), 500);
    QVERIFY(execWorkspaceSql(f.wsPath,
                             QStringLiteral("SELECT count(*) FROM iteration_logs WHERE message LIKE ?1"),
                             {QStringLiteral("raised the target's fence to token %")})
                .toInt() == 1);
    QCOMPARE(countRows(f.dst, QStringLiteral("orders")), qint64(1500));
    QCOMPARE(queryValue(f.dst, QStringLiteral("SELECT count(DISTINCT id) FROM orders")).toLongLong(),
             qint64(1500));
}

void TestFencing::compareAndSetRefusesALowerToken_data() {
    QTest::addColumn<QString>("engine");
    QTest::newRow("sqlite") << QStringLiteral("sqlite");
    QTest::newRow("postgres") << QStringLiteral("postgres");
    QTest::newRow("mariadb") << QStringLiteral("mariadb");
}

void TestFencing::compareAndSetRefusesALowerToken() {
    QFETCH(QString, engine);
    QTemporaryDir dir(fastTempTemplate());
    ConnectionSpec spec;
    spec.name = QStringLiteral("target");
    if (engine == QLatin1String("sqlite")) {
        spec.path = dir.filePath(QStringLiteral("target.db"));
    } else if (engine == QLatin1String("postgres")) {
        TIDEMARK_REQUIRE_POSTGRES();
        spec.kind = ConnectionKind::Postgres;
        spec.conninfo = pgConninfo();
    } else {
        TIDEMARK_REQUIRE_MARIADB();
        qputenv("TIDEMARK_TEST_MARIADB_PASSWORD", "tidemark");
        spec.kind = ConnectionKind::Mysql;
        spec.conninfo = QStringLiteral("host=127.0.0.1 port=%1 user=tidemark dbname=tidemark")
                            .arg(QString::fromLocal8Bit(qgetenv("TIDEMARK_MARIADB_PORT")));
        spec.passwordEnv = QStringLiteral("TIDEMARK_TEST_MARIADB_PASSWORD");
    }
    const std::unique_ptr<Connector> target = openConnector(spec);
    // A workspace of its own: the server's state table is shared with other suites.
    const QString workspaceId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    constexpr qint64 kTable = 7;
    const auto state = [&](qint64 watermark, qint64 fence) {
        TargetState next{workspaceId, kTable, Position(Watermark::integer(watermark), QVariant()), 1};
        next.fence = fence;
        return next;
    };
    const auto position = [](qint64 watermark) {
        return Position(Watermark::integer(watermark), QVariant());
    };
    const auto casAt = [&](qint64 from, qint64 to, qint64 fence) {
        target->beginStateWrite(workspaceId, kTable);
        const bool swapped = target->compareAndSetState(position(from), state(to, fence));
        if (swapped)
            target->commit();
        else
            target->rollback();
        return swapped;
    };
    const auto storedFence = [&] {
        return target->readState(workspaceId, kTable).value().fence;
    };

    QVERIFY(!target->beginStateWrite(workspaceId, kTable));
    QVERIFY(target->compareAndSetState(std::nullopt, state(10, 100)));
    target->commit();
    QCOMPARE(storedFence(), qint64(100));
    QVERIFY(casAt(10, 20, 100)); // the same claim, batch after batch
    QVERIFY(!casAt(20, 30, 99)); // an older claim: refused, though the position matches
    QCOMPARE(target->readState(workspaceId, kTable)->position, position(20));
    QVERIFY(casAt(20, 30, 150)); // a later claim moves the fence up with the position
    QCOMPARE(storedFence(), qint64(150));

    // A takeover raises the fence before it writes: the claim it replaced can commit nothing more.
    // Not where this claim's copy starts (the replaced claim committed since): left alone.
    QVERIFY(!target->raiseFence(workspaceId, kTable, 200, position(20), 0));
    QCOMPARE(storedFence(), qint64(150));
    QVERIFY(target->raiseFence(workspaceId, kTable, 200, position(30), 0));
    QCOMPARE(storedFence(), qint64(200));
    QVERIFY(!casAt(30, 40, 150));
    QVERIFY(!target->raiseFence(workspaceId, kTable, 180, position(30), 0)); // never down
    QCOMPARE(storedFence(), qint64(200));
    // An explicit write (a backfill) keeps the fence.
    target->beginStateWrite(workspaceId, kTable);
    target->writeState(state(5, 0));
    target->commit();
    QCOMPARE(storedFence(), qint64(200));
    QVERIFY(casAt(5, 50, 200));
    target->clearState(workspaceId, kTable);
}

QTEST_GUILESS_MAIN(TestFencing)
#include "tst_fencing.moc"
