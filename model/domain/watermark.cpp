// SPDX-License-Identifier: MIT
#include "model/domain/watermark.h"

#include "model/common/error.h"
#include "model/common/timestamp.h"

#include <limits>

namespace tidemark {
namespace {

constexpr qint64 kMicrosPerMs = 1000;
constexpr qint64 kMicrosPerSecond = 1000 * kMicrosPerMs;

// Digits only, no sign, no blanks: QString::toLongLong alone would accept "+5" and " 5".
std::optional<qint64> parseStrictInteger(const QString &text, bool allowSign) {
    if (text.isEmpty())
        return std::nullopt;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        const bool sign = i == 0 && allowSign && c == u'-' && text.size() > 1;
        if (!sign && (c < u'0' || c > u'9'))
            return std::nullopt;
    }
    bool ok = false;
    const qint64 value = text.toLongLong(&ok, 10); // refuses overflow
    if (!ok)
        return std::nullopt;
    return value;
}

} // namespace

QString watermarkTypeName(WatermarkType type) {
    switch (type) {
    case WatermarkType::Integer:
        return QStringLiteral("integer");
    case WatermarkType::Timestamp:
        return QStringLiteral("timestamp");
    case WatermarkType::None:
        break;
    }
    return QStringLiteral("none");
}

WatermarkType watermarkTypeFromName(const QString &name) {
    if (name == QLatin1String("integer"))
        return WatermarkType::Integer;
    if (name == QLatin1String("timestamp"))
        return WatermarkType::Timestamp;
    return WatermarkType::None;
}

Watermark Watermark::integer(qint64 value) {
    Watermark w;
    w.m_type = WatermarkType::Integer;
    w.m_integer = value;
    return w;
}

std::optional<Watermark> Watermark::timestamp(const QString &native) {
    const auto parsed = parseTimestamp(native);
    if (!parsed)
        return std::nullopt;
    Watermark w;
    w.m_type = WatermarkType::Timestamp;
    w.m_integer = parsed->micros; // cached instant; the text stays the truth
    w.m_text = native;
    return w;
}

QString Watermark::nativeText() const {
    switch (m_type) {
    case WatermarkType::Integer:
        return QString::number(m_integer);
    case WatermarkType::Timestamp:
        return m_text;
    case WatermarkType::None:
        break;
    }
    return QString();
}

qint64 Watermark::micros() const {
    return m_type == WatermarkType::Timestamp ? m_integer : 0;
}

QString Watermark::display() const {
    switch (m_type) {
    case WatermarkType::Integer:
        return QString::number(m_integer);
    case WatermarkType::Timestamp: {
        const auto parsed = parseTimestamp(m_text);
        return parsed ? displayTimestamp(*parsed) : m_text;
    }
    case WatermarkType::None:
        break;
    }
    return QString();
}

Watermark Watermark::fromStored(WatermarkType type, const QString &stored) {
    if (stored.isEmpty() || type == WatermarkType::None)
        return Watermark();
    if (type == WatermarkType::Integer) {
        const auto value = parseStrictInteger(stored, true);
        if (!value)
            throw Error(QStringLiteral("stored integer watermark '%1' is not a 64-bit integer").arg(stored));
        return integer(*value);
    }
    const auto ts = timestamp(stored);
    if (!ts)
        throw Error(QStringLiteral("stored timestamp watermark '%1' is not ISO-8601").arg(stored));
    return *ts;
}

int Watermark::compare(const Watermark &other) const {
    if (m_type != other.m_type)
        return m_type < other.m_type ? -1 : 1;
    switch (m_type) {
    case WatermarkType::None:
        return 0;
    case WatermarkType::Integer:
        return m_integer < other.m_integer ? -1 : (m_integer > other.m_integer ? 1 : 0);
    case WatermarkType::Timestamp: {
        if (m_integer != other.m_integer)
            return m_integer < other.m_integer ? -1 : 1;
        const auto a = parseTimestamp(m_text);
        const auto b = parseTimestamp(other.m_text);
        const int subA = a ? a->subMicros : 0;
        const int subB = b ? b->subMicros : 0;
        if (subA != subB)
            return subA < subB ? -1 : 1;
        const int byText = m_text.compare(other.m_text);
        return byText < 0 ? -1 : (byText > 0 ? 1 : 0);
    }
    }
    return 0;
}

bool Watermark::operator==(const Watermark &other) const {
    return compare(other) == 0;
}

