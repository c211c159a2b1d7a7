// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>

namespace tidemark {

// MySQL renders the same SQL as the others: its sessions run with sql_mode ANSI_QUOTES, so
// quoteIdentifier's double quotes are identifiers there too, and its placeholders are SQLite's
// numbered ?N, which the MySQL connector turns into positional ones (mysqlPositional()).
enum class SqlDialect { Sqlite, Postgres, Mysql };

// tidemark_is_timestamp(value): 1 when value is text that parses as an ISO-8601 timestamp
// (model/common/timestamp.h: years 0001 to 9999), else 0. Every SQLite connection registers it.
inline constexpr const char *kSqliteIsTimestamp = "tidemark_is_timestamp";

// A value a contract statement binds, in placeholder order (1, 2, …): a watermark, which each
// connector binds the way its column compares (SQLite: the column's own spelling or an int64;
// PostgreSQL: canonical text cast to the column's type), or a tiebreak as read from the source.
struct SqlBinding {
    Watermark watermark;
    QVariant tiebreak;
    bool isTiebreak = false;
    QString cast; // the type a watermark's placeholder is cast to (PostgreSQL); empty = none
};
using SqlBindings = QList<SqlBinding>;

// A rendered statement (or condition) and the values its placeholders bind.
struct BoundSql {
    QString sql;
    SqlBindings bindings;
};

// The copy contract's SQL, written once and rendered per dialect (docs/design.md steps 3 to 5; the
// state table has its own one definition in statetable.h):
// - the window: rows strictly after the lower position, (watermark, tiebreak) > (lower, tiebreak)
//   with a tiebreak, watermark > lower without; from the lower bound inclusive with a lookback;
//   up to the upper bound inclusive; never a NULL watermark nor one it cannot order (see
//   probeWatermark); in keyset order (watermark, tiebreak);
// - the merge rule: an incoming row replaces the stored one of its key only if its
//   (watermark, tiebreak) is >= the stored one's (no tiebreak sorts first, like Position);
// - the push-down's position reached: the window's highest (watermark, tiebreak), read in the
//   transaction that copied it.
// Every identifier goes through quoteIdentifier; every value is a bound parameter, never text.
class ContractSql {
public:
    // `watermarkCast` is the type a bound watermark is cast to so the comparison runs on the
    // column's own type (PostgreSQL: "timestamptz", "timestamp", "int8"; MySQL: "DATETIME(6)",
    // "SIGNED"); empty binds it as is. `binaryTiebreak`: the tiebreak column is text that must
    // compare and order byte by byte, not in its collation (MySQL's _ci makes 'abc' = 'ABC').
    explicit ContractSql(SqlDialect dialect, QString watermarkCast = QString(), bool binaryTiebreak = false);

    // The window's conditions joined with AND; empty without a watermark column.
    BoundSql windowPredicate(const WindowQuery &window) const;
    // SELECT the window's columns in keyset order; `tieOrder` (already SQL, e.g. SQLite's rowid)
    // orders the rows the keyset leaves tied.
    BoundSql selectWindow(const WindowQuery &window, const QStringList &tieOrder = {}) const;
    BoundSql countWindow(const WindowQuery &window) const;
    // One row of the window when it holds any: SELECT 1 … LIMIT 1.
    BoundSql anyInWindow(const WindowQuery &window) const;
    // One row, the window's highest position: `selected` (SQL expressions for the watermark and,
    // with a tiebreak column, the tiebreak) of its last row in keyset order.
    BoundSql positionReached(const WindowQuery &window, const QStringList &selected) const;
    // The probe, one row: the highest watermark a window can order (`spelled`: the SQL that spells
    // it, %1 standing for the column; none when there is none), the number of NULL watermarks, the
    // number of watermarks no window can order and the lowest and highest of those as text.
    // Unorderable: PostgreSQL timestamps and dates outside 0001-01-01 .. 9999-12-31 (±infinity, BC
    // dates, years past 9999); in SQLite, any value but an integer in an integer column and any
    // value but ISO-8601 text (kSqliteIsTimestamp) in a timestamp column. PostgreSQL integers
    // always order.
    // `countRows` adds every row of the table as a sixth column, counted in the same snapshot.
    BoundSql probeWatermark(const TableRef &table, const QString &column, WatermarkType type,
                            const QString &spelled = QStringLiteral("%1"), bool countRows = false) const;
    // Backfill --delete-newer: deletes the target rows after `position` (every row with a
    // watermark when there is none).
    BoundSql deleteNewer(const TableRef &table, const QString &watermarkColumn,
                         const Watermark &position) const;
    // Reconcile: removes the target row whose `keyColumns` equal placeholders 1..k, or with
    // `markColumn` stamps it with placeholder k+1 where it is not stamped yet.
    QString removeKey(const TableRef &table, const QStringList &keyColumns, const QString &markColumn) const;

    // The merge rule as an upsert clause: " ON CONFLICT (keys) DO UPDATE SET … WHERE <incoming is
    // not older>" (or DO NOTHING when every column is a key). `stored` names the target row in
    // the statement (the table, or its alias); `columns` are the columns written.
    QString mergeConflict(const WriteSpec &spec, const QStringList &columns, const QString &stored) const;
    // The version columns (watermark, tiebreak) among `columns`, the order the merge compares.
    static QStringList versionColumns(const WriteSpec &spec, const QStringList &columns);

private:
    QString placeholder(int index) const;
    // Appends a watermark to `bindings`; returns its placeholder, cast to the column's type.
    QString bindWatermark(const Watermark &watermark, SqlBindings &bindings) const;
    // The condition that a watermark of `column` is one a window can order (`orderable`), or one it
    // cannot (a NULL is neither); empty when every value orders.
    QString orderableCondition(const QString &column, WatermarkType type, bool orderable,
                               SqlBindings &bindings) const;
    // The window's conditions (empty without a watermark column); appends the values they bind.
    QString conditions(const WindowQuery &window, SqlBindings &bindings) const;
    // SELECT `selected` FROM the window's table WHERE its conditions, then `tail`.
    BoundSql overWindow(const WindowQuery &window, const QString &selected, const QString &tail) const;
    QString keysetOrder(const WindowQuery &window, const QString &qualifier, const QString &direction) const;
    // The tiebreak column (already quoted and qualified) as it compares and orders.
    QString tiebreakTerm(const QString &quoted) const;
    QString mysqlDuplicateKeyUpdate(const WriteSpec &spec, const QStringList &columns,
                                    const QString &stored) const;

    SqlDialect m_dialect;
    QString m_watermarkCast;
    bool m_binaryTiebreak = false;
};

// A statement written with numbered placeholders (?1, ?2, … in any order, each any number of times)
// as MySQL prepares it: positional ? in the text, and the 0-based index of the value each one binds.
// Quoted identifiers and string literals are left alone.
struct PositionalSql {
    QString sql;
    QList<int> order;
    // `values` (by placeholder number) in the order the positional ? bind them.
    QVariantList ordered(const QVariantList &values) const {
        QVariantList result;
        result.reserve(order.size());
        for (const int index : order)
            result << values.value(index);
        return result;
    }
};
PositionalSql mysqlPositional(const QString &numbered);

} // namespace tidemark
