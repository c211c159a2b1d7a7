// SPDX-License-Identifier: MIT
#include "model/storage/storecopy.h"

#include "model/common/error.h"
#include "model/common/sqlquote.h"

#include <QStringList>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

namespace tidemark {
namespace {

// Parents before the rows that name them.
constexpr std::array kCopiedTables = {
    "connections",       "tables",         "runs",      "iterations",       "iteration_logs", "rejects",
    "watermark_changes", "alert_settings", "schedules", "schedule_firings", "table_alarms"};

bool namesTheWorkspace(const QString &metaKey) {
    return metaKey == QLatin1String("workspace_id") || metaKey == QLatin1String("schema_version") ||
           metaKey == QLatin1String("copied_to");
}

// A value as the destination column takes it: a file stores what it is given (its affinity
// decides), a server refuses an integer bound into a text column, and the reverse.
QVariant convertedFor(const QVariant &value, StoreColumn::Kind kind) {
    if (value.isNull())
        return value;
    bool ok = true;
    switch (kind) {
    case StoreColumn::Kind::AsIs:
        return value;
    case StoreColumn::Kind::Integer: {
        const qint64 number = value.toLongLong(&ok);
        return ok ? QVariant(number) : value; // the server names what it refuses
    }
    case StoreColumn::Kind::Real: {
        const double number = value.toDouble(&ok);
        return ok ? QVariant(number) : value;
    }
    case StoreColumn::Kind::Text:
        return value.toString();
    case StoreColumn::Kind::Blob:
        return value.toByteArray();
    }
    return value;
}

// Rows go in batches of one INSERT each, so a server destination answers once per batch rather
// than once per row; a batch binds at most this many values (SQLite allows 32,766, PostgreSQL
// 65,535).
constexpr int kMaxBoundValues = 30000;
constexpr int kMaxBatchRows = 500;
// A table with ids is read a page at a time in id order, so a server source never holds a
// history of millions of rows in memory at once (its results arrive whole).
constexpr qint64 kPageRows = 10000;

// INSERT INTO table (columns) VALUES (?1, ?2), (?3, ?4), ...: `rows` rows.
QString batchInsertSql(const QString &table, const QString &columnList, int columns, int rows) {
    QStringList tuples;
    int parameter = 0;
    for (int row = 0; row < rows; ++row) {
        QStringList values;
        for (int column = 0; column < columns; ++column)
            values << QStringLiteral("?%1").arg(++parameter);
        tuples << QLatin1Char('(') + values.join(QStringLiteral(", ")) + QLatin1Char(')');
    }
    return QStringLiteral("INSERT INTO %1 (%2) VALUES %3")
        .arg(quoteIdentifier(table), columnList, tuples.join(QStringLiteral(", ")));
}

qint64 copyTable(StoreDb &from, StoreDb &to, const QString &table) {
    QStringList fromNames;
    for (const StoreColumn &column : from.columns(table))
        fromNames << column.name;
    QList<StoreColumn> columns = to.columns(table);
    columns.removeIf([&](const StoreColumn &column) { return !fromNames.contains(column.name); });
    if (columns.isEmpty())
        throw Error(QStringLiteral("workspace copy: table %1 is missing from %2 or from %3")
                        .arg(table, from.location(), to.location()));
    QStringList names;
    for (const StoreColumn &column : std::as_const(columns))
        names << column.name;
    const QString list = quoteIdentifierList(names);
    const int width = int(columns.size());
    const int batchRows = std::clamp(kMaxBoundValues / width, 1, kMaxBatchRows);
    Statement fullBatch(to, batchInsertSql(table, list, width, batchRows));
    QVariantList pending;
    const auto flush = [&] {
        const int rows = int(pending.size() / width);
        if (rows == 0)
            return;
        std::optional<Statement> tail;
        if (rows < batchRows)
            tail.emplace(to, batchInsertSql(table, list, width, rows));
        Statement &insert = tail ? *tail : fullBatch;
        for (int i = 0; i < pending.size(); ++i)
            insert.bind(i + 1, pending.at(i));
        insert.run();
        insert.reset();
        pending.clear();
    };

    const int idColumn = int(names.indexOf(QStringLiteral("id")));
    Statement select(from, idColumn >= 0
                               ? QStringLiteral("SELECT %1 FROM %2 WHERE id > ?1 ORDER BY id LIMIT ?2")
                                     .arg(list, quoteIdentifier(table))
                               : QStringLiteral("SELECT %1 FROM %2").arg(list, quoteIdentifier(table)));
    qint64 rows = 0;
    qint64 lastId = std::numeric_limits<qint64>::min();
    for (bool more = true; more;) {
        if (idColumn >= 0)
            select.bind(1, lastId).bind(2, kPageRows);
        qint64 pageRows = 0;
        while (select.step()) {
            for (int i = 0; i < width; ++i)
                pending << convertedFor(select.columnVariant(i), columns.at(i).kind);
            if (idColumn >= 0)
                lastId = select.columnInt64(idColumn);
            ++pageRows;
            if (pending.size() == qsizetype(batchRows) * width)
                flush();
        }
        select.reset();
        rows += pageRows;
        more = idColumn >= 0 && pageRows == kPageRows;
    }
    flush();
    if (idColumn >= 0)
        to.continueIdsAfterRows(table);
    return rows;
}

qint64 copyMeta(StoreDb &from, StoreDb &to) {
    Statement select(from, QStringLiteral(R"(SELECT "key", value FROM meta)"));
    Statement upsert(to, QStringLiteral(R"(INSERT INTO meta ("key", value) VALUES (?1, ?2) )"
                                        R"(ON CONFLICT ("key") DO UPDATE SET value = excluded.value)"));
    qint64 rows = 0;
    while (select.step()) {
        const QString key = select.columnText(0);
        if (namesTheWorkspace(key))
            continue;
        upsert.bind(1, key).bind(2, select.columnText(1)).run();
        upsert.reset();
        ++rows;
    }
    return rows;
}

} // namespace

QList<CopiedRows> copyStoreRows(StoreDb &from, StoreDb &to,
                                const std::function<void(const CopiedRows &)> &progress) {
    Transaction snapshot(from, Transaction::Kind::Read);
    Transaction writing(to);
    // What creating `to` wrote (a default alert settings row, say) gives way to `from`'s rows.
    for (auto table = kCopiedTables.rbegin(); table != kCopiedTables.rend(); ++table)
        to.exec(QStringLiteral("DELETE FROM %1").arg(quoteIdentifier(QString::fromLatin1(*table))));
    QList<CopiedRows> copied;
    for (const char *name : kCopiedTables) {
        const QString table = QString::fromLatin1(name);
        try {
            copied << CopiedRows{table, copyTable(from, to, table)};
        } catch (const Error &error) {
            throw Error(QStringLiteral("workspace copy: table %1: %2").arg(table, error.message()));
        }
        progress(copied.last());
    }
    copied << CopiedRows{QStringLiteral("meta"), copyMeta(from, to)};
    progress(copied.last());
    writing.commit();
    snapshot.commit();
    for (const char *table : kCopiedTables)
        to.updateStatistics(QString::fromLatin1(table));
    return copied;
}

} // namespace tidemark
