// SPDX-License-Identifier: MIT
#include "model/common/error.h"
#include "model/sqlite/sqlitedb.h"
#include "model/storage/laststatusreader.h"
#include "model/storage/workspace.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <QThread>

#include <atomic>
#include <functional>
#include <limits>

using namespace tidemark;

namespace {

// The pid of a process that has ended (not reused by the time the test looks, in practice).
qint64 deadPid() {
    QProcess child;
    child.start(QStringLiteral("true"), {});
    if (!child.waitForStarted())
        return 0;
    const qint64 pid = child.processId();
    child.waitForFinished();
    return pid;
}

// Makes run `runId` look owned by `pid` on `host` with a heartbeat expiring at `expiresAt`.
void setRunOwner(const QString &path, qint64 runId, const QString &host, qint64 pid,
                 const QDateTime &expiresAt) {
    test::execWorkspaceSql(path,
                           QStringLiteral("UPDATE runs SET host = ?1, pid = ?2, heartbeat_expires_at = ?3 "
                                          "WHERE id = ?4"),
                           {host, pid, isoUtc(expiresAt), runId});
}

QByteArray fileBytes(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QByteArray();
    return file.readAll();
}

qint64 pragmaInt(const QString &path, const QString &pragma) {
    SqliteDb db(path, SqliteDb::Mode::ReadOnly);
    SqliteStatement stmt(db, pragma);
    return stmt.step() ? stmt.columnInt64(0) : -1;
}

// An iteration of run `runId` copying src:orders to dst:orders for table `tableId`.
IterationRecord ordersIteration(qint64 runId, qint64 tableId, IterationStatus status) {
    IterationRecord iteration;
    iteration.runId = runId;
    iteration.tableId = tableId;
    iteration.source = QStringLiteral("src:orders");
    iteration.target = QStringLiteral("dst:orders");
    iteration.status = status;
    return iteration;
}

// A spec with every field set away from its default, so a lost column shows.
TableSpec sampleTable() {
    TableSpec spec;
    spec.sourceConnection = QStringLiteral("src");
    spec.sourceTable = QStringLiteral("Order \"Lines\"; x");
    spec.targetConnection = QStringLiteral("dst");
    spec.targetTable = QStringLiteral("order_lines");
    spec.watermarkColumn = QStringLiteral("updated_at");
    spec.watermarkType = WatermarkType::Timestamp;
    spec.tiebreakColumn = QStringLiteral("id");
    spec.keyColumns = {QStringLiteral("id"), QStringLiteral("line no")};
    spec.mode = WriteMode::Merge;
    spec.lookback = QStringLiteral("2h");
    spec.initialWatermark = *Watermark::timestamp(QStringLiteral("2025-01-01 00:00:00.000"));
    spec.active = false;
    spec.maxSkipped = 17;
    spec.expectRows = true;
    spec.commitPerBatch = true;
    spec.batchSize = 250;
    spec.addNewColumns = true;
    spec.staleAfter = QStringLiteral("6h");
    return spec;
}

void compareConfig(const TableSpec &actual, const TableSpec &expected) {
    QCOMPARE(actual.sourceConnection, expected.sourceConnection);
    QCOMPARE(actual.sourceTable, expected.sourceTable);
    QCOMPARE(actual.targetConnection, expected.targetConnection);
    QCOMPARE(actual.targetTable, expected.targetTable);
    QCOMPARE(actual.watermarkColumn, expected.watermarkColumn);
    QCOMPARE(actual.watermarkType, expected.watermarkType);
    QCOMPARE(actual.tiebreakColumn, expected.tiebreakColumn);
    QCOMPARE(actual.keyColumns, expected.keyColumns);
    QCOMPARE(actual.mode, expected.mode);
    QCOMPARE(actual.lookback, expected.lookback);
    QCOMPARE(actual.initialWatermark.nativeText(), expected.initialWatermark.nativeText());
    QCOMPARE(actual.active, expected.active);
    QCOMPARE(actual.maxSkipped, expected.maxSkipped);
    QCOMPARE(actual.expectRows, expected.expectRows);
    QCOMPARE(actual.commitPerBatch, expected.commitPerBatch);
    QCOMPARE(actual.batchSize, expected.batchSize);
    QCOMPARE(actual.addNewColumns, expected.addNewColumns);
    QCOMPARE(actual.staleAfter, expected.staleAfter);
}

} // namespace

class TestWorkspace : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void createAndReopen();
    void createRefusesExistingFile();
    void openRefusesMissingFile();
    void openRefusesForeignFile_data();
    void openRefusesForeignFile();
    void openRefusesNewerSchema();
    void connections();
    void tables();
    void idsNeverReused();
    void setWatermarkLogsChange();
    void followTargetStateTakesOnlyNewer();
    void version2WorkspaceMigrates();
    void version12AlertsOnWarningsGainStalled();
    void pinnedFileReplacedIsNotReadAgain();
    void runsRoundTrip();
    void lastIterationStatusesInOneRead();
    void lastStatusReaderFollowsWhatMoved();
    void rejects();
    void leases();
    void expiredLeaseRenewsOnlyWithAFreeSlot();
    void deadHolderTakenOver();
    void removeArchivesAndRestoreKeepsPosition();
    void restoreNeedsItsConnections();
    void editRefusesATargetAnotherTableWrites();
    void repairClosesDeadRuns();
    void repairOnceWhenOpenedConcurrently();

private:
    // A workspace file in the test's folder, or a fresh server workspace (workspacebackend.h).
    QString newPath(const QString &name) { return test::testWorkspaceLocation(*m_dir, name); }
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestWorkspace::initTestCase() {
    TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
}

void TestWorkspace::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestWorkspace::createAndReopen() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    QString id;
    {
        auto workspace = Workspace::create(path);
        QCOMPARE(workspace->path(), path);
        id = workspace->workspaceId();
        QVERIFY(!id.isEmpty());
        QVERIFY(workspace->tables().isEmpty());
    }
    auto reopened = Workspace::open(path);
    QCOMPARE(reopened->workspaceId(), id);
    QCOMPARE(test::execWorkspaceSql(path,
                                    QStringLiteral(R"(SELECT value FROM meta WHERE "key" = 'workspace_id')")),
             id);
    if (test::serverWorkspaces()) {
        QCOMPARE(test::execWorkspaceSql(
                     path, QStringLiteral(R"(SELECT value FROM meta WHERE "key" = 'schema_version')")),
                 QStringLiteral("9"));
    } else {
        QCOMPARE(pragmaInt(path, QStringLiteral("PRAGMA user_version")), qint64(Workspace::schemaVersion()));
        QCOMPARE(pragmaInt(path, QStringLiteral("PRAGMA application_id")), qint64(0x54444D4B));
        SqliteDb db(path, SqliteDb::Mode::ReadOnly);
        SqliteStatement stmt(db, QStringLiteral("PRAGMA journal_mode"));
        QVERIFY(stmt.step());
        QCOMPARE(stmt.columnText(0), QStringLiteral("wal"));
    }
    // A second workspace has its own id.
    QVERIFY(Workspace::create(newPath(QStringLiteral("other.tidemark")))->workspaceId() != id);
}

void TestWorkspace::createRefusesExistingFile() {
    if (test::serverWorkspaces()) {
        // The server's form: the schema exists, whatever it holds.
        const QString location = newPath(QStringLiteral("w"));
        Workspace::create(location)->addTable(sampleTable());
        try {
            Workspace::create(location);
            QFAIL("create overwrote a schema");
        } catch (const ValidationError &error) {
            QVERIFY2(error.message().contains(QStringLiteral("already exists")), qPrintable(error.message()));
        }
        QCOMPARE(Workspace::open(location)->tables().size(), 1);
        return;
    }
    const QString path = newPath(QStringLiteral("notes.txt"));
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("keep me\n");
    }
    try {
        Workspace::create(path);
        QFAIL("create overwrote a file");
    } catch (const ValidationError &error) {
        QCOMPARE(error.message(), QStringLiteral("workspace file %1 already exists").arg(path));
    }
    QCOMPARE(fileBytes(path), QByteArray("keep me\n"));

    const QString workspacePath = newPath(QStringLiteral("w.tidemark"));
    Workspace::create(workspacePath);
    QVERIFY_THROWS_EXCEPTION(ValidationError, Workspace::create(workspacePath));
}

