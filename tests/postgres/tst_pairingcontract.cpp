// SPDX-License-Identifier: MIT
// The key copy-contract cases (DESIGN.md, "One iteration") through CopyIteration in every pairing
// with PostgreSQL: SQLite -> PostgreSQL, PostgreSQL -> SQLite, PostgreSQL -> PostgreSQL, against a
// real server (TIDEMARK_PG_PORT, see scripts/pgcluster.sh). Each test has its own schema and
// workspace, so a leftover from one case can never make another pass.
#include "model/common/error.h"
#include "model/common/sqlquote.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/postgresconnector.h"
#include "model/domain/watermark.h"
#include "model/engine/copyiteration.h"
#include "model/engine/tablesetup.h"
#include "model/storage/sqlitedb.h"
#include "model/storage/workspace.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>
#include <memory>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// Which end of the copy; the pairing decides each end's kind.
enum class Side { Source, Target };

QString pgPort() {
    return QString::fromLocal8Bit(qgetenv("TIDEMARK_PG_PORT"));
}

QString conninfo() {
    return QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark user=tidemark").arg(pgPort());
}

QString ts(int id) {
    return orderTimestamp(id);
}

QString display(const QString &native) {
    return Watermark::timestamp(native)->display();
}

bool accounted(const IterationRecord &record) {
    return record.rowsRead == record.rowsWritten + record.rowsSkipped;
}

QString describe(const IterationRecord &record) {
    return QStringLiteral("status %1, read %2, written %3, skipped %4, before '%5', after '%6', error '%7'")
        .arg(iterationStatusName(record.status))
        .arg(record.rowsRead)
        .arg(record.rowsWritten)
        .arg(record.rowsSkipped)
        .arg(record.watermarkBefore, record.watermarkAfter, record.error);
}

void addPairings() {
    QTest::addColumn<QString>("pairing");
    QTest::newRow("sqlite->postgres") << QStringLiteral("sqlite->postgres");
    QTest::newRow("postgres->sqlite") << QStringLiteral("postgres->sqlite");
    QTest::newRow("postgres->postgres") << QStringLiteral("postgres->postgres");
}

// A workspace with connections "src" and "dst" of the pairing's kinds; PostgreSQL tables live in
// a schema of the fixture's own, SQLite ones in files of its temporary directory.
class PairFixture {
public:
    explicit PairFixture(const QString &pairing) {
        m_sourcePg = pairing.startsWith(QLatin1String("postgres"));
        m_targetPg = pairing.endsWith(QLatin1String("postgres"));
        schema = QStringLiteral("pair_") + QUuid::createUuid().toString(QUuid::Id128).left(12).toLower();
        ConnectionSpec admin;
        admin.name = QStringLiteral("admin");
        admin.kind = ConnectionKind::Postgres;
        admin.conninfo = conninfo();
        m_admin = std::make_unique<PostgresConnector>(admin);
        m_admin->execute(QStringLiteral("CREATE SCHEMA %1").arg(quoteIdentifier(schema)));
        ws = Workspace::create(m_dir.filePath(QStringLiteral("ws.tidemark")));
        m_sourceSpec = connection(QStringLiteral("src"), Side::Source);
        m_targetSpec = connection(QStringLiteral("dst"), Side::Target);
        ws->addConnection(m_sourceSpec);
        ws->addConnection(m_targetSpec);
    }

