// SPDX-License-Identifier: MIT
#pragma once

// The contract matrix's coordinates and its fixture: a workspace with connections "src" and
// "dst" of a pairing's kinds. The engine is driven through CopyIteration only; both ends are read
// and written with plain SQL (SQLite files, libpq), never through a Connector, so the tests state
// what an outside observer sees.

#include "model/domain/watermark.h"
#include "tests/engine/enginefixture.h"
#include "tests/support/pgsession.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>
#include <functional>
#include <list>
#include <memory>

namespace tidemark::test {

struct Pairing {
    const char *name;
    bool sourcePg;
    bool targetPg;
    // Both ends in one database engine: the engine may copy inside it (push-down).
    bool hasPushDown() const { return sourcePg == targetPg; }
    bool needsPostgres() const { return sourcePg || targetPg; }
};

inline const QList<Pairing> &pairings() {
    static const QList<Pairing> all = {{"sqlite->sqlite", false, false},
                                       {"sqlite->postgres", false, true},
                                       {"postgres->sqlite", true, false},
                                       {"postgres->postgres", true, true}};
    return all;
}

// How the engine moves a window. Push-down happens only with one commit per window. A table
// that tolerates rejects (max skipped > 0) streams batches, except into SQLite, which tries the
// push-down first and streams once a row is refused (triesPushDownFirst); a commit per batch
// always streams, which is how the streaming path is forced where a push-down exists.
struct Route {
    const char *name;
    bool pushDown;
    bool perBatch;
    int maxSkipped;
    bool perWindow() const { return !perBatch; }
};

inline bool operator==(const Route &a, const Route &b) {
    return QLatin1String(a.name) == QLatin1String(b.name);
}

inline const Route kPushDown{"push-down", true, false, 0};
inline const Route kStreaming{"streaming", false, false, 0};
inline const Route kStreamingTolerant{"streaming (tolerant)", false, false, 2};
inline const Route kPerBatch{"streaming, per batch", false, true, 0};
inline const Route kPerBatchTolerant{"streaming, per batch (tolerant)", false, true, 2};

// Every route a pairing really has: push-down where it exists, plain streaming where nothing
// forces it (the pairings without push-down), the forced streaming routes everywhere.
inline QList<Route> routes(const Pairing &pairing) {
    QList<Route> result;
    result << (pairing.hasPushDown() ? kPushDown : kStreaming) << kStreamingTolerant << kPerBatch;
    return result;
}

inline Pairing pairingNamed(const QString &name) {
    for (const Pairing &pairing : pairings()) {
        if (name == QLatin1String(pairing.name))
            return pairing;
    }
    qFatal("unknown pairing %s", qPrintable(name));
}

inline Route routeNamed(const QString &name) {
    for (const Route &route : {kPushDown, kStreaming, kStreamingTolerant, kPerBatch, kPerBatchTolerant}) {
        if (name == QLatin1String(route.name))
            return route;
    }
    qFatal("unknown route %s", qPrintable(name));
}

// Adds the columns "pairing" and "route" and one row per pairing x route (kept by `keep`), times
// each of `variants` (an extra column `variantColumn` of type QString; none when empty).
inline void addMatrix(const std::function<bool(const Pairing &, const Route &)> &keep,
                      const QString &variantColumn = {}, const QStringList &variants = {}) {
    QTest::addColumn<QString>("pairing");
    QTest::addColumn<QString>("route");
    if (!variantColumn.isEmpty()) {
        // QTest keeps the column name's pointer, not a copy.
        static std::list<QByteArray> names;
        names.push_back(variantColumn.toLatin1());
        QTest::addColumn<QString>(names.back().constData());
    }
    for (const Pairing &pairing : pairings()) {
        for (const Route &route : routes(pairing) + QList<Route>{kPerBatchTolerant}) {
            if (!keep(pairing, route))
                continue;
            const QString row =
                QStringLiteral("%1 | %2").arg(QLatin1String(pairing.name), QLatin1String(route.name));
            if (variantColumn.isEmpty()) {
                QTest::newRow(qPrintable(row))
                    << QString::fromLatin1(pairing.name) << QString::fromLatin1(route.name);
                continue;
            }
            for (const QString &variant : variants)
                QTest::newRow(qPrintable(row + QStringLiteral(" | ") + variant))
                    << QString::fromLatin1(pairing.name) << QString::fromLatin1(route.name) << variant;
        }
    }
}

// The routes every pairing has (not the tolerant per-batch one, which only the rejects need).
inline bool everyRoute(const Pairing &pairing, const Route &route) {
    return routes(pairing).contains(route);
}

// Which end of the copy; the pairing decides each end's kind.
enum class Side { Source, Target };

inline QString ts(int minute) {
    return orderTimestamp(minute);
}

inline QString display(const QString &native) {
    return Watermark::timestamp(native)->display();
}

// SQLite takes back just the statement that a refused row ends: a tolerant table pushes down
// there until a row is refused, then streams the window (SqliteConnector::pushDown).
inline bool triesPushDownFirst(const Pairing &pairing, const Route &route) {
    return pairing.hasPushDown() && !pairing.targetPg && route.maxSkipped > 0 && !route.perBatch;
}

inline bool accounted(const IterationRecord &record) {
    return record.rowsRead == record.rowsWritten + record.rowsSkipped;
}

class ContractFixture {
public:
    ContractFixture(const Pairing &pairing, const Route &route)
        : m_pairing(pairing)
        , m_route(route) {
        QVERIFY2(m_dir.isValid(), "temporary directory");
        if (pairing.needsPostgres()) {
            m_pg = std::make_unique<PgSession>();
            schema = QStringLiteral("contract_") + QUuid::createUuid().toString(QUuid::Id128).left(12);
            m_pg->exec(QStringLiteral("CREATE SCHEMA %1").arg(quoteIdentifier(schema)));
        }
        wsPath = testWorkspaceLocation(m_dir, QStringLiteral("ws.tidemark"));
        ws = Workspace::create(wsPath);
        ws->addConnection(connection(QStringLiteral("src"), Side::Source));
        ws->addConnection(connection(QStringLiteral("dst"), Side::Target));
    }

