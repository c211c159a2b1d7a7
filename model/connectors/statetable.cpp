// SPDX-License-Identifier: MIT
#include "model/connectors/statetable.h"

#include "model/common/sqlquote.h"
#include "model/common/timestamp.h"

#include <QDateTime>
#include <charconv>

namespace tidemark {
namespace {

enum class Kind { Text, Integer, Timestamp };

struct StateColumn {
    const char *name;
    Kind kind;
    bool notNull;
    bool zeroDefault = false; // added to older tables: their rows read 0
};

// In stateRowValues() order; the first two are the primary key.
constexpr StateColumn kColumns[] = {
    {"workspace_id", Kind::Text, true},      {"table_id", Kind::Integer, true},
    {"watermark_type", Kind::Text, false},   {"watermark", Kind::Text, false},
    {"tiebreak", Kind::Text, false},         {"tiebreak_type", Kind::Text, false},
    {"run_id", Kind::Integer, false},        {"updated_at", Kind::Timestamp, false},
    {"state_version", Kind::Integer, false}, {"generation", Kind::Integer, true, true},
    {"target_table", Kind::Text, false},     {"workspace_path", Kind::Text, false},
    {"iteration_id", Kind::Integer, false},  {"rows_written", Kind::Integer, false},
    {"rows_skipped", Kind::Integer, false},  {"window_done", Kind::Integer, false},
    {"fence", Kind::Integer, false},
};
constexpr int kColumnCount = int(std::size(kColumns));
constexpr int kPositionFirstColumn = 2; // watermark_type .. tiebreak_type
constexpr int kPositionColumnCount = 4;
constexpr int kGenerationColumn = 9;
constexpr int kTargetTableColumn = 10;
constexpr int kIterationFirstColumn = 12; // iteration_id .. window_done
constexpr int kIterationColumnCount = 4;
constexpr int kFenceColumn = 16;

QString nameOf(int column) {
    return QString::fromLatin1(kColumns[column].name);
}

} // namespace

StateTableSql::StateTableSql(StateDialect dialect)
    : m_dialect(dialect) {}

QString StateTableSql::tableName() const {
    // MySQL: in the connection's own database, whichever database the target tables are in.
    return m_dialect == StateDialect::Postgres
               ? quoteQualified(QStringLiteral("public"), QStringLiteral("tidemark_state"))
               : quoteIdentifier(QStringLiteral("tidemark_state"));
}

QStringList StateTableSql::columnNames() {
    QStringList names;
    for (int column = 0; column < kColumnCount; ++column)
        names << nameOf(column);
    return names;
}

QString StateTableSql::param(int index) const {
    return (m_dialect == StateDialect::Postgres ? QStringLiteral("$%1") : QStringLiteral("?%1")).arg(index);
}

QString StateTableSql::sameAs(const QString &column, int index) const {
    const QString operation = m_dialect == StateDialect::Postgres ? QStringLiteral("IS NOT DISTINCT FROM")
                              : m_dialect == StateDialect::Mysql  ? QStringLiteral("<=>")
                                                                  : QStringLiteral("IS");
    return QStringLiteral("%1 %2 %3").arg(quoteIdentifier(column), operation, param(index));
}

QString StateTableSql::columnType(int column) const {
    if (m_dialect == StateDialect::Mysql) {
        // Indexed text needs a length (the key, the owner index); the table's collation is binary.
        if (column == 0)
            return QStringLiteral("VARCHAR(191)");
        if (column == kTargetTableColumn)
            return QStringLiteral("VARCHAR(700)");
        switch (kColumns[column].kind) {
        case Kind::Integer:
            return QStringLiteral("BIGINT");
        case Kind::Timestamp:
            return QStringLiteral("VARCHAR(40)");
        case Kind::Text:
            break;
        }
        return QStringLiteral("LONGTEXT");
    }
    const bool pg = m_dialect == StateDialect::Postgres;
    switch (kColumns[column].kind) {
    case Kind::Integer:
        return pg ? QStringLiteral("bigint") : QStringLiteral("INTEGER");
    case Kind::Timestamp:
        return pg ? QStringLiteral("timestamptz") : QStringLiteral("TEXT");
    case Kind::Text:
        break;
    }
    return pg ? QStringLiteral("text") : QStringLiteral("TEXT");
}

QString StateTableSql::columnDefinition(int column) const {
    return QStringLiteral("%1 %2%3%4")
        .arg(quoteIdentifier(nameOf(column)), columnType(column),
             kColumns[column].notNull ? QStringLiteral(" NOT NULL") : QString(),
             kColumns[column].zeroDefault ? QStringLiteral(" DEFAULT 0") : QString());
}

QString StateTableSql::create() const {
    QStringList definitions;
    for (int column = 0; column < kColumnCount; ++column)
        definitions << columnDefinition(column);
    definitions
        << QStringLiteral("PRIMARY KEY (%1, %2)").arg(quoteIdentifier(nameOf(0)), quoteIdentifier(nameOf(1)));
    // MySQL: InnoDB, so the row commits in the rows' transaction; binary text, so the
    // compare-and-set tells 'abc' from 'ABC' and trailing spaces count.
    return QStringLiteral("CREATE TABLE IF NOT EXISTS %1 (%2)%3")
        .arg(tableName(), definitions.join(QStringLiteral(", ")),
             m_dialect == StateDialect::Mysql
                 ? QStringLiteral(" ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin")
                 : QString());
}

QStringList StateTableSql::addMissingColumns(const QStringList &present) const {
    QStringList statements;
    for (int column = 0; column < kColumnCount; ++column) {
        if (present.contains(nameOf(column)))
            continue;
        // Never a key column (those exist since version 1); the one other NOT NULL column,
        // generation, has a default that fills the rows already there.
        statements << QStringLiteral("ALTER TABLE %1 ADD COLUMN %2%3")
                          .arg(tableName(),
                               m_dialect != StateDialect::Sqlite ? QStringLiteral("IF NOT EXISTS ")
                                                                 : QString(),
                               columnDefinition(column));
    }
    return statements;
}

QString StateTableSql::createOwnerIndex() const {
    return QStringLiteral("CREATE UNIQUE INDEX IF NOT EXISTS %1 ON %2 (%3)")
        .arg(quoteIdentifier(QStringLiteral("tidemark_state_target")), tableName(),
             quoteIdentifier(nameOf(kTargetTableColumn)));
}

QString StateTableSql::selectOwner() const {
    return QStringLiteral("SELECT workspace_id, table_id, workspace_path FROM %1 WHERE %2 = %3")
        .arg(tableName(), quoteIdentifier(nameOf(kTargetTableColumn)), param(1));
}

bool StateTableSql::recordsOwners(const QStringList &present) {
    return present.contains(nameOf(kTargetTableColumn));
}

QString StateTableSql::select(const QStringList &present, bool forUpdate) const {
    const auto orElse = [&](const QString &column, const QString &absent) {
        return present.contains(column) ? quoteIdentifier(column) : absent;
    };
    QStringList iteration;
    for (int column = kIterationFirstColumn; column < kIterationFirstColumn + kIterationColumnCount; ++column)
        iteration << orElse(nameOf(column), QStringLiteral("NULL"));
    return QStringLiteral(
               "SELECT watermark_type, watermark, tiebreak, %1, run_id, %2, %3, %4 FROM %5 WHERE %6 "
               "= %7 AND %8 = %9%10")
        .arg(orElse(QStringLiteral("tiebreak_type"), QStringLiteral("NULL")),
             orElse(nameOf(kGenerationColumn), QStringLiteral("0")), iteration.join(QStringLiteral(", ")),
             orElse(nameOf(kFenceColumn), QStringLiteral("NULL")), tableName(), quoteIdentifier(nameOf(0)),
             param(1), quoteIdentifier(nameOf(1)), param(2),
             forUpdate && m_dialect != StateDialect::Sqlite ? QStringLiteral(" FOR UPDATE") : QString());
}

QString StateTableSql::insertIfAbsent() const {
    QStringList params;
    for (int column = 0; column < kColumnCount; ++column)
        params << param(column + 1);
    const QString insert =
        QStringLiteral("INSERT INTO %1 (%2) VALUES (%3)")
            .arg(tableName(), quoteIdentifierList(columnNames()), params.join(QStringLiteral(", ")));
    // MySQL: a row already there fails the INSERT with a duplicate key, which the connector reads as
    // "another writer got there first" (an upsert's no-op would hide a clash on the owner index too).
    if (m_dialect == StateDialect::Mysql)
        return insert;
    return insert + QStringLiteral(" ON CONFLICT (%1, %2) DO NOTHING")
                        .arg(quoteIdentifier(nameOf(0)), quoteIdentifier(nameOf(1)));
}

QString StateTableSql::updateIfAt() const {
    QStringList assignments;
    for (int column = 2; column < kColumnCount; ++column)
        assignments << QStringLiteral("%1 = %2").arg(quoteIdentifier(nameOf(column)), param(column + 1));
    QStringList conditions{QStringLiteral("%1 = %2").arg(quoteIdentifier(nameOf(0)), param(1)),
                           QStringLiteral("%1 = %2").arg(quoteIdentifier(nameOf(1)), param(2))};
    for (int i = 0; i < kPositionColumnCount; ++i)
        conditions << sameAs(nameOf(kPositionFirstColumn + i), kColumnCount + 1 + i);
    // A backfill in between moved the generation: the position alone may match again.
    conditions << QStringLiteral("%1 = %2").arg(quoteIdentifier(nameOf(kGenerationColumn)),
                                                param(kGenerationColumn + 1));
    // A claim taken over since (a later fencing token raised the fence) writes nothing.
    conditions << QStringLiteral("COALESCE(%1, 0) <= %2")
                      .arg(quoteIdentifier(nameOf(kFenceColumn)), param(kFenceColumn + 1));
    return QStringLiteral("UPDATE %1 SET %2 WHERE %3")
        .arg(tableName(), assignments.join(QStringLiteral(", ")), conditions.join(QStringLiteral(" AND ")));
}

QString StateTableSql::upsert() const {
    QStringList assignments;
    const QString incoming =
        m_dialect == StateDialect::Mysql ? QStringLiteral("VALUES(%1)") : QStringLiteral("excluded.%1");
    // The fence stays: only a claim's compare-and-set or raiseFence() moves it, and only up.
    for (int column = 2; column < kColumnCount; ++column) {
        if (column != kFenceColumn)
            assignments << QStringLiteral("%1 = %2").arg(quoteIdentifier(nameOf(column)),
                                                         incoming.arg(quoteIdentifier(nameOf(column))));
    }
    QString sql = insertIfAbsent();
    if (m_dialect == StateDialect::Mysql)
        return sql + QStringLiteral(" ON DUPLICATE KEY UPDATE ") + assignments.join(QStringLiteral(", "));
    sql.replace(QStringLiteral("DO NOTHING"),
                QStringLiteral("DO UPDATE SET ") + assignments.join(QStringLiteral(", ")));
    return sql;
}

QString StateTableSql::raiseFence() const {
    return QStringLiteral("UPDATE %1 SET %2 = %3 WHERE %4 = %5 AND %6 = %7 AND COALESCE(%2, 0) < %3")
        .arg(tableName(), quoteIdentifier(nameOf(kFenceColumn)), param(3), quoteIdentifier(nameOf(0)),
             param(1), quoteIdentifier(nameOf(1)), param(2));
}

QString StateTableSql::remove() const {
    return QStringLiteral("DELETE FROM %1 WHERE %2 = %3 AND %4 = %5")
        .arg(tableName(), quoteIdentifier(nameOf(0)), param(1), quoteIdentifier(nameOf(1)), param(2));
}

QVariant tiebreakStoredType(const QVariant &tiebreak) {
    if (!tiebreak.isValid() || tiebreak.isNull())
        return QVariant();
    switch (tiebreak.typeId()) {
    case QMetaType::LongLong:
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::ULongLong:
        return QStringLiteral("integer");
    case QMetaType::Double:
    case QMetaType::Float:
        return QStringLiteral("real");
    case QMetaType::QByteArray:
        return QStringLiteral("blob");
    default:
        return QStringLiteral("text");
    }
}

QVariant tiebreakStoredText(const QVariant &tiebreak) {
    if (!tiebreak.isValid() || tiebreak.isNull())
        return QVariant();
    if (tiebreak.typeId() == QMetaType::QByteArray)
        return QString::fromLatin1(tiebreak.toByteArray().toHex());
    if (tiebreak.typeId() == QMetaType::Double || tiebreak.typeId() == QMetaType::Float) {
        // The shortest text that reads back as the same double: stable, so equal positions
        // always store equal text and the compare-and-set compares text.
        char buffer[32];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, tiebreak.toDouble());
        return QString::fromLatin1(buffer, int(result.ptr - buffer));
    }
    return tiebreak.toString();
}

