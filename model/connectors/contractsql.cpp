// SPDX-License-Identifier: MIT
#include "model/connectors/contractsql.h"

#include "model/common/sqlquote.h"

#include <limits>

namespace tidemark {

ContractSql::ContractSql(SqlDialect dialect, QString watermarkCast, bool binaryTiebreak)
    : m_dialect(dialect)
    , m_watermarkCast(std::move(watermarkCast))
    , m_binaryTiebreak(binaryTiebreak) {}

QString ContractSql::tiebreakTerm(const QString &quoted) const {
    return m_binaryTiebreak ? QStringLiteral("BINARY ") + quoted : quoted;
}

QString ContractSql::placeholder(int index) const {
    return (m_dialect == SqlDialect::Postgres ? QStringLiteral("$%1") : QStringLiteral("?%1")).arg(index);
}

QString ContractSql::bindWatermark(const Watermark &watermark, SqlBindings &bindings) const {
    bindings.append(SqlBinding{watermark, QVariant(), false, m_watermarkCast});
    const QString index = placeholder(int(bindings.size()));
    if (m_watermarkCast.isEmpty())
        return index;
    return m_dialect == SqlDialect::Mysql ? QStringLiteral("CAST(%1 AS %2)").arg(index, m_watermarkCast)
                                          : QStringLiteral("%1::%2").arg(index, m_watermarkCast);
}

QString ContractSql::orderableCondition(const QString &column, WatermarkType type, bool orderable,
                                        SqlBindings &bindings) const {
    const QString wm = quoteIdentifier(column);
    if (m_dialect == SqlDialect::Mysql) {
        // Zero dates ('0000-00-00', '2024-00-15') and unsigned integers past int64 cannot be a
        // position; like NULLs they are counted and never selected.
        if (type == WatermarkType::Integer) {
            const QString highest =
                bindWatermark(Watermark::integer(std::numeric_limits<qint64>::max()), bindings);
            return QStringLiteral("%1 %2 %3")
                .arg(wm, orderable ? QStringLiteral("<=") : QStringLiteral(">"), highest);
        }
        static const Watermark lowest = *Watermark::timestamp(QStringLiteral("0001-01-01T00:00:00.000000Z"));
        const QString from = bindWatermark(lowest, bindings);
        const QString proper =
            QStringLiteral("(%1 >= %2 AND MONTH(%1) > 0 AND DAYOFMONTH(%1) > 0)").arg(wm, from);
        return orderable ? proper : QStringLiteral("NOT ") + proper;
    }
    if (m_dialect == SqlDialect::Postgres) {
        // The range Tidemark spells (model/common/timestamp.h); what lies outside could never be
        // kept as a position (to_char would even drop a BC date's era and misread it).
        if (m_watermarkCast != QLatin1String("timestamptz") && m_watermarkCast != QLatin1String("timestamp"))
            return QString();
        static const Watermark lowest = *Watermark::timestamp(QStringLiteral("0001-01-01T00:00:00.000000Z"));
        static const Watermark highest = *Watermark::timestamp(QStringLiteral("9999-12-31T23:59:59.999999Z"));
        const QString from = bindWatermark(lowest, bindings);
        const QString to = bindWatermark(highest, bindings);
        return QStringLiteral("%1 %2BETWEEN %3 AND %4")
            .arg(wm, orderable ? QString() : QStringLiteral("NOT "), from, to);
    }
    switch (type) {
    case WatermarkType::Integer:
        return QStringLiteral("typeof(%1) %2 'integer'")
            .arg(wm, orderable ? QStringLiteral("=") : QStringLiteral("<>"));
    case WatermarkType::Timestamp:
        return QStringLiteral("%1%2(%3)")
            .arg(orderable ? QString() : QStringLiteral("NOT "), QLatin1String(kSqliteIsTimestamp), wm);
    case WatermarkType::None:
        break;
    }
    return QString();
}

QString ContractSql::conditions(const WindowQuery &window, SqlBindings &bindings) const {
    if (window.watermarkColumn.isEmpty())
        return QString(); // overwrite without a watermark: the whole table
    const QString wm = quoteIdentifier(window.watermarkColumn);
    QStringList conditions{wm + QStringLiteral(" IS NOT NULL")};
    if (const QString orderable =
            orderableCondition(window.watermarkColumn, window.watermarkType, true, bindings);
        !orderable.isEmpty())
        conditions << orderable;
    if (!window.lower.isNull()) {
        const QString lower = bindWatermark(window.lower.watermark(), bindings);
        if (window.lowerInclusive) {
            conditions << QStringLiteral("%1 >= %2").arg(wm, lower);
        } else if (!window.tiebreakColumn.isEmpty() && window.lower.hasTiebreak()) {
            bindings.append(SqlBinding{Watermark(), window.lower.tiebreak(), true, QString()});
            const QString tb = tiebreakTerm(quoteIdentifier(window.tiebreakColumn));
            const QString tiebreak = placeholder(int(bindings.size()));
            // The same order in the form each planner serves from an index on (watermark, tiebreak).
            // PostgreSQL's tiebreak parameter takes the column's type from the comparison.
            conditions
                << (m_dialect == SqlDialect::Postgres
                        ? QStringLiteral("(%1, %2) > (%3, %4)").arg(wm, tb, lower, tiebreak)
                        : QStringLiteral("(%1 > %3 OR (%1 = %3 AND %2 > %4))").arg(wm, tb, lower, tiebreak));
        } else {
            conditions << QStringLiteral("%1 > %2").arg(wm, lower);
        }
    }
    if (!window.upper.isNull())
        conditions << QStringLiteral("%1 <= %2").arg(wm, bindWatermark(window.upper, bindings));
    return conditions.join(QLatin1String(" AND "));
}

QString ContractSql::keysetOrder(const WindowQuery &window, const QString &qualifier,
                                 const QString &direction) const {
    QStringList order;
    if (!window.watermarkColumn.isEmpty())
        order << qualifier + quoteIdentifier(window.watermarkColumn) + direction;
    if (!window.tiebreakColumn.isEmpty())
        order << tiebreakTerm(qualifier + quoteIdentifier(window.tiebreakColumn)) + direction;
    return order.join(QLatin1String(", "));
}

namespace {

QString whereClause(const QString &conditions) {
    return conditions.isEmpty() ? QString() : QStringLiteral(" WHERE ") + conditions;
}

} // namespace

BoundSql ContractSql::windowPredicate(const WindowQuery &window) const {
    BoundSql result;
    result.sql = conditions(window, result.bindings);
    return result;
}

BoundSql ContractSql::selectWindow(const WindowQuery &window, const QStringList &tieOrder) const {
    BoundSql result;
    result.sql =
        QStringLiteral("SELECT %1 FROM %2%3")
            .arg(quoteIdentifierList(window.columns), quoteQualified(window.table.schema, window.table.name),
                 whereClause(conditions(window, result.bindings)));
    QStringList order;
    if (const QString keyset = keysetOrder(window, QString(), QString()); !keyset.isEmpty())
        order << keyset;
    order << tieOrder;
    if (!order.isEmpty())
        result.sql += QStringLiteral(" ORDER BY ") + order.join(QLatin1String(", "));
    return result;
}

BoundSql ContractSql::countWindow(const WindowQuery &window) const {
    return overWindow(window, QStringLiteral("count(*)"), QString());
}

BoundSql ContractSql::anyInWindow(const WindowQuery &window) const {
    return overWindow(window, QStringLiteral("1"), QStringLiteral(" LIMIT 1"));
}

BoundSql ContractSql::overWindow(const WindowQuery &window, const QString &selected,
                                 const QString &tail) const {
    BoundSql result;
    result.sql = QStringLiteral("SELECT %1 FROM %2%3%4")
                     .arg(selected, quoteQualified(window.table.schema, window.table.name),
                          whereClause(conditions(window, result.bindings)), tail);
    return result;
}

BoundSql ContractSql::positionReached(const WindowQuery &window, const QStringList &selected) const {
    const QString table = quoteQualified(window.table.schema, window.table.name);
    BoundSql result;
    // Ordered by the table's own columns: a bare name could mean a selected output column.
    result.sql =
        QStringLiteral("SELECT %1 FROM %2%3 ORDER BY %4 LIMIT 1")
            .arg(selected.join(QLatin1String(", ")), table, whereClause(conditions(window, result.bindings)),
                 keysetOrder(window, table + QLatin1Char('.'), QStringLiteral(" DESC")));
    return result;
}

BoundSql ContractSql::probeWatermark(const TableRef &table, const QString &column, WatermarkType type,
                                     const QString &spelled, bool countRows) const {
    const QString from = quoteQualified(table.schema, table.name);
    const QString wm = quoteIdentifier(column);
    BoundSql result;
    QString highest = wm + QStringLiteral(" IS NOT NULL");
    if (const QString orderable = orderableCondition(column, type, true, result.bindings);
        !orderable.isEmpty())
        highest += QStringLiteral(" AND ") + orderable;
    QString unorderable = orderableCondition(column, type, false, result.bindings);
    unorderable = unorderable.isEmpty() ? QStringLiteral("false")
                                        : QStringLiteral("%1 IS NOT NULL AND %2").arg(wm, unorderable);
    // Each part is answered from an index on the column when there is one (the highest value by a
    // backward index scan, the NULLs and PostgreSQL's out-of-range values by index ranges).
    const QString asText = m_dialect == SqlDialect::Postgres ? QStringLiteral("::text") : QString();
    // Ordered by the table's own column: `spelled` keeps the column's name and PostgreSQL would
    // order by that output column, as text.
    result.sql =
        QStringLiteral("SELECT (SELECT %1 FROM %2 WHERE %3 ORDER BY %2.%4 DESC LIMIT 1), "
                       "(SELECT count(*) FROM %2 WHERE %4 IS NULL), count(*), min(%4)%5, max(%4)%5%7 "
                       "FROM %2 WHERE %6")
            .arg(spelled.arg(wm), from, highest, wm, asText, unorderable,
                 countRows ? QStringLiteral(", (SELECT count(*) FROM %1)").arg(from) : QString());
    return result;
}

BoundSql ContractSql::deleteNewer(const TableRef &table, const QString &watermarkColumn,
                                  const Watermark &position) const {
    const QString wm = quoteIdentifier(watermarkColumn);
    BoundSql result;
    const QString condition =
        position.isNull() ? wm + QStringLiteral(" IS NOT NULL")
                          : QStringLiteral("%1 > %2").arg(wm, bindWatermark(position, result.bindings));
    result.sql =
        QStringLiteral("DELETE FROM %1 WHERE %2").arg(quoteQualified(table.schema, table.name), condition);
    return result;
}

QString ContractSql::removeKey(const TableRef &table, const QStringList &keyColumns,
                               const QString &markColumn) const {
    QStringList conditions;
    for (int i = 0; i < int(keyColumns.size()); ++i)
        conditions << QStringLiteral("%1 = %2").arg(quoteIdentifier(keyColumns[i]), placeholder(i + 1));
    const QString qualified = quoteQualified(table.schema, table.name);
    if (markColumn.isEmpty())
        return QStringLiteral("DELETE FROM %1 WHERE %2")
            .arg(qualified, conditions.join(QStringLiteral(" AND ")));
    const QString mark = quoteIdentifier(markColumn);
    conditions << mark + QStringLiteral(" IS NULL");
    return QStringLiteral("UPDATE %1 SET %2 = %3 WHERE %4")
        .arg(qualified, mark, placeholder(int(keyColumns.size()) + 1),
             conditions.join(QStringLiteral(" AND ")));
}

QStringList ContractSql::versionColumns(const WriteSpec &spec, const QStringList &columns) {
    QStringList versions;
    for (const QString &column : {spec.watermarkColumn, spec.tiebreakColumn}) {
        if (!column.isEmpty() && columns.contains(column))
            versions << column;
    }
    return versions;
}

QString ContractSql::mergeConflict(const WriteSpec &spec, const QStringList &columns,
                                   const QString &stored) const {
    if (m_dialect == SqlDialect::Mysql)
        return mysqlDuplicateKeyUpdate(spec, columns, stored);
    // SQLite names are case-insensitive, PostgreSQL's (as the catalog spells them) are not.
    const Qt::CaseSensitivity names =
        m_dialect == SqlDialect::Sqlite ? Qt::CaseInsensitive : Qt::CaseSensitive;
    QStringList assignments;
    for (const QString &column : columns) {
        if (!spec.keyColumns.contains(column, names))
            assignments << QStringLiteral("%1 = excluded.%1").arg(quoteIdentifier(column));
    }
    QString sql = QStringLiteral(" ON CONFLICT (%1) DO ").arg(quoteIdentifierList(spec.keyColumns));
    if (assignments.isEmpty())
        return sql + QStringLiteral("NOTHING");
    sql += QStringLiteral("UPDATE SET ") + assignments.join(QLatin1String(", "));
    const QStringList versions = versionColumns(spec, columns);
    if (versions.isEmpty())
        return sql;
    // An older version never replaces a newer one; an equal position (a rerun, or a later row of
    // the same window) does, and so does any version over a stored row without one.
    const auto incoming = [&](int i) {
        return QStringLiteral("excluded.") + quoteIdentifier(versions[i]);
    };
    const auto current = [&](int i) {
        return stored + QLatin1Char('.') + quoteIdentifier(versions[i]);
    };
    QString newerOrEqual = QStringLiteral("%1 IS NULL OR %2 >= %1").arg(current(0), incoming(0));
    if (versions.size() > 1)
        newerOrEqual = QStringLiteral("%1 IS NULL OR %2 > %1 OR (%2 = %1 AND (%3 IS NULL OR %4 >= %3))")
                           .arg(current(0), incoming(0), current(1), incoming(1));
    return sql + QStringLiteral(" WHERE ") + newerOrEqual;
}

// MySQL has no WHERE on its upsert: each assignment keeps the stored value unless the incoming
// version is not older. Assignments run left to right and see the columns already assigned, so the
// version columns go last (tiebreak, then watermark): the rule reads the stored version while the
// other columns change, and reading an already replaced tiebreak gives the same answer.
QString ContractSql::mysqlDuplicateKeyUpdate(const WriteSpec &spec, const QStringList &columns,
                                             const QString &stored) const {
    // Qualified, so an INSERT … SELECT from a table with the same column names is not ambiguous.
    const auto storedColumn = [&](const QString &column) {
        return (stored.isEmpty() ? QString() : stored + QLatin1Char('.')) + quoteIdentifier(column);
    };
    const QStringList versions = versionColumns(spec, columns);
    QStringList ordered;
    for (const QString &column : columns) {
        if (!spec.keyColumns.contains(column, Qt::CaseInsensitive) && !versions.contains(column))
            ordered << column;
    }
    for (auto it = versions.crbegin(); it != versions.crend(); ++it)
        ordered << *it;
    if (ordered.isEmpty()) // every column is a key: nothing to replace
        return QStringLiteral(" ON DUPLICATE KEY UPDATE %1 = %2")
            .arg(quoteIdentifier(spec.keyColumns.first()), storedColumn(spec.keyColumns.first()));
    QString newerOrEqual;
    if (!versions.isEmpty()) {
        const auto incoming = [&](int i) {
            const QString value = QStringLiteral("VALUES(%1)").arg(quoteIdentifier(versions[i]));
            return i == 1 ? tiebreakTerm(value) : value;
        };
        const auto current = [&](int i) {
            return i == 1 ? tiebreakTerm(storedColumn(versions[i])) : storedColumn(versions[i]);
        };
        newerOrEqual = QStringLiteral("%1 IS NULL OR %2 >= %1").arg(current(0), incoming(0));
        if (versions.size() > 1)
            newerOrEqual = QStringLiteral("%1 IS NULL OR %2 > %1 OR (%2 = %1 AND (%3 IS NULL OR %4 >= %3))")
                               .arg(current(0), incoming(0), current(1), incoming(1));
    }
    QStringList assignments;
    for (const QString &column : ordered) {
        const QString name = quoteIdentifier(column);
        assignments << (newerOrEqual.isEmpty() ? QStringLiteral("%1 = VALUES(%1)").arg(name)
                                               : QStringLiteral("%1 = IF(%2, VALUES(%1), %3)")
                                                     .arg(name, newerOrEqual, storedColumn(column)));
    }
    return QStringLiteral(" ON DUPLICATE KEY UPDATE ") + assignments.join(QLatin1String(", "));
}

PositionalSql mysqlPositional(const QString &numbered) {
    PositionalSql result;
    result.sql.reserve(numbered.size());
    QChar quote;
    for (qsizetype i = 0; i < numbered.size(); ++i) {
        const QChar c = numbered[i];
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar(); // a doubled quote reopens at once on the next character
        } else if (c == QLatin1Char('"') || c == QLatin1Char('`') || c == QLatin1Char('\'')) {
            quote = c;
        } else if (c == QLatin1Char('?')) {
            qsizetype end = i + 1;
            while (end < numbered.size() && numbered[end].isDigit())
                ++end;
            if (end > i + 1) {
                result.order << numbered.mid(i + 1, end - i - 1).toInt() - 1;
                result.sql += QLatin1Char('?');
                i = end - 1;
                continue;
            }
            result.order << result.order.size();
        }
        result.sql += c;
    }
    return result;
}

} // namespace tidemark