    ~ContractFixture() {
        if (!m_pg)
            return;
        try {
            m_pg->exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(schema)));
            if (!m_pg->value(QStringLiteral("SELECT to_regclass('public.tidemark_state')")).isEmpty())
                m_pg->exec(QStringLiteral("DELETE FROM public.tidemark_state WHERE workspace_id = $1"),
                           {ws->workspaceId()});
        } catch (const std::exception &error) {
            qWarning("cleanup of schema %s: %s", qPrintable(schema), error.what());
        }
    }

    const Pairing &pairing() const { return m_pairing; }
    const Route &route() const { return m_route; }
    bool isPostgres(Side side) const {
        return side == Side::Source ? m_pairing.sourcePg : m_pairing.targetPg;
    }

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

    // Column types spelled for one side.
    QString timestampType(Side side) const {
        return isPostgres(side) ? QStringLiteral("timestamptz") : QStringLiteral("TEXT");
    }
    QString integerType(Side side) const {
        return isPostgres(side) ? QStringLiteral("bigint") : QStringLiteral("INTEGER");
    }

    // Runs `sql` (placeholders ?1, ?2, ...; %1 = the qualified `table`) on one side.
    void exec(Side side, const QString &table, const QString &sql, const QVariantList &params = {}) {
        const QString text = sql.arg(qualified(side, table));
        if (isPostgres(side))
            m_pg->exec(pgPlaceholders(text), params);
        else
            execSql(dbPath(side), text, params);
    }

    // Every row of `sql` (%1 = the qualified `table`) as text.
    QList<QStringList> rows(Side side, const QString &table, const QString &sql,
                            const QVariantList &params = {}) {
        const QString text = sql.arg(qualified(side, table));
        if (isPostgres(side))
            return m_pg->query(pgPlaceholders(text), params);
        return queryRows(dbPath(side), text, params);
    }

    QString value(Side side, const QString &table, const QString &sql, const QVariantList &params = {}) {
        return rows(side, table, sql, params).value(0).value(0);
    }

    qint64 count(Side side, const QString &table, const QString &where = QStringLiteral("1 = 1")) {
        return value(side, table, QStringLiteral("SELECT count(*) FROM %1 WHERE ") + where).toLongLong();
    }

    bool exists(Side side, const QString &table) {
        if (isPostgres(side))
            return !m_pg->value(QStringLiteral("SELECT to_regclass($1)"), {qualified(side, table)}).isEmpty();
        return QFile::exists(dbPath(side)) && tableExists(dbPath(side), tableName(side, table));
    }

    // id and payload of every row, in id order: what a correct copy must reproduce exactly once.
    QList<QStringList> content(Side side, const QString &table) {
        return rows(side, table, QStringLiteral("SELECT id, v FROM %1 ORDER BY id, v"));
    }

    // A table `id, ts, v` (plus `extra` column definitions) on one side; `keyed` makes id the
    // primary key (a target created from a keyless source has no key, so a row written twice
    // shows as a duplicate instead of a constraint error).
    void createEvents(Side side, const QString &table, bool keyed, const QString &extra = QString()) {
        exec(side, table,
             QStringLiteral("CREATE TABLE %1 (id %2 %3, ts %4 NOT NULL, v TEXT%5)")
                 .arg(QStringLiteral("%1"), integerType(side),
                      keyed ? QStringLiteral("PRIMARY KEY") : QStringLiteral("NOT NULL"), timestampType(side),
                      extra));
    }

    void insertEvent(Side side, const QString &table, int id, const QString &stamp, const QString &v) {
        exec(side, table, QStringLiteral("INSERT INTO %1 (id, ts, v) VALUES (?1, ?2, ?3)"), {id, stamp, v});
    }

    void insertEvents(Side side, const QString &table, int first, int last) {
        for (int i = first; i <= last; ++i)
            insertEvent(side, table, i, ts(i), QStringLiteral("v%1").arg(i));
    }

    // A keyless events table with rows 1..rows on the source, and the route's draft copying it.
    TableDraft eventsDraft(const QString &table, int rows) {
        createEvents(Side::Source, table, false);
        insertEvents(Side::Source, table, 1, rows);
        return draft(table, QStringLiteral("ts"));
    }

    // A draft of the route: batches of `batchSize` rows (small, so a window spans many).
    TableDraft draft(const QString &table, const QString &watermark, int batchSize = 3) const {
        TableDraft draft;
        draft.spec.sourceConnection = QStringLiteral("src");
        draft.spec.sourceTable = name(Side::Source, table);
        draft.spec.targetConnection = QStringLiteral("dst");
        draft.spec.targetTable = name(Side::Target, table);
        draft.spec.watermarkColumn = watermark;
        draft.spec.batchSize = batchSize;
        draft.spec.commitPerBatch = m_route.perBatch;
        draft.spec.maxSkipped = m_route.maxSkipped;
        return draft;
    }

    qint64 addTable(const TableDraft &draft) { return ws->addTable(prepareTable(*ws, draft)); }

    TableSpec spec(qint64 tableId) { return *ws->table(tableId); }

    // The workspace's position, displayed.
    QString lastWatermark(qint64 tableId) { return spec(tableId).lastWatermark.display(); }

    IterationRecord run(qint64 tableId, CopyIteration::Options options = {}) {
        return runInOwnRun(*ws, tableId, options);
    }

    // The target's state row for the table, read with plain SQL: {watermark (displayed in the
    // table's watermark type), tiebreak as text}; empty when the target holds no state row.
    QStringList stateRow(qint64 tableId) {
        const QString sql =
            QStringLiteral("SELECT watermark, tiebreak FROM %1 WHERE workspace_id = ?1 AND table_id = ?2");
        QList<QStringList> found;
        if (isPostgres(Side::Target)) {
            if (m_pg->value(QStringLiteral("SELECT to_regclass('public.tidemark_state')")).isEmpty())
                return {};
            found = m_pg->query(pgPlaceholders(sql.arg(QStringLiteral("public.tidemark_state"))),
                                {ws->workspaceId(), tableId});
        } else {
            if (!QFile::exists(dbPath(Side::Target)) ||
                !tableExists(dbPath(Side::Target), QStringLiteral("tidemark_state")))
                return {};
            SqliteDb db(dbPath(Side::Target), SqliteDb::Mode::ReadOnly);
            SqliteStatement select(db, sql.arg(QStringLiteral("tidemark_state")));
            select.bind(1, ws->workspaceId()).bind(2, tableId);
            if (select.step())
                found << QStringList{select.columnText(0), select.columnText(1)};
        }
        if (found.isEmpty())
            return {};
        const Watermark watermark =
            Watermark::fromStored(spec(tableId).watermarkType, found.first().value(0));
        return {watermark.display(), found.first().value(1)};
    }

    QString stateWatermark(qint64 tableId) { return stateRow(tableId).value(0); }

    // Whether the workspace position equals the target's state row (what reconcile relies on).
    bool workspaceMatchesState(qint64 tableId) {
        const TableSpec tableSpec = spec(tableId);
        const QStringList state = stateRow(tableId);
        return state.value(0) == tableSpec.lastWatermark.display() &&
               state.value(1) == tableSpec.lastTiebreak.toString();
    }

    // PostgreSQL session on the test server (only for pairings with PostgreSQL).
    PgSession &pg() { return *m_pg; }
    QString dbPath(Side side) const {
        return m_dir.filePath(side == Side::Source ? QStringLiteral("source.db")
                                                   : QStringLiteral("target.db"));
    }

    const Side source = Side::Source;
    const Side target = Side::Target;
    QString schema;
    QString wsPath;
    std::unique_ptr<Workspace> ws;

