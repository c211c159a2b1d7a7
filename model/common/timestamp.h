// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringView>
#include <cstdint>
#include <optional>

namespace tidemark {

// How a timestamp is spelled as text. SQLite compares timestamps as text, so a value bound
// against a SQLite column must be spelled exactly like the column's values; the spelling is
// what makes that possible.
struct TimestampSpelling {
    bool dateOnly = false;     // "YYYY-MM-DD"
    QChar separator = u'T';    // 'T' or ' ' between date and time
    int fractionDigits = 0;    // 0..9 digits after the seconds
    QString zone;              // verbatim suffix: "", "Z", "+00:00", "+0000", " UTC" ...
    qint64 zoneOffsetSeconds = 0;

    bool operator==(const TimestampSpelling &other) const = default;
    // e.g. "YYYY-MM-DDTHH:MM:SS.fffZ", for error messages.
    QString describe() const;
    // What Tidemark writes into SQLite itself: "YYYY-MM-DDTHH:MM:SS.ffffffZ".
    static TimestampSpelling canonical();
};

// A point in time, microseconds since 1970-01-01T00:00:00Z. Nanosecond digits beyond the
// sixth are kept in the spelled text only (see ParsedTimestamp::subMicros).
struct ParsedTimestamp {
    qint64 micros = 0;
    int subMicros = 0; // digits 7..9 of a nanosecond fraction, 0..999
    TimestampSpelling spelling;
};

// Parses ISO-8601 text: date only, or date + 'T'/' ' + time, with optional fraction (up to
// nine digits) and optional zone (Z, ±HH, ±HH:MM, ±HHMM). No zone means UTC.
std::optional<ParsedTimestamp> parseTimestamp(QStringView text);

// Spells micros (UTC) the way `spelling` says, converting to its zone offset. Returns nullopt
// when the spelling cannot hold the value exactly (more fraction than the spelling has digits,
// or a time on a date-only spelling).
std::optional<QString> formatTimestamp(qint64 micros, const TimestampSpelling &spelling, int subMicros = 0);

// ISO-8601 in UTC with the fraction the value has: "2025-07-30T23:05:18.000Z".
QString displayTimestamp(const ParsedTimestamp &value);
// ISO-8601 in UTC with exactly six fraction digits (the canonical spelling).
QString canonicalTimestamp(qint64 micros);

} // namespace tidemark
