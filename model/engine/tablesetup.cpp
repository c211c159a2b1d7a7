// SPDX-License-Identifier: MIT
#include "model/engine/tablesetup.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/conninfo.h"
#include "model/credentials/credentialstore.h"
#include "model/storage/workspace.h"

namespace tidemark {
namespace {

ConnectionSpec requireConnection(Workspace &workspace, const QString &name, const QString &role) {
    if (name.isEmpty())
        throw ValidationError(QStringLiteral("the %1 connection is missing (use CONN:TABLE)").arg(role));
    const auto connection = workspace.connection(name);
    if (!connection)
        throw ValidationError(QStringLiteral("%1 connection '%2' does not exist").arg(role, name));
    return *connection;
}

// Source-side failures are the user's input at fault here, so they become validation errors.
template <typename Fn> auto asValidation(Fn &&fn) {
    try {
        return fn();
    } catch (const ValidationError &) {
        throw;
    } catch (const Error &error) {
        throw ValidationError(error.message());
    }
}

// PostgreSQL keeps only the first NAMEDATALEN - 1 bytes of an identifier and drops the rest
// without an error: two long target names that share those bytes would be one table.
constexpr qsizetype kPostgresNameBytes = 63;

void requirePostgresName(const QString &name, const QString &what, const QString &context = QString()) {
    const qsizetype bytes = name.toUtf8().size();
    if (bytes <= kPostgresNameBytes)
        return;
    constexpr qsizetype shown = 100; // a 10,000-character name still fits one error line
    const QString display = name.size() > shown ? name.left(shown) + QStringLiteral("...") : name;
    throw ValidationError(QStringLiteral("%1 '%2'%3 is %4 bytes long in UTF-8: PostgreSQL would cut it to "
                                         "%5 bytes (choose a shorter name)")
                              .arg(what, display, context)
                              .arg(bytes)
                              .arg(kPostgresNameBytes));
}

// "schema.table" or "table", split like the PostgreSQL connector splits it.
void requirePostgresTableName(const QString &text, const QString &option) {
    const qsizetype dot = text.indexOf(QLatin1Char('.'));
    if (dot >= 0)
        requirePostgresName(text.left(dot), option + QStringLiteral(" schema"));
    requirePostgresName(dot >= 0 ? text.mid(dot + 1) : text, option + QStringLiteral(" table"));
}

// A target table as its database knows it: PostgreSQL defaults the schema, SQLite ignores case.
QString targetIdentity(ConnectionKind kind, const QString &table) {
    if (kind == ConnectionKind::Sqlite)
        return table.toLower();
    return table.contains(QLatin1Char('.')) ? table : QStringLiteral("public.") + table;
}

bool sameDatabase(const ConnectionSpec &a, const ConnectionSpec &b) {
    if (a.name == b.name)
        return true;
    if (a.kind != b.kind)
        return false;
    return a.kind == ConnectionKind::Sqlite ? a.path == b.path : a.conninfo == b.conninfo;
}

// One target table takes one table's rows: a second table writing into it would mix or double
// them. A removed table keeps its target (its rows and state row are there) until restored.
void requireUnusedTarget(Workspace &workspace, const TableSpec &spec, const ConnectionSpec &target) {
    const QString identity = targetIdentity(target.kind, spec.targetTable);
    const auto sameTarget = [&](const TableSpec &other) {
        if (other.id == spec.id || targetIdentity(target.kind, other.targetTable) != identity)
            return false;
        const auto connection = workspace.connection(other.targetConnection);
        return connection ? sameDatabase(*connection, target) : other.targetConnection == target.name;
    };
    for (const TableSpec &other : workspace.tables()) {
        if (sameTarget(other))
            throw ValidationError(
                QStringLiteral("--target '%1' is already the target of table %2 (%3 -> %4): "
                               "one target table takes one table's rows")
                    .arg(spec.targetDisplay())
                    .arg(other.id)
                    .arg(other.sourceDisplay(), other.targetDisplay()));
    }
    for (const TableSpec &other : workspace.archivedTables()) {
        if (sameTarget(other))
            throw ValidationError(
                QStringLiteral("--target '%1' still belongs to removed table %2 (%3 -> %4): a removed table "
                               "keeps its target until it is restored or purged (restore it with "
                               "'table restore %2', or choose another target)")
                    .arg(spec.targetDisplay())
                    .arg(other.id)
                    .arg(other.sourceDisplay(), other.targetDisplay()));
    }
}

// True when the column holds no non-NULL value (an empty table, or only NULLs so far).
bool holdsNoValue(SourceReader &source, const TableRef &table, const QString &column) {
    try {
        // Probed as integers: any other value is unorderable, and is a value too.
        const WatermarkProbe probe = source.probeWatermark(table, column, WatermarkType::Integer);
        return probe.maximum.isNull() && probe.unorderableCount == 0;
    } catch (const Error &) {
        return false; // values that are not integers: there are values
    }
}

void requireColumn(const TableSchema &schema, const QString &column, const QString &option,
                   const QString &table) {
    if (!schema.column(column))
        throw ValidationError(
            QStringLiteral("%1: column '%2' does not exist in source table '%3'").arg(option, column, table));
}

} // namespace

QStringList checkTableRules(const TableSpec &spec) {
    QStringList problems;
    if (spec.sourceConnection.isEmpty() || spec.sourceTable.isEmpty())
        problems << QStringLiteral("--source must be CONN:TABLE");
    if (spec.targetConnection.isEmpty() || spec.targetTable.isEmpty())
        problems << QStringLiteral("--target must be CONN:TABLE");
    if (spec.sourceConnection == spec.targetConnection && spec.sourceTable == spec.targetTable)
        problems << QStringLiteral("--target '%1' is the source table itself").arg(spec.targetDisplay());
    if (spec.watermarkColumn.isEmpty() && spec.mode != WriteMode::Overwrite)
        problems << QStringLiteral("--watermark is required (only --mode overwrite may omit it)");
    if (spec.watermarkColumn.isEmpty() && !spec.tiebreakColumn.isEmpty())
        problems << QStringLiteral("--tiebreak '%1' needs a --watermark column").arg(spec.tiebreakColumn);
    if (!spec.lookback.isEmpty() && spec.mode != WriteMode::Merge)
        problems << QStringLiteral(
                        "--lookback needs --mode merge: a lookback re-reads rows, which %1 would copy twice")
                        .arg(writeModeName(spec.mode));
    if (spec.commitPerBatch && spec.mode == WriteMode::Overwrite)
        problems << QStringLiteral(
            "--commit-per-batch cannot go with --mode overwrite: overwrite replaces the "
            "whole target in one transaction, and a commit per batch would leave it "
            "half replaced whenever a run fails");
    if (spec.maxSkipped < 0)
        problems << QStringLiteral("--max-skipped must be 0 or more");
    if (spec.batchSize < 1)
        problems << QStringLiteral("--batch-size must be 1 or more");
    return problems;
}

TableSpec prepareTable(Workspace &workspace, const TableDraft &draft) {
    TableSpec spec = draft.spec;
    const QStringList problems = checkTableRules(spec);
    if (!problems.isEmpty())
        throw ValidationError(problems.first());
    const ConnectionSpec sourceConnection =
        requireConnection(workspace, spec.sourceConnection, QStringLiteral("source"));
    const ConnectionSpec targetConnection =
        requireConnection(workspace, spec.targetConnection, QStringLiteral("target"));
    const bool postgresSource = sourceConnection.kind == ConnectionKind::Postgres;
    const bool postgresTarget = targetConnection.kind == ConnectionKind::Postgres;
    if (postgresSource) {
        requirePostgresTableName(spec.sourceTable, QStringLiteral("--source"));
        requirePostgresName(spec.watermarkColumn, QStringLiteral("--watermark column"));
        requirePostgresName(spec.tiebreakColumn, QStringLiteral("--tiebreak column"));
    }
    if (postgresSource || postgresTarget) {
        for (const QString &key : spec.keyColumns)
            requirePostgresName(key, QStringLiteral("--key column"));
    }
    if (postgresTarget)
        requirePostgresTableName(spec.targetTable, QStringLiteral("--target"));
    requireUnusedTarget(workspace, spec, targetConnection);

    const std::unique_ptr<SourceReader> source =
        asValidation([&] { return openConnector(sourceConnection); });
    const TableRef table = source->parseTableName(spec.sourceTable);
    if (!asValidation([&] { return source->tableExists(table); }))
        throw ValidationError(QStringLiteral("source table '%1' does not exist").arg(spec.sourceDisplay()));
    const TableSchema schema = asValidation([&] { return source->describeTable(table); });
    const QString where = spec.sourceDisplay();
    if (postgresTarget) {
        // Every source column becomes a target column of the same name.
        for (const ColumnInfo &column : schema.columns)
            requirePostgresName(column.name, QStringLiteral("column"),
                                QStringLiteral(" of '%1' (a column of the PostgreSQL target)").arg(where));
    }

    spec.watermarkType = WatermarkType::None;
    Watermark sample;
    if (!spec.watermarkColumn.isEmpty()) {
        requireColumn(schema, spec.watermarkColumn, QStringLiteral("--watermark"), where);
        const ColumnInfo &column = *schema.column(spec.watermarkColumn);
        spec.watermarkType = asValidation([&] { return source->detectWatermarkType(table, column); });
        if (spec.watermarkType == WatermarkType::None && sourceConnection.kind == ConnectionKind::Sqlite &&
            holdsNoValue(*source, table, column.name)) {
            // Nothing to detect from yet. A TEXT column can only ever hold timestamps as a
            // watermark (SQLite turns integers stored in it into text); else the user says.
            spec.watermarkType = draft.watermarkType != WatermarkType::None ? draft.watermarkType
                                 : column.logical == LogicalType::Text      ? WatermarkType::Timestamp
                                                                            : WatermarkType::None;
            if (spec.watermarkType == WatermarkType::None)
                throw ValidationError(
                    QStringLiteral(
                        "--watermark: column '%1' of '%2' is empty and its declared type '%3' does "
                        "not say what it will hold; pass --watermark-type timestamp|integer")
                        .arg(column.name, where, column.nativeType));
        }
        if (draft.watermarkType != WatermarkType::None && spec.watermarkType != draft.watermarkType)
            throw ValidationError(QStringLiteral("--watermark-type %1: column '%2' of '%3' holds %4 values")
                                      .arg(watermarkTypeName(draft.watermarkType), column.name, where,
                                           spec.watermarkType == WatermarkType::None
                                               ? QStringLiteral("neither integer nor timestamp")
                                               : watermarkTypeName(spec.watermarkType)));
        if (spec.watermarkType == WatermarkType::None)
            throw ValidationError(
                QStringLiteral("--watermark: column '%1' of '%2' cannot order a watermark: it holds "
                               "neither integers nor ISO-8601 timestamps (declared type '%3')")
                    .arg(column.name, where, column.nativeType));
        asValidation([&] { return source->probeWatermark(table, column.name, spec.watermarkType); });
        sample =
            asValidation([&] { return source->sampleWatermark(table, column.name, spec.watermarkType); });
    }
    if (!spec.tiebreakColumn.isEmpty())
        requireColumn(schema, spec.tiebreakColumn, QStringLiteral("--tiebreak"), where);
    for (const QString &key : spec.keyColumns)
        requireColumn(schema, key, QStringLiteral("--key"), where);
    if (spec.mode == WriteMode::Merge && spec.keyColumns.isEmpty()) {
        spec.keyColumns = schema.primaryKey();
        if (spec.keyColumns.isEmpty())
            throw ValidationError(QStringLiteral("--mode merge needs key columns: '%1' has no primary key; "
                                                 "pass --key COL[,COL...]")
                                      .arg(where));
    }
    if (!spec.lookback.isEmpty())
        Lookback::parse(spec.lookback, spec.watermarkType);

    spec.initialWatermark = Watermark();
    if (!draft.initialWatermarkText.isEmpty()) {
        if (spec.watermarkType == WatermarkType::None)
            throw ValidationError(QStringLiteral("--initial-watermark needs a --watermark column"));
        spec.initialWatermark = parseUserWatermark(spec.watermarkType, draft.initialWatermarkText, sample,
                                                   QStringLiteral("--initial-watermark"));
    }
    if (spec.id == 0) {
        spec.lastWatermark = spec.initialWatermark;
        spec.lastTiebreak = QVariant();
    }
    return spec;
}

QList<SourceColumn> describeSourceColumns(Workspace &workspace, const QString &connection,
                                          const QString &table) {
    const ConnectionSpec spec = requireConnection(workspace, connection, QStringLiteral("source"));
    const std::unique_ptr<SourceReader> source = openConnector(spec);
    const TableRef ref = source->parseTableName(table);
    const TableSchema schema = source->describeTable(ref);
    QList<SourceColumn> columns;
    for (const ColumnInfo &column : schema.columns)
        columns << SourceColumn{column, source->detectWatermarkType(ref, column)};
    return columns;
}

QStringList listSourceTables(Workspace &workspace, const QString &connection) {
    QStringList names;
    for (const TableRef &ref :
         openConnector(requireConnection(workspace, connection, QStringLiteral("source")))->listTables())
        names << ref.display();
    return names;
}

int countTables(const ConnectionSpec &spec) {
    return int(openConnector(spec)->listTables().size());
}

qint64 addCheckedConnection(Workspace &workspace, const ConnectionSpec &spec, const QString &password) {
    if (spec.kind == ConnectionKind::Postgres)
        checkConninfo(spec.name, spec.conninfo);
    const qint64 id = workspace.addConnection(spec);
    if (!password.isEmpty()) {
        try {
            CredentialStore::savePassword(*workspace.connection(spec.name), password);
        } catch (const Error &error) {
            // A connection whose password went nowhere would only fail at its first run.
            workspace.removeConnection(spec.name);
            throw Error(error.message() + QStringLiteral("; connection '%1' was not added").arg(spec.name));
        }
    }
    return id;
}

void updateCheckedConnection(Workspace &workspace, const ConnectionSpec &spec, const QString &password) {
    if (spec.id <= 0)
        throw ValidationError(
            QStringLiteral("connection '%1': which connection to change (no id)").arg(spec.name));
    if (spec.kind == ConnectionKind::Postgres)
        checkConninfo(spec.name, spec.conninfo);
    if (!password.isEmpty()) {
        ConnectionSpec stored = spec;
        stored.keychainKey = connectionKeychainKey(workspace.workspaceId(), spec.id);
        CredentialStore::savePassword(stored, password);
    }
    workspace.updateConnection(spec);
}

} // namespace tidemark