    ~PairFixture() {
        try {
            m_admin->execute(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(schema)));
            if (!m_admin->query(QStringLiteral("SELECT to_regclass('public.tidemark_state')"))
                     .value(0)
                     .value(0)
                     .isEmpty())
                m_admin->execute(QStringLiteral("DELETE FROM public.tidemark_state WHERE workspace_id = $1"),
                                 {ws->workspaceId()});
        } catch (const std::exception &error) {
            qWarning("cleanup of schema %s: %s", qPrintable(schema), error.what());
        }
    }

    bool isPostgres(Side side) const { return side == Side::Source ? m_sourcePg : m_targetPg; }

    // The target copy has a name of its own, so PostgreSQL -> PostgreSQL needs no second schema.
    QString tableName(Side side, const QString &table) const {
        return side == Side::Target ? table + QStringLiteral("_copy") : table;
    }

    // The table's name as a TableSpec spells it on that side.
    QString name(Side side, const QString &table) const {
        return isPostgres(side) ? schema + QLatin1Char('.') + tableName(side, table) : tableName(side, table);
    }

    QString qualified(Side side, const QString &table) const {
        return isPostgres(side) ? quoteQualified(schema, tableName(side, table))
                                : quoteIdentifier(tableName(side, table));
    }

    QString timestampType(Side side) const {
        return isPostgres(side) ? QStringLiteral("timestamptz") : QStringLiteral("TEXT");
    }

    // Runs `sql` (placeholders ?1, ?2, ...; %1 = the qualified `table`) on one side.
    void exec(Side side, const QString &table, const QString &sql, const QVariantList &params = {}) {
        const QString text = sql.arg(qualified(side, table));
        if (!isPostgres(side)) {
            execSql(dbPath(side), text, params);
            return;
        }
        static const QRegularExpression placeholder(QStringLiteral("\\?(\\d+)"));
        QString pgText = text;
        pgText.replace(placeholder, QStringLiteral("$\\1"));
        QStringList values;
        for (const QVariant &value : params)
            values << value.toString();
        m_admin->execute(pgText, values);
    }

    // Every row of `sql` (%1 = the qualified `table`) as text.
    QList<QStringList> rows(Side side, const QString &table, const QString &sql) {
        const QString text = sql.arg(qualified(side, table));
        if (isPostgres(side))
            return m_admin->query(text);
        QList<QStringList> result;
        SqliteDb db(dbPath(side), SqliteDb::Mode::ReadOnly);
        SqliteStatement select(db, text);
        while (select.step()) {
            QStringList row;
            for (int i = 0; i < select.columnCount(); ++i)
                row << select.columnText(i);
            result << row;
        }
        return result;
    }

    qint64 count(Side side, const QString &table, const QString &where = QStringLiteral("TRUE")) {
        return rows(side, table, QStringLiteral("SELECT count(*) FROM %1 WHERE ") + where)
            .value(0)
            .value(0)
            .toLongLong();
    }

    bool exists(Side side, const QString &table) {
        if (isPostgres(side))
            return !m_admin->query(QStringLiteral("SELECT to_regclass($1)"), {qualified(side, table)})
                        .value(0)
                        .value(0)
                        .isEmpty();
        return QFile::exists(dbPath(side)) && tableExists(dbPath(side), tableName(side, table));
    }

    // id and payload of every row, in id order: what a correct copy must reproduce exactly once.
    QList<QStringList> content(Side side, const QString &table) {
        return rows(side, table, QStringLiteral("SELECT id, v FROM %1 ORDER BY id, v"));
    }

    TableDraft draft(const QString &table, const QString &watermark) const {
        TableDraft draft;
        draft.spec.sourceConnection = QStringLiteral("src");
        draft.spec.sourceTable = name(source, table);
        draft.spec.targetConnection = QStringLiteral("dst");
        draft.spec.targetTable = name(target, table);
        draft.spec.watermarkColumn = watermark;
        return draft;
    }

    qint64 addTable(const TableDraft &draft) { return ws->addTable(prepareTable(*ws, draft)); }

    TableSpec spec(qint64 tableId) { return *ws->table(tableId); }

    QString lastWatermark(qint64 tableId) { return spec(tableId).lastWatermark.display(); }

    // One iteration in a run of its own, as RunCoordinator queues it.
    IterationRecord run(qint64 tableId, CopyIteration::Options options = {}) {
        const TableSpec tableSpec = spec(tableId);
        const qint64 runId = ws->beginRun(QStringLiteral("cli"), 1, options.dryRun);
        IterationRecord record;
        record.runId = runId;
        record.tableId = tableId;
        record.source = tableSpec.sourceDisplay();
        record.target = tableSpec.targetDisplay();
        record.watermarkBefore = tableSpec.lastWatermark.display();
        record.id = ws->addIteration(record);
        IterationRecord result = CopyIteration(*ws, tableSpec, record, options).run();
        ws->finishRun(runId, deriveRunStatus({result.status}, options.dryRun));
        return result;
    }

    // The target's state row watermark for the table, displayed (empty when there is none).
    QString stateWatermark(qint64 tableId) {
        const std::unique_ptr<Connector> connector = openConnector(m_targetSpec);
        const std::optional<TargetState> state = connector->readState(ws->workspaceId(), tableId);
        return state ? state->watermark.display() : QString();
    }

    // A table `id, ts, v` (plus `extra` column definitions) on one side.
    void createEvents(Side side, const QString &table, const QString &idDefinition,
                      const QString &extra = QString()) {
        exec(side, table,
             QStringLiteral("CREATE TABLE %1 (id %2, ts %3 NOT NULL, v TEXT%4)")
                 .arg(QStringLiteral("%1"), idDefinition, timestampType(side), extra));
    }

    void insertEvent(Side side, const QString &table, int id, const QString &stamp, const QString &v) {
        exec(side, table, QStringLiteral("INSERT INTO %1 (id, ts, v) VALUES (?1, ?2, ?3)"), {id, stamp, v});
    }

    void insertEvents(Side side, const QString &table, int first, int last) {
        for (int i = first; i <= last; ++i)
            insertEvent(side, table, i, ts(i), QStringLiteral("v%1").arg(i));
    }

    const Side source = Side::Source;
    const Side target = Side::Target;
    QString schema;
    std::unique_ptr<Workspace> ws;