void TestWorkspace::openRefusesMissingFile() {
    const QString path = newPath(QStringLiteral("missing.tidemark"));
    if (test::serverWorkspaces()) {
        try {
            Workspace::open(path);
            QFAIL("opened a missing schema");
        } catch (const ValidationError &error) {
            QVERIFY2(error.message().contains(QStringLiteral("does not exist")), qPrintable(error.message()));
            QVERIFY2(error.message().contains(QStringLiteral("init")), qPrintable(error.message()));
        }
        // Nothing was created by the attempt.
        QVERIFY_THROWS_EXCEPTION(ValidationError, Workspace::open(path));
        return;
    }
    try {
        Workspace::open(path);
        QFAIL("opened a missing file");
    } catch (const ValidationError &error) {
        QCOMPARE(error.message(),
                 QStringLiteral("workspace file %1 does not exist (create it with 'tidemark-cli init')")
                     .arg(path));
    }
    QVERIFY(!QFileInfo::exists(path));
}

void TestWorkspace::openRefusesForeignFile_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("text file") << "text";
    QTest::newRow("empty file") << "empty";
    QTest::newRow("plain SQLite database") << "sqlite";
    QTest::newRow("plain SQLite database in WAL mode") << "sqlite-wal";
    QTest::newRow("SQLite header only") << "header";
}

void TestWorkspace::openRefusesForeignFile() {
    QFETCH(QString, kind);
    if (test::serverWorkspaces()) {
        // The server's form: a schema that holds other tables is not a workspace, and stays as it was.
        const QString location = newPath(QStringLiteral("foreign"));
        const QString schema = location.section(QStringLiteral("schema="), 1);
        test::PgSession session;
        session.exec(QStringLiteral("CREATE SCHEMA \"%1\"").arg(schema));
        session.exec(QStringLiteral("CREATE TABLE \"%1\".t (x integer)").arg(schema));
        QVERIFY_THROWS_EXCEPTION(ValidationError, Workspace::open(location));
        QCOMPARE(
            session.value(QStringLiteral("SELECT count(*) FROM pg_tables WHERE schemaname = $1"), {schema}),
            QStringLiteral("1"));
        return;
    }
    const QString path = newPath(QStringLiteral("foreign.db"));
    if (kind == QLatin1String("text") || kind == QLatin1String("empty") || kind == QLatin1String("header")) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        if (kind == QLatin1String("text"))
            file.write("id,name\n1,alice\n");
        else if (kind == QLatin1String("header"))
            file.write(QByteArray("SQLite format 3\0", 16) + QByteArray(200, 'x'));
    } else {
        SqliteDb db(path, SqliteDb::Mode::ReadWriteCreate);
        if (kind == QLatin1String("sqlite-wal"))
            db.exec(QStringLiteral("PRAGMA journal_mode = WAL"));
        db.exec(QStringLiteral("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)"));
    }
    QVERIFY(!QFileInfo::exists(path + QStringLiteral("-wal")));
    const QByteArray before = fileBytes(path);
    const QDateTime modified = QFileInfo(path).lastModified();
    const QStringList filesBefore = QDir(m_dir->path()).entryList(QDir::Files);

    try {
        Workspace::open(path);
        QFAIL("opened a foreign file");
    } catch (const ValidationError &error) {
        QCOMPARE(error.message(), QStringLiteral("%1 is not a Tidemark workspace").arg(path));
    }
    QCOMPARE(fileBytes(path), before);
    QCOMPARE(QFileInfo(path).lastModified(), modified);
    QCOMPARE(QDir(m_dir->path()).entryList(QDir::Files), filesBefore); // no -wal/-shm created
}

void TestWorkspace::openRefusesNewerSchema() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    Workspace::create(path);
    if (test::serverWorkspaces()) {
        test::execWorkspaceSql(
            path, QStringLiteral(R"(UPDATE meta SET value = '999' WHERE "key" = 'schema_version')"));
    } else {
        SqliteDb db(path, SqliteDb::Mode::ReadWrite);
        db.exec(QStringLiteral("PRAGMA user_version = 999"));
    }
    try {
        Workspace::open(path);
        QFAIL("opened a newer schema");
    } catch (const ValidationError &error) {
        QVERIFY2(error.message().contains(path), qPrintable(error.message()));
        QVERIFY2(error.message().contains(QStringLiteral("999")), qPrintable(error.message()));
    }
    if (!test::serverWorkspaces())
        QCOMPARE(pragmaInt(path, QStringLiteral("PRAGMA user_version")), qint64(999));
}

void TestWorkspace::connections() {
    auto workspace = Workspace::create(newPath(QStringLiteral("w.tidemark")));
    ConnectionSpec lite;
    lite.name = QStringLiteral("src");
    lite.kind = ConnectionKind::Sqlite;
    lite.path = QStringLiteral("/data/src's file.db");
    ConnectionSpec pg;
    pg.name = QStringLiteral("dst");
    pg.kind = ConnectionKind::Postgres;
    pg.conninfo = QStringLiteral("host=localhost dbname=dw user=etl");
    pg.passwordEnv = QStringLiteral("DW_PASSWORD");

    const qint64 liteId = workspace->addConnection(lite);
    const qint64 pgId = workspace->addConnection(pg);
    QVERIFY(liteId > 0 && pgId > liteId);

    try {
        workspace->addConnection(lite);
        QFAIL("duplicate accepted");
    } catch (const ValidationError &error) {
        QCOMPARE(error.message(), QStringLiteral("connection 'src' already exists"));
    }

    const auto all = workspace->connections();
    QCOMPARE(all.size(), 2);
    const auto readPg = workspace->connection(QStringLiteral("dst"));
    QVERIFY(readPg);
    QCOMPARE(readPg->id, pgId);
    QCOMPARE(readPg->kind, ConnectionKind::Postgres);
    QCOMPARE(readPg->conninfo, pg.conninfo);
    QCOMPARE(readPg->passwordEnv, pg.passwordEnv);
    QCOMPARE(workspace->connection(QStringLiteral("src"))->path, lite.path);
    QVERIFY(!workspace->connection(QStringLiteral("nope")));

    // A table using a connection pins it; a rename follows into the table.
    TableSpec spec = sampleTable();
    spec.targetConnection = QStringLiteral("dst");
    const qint64 tableId = workspace->addTable(spec);
    try {
        workspace->removeConnection(QStringLiteral("src"));
        QFAIL("removed a connection in use");
    } catch (const ValidationError &error) {
        QVERIFY2(error.message().contains(QString::number(tableId)), qPrintable(error.message()));
        QVERIFY2(error.message().contains(QStringLiteral("'src'")), qPrintable(error.message()));
    }
    ConnectionSpec renamed = *workspace->connection(QStringLiteral("src"));
    renamed.name = QStringLiteral("source");
    renamed.path = QStringLiteral("/data/other.db");
    workspace->updateConnection(renamed);
    QCOMPARE(workspace->connection(QStringLiteral("source"))->path, QStringLiteral("/data/other.db"));
    QVERIFY(!workspace->connection(QStringLiteral("src")));
    QCOMPARE(workspace->table(tableId)->sourceConnection, QStringLiteral("source"));
    renamed.name = QStringLiteral("dst");
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->updateConnection(renamed));

    workspace->removeTable(tableId);
    workspace->removeConnection(QStringLiteral("source"));
    QCOMPARE(workspace->connections().size(), 1);
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->removeConnection(QStringLiteral("source")));
}

