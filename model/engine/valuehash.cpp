// SPDX-License-Identifier: MIT
#include "model/engine/valuehash.h"

#include "model/common/timestamp.h"

#include <QHash>
#include <bit>
#include <cmath>
#include <limits>

namespace tidemark {
namespace {

bool isTemporal(LogicalType type) {
    return type == LogicalType::Date || type == LogicalType::Timestamp || type == LogicalType::TimestampTz;
}

// Tags keep kinds apart: NULL, 0, 0.0, '' and x'' all differ.
enum class Tag : quint64 { Null = 1, Integer, Real, Text, Blob, Instant };

quint64 hashTag(Tag tag, quint64 seed) {
    return qHash(quint64(tag), seed);
}

quint64 hashBytes(Tag tag, std::string_view bytes, quint64 seed) {
    return qHash(QByteArrayView(bytes.data(), qsizetype(bytes.size())), hashTag(tag, seed));
}

// Bit for bit (qHash(double) makes -0.0 equal to 0.0), with one NaN as PostgreSQL has one.
quint64 hashReal(double value, quint64 seed) {
    if (std::isnan(value))
        value = std::numeric_limits<double>::quiet_NaN();
    return qHash(std::bit_cast<quint64>(value), hashTag(Tag::Real, seed));
}

} // namespace

ValueCompare valueCompare(const ColumnInfo &source, const ColumnInfo &target, bool sameEngine) {
    if (sameEngine)
        return ValueCompare::Exact;
    if (isTemporal(source.logical) || isTemporal(target.logical))
        return ValueCompare::Instant;
    if (source.logical == LogicalType::Numeric || target.logical == LogicalType::Numeric)
        return ValueCompare::Decimal;
    return ValueCompare::Exact;
}

ChecksumCompare checksumCompare(ValueCompare how) {
    switch (how) {
    case ValueCompare::Instant:
        return ChecksumCompare::Instant;
    case ValueCompare::Decimal:
        return ChecksumCompare::Decimal;
    case ValueCompare::Exact:
        break;
    }
    return ChecksumCompare::Exact;
}

quint64 hashCell(const RowBatch &batch, const Cell &cell, ValueCompare how, quint64 seed) {
    switch (cell.type) {
    case CellType::Null:
        return hashTag(Tag::Null, seed);
    case CellType::Integer:
        if (how == ValueCompare::Decimal)
            return hashBytes(Tag::Text, decimalText(qint64(cell.integer)), seed);
        return qHash(qint64(cell.integer), hashTag(Tag::Integer, seed));
    case CellType::Real:
        if (how == ValueCompare::Decimal)
            return hashBytes(Tag::Text, decimalText(cell.real), seed);
        return hashReal(cell.real, seed);
    case CellType::Text: {
        const std::string_view bytes = batch.bytes(cell);
        if (how == ValueCompare::Instant) {
            // What no parser orders (infinity, BC) compares as the text the engines both spell.
            if (const auto instant = parseTimestamp(QString::fromUtf8(bytes.data(), qsizetype(bytes.size()))))
                return qHash(instant->subMicros, qHash(instant->micros, hashTag(Tag::Instant, seed)));
        }
        return hashBytes(Tag::Text, bytes, seed);
    }
    case CellType::Blob:
        return hashBytes(Tag::Blob, batch.bytes(cell), seed);
    }
    return seed;
}

} // namespace tidemark