private:
    QString dbPath(Side side) const {
        return m_dir.filePath(side == Side::Source ? QStringLiteral("source.db")
                                                   : QStringLiteral("target.db"));
    }

    ConnectionSpec connection(const QString &name, Side side) const {
        ConnectionSpec spec;
        spec.name = name;
        if (isPostgres(side)) {
            spec.kind = ConnectionKind::Postgres;
            spec.conninfo = conninfo();
        } else {
            spec.kind = ConnectionKind::Sqlite;
            spec.path = dbPath(side);
        }
        return spec;
    }

    bool m_sourcePg = false;
    bool m_targetPg = false;
    QTemporaryDir m_dir;
    std::unique_ptr<PostgresConnector> m_admin;
    ConnectionSpec m_sourceSpec;
    ConnectionSpec m_targetSpec;
};

} // namespace

class TestPairingContract : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void fullLoadThenIncremental_data() { addPairings(); }
    void fullLoadThenIncremental();
    void tiesWithTiebreak_data() { addPairings(); }
    void tiesWithTiebreak();
    void mergeNeverReplacesNewerWithOlder_data() { addPairings(); }
    void mergeNeverReplacesNewerWithOlder();
    void latestVersionPerKeyWins_data() { addPairings(); }
    void latestVersionPerKeyWins();
    void failingWindowLeavesEverythingUntouched_data() { addPairings(); }
    void failingWindowLeavesEverythingUntouched();
    void toleratedSkippedRows_data() { addPairings(); }
    void toleratedSkippedRows();
    void reconcileFromTargetState_data() { addPairings(); }
    void reconcileFromTargetState();
    void dryRun_data() { addPairings(); }
    void dryRun();
};

void TestPairingContract::initTestCase() {
    TIDEMARK_REQUIRE_POSTGRES();
}

void TestPairingContract::fullLoadThenIncremental() {
    QFETCH(QString, pairing);
    PairFixture f(pairing);
    const QString t = QStringLiteral("events");
    f.createEvents(f.source, t, QStringLiteral("INTEGER PRIMARY KEY"));
    f.insertEvents(f.source, t, 1, 30);
    TableDraft draft = f.draft(t, QStringLiteral("ts"));
    draft.spec.batchSize = 7;
    const qint64 id = f.addTable(draft);

    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 30);
    QCOMPARE(first.rowsWritten, 30);
    QCOMPARE(f.count(f.target, t), 30);
    QCOMPARE(f.lastWatermark(id), display(ts(30)));
    QCOMPARE(f.stateWatermark(id), display(ts(30)));
    QCOMPARE(first.watermarkAfter, display(ts(30)));

    f.insertEvents(f.source, t, 31, 40);
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 10);
    QCOMPARE(second.rowsWritten, 10);
    QCOMPARE(second.watermarkBefore, display(ts(30)));
    QCOMPARE(second.watermarkAfter, display(ts(40)));
    QCOMPARE(f.count(f.target, t), 40);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.lastWatermark(id), display(ts(40)));
    QCOMPARE(f.stateWatermark(id), display(ts(40)));

    IterationRecord third = f.run(id);
    QVERIFY2(third.status == IterationStatus::NoNewRows, qPrintable(describe(third)));
    QCOMPARE(third.rowsRead, 0);
    QCOMPARE(f.count(f.target, t), 40);
}