void TestWorkspace::tables() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    qint64 id = 0;
    const TableSpec spec = sampleTable();
    {
        auto workspace = Workspace::create(path);
        id = workspace->addTable(spec);
        QVERIFY(id > 0);
    }
    auto workspace = Workspace::open(path);
    auto read = workspace->table(id);
    QVERIFY(read);
    QCOMPARE(read->id, id);
    compareConfig(*read, spec);
    QVERIFY(read->lastWatermark.isNull());
    QVERIFY(read->lastTiebreak.isNull());

    TableSpec changed = *read;
    changed.mode = WriteMode::Append;
    changed.lookback.clear();
    changed.keyColumns.clear();
    changed.tiebreakColumn.clear();
    changed.active = true;
    changed.batchSize = 5000;
    changed.initialWatermark = Watermark();
    // updateTable leaves the last watermark alone.
    changed.lastWatermark = *Watermark::timestamp(QStringLiteral("2030-01-01 00:00:00.000"));
    workspace->updateTable(changed);
    read = workspace->table(id);
    compareConfig(*read, changed);
    QVERIFY(read->lastWatermark.isNull());

    workspace->setActive(id, false);
    QCOMPARE(workspace->table(id)->active, false);

    TableSpec integerSpec;
    integerSpec.sourceConnection = QStringLiteral("src");
    integerSpec.sourceTable = QStringLiteral("events");
    integerSpec.targetConnection = QStringLiteral("dst");
    integerSpec.targetTable = QStringLiteral("events");
    integerSpec.watermarkColumn = QStringLiteral("seq");
    integerSpec.watermarkType = WatermarkType::Integer;
    integerSpec.initialWatermark = Watermark::integer(std::numeric_limits<qint64>::min());
    const qint64 second = workspace->addTable(integerSpec);
    const auto all = workspace->tables();
    QCOMPARE(all.size(), 2);
    QCOMPARE(all[0].id, id);
    QCOMPARE(all[1].id, second);
    QCOMPARE(all[1].initialWatermark.toInteger(), std::numeric_limits<qint64>::min());

    workspace->removeTable(id);
    QVERIFY(!workspace->table(id));
    QCOMPARE(workspace->tables().size(), 1);
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->removeTable(id));
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->setActive(id, true));
    changed.id = id;
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->updateTable(changed));
}

void TestWorkspace::idsNeverReused() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    qint64 last = 0;
    {
        auto workspace = Workspace::create(path);
        workspace->addTable(sampleTable());
        last = workspace->addTable(sampleTable());
        workspace->removeTable(last); // the highest id: a plain rowid table would hand it out again
    }
    auto workspace = Workspace::open(path);
    const qint64 next = workspace->addTable(sampleTable());
    QVERIFY2(next > last, qPrintable(QStringLiteral("%1 after %2").arg(next).arg(last)));
}

void TestWorkspace::setWatermarkLogsChange() {
    auto workspace = Workspace::create(newPath(QStringLiteral("w.tidemark")));
    const qint64 id = workspace->addTable(sampleTable());
    const qint64 runId = workspace->beginRun(QStringLiteral("cli"), 2, false);
    const QDateTime added = workspace->positionsMovedAt().value(id); // never moved: when it was added
    QVERIFY(added.isValid());

    const Watermark first = *Watermark::timestamp(QStringLiteral("2025-07-30 23:05:18.123456"));
    workspace->setWatermark(id, first, QVariant(qint64(42)), QStringLiteral("run"), runId);
    auto read = workspace->table(id);
    QCOMPARE(read->lastWatermark.nativeText(), first.nativeText()); // spelling kept
    QCOMPARE(read->lastTiebreak, QVariant(qint64(42)));

    const Watermark second = *Watermark::timestamp(QStringLiteral("2025-01-01 00:00:00.000000"));
    workspace->setWatermark(id, second, QVariant(QStringLiteral("007")), QStringLiteral("backfill"), 0);
    read = workspace->table(id);
    QCOMPARE(read->lastWatermark.nativeText(), second.nativeText());
    QCOMPARE(read->lastTiebreak, QVariant(QStringLiteral("007"))); // text stays text

    const auto changes = workspace->watermarkChanges(id);
    QCOMPARE(changes.size(), 2);
    QCOMPARE(changes[0].tableId, id);
    QCOMPARE(changes[0].oldValue, QString());
    QCOMPARE(changes[0].newValue, QStringLiteral("2025-07-30T23:05:18.123456Z"));
    QCOMPARE(changes[0].cause, QStringLiteral("run"));
    QCOMPARE(changes[0].runId, runId);
    QVERIFY(changes[0].at.isValid());
    QCOMPARE(changes[0].at.timeSpec(), Qt::UTC);
    QCOMPARE(changes[1].oldValue, QStringLiteral("2025-07-30T23:05:18.123456Z"));
    QCOMPARE(changes[1].newValue, QStringLiteral("2025-01-01T00:00:00.000000Z"));
    QCOMPARE(changes[1].cause, QStringLiteral("backfill"));
    QCOMPARE(changes[1].runId, qint64(0));
    QCOMPARE(workspace->positionsMovedAt().value(id), changes[1].at);
    // An edit that leaves the position where it is moves nothing.
    TableSpec edited = *workspace->table(id);
    edited.maxSkipped = 3;
    workspace->replaceTable(edited, edited.lastGeneration,
                            Position(edited.lastWatermark, edited.lastTiebreak), QStringLiteral("edit"));
    QCOMPARE(workspace->watermarkChanges(id).size(), 3);
    QCOMPARE(workspace->positionsMovedAt().value(id), changes[1].at);

    QVERIFY_THROWS_EXCEPTION(
        Error, workspace->setWatermark(id, Watermark::integer(5), QVariant(), QStringLiteral("edit"), 0));
    QCOMPARE(workspace->watermarkChanges(id).size(), 3); // the refused change left no trace
    QVERIFY_THROWS_EXCEPTION(ValidationError,
                             workspace->setWatermark(id + 100, first, QVariant(), QStringLiteral("edit"), 0));
}

// The rule the protocol model proves (docs/protocol.md): the workspace takes a state only if it
// is newer in (generation, position). Two connections, as two processes would hold them.
void TestWorkspace::followTargetStateTakesOnlyNewer() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    auto first = Workspace::create(path);
    auto second = Workspace::open(path);
    TableSpec spec = sampleTable();
    spec.watermarkType = WatermarkType::Integer;
    spec.initialWatermark = Watermark();
    const qint64 id = first->addTable(spec);
    const auto at = [](qint64 watermark, qint64 tiebreak) {
        return Position(Watermark::integer(watermark), QVariant(tiebreak));
    };
    const auto held = [&] {
        const TableSpec read = *second->table(id);
        return QStringLiteral("%1/%2")
            .arg(read.lastGeneration)
            .arg(Position(read.lastWatermark, read.lastTiebreak).display());
    };

    QCOMPARE(first->followTargetState(id, 0, at(5, 1), QStringLiteral("run"), 0), FollowResult::Moved);
    // A stale reconcile (read before the run's commit) and a stale advance: refused.
    QCOMPARE(second->followTargetState(id, 0, Position(), QStringLiteral("reconcile"), 0),
             FollowResult::Stale);
    QCOMPARE(second->followTargetState(id, 0, at(5, 0), QStringLiteral("run"), 0), FollowResult::Stale);
    QCOMPARE(second->followTargetState(id, 0, at(5, 1), QStringLiteral("reconcile"), 0),
             FollowResult::Unchanged);
    QCOMPARE(held(), QStringLiteral("0/5 / 1"));
    // A backfill's generation moves it back; an advance of the older generation cannot follow.
    QCOMPARE(second->followTargetState(id, 1, at(2, 0), QStringLiteral("backfill"), 0), FollowResult::Moved);
    QCOMPARE(first->followTargetState(id, 0, at(9, 0), QStringLiteral("run"), 0), FollowResult::Stale);
    QCOMPARE(held(), QStringLiteral("1/2 / 0"));
    // A run after the backfill moves it on; the backfill's late write cannot undo that.
    QCOMPARE(first->followTargetState(id, 1, at(7, 0), QStringLiteral("run"), 0), FollowResult::Moved);
    QCOMPARE(second->followTargetState(id, 1, at(2, 0), QStringLiteral("backfill"), 0), FollowResult::Stale);
    QCOMPARE(held(), QStringLiteral("1/7 / 0"));

    // Only moves are logged; a hand edit stays explicit and keeps the generation.
    QStringList log;
    for (const WatermarkChange &change : second->watermarkChanges(id))
        log << QStringLiteral("%1 %2->%3").arg(change.cause, change.oldValue, change.newValue);
    QCOMPARE(log, (QStringList{QStringLiteral("run ->5"), QStringLiteral("backfill 5->2"),
                               QStringLiteral("run 2->7")}));
    first->setWatermark(id, Watermark::integer(3), QVariant(), QStringLiteral("edit"), 0);
    QCOMPARE(held(), QStringLiteral("1/3"));
}