Watermark parseUserWatermark(WatermarkType type, const QString &text, const Watermark &spellingOf,
                             const QString &what) {
    const QString trimmed = text.trimmed();
    switch (type) {
    case WatermarkType::Integer: {
        const auto value = parseStrictInteger(trimmed, true);
        if (!value)
            throw ValidationError(QStringLiteral("invalid %1 '%2': expected an integer").arg(what, text));
        return Watermark::integer(*value);
    }
    case WatermarkType::Timestamp: {
        const auto parsed = parseTimestamp(trimmed);
        if (!parsed)
            throw ValidationError(
                QStringLiteral("invalid %1 '%2': expected an ISO-8601 timestamp such as 2025-07-30T23:05:18Z")
                    .arg(what, text));
        TimestampSpelling spelling = TimestampSpelling::canonical();
        if (spellingOf.type() == WatermarkType::Timestamp) {
            if (const auto column = parseTimestamp(spellingOf.nativeText()))
                spelling = column->spelling;
        }
        const auto spelled = formatTimestamp(parsed->micros, spelling, parsed->subMicros);
        if (!spelled)
            throw ValidationError(
                QStringLiteral("invalid %1 '%2': the watermark column spells its values as %3, "
                               "which cannot hold this value exactly")
                    .arg(what, text, spelling.describe()));
        return *Watermark::timestamp(*spelled);
    }
    case WatermarkType::None:
        break;
    }
    throw ValidationError(
        QStringLiteral("invalid %1 '%2': the table has no watermark column").arg(what, text));
}

Lookback Lookback::parse(const QString &text, WatermarkType type) {
    Lookback result;
    result.text = text;
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return result;
    if (type == WatermarkType::Integer) {
        const auto value = parseStrictInteger(trimmed, false);
        if (!value)
            throw ValidationError(
                QStringLiteral("invalid --lookback '%1': expected a non-negative count of watermark values")
                    .arg(text));
        result.amount = *value;
        return result;
    }
    if (type != WatermarkType::Timestamp)
        throw ValidationError(
            QStringLiteral("invalid --lookback '%1': a lookback needs a watermark column").arg(text));

    const QString accepted = QStringLiteral("expected a duration such as 250ms, 90s, 30m, 2h or 1d");
    qsizetype digits = 0;
    while (digits < trimmed.size() && trimmed[digits].unicode() >= u'0' && trimmed[digits].unicode() <= u'9')
        ++digits;
    const QString unit = trimmed.mid(digits);
    qint64 scale = 0;
    if (unit == QLatin1String("ms"))
        scale = kMicrosPerMs;
    else if (unit == QLatin1String("s"))
        scale = kMicrosPerSecond;
    else if (unit == QLatin1String("m"))
        scale = 60 * kMicrosPerSecond;
    else if (unit == QLatin1String("h"))
        scale = 3600 * kMicrosPerSecond;
    else if (unit == QLatin1String("d"))
        scale = 86400 * kMicrosPerSecond;
    const auto count = digits > 0 ? parseStrictInteger(trimmed.left(digits), false) : std::nullopt;
    if (scale == 0 || !count)
        throw ValidationError(QStringLiteral("invalid --lookback '%1': %2").arg(text, accepted));
    if (*count > std::numeric_limits<qint64>::max() / scale)
        throw ValidationError(QStringLiteral("invalid --lookback '%1': the duration is too long").arg(text));
    result.amount = *count * scale;
    return result;
}

Watermark subtractLookback(const Watermark &position, const Lookback &lookback) {
    if (position.isNull() || lookback.isEmpty())
        return position;
    if (position.type() == WatermarkType::Integer) {
        const qint64 value = position.toInteger();
        if (value < std::numeric_limits<qint64>::min() + lookback.amount)
            throw Error(QStringLiteral("lookback %1 moves watermark %2 below the smallest 64-bit integer")
                            .arg(lookback.text, position.display()));
        return Watermark::integer(value - lookback.amount);
    }
    const auto parsed = parseTimestamp(position.nativeText());
    if (!parsed)
        throw Error(QStringLiteral("watermark '%1' is not ISO-8601").arg(position.nativeText()));
    if (parsed->micros < std::numeric_limits<qint64>::min() + lookback.amount)
        throw Error(QStringLiteral("lookback %1 moves watermark %2 out of range")
                        .arg(lookback.text, position.display()));
    const auto spelled =
        formatTimestamp(parsed->micros - lookback.amount, parsed->spelling, parsed->subMicros);
    if (!spelled)
        throw Error(
            QStringLiteral("lookback %1 from watermark %2 cannot be spelled as the column spells it (%3)")
                .arg(lookback.text, position.nativeText(), parsed->spelling.describe()));
    return *Watermark::timestamp(*spelled);
}

} // namespace tidemark