void TestPairingContract::tiesWithTiebreak() {
    QFETCH(QString, pairing);
    PairFixture f(pairing);
    const QString t = QStringLiteral("ev");
    f.createEvents(f.source, t, QStringLiteral("INTEGER PRIMARY KEY"));
    // Six rows share the maximum watermark; batches of two split them.
    for (int i = 1; i <= 10; ++i)
        f.insertEvent(f.source, t, i, ts(qMin(i, 5)), QStringLiteral("v%1").arg(i));
    TableDraft draft = f.draft(t, QStringLiteral("ts"));
    draft.spec.tiebreakColumn = QStringLiteral("id");
    draft.spec.batchSize = 2;
    const qint64 id = f.addTable(draft);

    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 10);
    QCOMPARE(f.lastWatermark(id), display(ts(5)));
    QCOMPARE(f.spec(id).lastTiebreak.toLongLong(), 10);

    // A late row at exactly the old maximum, with a higher tiebreak: the next run must get it.
    f.insertEvent(f.source, t, 11, ts(5), QStringLiteral("late"));
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 1);
    QCOMPARE(f.count(f.target, t), 11);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.spec(id).lastTiebreak.toLongLong(), 11);
    QCOMPARE(f.stateWatermark(id), display(ts(5)));

    IterationRecord third = f.run(id);
    QVERIFY2(third.status == IterationStatus::NoNewRows, qPrintable(describe(third)));
    QCOMPARE(f.count(f.target, t), 11);
}

void TestPairingContract::mergeNeverReplacesNewerWithOlder() {
    QFETCH(QString, pairing);
    PairFixture f(pairing);
    const QString t = QStringLiteral("kv");
    f.createEvents(f.source, t, QStringLiteral("INTEGER PRIMARY KEY"));
    f.insertEvents(f.source, t, 1, 5);
    TableDraft draft = f.draft(t, QStringLiteral("ts"));
    draft.spec.mode = WriteMode::Merge;
    const qint64 id = f.addTable(draft);
    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsWritten, 5);

    // The target holds a newer version of key 1 than the one about to arrive.
    f.exec(f.target, t, QStringLiteral("UPDATE %1 SET ts = ?1, v = 'target newer' WHERE id = 1"), {ts(100)});
    f.exec(f.source, t, QStringLiteral("UPDATE %1 SET ts = ?1, v = 'older' WHERE id = 1"), {ts(6)});
    f.exec(f.source, t, QStringLiteral("UPDATE %1 SET ts = ?1, v = 'newer' WHERE id = 2"), {ts(7)});
    IterationRecord second = f.run(id);
    QVERIFY2(second.status == IterationStatus::Succeeded, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 2);
    QVERIFY(accounted(second));
    QCOMPARE(f.rows(f.target, t, QStringLiteral("SELECT v FROM %1 WHERE id = 1")),
             QList<QStringList>({{QStringLiteral("target newer")}}));
    QCOMPARE(f.rows(f.target, t, QStringLiteral("SELECT v FROM %1 WHERE id = 2")),
             QList<QStringList>({{QStringLiteral("newer")}}));
    QCOMPARE(f.count(f.target, t), 5);
    QCOMPARE(f.lastWatermark(id), display(ts(7)));
}

void TestPairingContract::latestVersionPerKeyWins() {
    QFETCH(QString, pairing);
    PairFixture f(pairing);
    const QString t = QStringLiteral("hist");
    f.createEvents(f.source, t, QStringLiteral("INTEGER PRIMARY KEY"),
                   QStringLiteral(", k INTEGER NOT NULL, tb INTEGER NOT NULL"));
    // Per key k: (ts, tb, v). Key 1's latest is the highest watermark; key 2's ties on the
    // watermark and the higher tiebreak wins.
    const QList<QVariantList> versions = {
        {1, 1, 1, 1, QStringLiteral("a")}, {2, 1, 3, 1, QStringLiteral("c")},
        {3, 1, 2, 9, QStringLiteral("b")}, {4, 2, 5, 2, QStringLiteral("y")},
        {5, 2, 5, 1, QStringLiteral("x")}, {6, 3, 4, 1, QStringLiteral("only")},
    };
    for (const QVariantList &row : versions)
        f.exec(f.source, t, QStringLiteral("INSERT INTO %1 (id, k, ts, tb, v) VALUES (?1, ?2, ?3, ?4, ?5)"),
               {row[0], row[1], ts(row[2].toInt()), row[3], row[4]});
    TableDraft draft = f.draft(t, QStringLiteral("ts"));
    draft.spec.mode = WriteMode::Merge;
    draft.spec.keyColumns = {QStringLiteral("k")};
    draft.spec.tiebreakColumn = QStringLiteral("tb");
    draft.spec.batchSize = 2;
    const qint64 id = f.addTable(draft);

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    QCOMPARE(result.rowsRead, 6);
    QVERIFY(accounted(result));
    QCOMPARE(f.rows(f.target, t, QStringLiteral("SELECT k, v FROM %1 ORDER BY k")),
             QList<QStringList>({{QStringLiteral("1"), QStringLiteral("c")},
                                 {QStringLiteral("2"), QStringLiteral("y")},
                                 {QStringLiteral("3"), QStringLiteral("only")}}));
}