// A version-2 workspace (before tables.last_generation) opens migrated: positions kept,
// generation 0.
void TestWorkspace::version2WorkspaceMigrates() {
    if (test::serverWorkspaces())
        QSKIP("the file's own migration steps (2 to 18); a server workspace starts at its version 1");
    const QString path = newPath(QStringLiteral("w.tidemark"));
    qint64 id = 0;
    {
        auto workspace = Workspace::create(path);
        id = workspace->addTable(sampleTable());
        workspace->setWatermark(id, *Watermark::timestamp(QStringLiteral("2025-07-30 23:05:18.123456")),
                                QVariant(qint64(42)), QStringLiteral("run"), 0);
    }
    {
        SqliteDb db(path, SqliteDb::Mode::ReadWrite);
        // Back to schema 2: without what versions 3 to 18 added.
        db.exec(QStringLiteral(
            "DROP TABLE schedules; DROP TABLE runner; ALTER TABLE runs DROP COLUMN schedule; "
            "DROP TABLE alert_settings; ALTER TABLE tables DROP COLUMN last_generation; "
            "ALTER TABLE watermark_changes DROP COLUMN host; DROP INDEX rejects_by_iteration; "
            "ALTER TABLE iterations DROP COLUMN rows_unorderable_watermark; "
            "ALTER TABLE iterations DROP COLUMN rows_pending; ALTER TABLE iterations DROP COLUMN "
            "rows_rolled_back; "
            "ALTER TABLE iterations DROP COLUMN rows_future; ALTER TABLE iterations DROP COLUMN "
            "source_behind; ALTER TABLE tables DROP COLUMN max_future; "
            "ALTER TABLE tables DROP COLUMN max_jump; ALTER TABLE tables DROP COLUMN stale_after; DROP TABLE "
            "table_alarms; ALTER TABLE tables DROP COLUMN delete_policy; "
            "ALTER TABLE iterations DROP COLUMN rows_deleted; ALTER TABLE runs DROP COLUMN kind; ALTER TABLE "
            "tables DROP COLUMN source_timezone; ALTER TABLE connections DROP COLUMN max_connections; "
            "DROP INDEX iterations_by_runner; ALTER TABLE runs DROP COLUMN queued; ALTER TABLE iterations "
            "DROP COLUMN cancel_requested; DROP TABLE fleet_runners; DROP TABLE schedule_firings; "
            "ALTER TABLE iterations DROP COLUMN runner; ALTER TABLE iterations DROP COLUMN waiting; "
            "ALTER TABLE leases DROP COLUMN token; ALTER TABLE runs DROP COLUMN backfill_range; ALTER TABLE "
            "tables DROP COLUMN zero_dates; ALTER TABLE runs DROP COLUMN started_by; ALTER TABLE "
            "watermark_changes DROP COLUMN changed_by; PRAGMA user_version = 2"));
    }
    auto workspace = Workspace::open(path);
    QCOMPARE(pragmaInt(path, QStringLiteral("PRAGMA user_version")), qint64(Workspace::schemaVersion()));
    const TableSpec read = *workspace->table(id);
    QCOMPARE(read.lastWatermark.nativeText(), QStringLiteral("2025-07-30 23:05:18.123456"));
    QCOMPARE(read.lastTiebreak, QVariant(qint64(42)));
    QCOMPARE(read.lastGeneration, qint64(0));
    QCOMPARE(workspace->followTargetState(id, 1, Position(), QStringLiteral("backfill"), 0),
             FollowResult::Moved);
    QCOMPARE(workspace->table(id)->lastGeneration, qint64(1));
}

// Alerts stored before version 13 that asked for warnings now hear of stalled tables too; those
// that did not are left as they were.
void TestWorkspace::version12AlertsOnWarningsGainStalled() {
    if (test::serverWorkspaces())
        QSKIP("the file's own migration step 13; a server workspace makes the same change in its version 3");
    for (const auto &[stored, migrated] :
         {std::pair{QStringLiteral("failed,warning"), QStringLiteral("failed,warning,stalled")},
          std::pair{QStringLiteral("warning"), QStringLiteral("warning,stalled")},
          std::pair{QStringLiteral("failed,interrupted"), QStringLiteral("failed,interrupted")}}) {
        const QString path = newPath(QStringLiteral("w-%1.tidemark").arg(stored.size()));
        {
            auto workspace = Workspace::create(path);
            AlertSettings settings;
            settings.hookCommand = QStringLiteral("true");
            workspace->setAlertSettings(settings);
        }
        {
            SqliteDb db(path, SqliteDb::Mode::ReadWrite);
            db.exec(QStringLiteral(
                "DROP TABLE table_alarms; ALTER TABLE tables DROP COLUMN delete_policy; "
                "ALTER TABLE iterations DROP COLUMN rows_deleted; ALTER TABLE runs DROP "
                "COLUMN kind; ALTER TABLE tables DROP COLUMN source_timezone; "
                "ALTER TABLE connections DROP COLUMN max_connections; DROP INDEX "
                "iterations_by_runner; ALTER TABLE runs DROP COLUMN queued; ALTER TABLE "
                "iterations DROP COLUMN cancel_requested; DROP TABLE fleet_runners; DROP TABLE "
                "schedule_firings; ALTER TABLE "
                "iterations DROP COLUMN runner; ALTER TABLE iterations DROP COLUMN waiting; "
                "ALTER TABLE leases DROP COLUMN token; ALTER TABLE runs DROP COLUMN backfill_range; ALTER "
                "TABLE tables DROP COLUMN zero_dates; ALTER TABLE runs DROP COLUMN started_by; ALTER "
                "TABLE watermark_changes DROP COLUMN changed_by; PRAGMA user_version = 12"));
        }
        test::execSql(path, QStringLiteral("UPDATE alert_settings SET on_statuses = ?1"), {stored});
        QCOMPARE(Workspace::open(path)->alertSettings().on.join(QLatin1Char(',')), migrated);
    }
}

// A backup restored over the file of a workspace this process pinned (a runner's): the old
// file's WAL, still under the name, is never read into the restored file.
void TestWorkspace::pinnedFileReplacedIsNotReadAgain() {
    if (test::serverWorkspaces())
        QSKIP("a file's WAL and inode; a server workspace has no file to replace");
    const QString path = newPath(QStringLiteral("w.tidemark"));
    const QString backup = newPath(QStringLiteral("backup.tidemark"));
    auto workspace = Workspace::create(path);
    const qint64 id = workspace->addTable(sampleTable());
    const Watermark backedUp = workspace->table(id)->lastWatermark;
    test::execSql(path, QStringLiteral("VACUUM INTO ?1"), {backup});
    workspace->pinFile();
    for (int day = 1; day <= 28; ++day) // pages in the old file's WAL
        workspace->setWatermark(
            id,
            *Watermark::timestamp(
                QStringLiteral("2025-02-%1 00:00:00.000").arg(day, 2, 10, QLatin1Char('0'))),
            QVariant(qint64(day)), QStringLiteral("edit"), 0);
    QCOMPARE(::rename(QFile::encodeName(backup).constData(), QFile::encodeName(path).constData()), 0);

    const auto refused = [&](const std::function<void()> &use) {
        try {
            use();
        } catch (const Error &error) {
            return error.message().contains(QStringLiteral("no longer the file this process opened"));
        }
        return false;
    };
    QVERIFY(refused([&] { Workspace::open(path); }));
    QVERIFY(refused([&] { Workspace::checkpoint(path, 100); }));
    QVERIFY(refused([&] { workspace->pinFile(); }));

    workspace.reset(); // the old file's last connection: its WAL goes with it, and the pin
    QCOMPARE(test::queryValue(path, QStringLiteral("PRAGMA integrity_check")).toString(),
             QStringLiteral("ok"));
    const auto restored = Workspace::open(path);
    QCOMPARE(restored->table(id)->lastWatermark, backedUp);
}

