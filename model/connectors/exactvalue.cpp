// SPDX-License-Identifier: MIT
#include "model/connectors/exactvalue.h"

#include <QByteArray>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

namespace tidemark {
namespace {

constexpr int kShownCharacters = 60;
constexpr int kShownBytes = 16;

// A decimal number as its value: significant digits (no leading or trailing zeros, empty for
// zero) and the exponent of 0.digits × 10^exponent, so "012.30" and "1.23e1" compare equal.
struct Decimal {
    bool negative = false;
    std::string digits;
    long long exponent = 0;
    bool operator==(const Decimal &) const = default;
};

std::string_view trimmed(std::string_view text) {
    const auto space = [](char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    };
    while (!text.empty() && space(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && space(text.back()))
        text.remove_suffix(1);
    return text;
}

std::optional<Decimal> parseDecimal(std::string_view text) {
    text = trimmed(text);
    Decimal value;
    std::size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-'))
        value.negative = text[i++] == '-';
    std::string mantissa;
    long long point = -1;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9')
            mantissa += c;
        else if (c == '.' && point < 0)
            point = qint64(mantissa.size());
        else
            break;
    }
    if (mantissa.empty())
        return std::nullopt;
    if (point < 0)
        point = qint64(mantissa.size());
    long long exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool negative = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-'))
            negative = text[i++] == '-';
        if (i == text.size())
            return std::nullopt;
        for (; i < text.size(); ++i) {
            if (text[i] < '0' || text[i] > '9')
                return std::nullopt;
            exponent = std::min(exponent * 10 + (text[i] - '0'), 1000000000LL);
        }
        if (negative)
            exponent = -exponent;
    }
    if (i != text.size())
        return std::nullopt;
    const std::size_t lead = mantissa.find_first_not_of('0');
    if (lead == std::string::npos)
        return Decimal{}; // zero, whatever its sign
    mantissa.erase(0, lead);
    point -= qint64(lead);
    mantissa.erase(mantissa.find_last_not_of('0') + 1);
    value.digits = std::move(mantissa);
    value.exponent = point + exponent;
    return value;
}

} // namespace

QString describeCell(const RowBatch &batch, const Cell &cell) {
    switch (cell.type) {
    case CellType::Null:
        return QStringLiteral("NULL");
    case CellType::Integer:
        return QString::number(cell.integer);
    case CellType::Real: {
        if (std::isnan(cell.real))
            return QStringLiteral("NaN");
        if (std::isinf(cell.real))
            return cell.real > 0 ? QStringLiteral("Infinity") : QStringLiteral("-Infinity");
        char buffer[32];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, cell.real);
        return QString::fromLatin1(buffer, int(result.ptr - buffer));
    }
    case CellType::Text: {
        const std::string_view bytes = batch.bytes(cell);
        QString text = QString::fromUtf8(bytes.data(), qsizetype(bytes.size()));
        const bool cut = text.size() > kShownCharacters;
        text.truncate(kShownCharacters);
        text.replace(QChar(0), QStringLiteral("\\0"));
        return QLatin1Char('\'') + text + (cut ? QStringLiteral("...'") : QStringLiteral("'"));
    }
    case CellType::Blob: {
        const std::string_view bytes = batch.bytes(cell);
        const QByteArray shown(bytes.data(), qsizetype(std::min<std::size_t>(bytes.size(), kShownBytes)));
        return QStringLiteral("a blob of %1 bytes (x'%2%3')")
            .arg(bytes.size())
            .arg(QString::fromLatin1(shown.toHex()),
                 bytes.size() > kShownBytes ? QStringLiteral("...") : QString());
    }
    }
    return QString();
}

QString inexactValue(const QString &column, const RowBatch &batch, const Cell &cell, const QString &reason) {
    return QStringLiteral("column '%1': value %2 %3").arg(column, describeCell(batch, cell), reason);
}

bool integerFitsDouble(std::int64_t value) {
    const double wide = double(value);
    return wide < 9223372036854775808.0 && std::int64_t(wide) == value;
}

bool decimalFitsInt64(std::string_view text) {
    std::string_view digits = trimmed(text);
    if (!digits.empty() && digits.front() == '+')
        digits.remove_prefix(1);
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return ec == std::errc() && end == digits.data() + digits.size();
}

bool isDecimalLiteral(std::string_view text) {
    return parseDecimal(text).has_value();
}

bool decimalFitsDouble(std::string_view text) {
    const std::optional<Decimal> exact = parseDecimal(text);
    if (!exact)
        return false;
    std::string_view number = trimmed(text);
    if (!number.empty() && number.front() == '+')
        number.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value))
        return false;
    char buffer[32];
    const auto shortest = std::to_chars(buffer, buffer + sizeof buffer, value);
    return parseDecimal(std::string_view(buffer, std::size_t(shortest.ptr - buffer))) == exact;
}

} // namespace tidemark