void TestPairingContract::failingWindowLeavesEverythingUntouched() {
    QFETCH(QString, pairing);
    PairFixture f(pairing);
    const QString t = QStringLiteral("orders");
    f.createEvents(f.source, t, QStringLiteral("INTEGER PRIMARY KEY"), QStringLiteral(", amount INTEGER"));
    // No key on the target: a window copied twice would show as duplicate ids.
    f.createEvents(f.target, t, QStringLiteral("INTEGER NOT NULL"),
                   QStringLiteral(", amount INTEGER CHECK (amount < 1000)"));
    for (int i = 1; i <= 10; ++i)
        f.exec(f.source, t, QStringLiteral("INSERT INTO %1 (id, ts, v, amount) VALUES (?1, ?2, ?3, ?1)"),
               {i, ts(i), QStringLiteral("v%1").arg(i)});
    TableDraft draft = f.draft(t, QStringLiteral("ts"));
    draft.spec.maxSkipped = 0;
    draft.spec.batchSize = 4;
    const qint64 id = f.addTable(draft);
    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(f.count(f.target, t), 10);

    for (int i = 11; i <= 20; ++i)
        f.exec(f.source, t, QStringLiteral("INSERT INTO %1 (id, ts, v, amount) VALUES (?1, ?2, ?3, ?4)"),
               {i, ts(i), QStringLiteral("v%1").arg(i), i == 15 ? 5000 : i});
    const qint64 changesBefore = f.ws->watermarkChanges(id).size();
    IterationRecord failed = f.run(id);
    QVERIFY2(failed.status == IterationStatus::Failed, qPrintable(describe(failed)));
    QVERIFY2(failed.error.contains(QLatin1String("orders")), qPrintable(failed.error));
    QCOMPARE(f.count(f.target, t), 10);
    QCOMPARE(f.count(f.target, t, QStringLiteral("id > 10")), 0);
    QCOMPARE(f.stateWatermark(id), display(ts(10)));
    QCOMPARE(f.lastWatermark(id), display(ts(10)));
    QCOMPARE(f.ws->watermarkChanges(id).size(), changesBefore);

    f.exec(f.source, t, QStringLiteral("UPDATE %1 SET amount = 15 WHERE id = 15"));
    IterationRecord rerun = f.run(id);
    QVERIFY2(rerun.status == IterationStatus::Succeeded, qPrintable(describe(rerun)));
    QCOMPARE(rerun.rowsRead, 10);
    QCOMPARE(f.count(f.target, t), 20);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.lastWatermark(id), display(ts(20)));
    QCOMPARE(f.stateWatermark(id), display(ts(20)));
}

void TestPairingContract::toleratedSkippedRows() {
    QFETCH(QString, pairing);
    PairFixture f(pairing);
    const QString t = QStringLiteral("orders");
    f.createEvents(f.source, t, QStringLiteral("INTEGER PRIMARY KEY"), QStringLiteral(", amount INTEGER"));
    f.createEvents(f.target, t, QStringLiteral("INTEGER NOT NULL"),
                   QStringLiteral(", amount INTEGER CHECK (amount < 1000)"));
    for (int i = 1; i <= 20; ++i)
        f.exec(f.source, t, QStringLiteral("INSERT INTO %1 (id, ts, v, amount) VALUES (?1, ?2, ?3, ?4)"),
               {i, ts(i), QStringLiteral("v%1").arg(i), i == 3 || i == 17 ? 5000 : i});
    TableDraft draft = f.draft(t, QStringLiteral("ts"));
    draft.spec.maxSkipped = 5;
    draft.spec.batchSize = 8;
    const qint64 id = f.addTable(draft);

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Warning, qPrintable(describe(result)));
    QCOMPARE(result.rowsRead, 20);
    QCOMPARE(result.rowsSkipped, 2);
    QCOMPARE(result.rowsWritten, 18);
    QCOMPARE(f.count(f.target, t), 18);
    QCOMPARE(f.count(f.target, t, QStringLiteral("id IN (3, 17)")), 0);
    QCOMPARE(f.lastWatermark(id), display(ts(20)));

    const QList<RejectedRow> rejects = f.ws->rejects(id);
    QCOMPARE(rejects.size(), 2);
    QStringList keys;
    for (const RejectedRow &row : rejects) {
        QVERIFY(!row.error.isEmpty());
        QCOMPARE(row.runId, result.runId);
        keys << row.rowKey;
    }
    keys.sort();
    QVERIFY2(keys[0].contains(QLatin1String("17")) && keys[1].contains(QLatin1String("3")),
             qPrintable(keys.join(QLatin1Char(' '))));
}