void TestWorkspace::runsRoundTrip() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    auto workspace = Workspace::create(path);
    const qint64 tableId = workspace->addTable(sampleTable());
    QCOMPARE(workspace->lastIterationStatus(tableId), QString());

    const qint64 firstRun = workspace->beginRun(QStringLiteral("cli"), 3, false);
    IterationRecord iteration;
    iteration.runId = firstRun;
    iteration.tableId = tableId;
    iteration.source = QStringLiteral("src:orders");
    iteration.target = QStringLiteral("dst:orders");
    iteration.status = IterationStatus::Running;
    iteration.startedAt = QDateTime(QDate(2026, 11, 30), QTime(2, 0, 0, 120), Qt::UTC);
    iteration.log.append(LogLine{QDateTime(QDate(2026, 11, 30), QTime(2, 0, 0, 121), Qt::UTC),
                                 QStringLiteral("info"), QStringLiteral("window opened")});
    iteration.id = workspace->addIteration(iteration);
    QVERIFY(iteration.id > 0);
    QCOMPARE(workspace->lastIterationStatus(tableId), QStringLiteral("running"));

    iteration.status = IterationStatus::Succeeded;
    iteration.finishedAt = iteration.startedAt.addMSecs(812);
    iteration.durationMs = 812;
    iteration.rowsRead = 1200;
    iteration.rowsWritten = 1199;
    iteration.rowsSkipped = 1;
    iteration.rowsNullWatermark = 3;
    iteration.rowsUnorderableWatermark = 2;
    iteration.windowRows = 1200;
    iteration.watermarkBefore = QStringLiteral("2025-07-30T23:05:18.000Z");
    iteration.watermarkAfter = QStringLiteral("2025-07-31T01:00:00.000Z");
    iteration.windowLower = iteration.watermarkBefore;
    iteration.windowUpper = iteration.watermarkAfter;
    workspace->updateIteration(iteration);
    workspace->appendLog(iteration.id,
                         LogLine{QDateTime(), QStringLiteral("warning"), QStringLiteral("1 row skipped")});
    workspace->finishRun(firstRun, QStringLiteral("succeeded"));

    const qint64 secondRun = workspace->beginRun(QStringLiteral("gui"), 1, true);
    IterationRecord failed;
    failed.runId = secondRun;
    failed.tableId = tableId;
    failed.source = iteration.source;
    failed.target = iteration.target;
    failed.status = IterationStatus::Failed;
    failed.error = QStringLiteral("column 'x' of table orders: type mismatch");
    failed.id = workspace->addIteration(failed);
    // The second run is a dry run: it says nothing about the table's real last run.
    QCOMPARE(workspace->lastIterationStatus(tableId), QStringLiteral("succeeded"));

    // A fresh connection sees what the first wrote.
    auto reader = Workspace::open(path);
    const auto runs = reader->runs();
    QCOMPARE(runs.size(), 2);
    QCOMPARE(runs[0].id, secondRun); // newest first
    QCOMPARE(runs[0].trigger, QStringLiteral("gui"));
    QCOMPARE(runs[0].dryRun, true);
    QCOMPARE(runs[0].status, QStringLiteral("running"));
    QVERIFY(!runs[0].finishedAt.isValid());
    QCOMPARE(runs[0].iterations.size(), 1);
    QCOMPARE(runs[0].iterations[0].error, failed.error);
    QVERIFY(!runs[0].iterations[0].startedAt.isValid());
    QCOMPARE(runs[0].iterations[0].windowRows, qint64(-1));

    const RunRecord &first = runs[1];
    QCOMPARE(first.id, firstRun);
    QCOMPARE(first.status, QStringLiteral("succeeded"));
    QCOMPARE(first.concurrency, 3);
    QCOMPARE(first.host, QSysInfo::machineHostName());
    QCOMPARE(first.pid, QCoreApplication::applicationPid());
    QVERIFY(first.startedAt.isValid() && first.finishedAt.isValid());
    QVERIFY(first.finishedAt >= first.startedAt);
    QCOMPARE(first.iterations.size(), 1);
    const IterationRecord &read = first.iterations[0];
    QCOMPARE(read.id, iteration.id);
    QCOMPARE(read.runId, firstRun);
    QCOMPARE(read.tableId, tableId);
    QCOMPARE(read.source, iteration.source);
    QCOMPARE(read.target, iteration.target);
    QCOMPARE(read.status, IterationStatus::Succeeded);
    QCOMPARE(read.startedAt, iteration.startedAt);
    QCOMPARE(read.finishedAt, iteration.finishedAt);
    QCOMPARE(read.durationMs, qint64(812));
    QCOMPARE(read.rowsRead, qint64(1200));
    QCOMPARE(read.rowsWritten, qint64(1199));
    QCOMPARE(read.rowsSkipped, qint64(1));
    QCOMPARE(read.rowsNullWatermark, qint64(3));
    QCOMPARE(read.rowsUnorderableWatermark, qint64(2));
    QCOMPARE(read.windowRows, qint64(1200));
    QCOMPARE(read.watermarkBefore, iteration.watermarkBefore);
    QCOMPARE(read.watermarkAfter, iteration.watermarkAfter);
    QCOMPARE(read.windowLower, iteration.windowLower);
    QCOMPARE(read.windowUpper, iteration.windowUpper);
    QCOMPARE(read.error, QString());
    QCOMPARE(read.log.size(), 2);
    QCOMPARE(read.log[0].message, QStringLiteral("window opened"));
    QCOMPARE(read.log[0].at, iteration.log[0].at);
    QCOMPARE(read.log[1].level, QStringLiteral("warning"));
    QVERIFY(read.log[1].at.isValid());

    QCOMPARE(reader->runs(1).size(), 1);
    QCOMPARE(reader->runs(1)[0].id, secondRun);
    const auto only = reader->runs(0, firstRun);
    QCOMPARE(only.size(), 1);
    QCOMPARE(only[0].id, firstRun);
    QVERIFY(reader->runs(0, secondRun + 10).isEmpty());

    // History outlives the table.
    workspace->removeTable(tableId);
    QCOMPARE(reader->runs()[1].iterations[0].source, QStringLiteral("src:orders"));
}

// The window reads every table's last status at once: the same answers as one query per table
// (a dry run left out, a table never run empty, a removed table absent).
void TestWorkspace::lastIterationStatusesInOneRead() {
    auto workspace = Workspace::create(newPath(QStringLiteral("w.tidemark")));
    QList<qint64> ids;
    for (int i = 0; i < 5; ++i)
        ids << workspace->addTable(sampleTable());
    const auto record = [&](qint64 runId, qint64 tableId, IterationStatus status) {
        workspace->addIteration(ordersIteration(runId, tableId, status));
    };
    const qint64 first = workspace->beginRun(QStringLiteral("cli"), 2, false);
    record(first, ids[0], IterationStatus::Succeeded);
    record(first, ids[1], IterationStatus::Failed);
    record(first, ids[2], IterationStatus::Succeeded);
    const qint64 dry = workspace->beginRun(QStringLiteral("gui"), 2, true);
    record(dry, ids[0], IterationStatus::DryRun);
    record(dry, ids[3], IterationStatus::DryRun);
    const qint64 second = workspace->beginRun(QStringLiteral("schedule"), 2, false);
    record(second, ids[1], IterationStatus::NoNewRows);
    record(second, ids[2], IterationStatus::Cancelled);
    workspace->removeTable(ids[2]);

    const QHash<qint64, QString> statuses = workspace->lastIterationStatuses();
    QCOMPARE(statuses.size(), 4); // the removed table is not listed
    for (const TableSpec &table : workspace->tables())
        QCOMPARE(statuses.value(table.id, QStringLiteral("(absent)")),
                 workspace->lastIterationStatus(table.id));
    QCOMPARE(statuses.value(ids[0]), QStringLiteral("succeeded"));
    QCOMPARE(statuses.value(ids[1]), QStringLiteral("no_new_rows"));
    QCOMPARE(statuses.value(ids[3], QStringLiteral("(absent)")), QString()); // only dry runs
    QCOMPARE(statuses.value(ids[4], QStringLiteral("(absent)")), QString()); // never run
}

