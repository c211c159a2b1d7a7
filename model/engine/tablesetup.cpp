// SPDX-License-Identifier: MIT
#include "model/engine/tablesetup.h"

#include "model/common/error.h"
#include "model/common/timestamp.h"
#include "model/connectors/columnfit.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/conninfo.h"
#include "model/connectors/mariadbconnector.h"
#include "model/credentials/credentialstore.h"
#include "model/domain/sourcezone.h"
#include "model/engine/remotework.h"
#include "model/engine/sourcecatalog.h"
#include "model/storage/workspace.h"

#include <QFileInfo>

namespace tidemark {
namespace {

// The CLI's or the window's words for one message.
struct Words {
    Wording wording;
    QString operator()(const QString &cli, const QString &window) const {
        return wording == Wording::Cli ? cli : window;
    }
};

ConnectionSpec requireConnection(Workspace &workspace, const QString &name, const QString &role, Words say) {
    if (name.isEmpty())
        throw ValidationError(say(QStringLiteral("the %1 connection is missing (use CONN:TABLE)"),
                                  QStringLiteral("Choose a %1 connection."))
                                  .arg(role));
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

// An existing target must hold every source column, or the table must add them, and each column
// must hold its source column's values unchanged: refused now with the run's own words rather than
// at the first run. A target that cannot be reached now, or a SQLite file not there yet (the first
// run creates it), is left for the run to check.
void requireTargetColumns(const TableSpec &spec, const TableSchema &source, const ConnectionSpec &target,
                          RemoteTask *task) {
    if (target.kind == ConnectionKind::Sqlite && !QFileInfo::exists(target.path))
        return;
    TableSchema existing;
    try {
        const std::shared_ptr<Catalog> catalog = task ? std::shared_ptr<Catalog>(task->open(target))
                                                      : std::shared_ptr<Catalog>(openConnector(target));
        const TableRef table = catalog->parseTableName(spec.targetTable);
        if (!catalog->tableExists(table))
            return;
        existing = catalog->describeTable(table);
    } catch (const Error &) {
        return;
    }
    const QString problem = targetColumnsProblem(spec, source, existing);
    if (!problem.isEmpty())
        throw ValidationError(problem);
}

// One target table takes one table's rows: a second table writing into it would mix or double
// them. A removed table keeps its target (its rows and state row are there) until restored.
void requireUnusedTarget(Workspace &workspace, const TableSpec &spec, const ConnectionSpec &target,
                         Words say) {
    if (const auto other = workspace.otherTableWritingInto(target, spec.targetTable, spec.id, false))
        throw ValidationError(
            say(QStringLiteral("--target '%1' is already the target of table %2 (%3 -> %4): "
                               "one target table takes one table's rows"),
                QStringLiteral("%1 is already the target of table %2 (%3 → %4): one target table takes "
                               "one table's rows, so choose another target table."))
                .arg(spec.targetDisplay())
                .arg(other->id)
                .arg(other->sourceDisplay(), other->targetDisplay()));
    if (const auto other = workspace.otherTableWritingInto(target, spec.targetTable, spec.id, true))
        throw ValidationError(
            say(QStringLiteral("--target '%1' still belongs to removed table %2 (%3 -> %4): a removed "
                               "table keeps its target until it is restored or purged (restore it with "
                               "'table restore %2', forget it and free its target with 'table purge %2', "
                               "or choose another target)"),
                QStringLiteral("%1 still belongs to removed table %2 (%3 → %4): a removed table keeps its "
                               "target until it is restored, so choose another target table."))
                .arg(spec.targetDisplay())
                .arg(other->id)
                .arg(other->sourceDisplay(), other->targetDisplay()));
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

// `option` names the column's role ("--watermark", or "watermark" in the window's words).
void requireColumn(const TableSchema &schema, const QString &column, const QString &option,
                   const QString &table, Words say) {
    if (!schema.column(column))
        throw ValidationError(say(QStringLiteral("%1: column '%2' does not exist in source table '%3'"),
                                  QStringLiteral("The %1 column '%2' does not exist in %3."))
                                  .arg(option, column, table));
}

// A source zone says what a watermark without zone means: a column of integers, or one whose
// values carry their own zone (PostgreSQL timestamptz, MariaDB TIMESTAMP, SQLite text with an
// offset), has nothing for it to say.
void requireNaiveColumn(const TableSpec &spec, const ColumnInfo &column, const Watermark &sample, Words say) {
    if (SourceZone::parse(spec.sourceTimezone).isUtc())
        return;
    const auto spelled = sample.isNull() ? std::nullopt : parseTimestamp(sample.nativeText());
    const bool zoned =
        column.logical == LogicalType::TimestampTz || (spelled && !spelled->spelling.zone.isEmpty());
    if (spec.watermarkType == WatermarkType::Timestamp && !zoned)
        return;
    throw ValidationError(
        say(QStringLiteral(
                "--source-timezone %1: watermark column '%2' of '%3' %4, so there is no wall-clock "
                "time to read in a zone; leave --source-timezone out"),
            QStringLiteral(
                "Source time zone %1: watermark column %2 of %3 %4, so there is no wall-clock time "
                "to read in a zone; leave the source time zone at UTC."))
            .arg(spec.sourceTimezone, column.name, spec.sourceDisplay(),
                 spec.watermarkType != WatermarkType::Timestamp
                     ? QStringLiteral("holds integers")
                     : QStringLiteral("carries its own zone (%1)")
                           .arg(spelled && !spelled->spelling.zone.isEmpty()
                                    ? spelled->spelling.zone.trimmed()
                                    : column.nativeType)));
}

} // namespace

QStringList checkTableRules(const TableSpec &spec, Wording wording) {
    const Words say{wording};
    QStringList problems;
    if (wording == Wording::Cli) {
        if (spec.sourceConnection.isEmpty() || spec.sourceTable.isEmpty())
            problems << QStringLiteral("--source must be CONN:TABLE");
        if (spec.targetConnection.isEmpty() || spec.targetTable.isEmpty())
            problems << QStringLiteral("--target must be CONN:TABLE");
    } else {
        if (spec.sourceConnection.isEmpty())
            problems << QStringLiteral("Choose a source connection.");
        if (spec.sourceTable.isEmpty())
            problems << QStringLiteral("Choose a source table.");
        if (spec.targetConnection.isEmpty())
            problems << QStringLiteral("Choose a target connection.");
        if (spec.targetTable.trimmed().isEmpty())
            problems << QStringLiteral("Name the target table.");
    }
    if (spec.sourceConnection == spec.targetConnection && spec.sourceTable == spec.targetTable &&
        !spec.sourceTable.isEmpty())
        problems << say(QStringLiteral("--target '%1' is the source table itself"),
                        QStringLiteral("The target %1 is the source table itself: choose another target "
                                       "table or connection."))
                        .arg(spec.targetDisplay());
    if (spec.watermarkColumn.isEmpty() && spec.mode != WriteMode::Overwrite)
        problems << say(QStringLiteral("--watermark is required (only --mode overwrite may omit it)"),
                        QStringLiteral("Choose a watermark column (only the overwrite mode can do without "
                                       "one)."));
    if (spec.watermarkColumn.isEmpty() && !spec.staleAfter.isEmpty())
        problems << say(QStringLiteral("--stale-after watches a position, and a table without a --watermark "
                                       "column has none (give --watermark COL, or leave --stale-after out)"),
                        QStringLiteral("Stale after watches a position, and a table without a watermark "
                                       "column has none: choose one, or leave Stale after empty."));
    if (spec.watermarkColumn.isEmpty() && !spec.tiebreakColumn.isEmpty())
        problems << say(QStringLiteral("--tiebreak '%1' needs a --watermark column"),
                        QStringLiteral("The tiebreak column %1 needs a watermark column."))
                        .arg(spec.tiebreakColumn);
    if (!spec.lookback.isEmpty() && spec.mode != WriteMode::Merge)
        problems << say(QStringLiteral(
                            "--lookback needs --mode merge: a lookback re-reads rows, which %1 would "
                            "copy twice"),
                        QStringLiteral("A lookback needs the merge mode: a lookback re-reads rows, which %1 "
                                       "would copy twice."))
                        .arg(writeModeName(spec.mode));
    if (spec.commitPerBatch && spec.mode == WriteMode::Overwrite)
        problems << say(
            QStringLiteral("--commit-per-batch cannot go with --mode overwrite: overwrite replaces the "
                           "whole target in one transaction, and a commit per batch would leave it "
                           "half replaced whenever a run fails"),
            QStringLiteral("\"Commit each batch\" cannot go with the overwrite mode: overwrite "
                           "replaces the whole target in one transaction, and a commit per batch "
                           "would leave it half replaced whenever a run fails."));
    if (!spec.sourceTimezone.isEmpty()) {
        try {
            const SourceZone zone =
                SourceZone::parse(spec.sourceTimezone, say(QStringLiteral("--source-timezone"),
                                                           QStringLiteral("Source time zone")));
            if (spec.watermarkColumn.isEmpty())
                problems << say(QStringLiteral("--source-timezone names the zone of a --watermark column's "
                                               "values, and this table has none"),
                                QStringLiteral("The source time zone is the zone of the watermark column's "
                                               "values, and this table has none."));
            else if (spec.mode == WriteMode::Append && zone.repeatsWallTimes())
                problems
                    << say(QStringLiteral("--source-timezone %1 turns its clocks back (summer time ends), so "
                                          "its wall-clock watermark repeats an hour; a copy reaches back "
                                          "over that hour, which an append table would copy twice: use "
                                          "--mode merge, or a zone such as UTC"),
                           QStringLiteral("%1 turns its clocks back (summer time ends), so its wall-clock "
                                          "watermark repeats an hour; a copy reaches back over that hour, "
                                          "which an append table would copy twice: choose the merge mode."))
                           .arg(zone.name());
        } catch (const ValidationError &error) {
            problems << error.message();
        }
    }
    if (spec.maxSkipped < 0)
        problems << say(QStringLiteral("--max-skipped must be 0 or more"),
                        QStringLiteral("Max skipped rows must be 0 or more."));
    if (spec.batchSize < 1)
        problems << say(QStringLiteral("--batch-size must be 1 or more"),
                        QStringLiteral("The batch size must be 1 or more."));
    return problems;
}

TableSpec prepareTable(Workspace &workspace, const TableDraft &draft, Wording wording, RemoteTask *task) {
    const Words say{wording};
    const bool cli = wording == Wording::Cli;
    TableSpec spec = draft.spec;
    const QStringList problems = checkTableRules(spec, wording);
    if (!problems.isEmpty())
        throw ValidationError(problems.first());
    const ConnectionSpec sourceConnection =
        requireConnection(workspace, spec.sourceConnection, QStringLiteral("source"), say);
    const ConnectionSpec targetConnection =
        requireConnection(workspace, spec.targetConnection, QStringLiteral("target"), say);
    const bool postgresSource = sourceConnection.kind == ConnectionKind::Postgres;
    const bool postgresTarget = targetConnection.kind == ConnectionKind::Postgres;
    if (postgresSource) {
        requirePostgresTableName(spec.sourceTable, say(QStringLiteral("--source"), QStringLiteral("Source")));
        requirePostgresName(spec.watermarkColumn,
                            say(QStringLiteral("--watermark column"), QStringLiteral("Watermark column")));
        requirePostgresName(spec.tiebreakColumn,
                            say(QStringLiteral("--tiebreak column"), QStringLiteral("Tiebreak column")));
    }
    if (postgresSource || postgresTarget) {
        for (const QString &key : spec.keyColumns)
            requirePostgresName(key, say(QStringLiteral("--key column"), QStringLiteral("Key column")));
    }
    if (postgresTarget)
        requirePostgresTableName(spec.targetTable, say(QStringLiteral("--target"), QStringLiteral("Target")));
    if (spec.zeroDates == ZeroDates::Null && sourceConnection.kind != ConnectionKind::Mysql)
        throw ValidationError(
            say(QStringLiteral("--zero-dates null: only a MySQL/MariaDB source holds zero dates, and "
                               "'%1' is not one (leave --zero-dates out)"),
                QStringLiteral("Zero dates as NULL: only a MySQL/MariaDB source holds zero dates, and "
                               "'%1' is not one."))
                .arg(spec.sourceConnection));
    requireUnusedTarget(workspace, spec, targetConnection, say);

    const std::shared_ptr<SourceReader> source = asValidation([&]() -> std::shared_ptr<SourceReader> {
        if (task)
            return task->open(sourceConnection);
        return openConnector(sourceConnection);
    });
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
        requireColumn(schema, spec.watermarkColumn,
                      say(QStringLiteral("--watermark"), QStringLiteral("watermark")), where, say);
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
                    say(QStringLiteral("--watermark: column '%1' of '%2' is empty and its declared type '%3' "
                                       "does not say what it will hold; pass --watermark-type "
                                       "timestamp|integer"),
                        QStringLiteral(
                            "Column %1 of %2 is empty and its declared type '%3' does not say "
                            "whether it will hold timestamps or integers: choose another watermark "
                            "column, or add the table once it holds values."))
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
                say(QStringLiteral("--watermark: column '%1' of '%2' cannot order a watermark: it holds "
                                   "neither integers nor ISO-8601 timestamps (declared type '%3')"),
                    QStringLiteral("Column %1 of %2 cannot be the watermark: it holds neither integers nor "
                                   "ISO-8601 timestamps (declared type '%3')."))
                    .arg(column.name, where, column.nativeType));
        asValidation([&] { return source->probeWatermark(table, column.name, spec.watermarkType); });
        sample =
            asValidation([&] { return source->sampleWatermark(table, column.name, spec.watermarkType); });
        requireNaiveColumn(spec, column, sample, say);
    }
    if (!spec.tiebreakColumn.isEmpty())
        requireColumn(schema, spec.tiebreakColumn,
                      say(QStringLiteral("--tiebreak"), QStringLiteral("tiebreak")), where, say);
    for (const QString &key : spec.keyColumns)
        requireColumn(schema, key, say(QStringLiteral("--key"), QStringLiteral("key")), where, say);
    if (spec.mode == WriteMode::Merge && spec.keyColumns.isEmpty()) {
        spec.keyColumns = schema.primaryKey();
        if (spec.keyColumns.isEmpty())
            throw ValidationError(
                say(QStringLiteral("--mode merge needs key columns: '%1' has no primary key; "
                                   "pass --key COL[,COL...]"),
                    QStringLiteral("The merge mode needs key columns: %1 has no primary key, "
                                   "so tick the columns that identify a row."))
                    .arg(where));
    }
    if (!spec.deletes.isIgnore() && spec.mode == WriteMode::Overwrite)
        throw ValidationError(
            say(QStringLiteral("--deletes %1: an overwrite copies the whole table at every run, so the "
                               "source's deletes reach the target already; use --deletes ignore"),
                QStringLiteral("Deletes (%1) need no handling here: an overwrite copies the whole table at "
                               "every run."))
                .arg(spec.deletes.actionText()));
    if (!spec.deletes.isIgnore() && spec.keyColumns.isEmpty() && schema.primaryKey().isEmpty())
        throw ValidationError(
            say(QStringLiteral("--deletes %2 needs a key: '%1' has no primary key, and a deleted row is "
                               "told by its key; pass --key COL[,COL...]"),
                QStringLiteral("Deletes (%2) need a key: %1 has no primary key, so tick the columns that "
                               "identify a row."))
                .arg(where, spec.deletes.actionText()));
    if (!spec.lookback.isEmpty()) {
        try {
            Lookback::parse(spec.lookback, spec.watermarkType);
        } catch (const ValidationError &error) {
            if (cli)
                throw;
            QString message = error.message();
            throw ValidationError(
                message.replace(QLatin1String("invalid --lookback"), QLatin1String("Invalid lookback")));
        }
    }

