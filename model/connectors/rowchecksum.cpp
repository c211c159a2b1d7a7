// SPDX-License-Identifier: MIT
#include "model/connectors/rowchecksum.h"

#include "model/common/sqlquote.h"
#include "model/common/timestamp.h"

#include <QCryptographicHash>

#include <sqlite3.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

namespace tidemark {

QString ChecksumQuery::modes() const {
    QString letters;
    for (ChecksumCompare how : compare)
        letters += QLatin1Char(char(how));
    return letters;
}

QString ChecksumQuery::keyModes() const {
    QString letters;
    for (int index : keyIndexes)
        letters += QLatin1Char(char(compare[index]));
    return letters;
}

QList<ChecksumCompare> ChecksumQuery::keyCompare() const {
    QList<ChecksumCompare> keys;
    for (int index : keyIndexes)
        keys << compare[index];
    return keys;
}

bool ChecksumQuery::keyIsRow() const {
    if (keyIndexes.size() != columns.size())
        return false;
    for (qsizetype i = 0; i < keyIndexes.size(); ++i) {
        if (keyIndexes[i] != i)
            return false;
    }
    return true;
}

QList<ColumnInfo> ChecksumQuery::keyColumns() const {
    QList<ColumnInfo> keys;
    for (int index : keyIndexes)
        keys << columns[index];
    return keys;
}

QHash<int, BucketSum> readBucketSums(SourceCursor &cursor, const std::function<void()> &betweenBatches) {
    QHash<int, BucketSum> sums;
    RowBatch batch(3);
    while (cursor.fetch(batch, 10000)) {
        betweenBatches();
        for (int row = 0; row < batch.rowCount(); ++row) {
            const Cell &sum = batch.cell(row, 2);
            sums.insert(int(batch.cell(row, 0).integer),
                        {batch.cell(row, 1).integer,
                         sum.type == CellType::Text ? wrappedSum(batch.bytes(sum)) : quint64(sum.integer)});
        }
    }
    return sums;
}

quint64 wrappedSum(std::string_view decimal) {
    const bool negative = !decimal.empty() && decimal.front() == '-';
    quint64 sum = 0;
    for (char digit : decimal.substr(negative ? 1 : 0)) {
        if (digit >= '0' && digit <= '9')
            sum = sum * 10 + quint64(digit - '0'); // wraps: arithmetic modulo 2^64
    }
    return negative ? quint64(0) - sum : sum;
}

std::string decimalText(qint64 value) {
    char buffer[24];
    return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

std::string decimalText(double value) {
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "Infinity" : "-Infinity";
    char buffer[400]; // the fixed spelling of 5e-324 or DBL_MAX is under 330 characters
    return std::string(buffer,
                       std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed).ptr);
}

namespace {

template <typename Integer> void appendDigits(std::string &canonical, Integer value) {
    char buffer[24];
    canonical.append(buffer, std::size_t(std::to_chars(buffer, buffer + sizeof buffer, value).ptr - buffer));
}

// parseTimestamp of UTF-8 text without a heap allocation when it is short ASCII, as every
// ISO-8601 text is.
std::optional<ParsedTimestamp> parseTimestampUtf8(std::string_view text) {
    char16_t wide[64];
    if (text.size() > std::size(wide))
        return parseTimestamp(QString::fromUtf8(text.data(), qsizetype(text.size())));
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (static_cast<unsigned char>(text[i]) >= 0x80)
            return parseTimestamp(QString::fromUtf8(text.data(), qsizetype(text.size())));
        wide[i] = char16_t(text[i]);
    }
    return parseTimestamp(QStringView(wide, qsizetype(text.size())));
}

void appendSized(std::string &canonical, char tag, std::string_view bytes) {
    canonical += tag;
    appendDigits(canonical, bytes.size());
    canonical += ':';
    canonical.append(bytes);
}

void appendHex(std::string &canonical, std::string_view bytes) {
    static const char digits[] = "0123456789abcdef";
    for (unsigned char byte : bytes) {
        canonical += digits[byte >> 4];
        canonical += digits[byte & 0xf];
    }
}

// One SQLite value's canonical text (rowchecksum.h), as verify would compare its cell.
void appendCanonical(std::string &canonical, char mode, sqlite3_value *value) {
    switch (sqlite3_value_type(value)) {
    case SQLITE_NULL:
        canonical += 'n';
        return;
    case SQLITE_INTEGER: {
        char buffer[24];
        const std::string_view digits(
            buffer,
            std::size_t(std::to_chars(buffer, buffer + sizeof buffer, sqlite3_value_int64(value)).ptr -
                        buffer));
        if (mode == char(ChecksumCompare::Decimal)) {
            appendSized(canonical, 't', digits);
            return;
        }
        canonical += 'i';
        canonical += digits;
        canonical += ';';
        return;
    }
    case SQLITE_FLOAT: {
        const double real = sqlite3_value_double(value);
        if (mode == char(ChecksumCompare::Decimal)) {
            appendSized(canonical, 't', decimalText(real));
            return;
        }
        const quint64 bits =
            std::bit_cast<quint64>(std::isnan(real) ? std::numeric_limits<double>::quiet_NaN() : real);
        canonical += 'r';
        for (int shift = 60; shift >= 0; shift -= 4)
            canonical += "0123456789abcdef"[(bits >> shift) & 0xf];
        return;
    }
    case SQLITE_TEXT: {
        const std::string_view text(reinterpret_cast<const char *>(sqlite3_value_text(value)),
                                    std::size_t(sqlite3_value_bytes(value)));
        if (mode == char(ChecksumCompare::Instant)) {
            if (const auto instant = parseTimestampUtf8(text)) {
                canonical += 'I';
                appendDigits(canonical, instant->micros);
                canonical += '.';
                appendDigits(canonical, instant->subMicros);
                canonical += ';';
                return;
            }
        }
        appendSized(canonical, 't', text);
        return;
    }
    default: { // SQLITE_BLOB
        const std::string_view bytes(static_cast<const char *>(sqlite3_value_blob(value)),
                                     std::size_t(sqlite3_value_bytes(value)));
        canonical += 'b';
        appendDigits(canonical, bytes.size());
        canonical += ':';
        appendHex(canonical, bytes);
        return;
    }
    }
}

std::string_view textOf(sqlite3_value *value) {
    return {reinterpret_cast<const char *>(sqlite3_value_text(value)),
            std::size_t(sqlite3_value_bytes(value))};
}

// The first 8 bytes of the MD5 of the canonical text of `values`, one mode letter each.
// `canonical` is the caller's, reused from row to row.
quint64 digestOf(std::string &canonical, std::string_view modes, sqlite3_value **values, int count) {
    canonical.clear();
    for (int i = 0; i < count; ++i)
        appendCanonical(canonical, std::size_t(i) < modes.size() ? modes[std::size_t(i)] : 'E', values[i]);
    QCryptographicHash md5(QCryptographicHash::Md5);
    md5.addData(QByteArrayView(canonical.data(), qsizetype(canonical.size())));
    const QByteArrayView digest = md5.resultView();
    quint64 hash = 0;
    for (int i = 0; i < 8; ++i)
        hash = (hash << 8) | quint64(quint8(digest[i]));
    return hash;
}

// The row hash of argv[1..], modes in argv[0].
quint64 sqliteRowHash(int argc, sqlite3_value **argv) {
    std::string canonical;
    return digestOf(canonical, textOf(argv[0]), argv + 1, argc - 1);
}

void checksumFunction(sqlite3_context *context, int argc, sqlite3_value **argv) {
    sqlite3_result_int64(context, sqlite3_int64(sqliteRowHash(argc, argv)));
}

void bucketFunction(sqlite3_context *context, int argc, sqlite3_value **argv) {
    sqlite3_result_int(context, int(sqliteRowHash(argc, argv) >> (64 - kChecksumBucketBits)));
}

void sumStep(sqlite3_context *context, int, sqlite3_value **argv) {
    auto *sum = static_cast<quint64 *>(sqlite3_aggregate_context(context, sizeof(quint64)));
    if (sum && sqlite3_value_type(argv[0]) != SQLITE_NULL)
        *sum += quint64(sqlite3_value_int64(argv[0]));
}

void sumFinal(sqlite3_context *context) {
    auto *sum = static_cast<quint64 *>(sqlite3_aggregate_context(context, 0));
    sqlite3_result_int64(context, sum ? sqlite3_int64(*sum) : 0);
}

// Every bucket's figures, in SQLite's own zeroed and freed aggregate memory (1 MiB).
constexpr int kBuckets = 1 << kChecksumBucketBits;
struct BucketTable {
    BucketSum sums[kBuckets];
};

// One packed entry of tidemark_bucket_sums' blob, in this process's byte order: the blob is
// read back by the process that made it.
struct PackedBucket {
    qint64 bucket; // 64 bits like the others: no padding bytes in the blob
    qint64 rows;
    quint64 hashSum;
};

void bucketSumsStep(sqlite3_context *context, int argc, sqlite3_value **argv) {
    auto *table = static_cast<BucketTable *>(sqlite3_aggregate_context(context, sizeof(BucketTable)));
    if (!table) {
        sqlite3_result_error_nomem(context);
        return;
    }
    thread_local std::string canonical;
    const int keyCount = sqlite3_value_int(argv[2]);
    sqlite3_value **key = argv + 3;
    sqlite3_value **values = key + keyCount;
    const quint64 rowHash = digestOf(canonical, textOf(argv[1]), values, int(argc - 3 - keyCount));
    const quint64 keyHash = keyCount == 0 ? rowHash : digestOf(canonical, textOf(argv[0]), key, keyCount);
    BucketSum &sum = table->sums[keyHash >> (64 - kChecksumBucketBits)];
    ++sum.rows;
    sum.hashSum += rowHash;
}

void bucketSumsFinal(sqlite3_context *context) {
    auto *table = static_cast<BucketTable *>(sqlite3_aggregate_context(context, 0));
    std::string blob;
    for (int bucket = 0; table && bucket < kBuckets; ++bucket) {
        const BucketSum &sum = table->sums[bucket];
        if (sum.rows == 0)
            continue;
        const PackedBucket packed{bucket, sum.rows, sum.hashSum};
        blob.append(reinterpret_cast<const char *>(&packed), sizeof packed);
    }
    sqlite3_result_blob64(context, blob.data(), blob.size(), SQLITE_TRANSIENT);
}

// One PostgreSQL column's canonical text (rowchecksum.h), mirroring how the PostgreSQL reader
// turns each type into a cell (model/connectors/postgresconnector.cpp, readKind).
QString postgresCanonical(const ColumnInfo &column, ChecksumCompare how) {
    const QString v = quoteIdentifier(column.name);
    const QString asText = QStringLiteral("octet_length(%1::text)::text || ':' || %1::text").arg(v);
    const QString text = QStringLiteral("'t' || ") + asText;
    const QString foreign = QStringLiteral("'x' || ") + asText;
    const QString integer =
        how == ChecksumCompare::Decimal ? text : QStringLiteral("'i' || %1::text || ';'").arg(v);
    switch (column.logical) {
    case LogicalType::Integer:
        return integer;
    case LogicalType::Boolean:
        return how == ChecksumCompare::Decimal ? QStringLiteral("'t1:' || %1::int::text").arg(v)
                                               : QStringLiteral("'i' || %1::int::text || ';'").arg(v);
    case LogicalType::Real:
        return how == ChecksumCompare::Decimal
                   ? foreign
                   : QStringLiteral("'r' || encode(float8send(%1::float8), 'hex')").arg(v);
    case LogicalType::Blob:
        return QStringLiteral("'b' || length(%1)::text || ':' || encode(%1, 'hex')").arg(v);
    case LogicalType::Date:
    case LogicalType::Timestamp:
    case LogicalType::TimestampTz: {
        // Read back as the ISO text every parser orders (years 1 to 9999), else as the server spells it.
        const QString orderable =
            QStringLiteral("isfinite(%1) AND extract(year from %1) BETWEEN 1 AND 9999").arg(v);
        const QString micros = QStringLiteral("(extract(epoch from %1) * 1000000)::bigint::text").arg(v);
        if (how == ChecksumCompare::Instant)
            return QStringLiteral("CASE WHEN %1 THEN 'I' || %2 || '.0;' ELSE %3 END")
                .arg(orderable, micros, text);
        if (column.logical == LogicalType::Date)
            return text;
        // Verify compares the reader's own spelling of the instant, which tells the two types apart.
        const QString kind =
            column.logical == LogicalType::Timestamp ? QStringLiteral("'xN'") : QStringLiteral("'xZ'");
        return QStringLiteral("CASE WHEN %1 THEN %2 || %3 || ';' ELSE %4 END")
            .arg(orderable, kind, micros, text);
    }
    case LogicalType::Text:
    case LogicalType::Numeric:
    case LogicalType::Uuid:
    case LogicalType::Json:
    case LogicalType::Unknown:
        // Text a SQLite reader would parse as an instant: PostgreSQL cannot parse it the same way.
        return how == ChecksumCompare::Instant ? foreign : text;
    }
    return foreign;
}

} // namespace