// While iterations are open, a LastStatusReader reads again only the tables whose iterations
// began, moved or ended: each of those moves shows; an ended iteration rewritten (no iteration
// of its table moved) shows once no iteration is open, when it reads every status again.
void TestWorkspace::lastStatusReaderFollowsWhatMoved() {
    auto workspace = Workspace::create(newPath(QStringLiteral("w.tidemark")));
    QList<qint64> ids;
    for (int i = 0; i < 4; ++i)
        ids << workspace->addTable(sampleTable());
    QList<IterationRecord> queued;
    const qint64 run = workspace->beginRun(QStringLiteral("gui"), 2, false);
    for (qint64 id : std::as_const(ids))
        queued << ordersIteration(run, id, IterationStatus::Queued);
    workspace->addIterations(queued);
    LastStatusReader reader;
    QHash<qint64, QString> statuses = reader.read(*workspace, workspace->tables());
    QCOMPARE(statuses.size(), 4);
    QCOMPARE(statuses.value(ids[0]), QStringLiteral("queued"));

    queued[0].status = IterationStatus::Running;
    workspace->updateIteration(queued[0]);
    queued[1].status = IterationStatus::Succeeded;
    workspace->updateIteration(queued[1]);
    statuses = reader.read(*workspace, workspace->tables());
    QCOMPARE(statuses.value(ids[0]), QStringLiteral("running"));
    QCOMPARE(statuses.value(ids[1]), QStringLiteral("succeeded"));
    QCOMPARE(statuses.value(ids[2]), QStringLiteral("queued"));

    // Ended between two reads: seen, though it is open no longer.
    queued[0].status = IterationStatus::Failed;
    workspace->updateIteration(queued[0]);
    // An ended iteration rewritten while the run goes on (as a commit the workspace could not
    // record is completed): not looked at until no iteration is open.
    test::execWorkspaceSql(workspace->path(),
                           QStringLiteral("UPDATE iterations SET status = 'warning' WHERE id = ?1"),
                           {queued[1].id});
    // A table added, and another removed.
    ids << workspace->addTable(sampleTable());
    workspace->removeTable(ids[3]);
    statuses = reader.read(*workspace, workspace->tables());
    QCOMPARE(statuses.value(ids[0]), QStringLiteral("failed"));
    QCOMPARE(statuses.value(ids[1]), QStringLiteral("succeeded"));
    QCOMPARE(statuses.value(ids[4], QStringLiteral("(absent)")), QString());
    QVERIFY(!statuses.contains(ids[3]));
    QCOMPARE(statuses.size(), 4);

    // A later run's iteration, begun and ended between two reads.
    workspace->addIteration(ordersIteration(workspace->beginRun(QStringLiteral("cli"), 1, false), ids[2],
                                            IterationStatus::NoNewRows));
    statuses = reader.read(*workspace, workspace->tables());
    QCOMPARE(statuses.value(ids[2]), QStringLiteral("no_new_rows"));
    QCOMPARE(statuses.value(ids[1]), QStringLiteral("succeeded"));

    // The run's last iterations end: with none open, every status is read again.
    for (int i : {2, 3}) {
        queued[i].status = IterationStatus::Cancelled;
        workspace->updateIteration(queued[i]);
    }
    statuses = reader.read(*workspace, workspace->tables());
    QCOMPARE(statuses.value(ids[1]), QStringLiteral("warning"));
    QCOMPARE(statuses.size(), 4);
    for (const TableSpec &table : workspace->tables())
        QCOMPARE(statuses.value(table.id), workspace->lastIterationStatus(table.id));
}

void TestWorkspace::rejects() {
    auto workspace = Workspace::create(newPath(QStringLiteral("w.tidemark")));
    const qint64 tableId = workspace->addTable(sampleTable());
    RejectedRow row;
    row.runId = workspace->beginRun(QStringLiteral("cli"), 2, false);
    row.tableId = tableId;
    row.error = QStringLiteral("NOT NULL constraint failed: orders.total");
    row.rowKey = QStringLiteral(R"({"id":7})");
    row.rowData = QStringLiteral(R"({"id":7,"total":null})");
    workspace->addReject(row);
    const auto rows = workspace->rejects(tableId);
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows[0].runId, row.runId);
    QCOMPARE(rows[0].error, row.error);
    QCOMPARE(rows[0].rowKey, row.rowKey);
    QCOMPARE(rows[0].rowData, row.rowData);
    QVERIFY(rows[0].at.isValid());
    QVERIFY(workspace->rejects(tableId + 1).isEmpty());
}

// A lease that expired while its process was stopped freed its slot: renewing it takes it again
// only while the caps still have room, else its iteration must stop (LeaseRenewal::SlotLost).
void TestWorkspace::expiredLeaseRenewsOnlyWithAFreeSlot() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    auto workspace = Workspace::create(path);
    const qint64 first = workspace->addTable(sampleTable());
    const qint64 second = workspace->addTable(sampleTable());
    workspace->setMaxConcurrency(1);
    const qint64 runA = workspace->beginRun(QStringLiteral("cli"), 2, false);
    const qint64 runB = workspace->beginRun(QStringLiteral("cli"), 2, false);
    const LeaseAttempt stopped = workspace->acquireLease(first, runA, 300);
    QVERIFY(stopped.acquired);
    const auto expire = [&] {
        test::execWorkspaceSql(path, QStringLiteral("UPDATE leases SET expires_at = ?1 WHERE table_id = ?2"),
                               {isoUtc(QDateTime::currentDateTimeUtc().addSecs(-5)), first});
    };
    expire();
    // Its slot went to another iteration meanwhile.
    QVERIFY(workspace->acquireLease(second, runB, 300).acquired);
    QVERIFY(workspace->renewLease(first, stopped.token, std::chrono::seconds(300)) == LeaseRenewal::SlotLost);
    const QString unchanged = test::execWorkspaceSql(
        path, QStringLiteral("SELECT expires_at FROM leases WHERE table_id = ?1"), {first});
    QVERIFY(QDateTime::fromString(unchanged, Qt::ISODateWithMs) < QDateTime::currentDateTimeUtc());
    // With the slot free again it is taken again, extended.
    workspace->releaseLease(second, runB);
    QVERIFY(workspace->renewLease(first, stopped.token, std::chrono::seconds(300)) == LeaseRenewal::Renewed);
    const QString renewed = test::execWorkspaceSql(
        path, QStringLiteral("SELECT expires_at FROM leases WHERE table_id = ?1"), {first});
    QVERIFY(QDateTime::fromString(renewed, Qt::ISODateWithMs) > QDateTime::currentDateTimeUtc());
}

