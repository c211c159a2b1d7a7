// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QVariant>
#include <optional>

namespace tidemark {

enum class WatermarkType { None, Integer, Timestamp };

QString watermarkTypeName(WatermarkType type); // "none" | "integer" | "timestamp"
WatermarkType watermarkTypeFromName(const QString &name);

// A position in a source's watermark order, kept losslessly: a full 64-bit integer, or a
// timestamp spelled exactly as the source column spells it (SQLite compares text, so the
// spelling is part of the value). A default-constructed Watermark is "none": no position yet,
// i.e. the next window starts at the first row.
class Watermark {
public:
    Watermark() = default;
    static Watermark integer(qint64 value);
    // `native` is the text as the source spells it; it must parse as ISO-8601.
    static std::optional<Watermark> timestamp(const QString &native);

    WatermarkType type() const { return m_type; }
    bool isNull() const { return m_type == WatermarkType::None; }
    qint64 toInteger() const { return m_integer; }
    // Timestamps: the source's own spelling, as read. Integers: decimal.
    QString nativeText() const;
    // Microseconds since the epoch (timestamps only).
    qint64 micros() const;

    // For people: integers in decimal, timestamps in ISO-8601 UTC with the fraction they have.
    // Empty for none.
    QString display() const;

    // The workspace stores a watermark as its type plus nativeText(); this restores it.
    static Watermark fromStored(WatermarkType type, const QString &stored);

    // Strict order on values of the same type (timestamps by instant, then by spelling).
    int compare(const Watermark &other) const;
    bool operator==(const Watermark &other) const;
    bool operator!=(const Watermark &other) const { return !(*this == other); }

private:
    WatermarkType m_type = WatermarkType::None;
    qint64 m_integer = 0;
    QString m_text;
};

// Parses what a user typed (--initial-watermark, --from, a lookback) for a column of the given
// type. Timestamps: ISO-8601 with or without fraction and zone (no zone = UTC); the result is
// spelled like `spellingOf` when given (so it can be bound against a SQLite column), else in
// the canonical spelling. Throws ValidationError naming `what` when the text does not parse.
Watermark parseUserWatermark(WatermarkType type, const QString &text, const Watermark &spellingOf,
                             const QString &what);

// A lookback: a duration for timestamp watermarks ("90s", "30m", "2h", "1d"; also "250ms"),
// a count for integer ones ("500"). Empty text = no lookback.
struct Lookback {
    QString text;
    qint64 amount = 0; // microseconds for timestamps, a count for integers

    bool isEmpty() const { return amount == 0; }
    // Throws ValidationError naming the option when the text does not suit the type.
    static Lookback parse(const QString &text, WatermarkType type);
};

// `position` moved back by the lookback, spelled like `position`. Throws Error if the result
// cannot be spelled (it always can for whole units).
Watermark subtractLookback(const Watermark &position, const Lookback &lookback);

} // namespace tidemark
