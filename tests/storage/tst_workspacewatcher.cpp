// SPDX-License-Identifier: MIT
// A window follows what other connections (processes, machines) commit to its workspace through
// WorkspaceWatcher: on a file by PRAGMA data_version, on a server by the workspace's
// notifications. Run on both backends (tests/CMakeLists.txt). On a server, a report within
// QTRY's 5 s can only come from a notification: without one the watcher reads every 10 s.
#include "model/storage/workspace.h"
#include "model/storage/workspacewatcher.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>

using namespace tidemark;
using tidemark::test::PgSession;

namespace {

TableSpec ordersTable(const QString &name) {
    TableSpec spec;
    spec.sourceConnection = QStringLiteral("src");
    spec.sourceTable = name;
    spec.targetConnection = QStringLiteral("dst");
    spec.targetTable = name;
    spec.watermarkColumn = QStringLiteral("updated_at");
    return spec;
}

// Whether any report since the spy was cleared satisfies `what`.
bool reported(const QSignalSpy &spy, const std::function<bool(const WorkspaceChanges &)> &what) {
    for (const QList<QVariant> &signal : spy)
        if (what(signal.at(0).value<WorkspaceChanges>()))
            return true;
    return false;
}

} // namespace

class TestWorkspaceWatcher : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { TIDEMARK_REQUIRE_WORKSPACE_BACKEND(); }

    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_location = test::testWorkspaceLocation(*m_dir, QStringLiteral("watched.tidemark"));
        Workspace::create(m_location);
        // On a server the watcher's own connection is told apart by its application_name.
        m_watcherApp = QStringLiteral("watcher_%1").arg(QCoreApplication::applicationPid());
        m_watcherLocation = test::serverWorkspaces()
                                ? m_location + QStringLiteral("&application_name=") + m_watcherApp
                                : m_location;
    }

    // Each kind of change another connection commits is reported, with the run it concerns.
    void reportsWhatOthersCommit() {
        WorkspaceWatcher watcher(m_watcherLocation, std::chrono::milliseconds(50));
        QSignalSpy changed(&watcher, &WorkspaceWatcher::changed);
        auto other = Workspace::open(m_location);
        QTest::qWait(300); // its first read is the baseline: nothing to report
        QCOMPARE(changed.size(), 0);

        const qint64 tableId = other->addTable(ordersTable(QStringLiteral("orders")));
        QTRY_VERIFY(reported(changed, [](const WorkspaceChanges &c) { return c.tables; }));

        changed.clear();
        ScheduleSpec nightly;
        nightly.name = QStringLiteral("nightly");
        nightly.cron = QStringLiteral("0 2 * * *");
        nightly.timeZone = QStringLiteral("UTC");
        other->addSchedule(nightly);
        QTRY_VERIFY(reported(changed, [](const WorkspaceChanges &c) { return c.schedules; }));

        changed.clear();
        const qint64 runId = other->beginRun(QStringLiteral("cli"), 1, false);
        QTRY_VERIFY(reported(changed, [runId](const WorkspaceChanges &c) { return c.runs.contains(runId); }));

        // Progress: an iteration's counts move while its run goes on.
        IterationRecord iteration;
        iteration.runId = runId;
        iteration.tableId = tableId;
        iteration.source = QStringLiteral("src:orders");
        iteration.target = QStringLiteral("dst:orders");
        iteration.status = IterationStatus::Running;
        iteration.startedAt = QDateTime::currentDateTimeUtc();
        iteration.id = other->addIteration(iteration);
        QTest::qWait(300);
        changed.clear();
        iteration.rowsRead = 500;
        other->updateIteration(iteration);
        QTRY_VERIFY(reported(changed, [runId](const WorkspaceChanges &c) { return c.runs.contains(runId); }));

        changed.clear();
        iteration.status = IterationStatus::Succeeded;
        iteration.finishedAt = QDateTime::currentDateTimeUtc();
        other->updateIteration(iteration);
        other->finishRun(runId, QStringLiteral("succeeded"));
        QTRY_VERIFY(reported(
            changed, [runId](const WorkspaceChanges &c) { return c.tables && c.runs.contains(runId); }));
    }

    // Nobody writes: nothing is reported, and on a server nothing is even read (the watcher's
    // connection runs no statement), however short its interval.
    void readsNothingWhileNothingChanges() {
        WorkspaceWatcher watcher(m_watcherLocation, std::chrono::milliseconds(50));
        QSignalSpy changed(&watcher, &WorkspaceWatcher::changed);
        QTest::qWait(500);
        const QString before = lastStatementStart();
        QTest::qWait(1500);
        QCOMPARE(changed.size(), 0);
        QCOMPARE(lastStatementStart(), before);
    }

    // The server ends the watcher's session (a restart, pg_terminate_backend, a network cut): it
    // connects again, reports what changed meanwhile, and listens again.
    void followsOnAfterItsSessionIsKilled() {
        if (!test::serverWorkspaces())
            QSKIP("a file has no session to kill: this is the server run's check");
        WorkspaceWatcher watcher(m_watcherLocation, std::chrono::milliseconds(50));
        QSignalSpy changed(&watcher, &WorkspaceWatcher::changed);
        QTRY_VERIFY(!watcherSession().isEmpty());
        const QString killed = watcherSession();
        QTest::qWait(300);
        auto other = Workspace::open(m_location);
        PgSession().value(QStringLiteral("SELECT pg_terminate_backend($1::int)"), {killed});
        other->addTable(ordersTable(QStringLiteral("meanwhile")));
        QTRY_VERIFY(reported(changed, [](const WorkspaceChanges &c) { return c.tables; }));

        QTRY_VERIFY(!watcherSession().isEmpty() && watcherSession() != killed);
        QTest::qWait(300);
        changed.clear();
        other->addTable(ordersTable(QStringLiteral("after")));
        QTRY_VERIFY(reported(changed, [](const WorkspaceChanges &c) { return c.tables; }));
    }

private:
    // When the watcher's session last began a statement (server), or "" (a file, or no session).
    QString lastStatementStart() const {
        if (!test::serverWorkspaces())
            return {};
        return PgSession().value(
            QStringLiteral("SELECT query_start::text FROM pg_stat_activity WHERE application_name = $1"),
            {m_watcherApp});
    }

    // The backend pid of the watcher's session (server), or "".
    QString watcherSession() const {
        return PgSession().value(
            QStringLiteral("SELECT pid::text FROM pg_stat_activity WHERE application_name = $1"),
            {m_watcherApp});
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_location;
    QString m_watcherLocation;
    QString m_watcherApp;
};

QTEST_GUILESS_MAIN(TestWorkspaceWatcher)
#include "tst_workspacewatcher.moc"