void TestWorkspace::leases() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    auto workspace = Workspace::create(path);
    const qint64 tableId = workspace->addTable(sampleTable());
    const qint64 runA = workspace->beginRun(QStringLiteral("cli"), 2, false);
    const qint64 runB = workspace->beginRun(QStringLiteral("gui"), 2, false);

    const LeaseAttempt first = workspace->acquireLease(tableId, runA, 300);
    QVERIFY(first.acquired);
    QVERIFY(!first.holder);

    // Another run of this same (live) process: refused, naming the holder.
    auto other = Workspace::open(path);
    const LeaseAttempt second = other->acquireLease(tableId, runB, 300);
    QVERIFY(!second.acquired);
    QVERIFY(second.holder);
    QCOMPARE(second.holder->runId, runA);
    QCOMPARE(second.holder->tableId, tableId);
    QCOMPARE(second.holder->pid, QCoreApplication::applicationPid());
    QCOMPARE(second.holder->host, QSysInfo::machineHostName());
    QVERIFY(second.holder->expiresAt > QDateTime::currentDateTimeUtc());

    // Renewed only by the acquisition that drew its token.
    QVERIFY(first.token > 0);
    QVERIFY(other->renewLease(tableId, first.token + 1, std::chrono::seconds(300)) ==
            LeaseRenewal::TakenOver);
    QVERIFY(workspace->renewLease(tableId, first.token, std::chrono::seconds(600)) == LeaseRenewal::Renewed);
    other->releaseLease(tableId, runB); // not the holder: no effect
    QVERIFY(!other->acquireLease(tableId, runB, 300).acquired);

    workspace->releaseLease(tableId, runA);
    const LeaseAttempt afterRelease = other->acquireLease(tableId, runB, 300);
    QVERIFY(afterRelease.acquired);
    QVERIFY(!afterRelease.holder);

    // Expired: taken over even though its holder is elsewhere and may be alive.
    test::execWorkspaceSql(
        path, QStringLiteral("UPDATE leases SET host = ?1, pid = 1, expires_at = ?2 WHERE table_id = ?3"),
        {QStringLiteral("elsewhere.invalid"), isoUtc(QDateTime::currentDateTimeUtc().addSecs(-5)), tableId});
    const LeaseAttempt expired = workspace->acquireLease(tableId, runA, 300);
    QVERIFY(expired.acquired);
    QVERIFY(expired.holder);
    QCOMPARE(expired.holder->runId, runB);
    QCOMPARE(expired.holder->host, QStringLiteral("elsewhere.invalid"));
    // Fencing tokens only rise: the takeover's is above the lease it took over, whose holder can
    // no longer renew it.
    QVERIFY(afterRelease.token > first.token);
    QCOMPARE(expired.holder->token, afterRelease.token);
    QVERIFY(expired.token > afterRelease.token);
    QVERIFY(other->renewLease(tableId, afterRelease.token, std::chrono::seconds(300)) ==
            LeaseRenewal::TakenOver);

    // On another host a live-looking lease is respected until it expires.
    test::execWorkspaceSql(path, QStringLiteral("UPDATE leases SET host = ?1, pid = 1 WHERE table_id = ?2"),
                           {QStringLiteral("elsewhere.invalid"), tableId});
    QVERIFY(!other->acquireLease(tableId, runB, 300).acquired);

    // Leases are per table.
    const qint64 otherTable = workspace->addTable(sampleTable());
    QVERIFY(other->acquireLease(otherTable, runB, 300).acquired);
}

void TestWorkspace::deadHolderTakenOver() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    auto workspace = Workspace::create(path);
    const qint64 tableId = workspace->addTable(sampleTable());
    const qint64 runId = workspace->beginRun(QStringLiteral("cli"), 2, false);

    QProcess child;
    child.start(QStringLiteral("true"), {});
    QVERIFY(child.waitForStarted());
    const qint64 deadPid = child.processId();
    QVERIFY(deadPid > 0);
    QVERIFY(child.waitForFinished());

    {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        // Far from expiry: only the dead pid frees it.
        test::execWorkspaceSql(path,
                               QStringLiteral("INSERT INTO leases (table_id, run_id, host, pid, acquired_at, "
                                              "expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
                               {tableId, runId + 1000, QSysInfo::machineHostName(), deadPid, isoUtc(now),
                                isoUtc(now.addSecs(3600))});
    }
    const LeaseAttempt attempt = workspace->acquireLease(tableId, runId, 300);
    QVERIFY(attempt.acquired);
    QVERIFY(attempt.holder);
    QCOMPARE(attempt.holder->pid, deadPid);
    QCOMPARE(attempt.holder->runId, runId + 1000);
}

void TestWorkspace::removeArchivesAndRestoreKeepsPosition() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    auto workspace = Workspace::create(path);
    for (const QString &name : {QStringLiteral("src"), QStringLiteral("dst")}) {
        ConnectionSpec connection;
        connection.name = name;
        connection.path = QStringLiteral("/data/%1.db").arg(name);
        workspace->addConnection(connection);
    }
    const TableSpec spec = sampleTable();
    const qint64 id = workspace->addTable(spec);
    // The others write elsewhere: a second writer of the target would keep it from coming back.
    TableSpec elsewhere = spec;
    elsewhere.targetTable = QStringLiteral("elsewhere");
    const qint64 other = workspace->addTable(elsewhere);
    const Watermark position = *Watermark::timestamp(QStringLiteral("2025-03-01 12:00:00.000001"));
    workspace->setWatermark(id, position, qint64(41), QStringLiteral("run"), 0);
    const qint64 runId = workspace->beginRun(QStringLiteral("cli"), 1, false);
    IterationRecord iteration;
    iteration.runId = runId;
    iteration.tableId = id;
    iteration.source = QStringLiteral("src:orders");
    iteration.status = IterationStatus::Succeeded;
    workspace->addIteration(iteration);
    workspace->finishRun(runId, QStringLiteral("succeeded"));
    QVERIFY(workspace->acquireLease(id, runId, 300).acquired);

    workspace->removeTable(id);
    QCOMPARE(workspace->tables().size(), 1);
    QCOMPARE(workspace->tables().first().id, other);
    QVERIFY(!workspace->table(id));
    QCOMPARE(workspace->archivedTables().size(), 1);
    QCOMPARE(workspace->archivedTables().first().id, id);
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->setActive(id, true));
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->removeTable(id));
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->restoreTable(other));
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->restoreTable(other + 100));
    // Its history stays; its lease is freed.
    QCOMPARE(workspace->runs(0, runId).first().iterations.first().tableId, id);
    QVERIFY(workspace->acquireLease(id, runId + 1, 300).acquired);

    // Ids are never handed out again, not even while the table is archived.
    elsewhere.targetTable = QStringLiteral("elsewhere too");
    const qint64 next = workspace->addTable(elsewhere);
    QVERIFY(next > other);

    workspace->restoreTable(id);
    const auto restored = workspace->table(id);
    QVERIFY(restored);
    compareConfig(*restored, spec);
    QCOMPARE(restored->lastWatermark, position);
    QCOMPARE(restored->lastTiebreak, QVariant(qint64(41)));
    QVERIFY(workspace->archivedTables().isEmpty());
    QCOMPARE(workspace->tables().size(), 3);

    QStringList causes;
    for (const WatermarkChange &change : workspace->watermarkChanges(id)) {
        causes << change.cause;
        if (change.cause != QLatin1String("run")) {
            QCOMPARE(change.oldValue, position.display());
            QCOMPARE(change.newValue, position.display());
        }
    }
    QCOMPARE(causes,
             QStringList({QStringLiteral("run"), QStringLiteral("remove"), QStringLiteral("restore")}));
}

void TestWorkspace::restoreNeedsItsConnections() {
    auto workspace = Workspace::create(newPath(QStringLiteral("w.tidemark")));
    ConnectionSpec src;
    src.name = QStringLiteral("src");
    src.path = QStringLiteral("/data/src.db");
    workspace->addConnection(src);
    ConnectionSpec dst = src;
    dst.name = QStringLiteral("dst");
    workspace->addConnection(dst);
    const qint64 id = workspace->addTable(sampleTable());
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->removeConnection(QStringLiteral("src")));
    workspace->removeTable(id);
    // A removed table does not pin its connections...
    workspace->removeConnection(QStringLiteral("src"));
    // ...but cannot come back without them.
    try {
        workspace->restoreTable(id);
        QFAIL("restored a table whose connection is gone");
    } catch (const ValidationError &error) {
        QVERIFY2(error.message().contains(QStringLiteral("'src'")), qPrintable(error.message()));
    }
    QVERIFY(!workspace->table(id));
    workspace->addConnection(src);
    workspace->restoreTable(id);
    QVERIFY(workspace->table(id));
}