private:
    static QString pgPlaceholders(QString text) {
        static const QRegularExpression placeholder(QStringLiteral("\\?(\\d+)"));
        return text.replace(placeholder, QStringLiteral("$\\1"));
    }

    ConnectionSpec connection(const QString &connectionName, Side side) const {
        ConnectionSpec spec;
        spec.name = connectionName;
        if (isPostgres(side)) {
            spec.kind = ConnectionKind::Postgres;
            spec.conninfo = pgConninfo();
        } else {
            spec.kind = ConnectionKind::Sqlite;
            spec.path = dbPath(side);
        }
        return spec;
    }

    Pairing m_pairing;
    Route m_route;
    QTemporaryDir m_dir{fastTempTemplate()};
    std::unique_ptr<PgSession> m_pg;
};

} // namespace tidemark::test

// Starts a matrix test: fetches the row's pairing and route into `pairing` / `route`, skips the
// row (or fails it under CI=true) when it needs PostgreSQL and none is configured.
#define CONTRACT_ROW(pairingVar, routeVar)                                                                   \
    QFETCH(QString, pairing);                                                                                \
    QFETCH(QString, route);                                                                                  \
    const ::tidemark::test::Pairing pairingVar = ::tidemark::test::pairingNamed(pairing);                    \
    const ::tidemark::test::Route routeVar = ::tidemark::test::routeNamed(route);                            \
    if (pairingVar.needsPostgres() && !::tidemark::test::pgUnavailableReason().isEmpty()) {                  \
        if (::tidemark::test::pgMissingIsFailure())                                                          \
            QFAIL(qPrintable(QStringLiteral("CI=true and no PostgreSQL: ") +                                 \
                             ::tidemark::test::pgUnavailableReason()));                                      \
        QSKIP(qPrintable(::tidemark::test::pgUnavailableReason()));                                          \
    }
