// SPDX-License-Identifier: MIT
#include "model/engine/tablesetup.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/conninfo.h"
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
    requireConnection(workspace, spec.targetConnection, QStringLiteral("target"));

    const std::unique_ptr<SourceReader> source =
        asValidation([&] { return openConnector(sourceConnection); });
    const TableRef table = source->parseTableName(spec.sourceTable);
    if (!asValidation([&] { return source->tableExists(table); }))
        throw ValidationError(QStringLiteral("source table '%1' does not exist").arg(spec.sourceDisplay()));
    const TableSchema schema = asValidation([&] { return source->describeTable(table); });
    const QString where = spec.sourceDisplay();

    spec.watermarkType = WatermarkType::None;
    Watermark sample;
    if (!spec.watermarkColumn.isEmpty()) {
        requireColumn(schema, spec.watermarkColumn, QStringLiteral("--watermark"), where);
        const ColumnInfo &column = *schema.column(spec.watermarkColumn);
        spec.watermarkType = asValidation([&] { return source->detectWatermarkType(table, column); });
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

qint64 addCheckedConnection(Workspace &workspace, const ConnectionSpec &spec) {
    if (spec.kind == ConnectionKind::Postgres)
        checkConninfo(spec.name, spec.conninfo);
    return workspace.addConnection(spec);
}

} // namespace tidemark