    spec.initialWatermark = Watermark();
    if (!draft.initialWatermarkText.isEmpty()) {
        if (spec.watermarkType == WatermarkType::None)
            throw ValidationError(say(QStringLiteral("--initial-watermark needs a --watermark column"),
                                      QStringLiteral("An initial watermark needs a watermark column.")));
        spec.initialWatermark =
            SourceZone::parse(spec.sourceTimezone)
                .parseTyped(spec.watermarkType, draft.initialWatermarkText, sample,
                            say(QStringLiteral("--initial-watermark"), QStringLiteral("initial watermark")));
    }
    requireTargetColumns(spec, schema, targetConnection, task);
    if (spec.id == 0) {
        spec.lastWatermark = spec.initialWatermark;
        spec.lastTiebreak = QVariant();
    }
    return spec;
}

QString missingTargetColumnMessage(const TableSpec &spec, const QString &column) {
    return QStringLiteral("source column '%1' of '%2' does not exist in target table '%3' "
                          "(add it to the target, or enable 'add new columns')")
        .arg(column, spec.sourceDisplay(), spec.targetDisplay());
}

QList<ColumnInfo> createdTargetColumns(const TableSpec &spec, const TableSchema &source) {
    QList<ColumnInfo> columns = source.columns;
    for (ColumnInfo &column : columns) {
        const bool temporal = column.logical == LogicalType::Date ||
                              column.logical == LogicalType::Timestamp ||
                              column.logical == LogicalType::TimestampTz;
        if (spec.zeroDates == ZeroDates::Null && temporal && column.primaryKeyOrdinal == 0)
            column.notNull = false;
        if (column.name != spec.watermarkColumn)
            continue;
        if (spec.watermarkType == WatermarkType::Integer) {
            column.logical = LogicalType::Integer;
        } else if (spec.watermarkType == WatermarkType::Timestamp) {
            const bool zoneless =
                column.logical == LogicalType::Timestamp &&
                (column.origin != QLatin1String("sqlite") ||
                 column.nativeType.contains(QLatin1String("without time zone"), Qt::CaseInsensitive));
            const bool keeps =
                zoneless || column.logical == LogicalType::TimestampTz ||
                (column.logical == LogicalType::Date && column.origin != QLatin1String("sqlite"));
            if (!keeps)
                column.logical = LogicalType::TimestampTz;
        }
    }
    return columns;
}

QString targetColumnsProblem(const TableSpec &spec, const TableSchema &source, const TableSchema &target) {
    // The watermark column as a created target would hold it: its values are known to be integers
    // or timestamps whatever the source declares.
    for (const ColumnInfo &column : createdTargetColumns(spec, source)) {
        const ColumnInfo *targetColumn = target.column(column.name);
        if (!targetColumn) {
            if (!spec.addNewColumns)
                return missingTargetColumnMessage(spec, column.name);
            continue;
        }
        const QString loss = columnLoss(column, *targetColumn);
        if (!loss.isEmpty())
            return QStringLiteral("target column '%1' of '%2' (%3) cannot hold every value of source column "
                                  "'%4' (%5): %6. Widen the target column, or drop the target table so "
                                  "that the next run creates it with the source's types")
                .arg(targetColumn->name, spec.targetDisplay(), targetColumn->nativeType, column.name,
                     column.nativeType, loss);
    }
    return QString();
}

qint64 addCheckedConnection(Workspace &workspace, const ConnectionSpec &spec, const QString &password) {
    if (spec.kind == ConnectionKind::Postgres)
        checkConninfo(spec.name, spec.conninfo);
    if (spec.kind == ConnectionKind::Mysql)
        parseMysqlConninfo(spec.name, spec.conninfo);
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
    if (spec.kind == ConnectionKind::Mysql)
        parseMysqlConninfo(spec.name, spec.conninfo);
    if (!password.isEmpty()) {
        ConnectionSpec stored = spec;
        stored.keychainKey = connectionKeychainKey(workspace.workspaceId(), spec.id);
        CredentialStore::savePassword(stored, password);
    }
    workspace.updateConnection(spec);
}

} // namespace tidemark