void registerSqliteChecksumFunctions(sqlite3 *db) {
    const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY;
    sqlite3_create_function_v2(db, "tidemark_checksum", -1, flags, nullptr, checksumFunction, nullptr,
                               nullptr, nullptr);
    sqlite3_create_function_v2(db, "tidemark_bucket", -1, flags, nullptr, bucketFunction, nullptr, nullptr,
                               nullptr);
    sqlite3_create_function_v2(db, "tidemark_sum64", 1, flags, nullptr, nullptr, sumStep, sumFinal, nullptr);
    sqlite3_create_function_v2(db, "tidemark_bucket_sums", -1, flags, nullptr, nullptr, bucketSumsStep,
                               bucketSumsFinal, nullptr);
}

bool BucketBlobCursor::fetch(RowBatch &batch, int maxRows) {
    batch.reset(3);
    if (!m_read) {
        m_read = true;
        RowBatch row(1);
        if (m_inner->fetch(row, 1) && !row.isEmpty() && row.cell(0, 0).type == CellType::Blob)
            m_blob = std::string(row.bytes(row.cell(0, 0)));
        m_inner.reset();
    }
    int rows = 0;
    for (; rows < maxRows && m_at + sizeof(PackedBucket) <= m_blob.size();
         ++rows, m_at += sizeof(PackedBucket)) {
        PackedBucket packed;
        std::memcpy(&packed, m_blob.data() + m_at, sizeof packed);
        batch.appendInteger(packed.bucket);
        batch.appendInteger(packed.rows);
        batch.appendInteger(std::int64_t(packed.hashSum));
    }
    return rows > 0;
}

