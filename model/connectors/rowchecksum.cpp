// SPDX-License-Identifier: MIT
#include "model/connectors/rowchecksum.h"

#include "model/common/sqlquote.h"
#include "model/common/timestamp.h"

#include <QCryptographicHash>

#include <sqlite3.h>

#include <bit>
#include <charconv>
#include <cmath>
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

void appendSized(std::string &canonical, char tag, std::string_view bytes) {
    canonical += tag;
    canonical += std::to_string(bytes.size());
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
        const std::string digits = decimalText(qint64(sqlite3_value_int64(value)));
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
        char buffer[17];
        std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(bits));
        canonical += 'r';
        canonical += buffer;
        return;
    }
    case SQLITE_TEXT: {
        const std::string_view text(reinterpret_cast<const char *>(sqlite3_value_text(value)),
                                    std::size_t(sqlite3_value_bytes(value)));
        if (mode == char(ChecksumCompare::Instant)) {
            if (const auto instant = parseTimestamp(QString::fromUtf8(text.data(), qsizetype(text.size())))) {
                canonical += 'I';
                canonical += decimalText(instant->micros);
                canonical += '.';
                canonical += std::to_string(instant->subMicros);
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
        canonical += std::to_string(bytes.size());
        canonical += ':';
        appendHex(canonical, bytes);
        return;
    }
    }
}

// The first 8 bytes of the MD5 of the canonical text of argv[1..], modes in argv[0].
quint64 sqliteRowHash(int argc, sqlite3_value **argv) {
    const std::string_view modes(reinterpret_cast<const char *>(sqlite3_value_text(argv[0])),
                                 std::size_t(sqlite3_value_bytes(argv[0])));
    std::string canonical;
    for (int i = 1; i < argc; ++i)
        appendCanonical(canonical, std::size_t(i - 1) < modes.size() ? modes[std::size_t(i - 1)] : 'E',
                        argv[i]);
    const QByteArray digest = QCryptographicHash::hash(
        QByteArrayView(canonical.data(), qsizetype(canonical.size())), QCryptographicHash::Md5);
    quint64 hash = 0;
    for (int i = 0; i < 8; ++i)
        hash = (hash << 8) | quint64(quint8(digest[i]));
    return hash;
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
}

QString postgresChecksumExpression(const QList<ColumnInfo> &columns, const QList<ChecksumCompare> &compare,
                                   bool bucket) {
    QStringList parts;
    for (int i = 0; i < columns.size(); ++i)
        parts << QStringLiteral("COALESCE(%1, 'n')").arg(postgresCanonical(columns[i], compare[i]));
    const QString digest = QStringLiteral("md5(%1)").arg(parts.join(QStringLiteral(" || ")));
    return bucket ? QStringLiteral("('x' || substr(%1, 1, 4))::bit(16)::int").arg(digest)
                  : QStringLiteral("('x' || substr(%1, 1, 16))::bit(64)::bigint").arg(digest);
}

} // namespace tidemark