QVariant tiebreakFromStored(const QString &type, const QString &text) {
    if (type == QLatin1String("integer"))
        return QVariant(text.toLongLong());
    if (type == QLatin1String("real"))
        return QVariant(text.toDouble());
    if (type == QLatin1String("blob"))
        return QVariant(QByteArray::fromHex(text.toLatin1()));
    return QVariant(text);
}

QVariantList positionValues(const Position &position) {
    const Watermark &watermark = position.watermark();
    return {watermarkTypeName(watermark.type()),
            watermark.isNull() ? QVariant() : QVariant(watermark.nativeText()),
            tiebreakStoredText(position.tiebreak()), tiebreakStoredType(position.tiebreak())};
}

QVariantList stateRowValues(const TargetState &state) {
    QVariantList values{state.workspaceId, state.tableId};
    values << positionValues(state.position);
    values << state.runId << canonicalTimestamp(QDateTime::currentMSecsSinceEpoch() * 1000)
           << qint64(kStateTableVersion) << state.generation;
    const auto orNull = [](const QString &text) {
        return text.isEmpty() ? QVariant() : QVariant(text);
    };
    values << orNull(state.targetTable) << orNull(state.workspacePath);
    if (state.iterationId > 0)
        values << state.iterationId << state.rowsWritten << state.rowsSkipped
               << qint64(state.windowDone ? 1 : 0);
    else
        values << QVariant() << QVariant() << QVariant() << QVariant();
    values << state.fence;
    return values;
}

QString stateTargetKey(const TableRef &table) {
    return table.schema.isEmpty() ? quoteIdentifier(table.name) : quoteQualified(table.schema, table.name);
}

} // namespace tidemark
