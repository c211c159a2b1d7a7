// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

struct sqlite3;

namespace tidemark {

// Range checksums (docs/design.md, "Verify"): each database hashes its own rows, so that verify
// reads back one small sum per bucket of keys instead of every row, and streams only the buckets
// whose sums differ.
//
// A row's hash is the first 8 bytes (big-endian) of the MD5 of its canonical text; a row's
// bucket is the first 16 bits of the MD5 of its key columns' canonical text. The canonical text
// is defined once, here, and every engine writes it the same way: SQLite through the functions
// registered below, PostgreSQL through SQL expressions (postgresChecksumExpression). Canonical
// texts of two values are equal only when verify's own comparison of the values read back would
// call them equal, so equal sums can only come from equal rows (but for a 2^-64 collision);
// unequal sums are never trusted either way: those buckets are compared row by row.
//
// Each value becomes a tag and its text:
//   n                          NULL
//   i<decimal>;                integer (PostgreSQL: int2/4/8, oid, and booleans as 0/1)
//   r<16 hex digits>           a double's bits (PostgreSQL: float4 and float8)
//   t<bytes>:<UTF-8 text>      text, and every value an engine reads back as text
//   b<bytes>:<hex>             a blob (PostgreSQL: bytea)
//   I<micros>.<nanos>;         an instant (ChecksumCompare::Instant and a text that parses)
//   x                          a value one engine cannot spell like the other: never equal
//   (the SQLite side writes no x; PostgreSQL writes x<its text>, so two such values can only
//   match within PostgreSQL)
// How a column compares: as its cells (Exact), as instants (Instant) or as decimal text
// (Decimal); the engine's verifier chooses one per column (model/engine/verifier.cpp).
enum class ChecksumCompare : char { Exact = 'E', Instant = 'I', Decimal = 'D' };

// Buckets per table: 65,536 sums, small to read back, ~150 rows each at 10M rows.
constexpr int kChecksumBucketBits = 16;

struct ChecksumQuery {
    TableRef table;
    QList<ColumnInfo> columns;      // every compared column, in order
    QList<ChecksumCompare> compare; // one per column
    QList<int> keyIndexes;          // the bucket's columns (every column without a key)
    QString modes() const;          // one letter per column
    QString keyModes() const;       // one letter per key column
    QList<ColumnInfo> keyColumns() const;
    QList<ChecksumCompare> keyCompare() const;
    // The key is the whole compared row (reconcile): one digest gives the bucket and the hash.
    bool keyIsRow() const;
};

// One bucket's figures as a database returns them.
struct BucketSum {
    qint64 rows = 0;
    quint64 hashSum = 0; // the row hashes summed modulo 2^64
    bool operator==(const BucketSum &) const = default;
};

// A sum as PostgreSQL's numeric spells it ("-1234"), reduced modulo 2^64.
quint64 wrappedSum(std::string_view decimal);

// Whether so many buckets differ that reading them one by one costs more than reading every
// row: more than 64 (so few cost little whatever the table's size) and more than 10 % of them.
inline bool tooManyDifferingBuckets(qsizetype differing, qsizetype buckets) {
    return differing > 64 && differing * 100 > buckets * 10;
}

// Every bucket's figures from a SourceReader::openChecksums cursor; `betweenBatches` runs after
// each batch (a cancel check that throws).
QHash<int, BucketSum> readBucketSums(SourceCursor &cursor, const std::function<void()> &betweenBatches);

// A double as PostgreSQL's numeric spells it: plain digits, no exponent, the shortest exact
// spelling; an integer as its digits.
std::string decimalText(qint64 value);
std::string decimalText(double value);

// Registers on one SQLite connection: tidemark_checksum(modes, v...) (the row hash, a signed
// 64-bit integer), tidemark_bucket(modes, v...), the aggregate tidemark_sum64(x) (wraps, never
// overflows), and the aggregate tidemark_bucket_sums(keyModes, modes, keyCount, key..., v...):
// every bucket's figures in one pass, without grouping (no sort), as one blob for
// BucketBlobCursor. keyCount 0: the compared columns are the key too, and one digest gives both
// the bucket and the row hash.
void registerSqliteChecksumFunctions(sqlite3 *db);

// The rows of the blob tidemark_bucket_sums returns (`inner`'s one row, one column), as
// (bucket, rows, hash sum) rows of integers for readBucketSums.
class BucketBlobCursor : public SourceCursor {
public:
    explicit BucketBlobCursor(std::unique_ptr<SourceCursor> inner)
        : m_inner(std::move(inner)) {}
    bool fetch(RowBatch &batch, int maxRows) override;

private:
    std::unique_ptr<SourceCursor> m_inner;
    std::string m_blob;
    std::size_t m_at = 0;
    bool m_read = false;
};

// The SQL that hashes `columns` on PostgreSQL: the row hash as bigint (`bucket` false) or the
// bucket as int (`bucket` true).
QString postgresChecksumExpression(const QList<ColumnInfo> &columns, const QList<ChecksumCompare> &compare,
                                   bool bucket);
// PostgreSQL's SELECT of every bucket's figures (bucket, rows, hash sum as text), each digest
// computed once per row.
QString postgresBucketSumsQuery(const ChecksumQuery &query, const QString &qualifiedTable);

} // namespace tidemark