// Workspace::updateTable decides in its transaction: an edit made from a stale view (Undo of an
// edit, another process adding a table meanwhile) cannot make a second writer of a target.
void TestWorkspace::editRefusesATargetAnotherTableWrites() {
    auto workspace = Workspace::create(newPath(QStringLiteral("w.tidemark")));
    ConnectionSpec src;
    src.name = QStringLiteral("src");
    src.path = QStringLiteral("/data/src.db");
    workspace->addConnection(src);
    ConnectionSpec dst;
    dst.name = QStringLiteral("dst");
    dst.path = QStringLiteral("/data/dst.db");
    workspace->addConnection(dst);
    TableSpec first = sampleTable();
    first.id = workspace->addTable(first);
    TableSpec second = sampleTable();
    second.sourceTable = QStringLiteral("other");
    second.targetTable = QStringLiteral("other");
    second.id = workspace->addTable(second);

    TableSpec moved = second;
    moved.targetTable = first.targetTable;
    try {
        workspace->updateTable(moved);
        QFAIL("two tables write into dst:order_lines");
    } catch (const ValidationError &error) {
        QVERIFY2(error.message().contains(QStringLiteral("table %1 (src:other -> dst:other) cannot write "
                                                         "into dst:order_lines: table %2")
                                              .arg(second.id)
                                              .arg(first.id)),
                 qPrintable(error.message()));
    }
    QCOMPARE(workspace->table(second.id)->targetTable, QStringLiteral("other"));

    // Edits that keep the target, or move it where nobody writes, go through.
    second.maxSkipped = 3;
    workspace->updateTable(second);
    QCOMPARE(workspace->table(second.id)->maxSkipped, 3);
    moved.targetTable = QStringLiteral("elsewhere");
    workspace->updateTable(moved);
    QCOMPARE(workspace->table(second.id)->targetTable, QStringLiteral("elsewhere"));
    // A removed table's target may be taken (table setup says whose it was); the removed
    // table then cannot come back into it.
    workspace->removeTable(first.id);
    moved.targetTable = first.targetTable;
    workspace->updateTable(moved);
    QCOMPARE(workspace->table(second.id)->targetTable, first.targetTable);
    QVERIFY_THROWS_EXCEPTION(ValidationError, workspace->restoreTable(first.id));
}

void TestWorkspace::repairClosesDeadRuns() {
    const QString path = newPath(QStringLiteral("w.tidemark"));
    auto workspace = Workspace::create(path);
    const qint64 tableId = workspace->addTable(sampleTable());
    const auto addIteration = [&](qint64 runId, IterationStatus status) {
        IterationRecord record;
        record.runId = runId;
        record.tableId = tableId;
        record.source = QStringLiteral("src:orders");
        record.status = status;
        return workspace->addIteration(record);
    };
    const QString host = QSysInfo::machineHostName();
    const QDateTime later = QDateTime::currentDateTimeUtc().addSecs(3600);
    const QDateTime earlier = QDateTime::currentDateTimeUtc().addSecs(-60);

    // Dead on this host, though its heartbeat would still be valid.
    const qint64 killed = workspace->beginRun(QStringLiteral("cli"), 2, false);
    const qint64 killedDone = addIteration(killed, IterationStatus::Succeeded);
    const qint64 killedRunning = addIteration(killed, IterationStatus::Running);
    const qint64 killedQueued = addIteration(killed, IterationStatus::Queued);
    const qint64 pid = deadPid();
    QVERIFY(pid > 0);
    setRunOwner(path, killed, host, pid, later);
    // On another host: only its expired heartbeat tells.
    const qint64 silent = workspace->beginRun(QStringLiteral("schedule"), 1, false);
    const qint64 silentRunning = addIteration(silent, IterationStatus::Running);
    setRunOwner(path, silent, QStringLiteral("elsewhere.invalid"), 1, earlier);
    // Alive: ours, beating; and one on another host whose heartbeat is fresh.
    const qint64 alive = workspace->beginRun(QStringLiteral("gui"), 1, false);
    const qint64 aliveRunning = addIteration(alive, IterationStatus::Running);
    const qint64 remote = workspace->beginRun(QStringLiteral("cli"), 1, false);
    setRunOwner(path, remote, QStringLiteral("elsewhere.invalid"), 1, later);
    // A finished run of a dead process is history, not a repair.
    const qint64 finished = workspace->beginRun(QStringLiteral("cli"), 1, false);
    workspace->finishRun(finished, QStringLiteral("succeeded"));
    setRunOwner(path, finished, host, pid, earlier);

    QCOMPARE(workspace->repairInterruptedRuns(), 2);
    QCOMPARE(workspace->repairInterruptedRuns(), 0);

    QHash<qint64, RunRecord> runs;
    for (const RunRecord &run : workspace->runs())
        runs.insert(run.id, run);
    const auto iteration = [&](qint64 runId, qint64 id) {
        for (const IterationRecord &record : runs[runId].iterations) {
            if (record.id == id)
                return record;
        }
        return IterationRecord();
    };
    QCOMPARE(runs[killed].status, QStringLiteral("interrupted"));
    QVERIFY(runs[killed].finishedAt.isValid());
    QCOMPARE(iteration(killed, killedDone).status, IterationStatus::Succeeded);
    for (const qint64 id : {killedRunning, killedQueued}) {
        const IterationRecord record = iteration(killed, id);
        QCOMPARE(record.status, IterationStatus::Interrupted);
        QVERIFY(record.finishedAt.isValid());
        const QString why = QStringLiteral("process %1 on host %2 is gone").arg(pid).arg(host);
        QVERIFY2(record.error.contains(why), qPrintable(record.error));
        QVERIFY(!record.log.isEmpty());
        QVERIFY2(record.log.last().message.contains(why), qPrintable(record.log.last().message));
    }
    QCOMPARE(runs[silent].status, QStringLiteral("interrupted"));
    const IterationRecord silentRecord = iteration(silent, silentRunning);
    QCOMPARE(silentRecord.status, IterationStatus::Interrupted);
    QVERIFY2(silentRecord.error.contains(QStringLiteral("heartbeat expired")),
             qPrintable(silentRecord.error));
    QCOMPARE(runs[alive].status, QStringLiteral("running"));
    QCOMPARE(iteration(alive, aliveRunning).status, IterationStatus::Running);
    QCOMPARE(runs[remote].status, QStringLiteral("running"));
    QCOMPARE(runs[finished].status, QStringLiteral("succeeded"));

    // A beat keeps a run alive; a missed one lets it be closed.
    setRunOwner(path, alive, QStringLiteral("elsewhere.invalid"), 1, earlier);
    workspace->beatRun(alive);
    QCOMPARE(workspace->repairInterruptedRuns(), 0);
    QCOMPARE(workspace->runs(0, alive).first().status, QStringLiteral("running"));
}

void TestWorkspace::repairOnceWhenOpenedConcurrently() {
    // Several openers at once (threads with their own connections, as processes would be):
    // each dead run is closed exactly once, with one log line per iteration.
    const QString path = newPath(QStringLiteral("w.tidemark"));
    const qint64 pid = deadPid();
    QVERIFY(pid > 0);
    QList<qint64> runIds;
    {
        auto workspace = Workspace::create(path);
        const qint64 tableId = workspace->addTable(sampleTable());
        for (int i = 0; i < 5; ++i) {
            const qint64 runId = workspace->beginRun(QStringLiteral("cli"), 1, false);
            IterationRecord record;
            record.runId = runId;
            record.tableId = tableId;
            record.status = IterationStatus::Running;
            workspace->addIteration(record);
            setRunOwner(path, runId, QSysInfo::machineHostName(), pid,
                        QDateTime::currentDateTimeUtc().addSecs(3600));
            runIds << runId;
        }
    }
    std::atomic_int repaired{0};
    std::atomic_int errors{0};
    QList<QThread *> threads;
    for (int i = 0; i < 6; ++i) {
        threads << QThread::create([&] {
            try {
                repaired += Workspace::open(path)->repairInterruptedRuns();
            } catch (const Error &) {
                ++errors;
            }
        });
    }
    for (QThread *thread : threads)
        thread->start();
    for (QThread *thread : threads) {
        QVERIFY(thread->wait(120000));
        delete thread;
    }
    QCOMPARE(errors.load(), 0);
    QCOMPARE(repaired.load(), 5);
    auto workspace = Workspace::open(path);
    for (const RunRecord &run : workspace->runs()) {
        QCOMPARE(run.status, QStringLiteral("interrupted"));
        QCOMPARE(run.iterations.first().status, IterationStatus::Interrupted);
        QCOMPARE(run.iterations.first().log.size(), 1);
    }
}

QTEST_GUILESS_MAIN(TestWorkspace)
#include "tst_workspace.moc"