void TestPairingContract::reconcileFromTargetState() {
    QFETCH(QString, pairing);
    PairFixture f(pairing);
    const QString t = QStringLiteral("orders");
    // No key anywhere: a window copied twice would show as duplicate ids.
    f.createEvents(f.source, t, QStringLiteral("INTEGER NOT NULL"));
    f.insertEvents(f.source, t, 1, 20);
    const qint64 id = f.addTable(f.draft(t, QStringLiteral("ts")));
    IterationRecord first = f.run(id);
    QVERIFY2(first.status == IterationStatus::Succeeded, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 20);

    // The process died after the target commit and before the workspace update.
    f.ws->setWatermark(id, *Watermark::timestamp(ts(8)), QVariant(), QStringLiteral("edit"), 0);
    QCOMPARE(f.lastWatermark(id), display(ts(8)));
    f.insertEvents(f.source, t, 21, 25);

    IterationRecord result = f.run(id);
    QVERIFY2(result.status == IterationStatus::Succeeded, qPrintable(describe(result)));
    QCOMPARE(result.rowsRead, 5);
    QCOMPARE(result.watermarkBefore, display(ts(20)));
    QCOMPARE(f.count(f.target, t), 25);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
    QCOMPARE(f.lastWatermark(id), display(ts(25)));

    bool found = false;
    for (const WatermarkChange &change : f.ws->watermarkChanges(id)) {
        if (change.cause == QLatin1String("reconcile")) {
            found = true;
            QCOMPARE(change.runId, result.runId);
            QCOMPARE(change.newValue, display(ts(20)));
        }
    }
    QVERIFY2(found, "no watermark change with cause 'reconcile'");
}

void TestPairingContract::dryRun() {
    QFETCH(QString, pairing);
    PairFixture f(pairing);
    const QString t = QStringLiteral("orders");
    f.createEvents(f.source, t, QStringLiteral("INTEGER PRIMARY KEY"));
    f.insertEvents(f.source, t, 1, 12);
    const qint64 id = f.addTable(f.draft(t, QStringLiteral("ts")));
    CopyIteration::Options dry;
    dry.dryRun = true;

    IterationRecord first = f.run(id, dry);
    QVERIFY2(first.status == IterationStatus::DryRun, qPrintable(describe(first)));
    QCOMPARE(first.rowsRead, 12);
    QCOMPARE(first.rowsWritten, 0);
    QCOMPARE(first.watermarkAfter, display(ts(12)));
    QVERIFY(!f.exists(f.target, t));
    QVERIFY(f.spec(id).lastWatermark.isNull());
    QVERIFY(f.stateWatermark(id).isEmpty());

    IterationRecord real = f.run(id);
    QVERIFY2(real.status == IterationStatus::Succeeded, qPrintable(describe(real)));
    QCOMPARE(real.rowsRead, 12);
    f.insertEvents(f.source, t, 13, 17);
    IterationRecord second = f.run(id, dry);
    QVERIFY2(second.status == IterationStatus::DryRun, qPrintable(describe(second)));
    QCOMPARE(second.rowsRead, 5);
    QCOMPARE(second.rowsWritten, 0);
    QCOMPARE(second.watermarkBefore, display(ts(12)));
    QCOMPARE(second.watermarkAfter, display(ts(17)));
    QCOMPARE(f.count(f.target, t), 12);
    QCOMPARE(f.lastWatermark(id), display(ts(12)));
    QCOMPARE(f.stateWatermark(id), display(ts(12)));
    QCOMPARE(f.run(id).rowsRead, 5);
    QCOMPARE(f.content(f.target, t), f.content(f.source, t));
}

QTEST_GUILESS_MAIN(TestPairingContract)
#include "tst_pairingcontract.moc"