namespace {

QString postgresDigest(const QList<ColumnInfo> &columns, const QList<ChecksumCompare> &compare) {
    QStringList parts;
    for (int i = 0; i < columns.size(); ++i)
        parts << QStringLiteral("COALESCE(%1, 'n')").arg(postgresCanonical(columns[i], compare[i]));
    return QStringLiteral("md5(%1)").arg(parts.join(QStringLiteral(" || ")));
}

QString bucketOfDigest(const QString &digest) {
    return QStringLiteral("('x' || substr(%1, 1, 4))::bit(16)::int").arg(digest);
}

QString hashOfDigest(const QString &digest) {
    return QStringLiteral("('x' || substr(%1, 1, 16))::bit(64)::bigint").arg(digest);
}

} // namespace

QString postgresChecksumExpression(const QList<ColumnInfo> &columns, const QList<ChecksumCompare> &compare,
                                   bool bucket) {
    const QString digest = postgresDigest(columns, compare);
    return bucket ? bucketOfDigest(digest) : hashOfDigest(digest);
}

QString postgresBucketSumsQuery(const ChecksumQuery &query, const QString &qualifiedTable) {
    const bool keyIsRow = query.keyIsRow();
    QString digests = postgresDigest(query.keyColumns(), query.keyCompare()) + QStringLiteral(" AS k");
    if (!keyIsRow)
        digests +=
            QStringLiteral(", ") + postgresDigest(query.columns, query.compare) + QStringLiteral(" AS r");
    // OFFSET 0 keeps the subquery apart: pulled up, each digest would be computed once per use.
    return QStringLiteral(
               "SELECT %1 AS bucket, count(*), sum(%2)::text FROM (SELECT %3 FROM %4 OFFSET 0) d GROUP BY 1")
        .arg(bucketOfDigest(QStringLiteral("k")),
             hashOfDigest(keyIsRow ? QStringLiteral("k") : QStringLiteral("r")), digests, qualifiedTable);
}

} // namespace tidemark
