// SPDX-License-Identifier: MIT
#include "model/common/timestamp.h"

#include <QDate>

namespace tidemark {
namespace {

constexpr qint64 kMicrosPerSecond = 1'000'000;
constexpr qint64 kSecondsPerDay = 86'400;

bool readDigits(QStringView text, qsizetype &pos, int count, int &value)
{
    if (pos + count > text.size())
        return false;
    value = 0;
    for (int i = 0; i < count; ++i) {
        const QChar c = text[pos + i];
        if (!c.isDigit() || c.unicode() > 127)
            return false;
        value = value * 10 + (c.unicode() - '0');
    }
    pos += count;
    return true;
}

bool expect(QStringView text, qsizetype &pos, QChar c)
{
    if (pos >= text.size() || text[pos] != c)
        return false;
    ++pos;
    return true;
}

qint64 floorDiv(qint64 a, qint64 b)
{
    qint64 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        --q;
    return q;
}

std::optional<qint64> parseZone(QStringView zone)
{
    if (zone.isEmpty() || zone == u"Z" || zone == u"z")
        return 0;
    if (zone[0] != u'+' && zone[0] != u'-')
        return std::nullopt;
    const int sign = zone[0] == u'-' ? -1 : 1;
    qsizetype pos = 1;
    int hours = 0, minutes = 0;
    if (!readDigits(zone, pos, 2, hours))
        return std::nullopt;
    if (pos < zone.size()) {
        if (zone[pos] == u':')
            ++pos;
        if (!readDigits(zone, pos, 2, minutes) || pos != zone.size())
            return std::nullopt;
    }
    if (hours > 23 || minutes > 59)
        return std::nullopt;
    return sign * (hours * 3600LL + minutes * 60LL);
}

} // namespace

QString TimestampSpelling::describe() const
{
    if (dateOnly)
        return QStringLiteral("YYYY-MM-DD");
    QString text = QStringLiteral("YYYY-MM-DD") + separator + QStringLiteral("HH:MM:SS");
    if (fractionDigits > 0)
        text += QLatin1Char('.') + QString(fractionDigits, QLatin1Char('f'));
    return text + zone;
}

TimestampSpelling TimestampSpelling::canonical()
{
    TimestampSpelling spelling;
    spelling.fractionDigits = 6;
    spelling.zone = QStringLiteral("Z");
    return spelling;
}

std::optional<ParsedTimestamp> parseTimestamp(QStringView text)
{
    ParsedTimestamp result;
    qsizetype pos = 0;
    int year = 0, month = 0, day = 0;
    if (!readDigits(text, pos, 4, year) || !expect(text, pos, u'-') || !readDigits(text, pos, 2, month)
        || !expect(text, pos, u'-') || !readDigits(text, pos, 2, day))
        return std::nullopt;
    const QDate date(year, month, day);
    if (!date.isValid())
        return std::nullopt;
    qint64 seconds = date.toJulianDay() - QDate(1970, 1, 1).toJulianDay();
    seconds *= kSecondsPerDay;
    qint64 fractionMicros = 0;
    if (pos == text.size()) {
        result.spelling.dateOnly = true;
    } else {
        const QChar sep = text[pos];
        if (sep != u'T' && sep != u' ' && sep != u't')
            return std::nullopt;
        result.spelling.separator = sep;
        ++pos;
        int hour = 0, minute = 0, second = 0;
        if (!readDigits(text, pos, 2, hour) || !expect(text, pos, u':') || !readDigits(text, pos, 2, minute))
            return std::nullopt;
        if (pos < text.size() && text[pos] == u':') {
            ++pos;
            if (!readDigits(text, pos, 2, second))
                return std::nullopt;
        } else {
            return std::nullopt; // seconds are required: "HH:MM" alone is ambiguous in sort order
        }
        if (hour > 23 || minute > 59 || second > 59)
            return std::nullopt;
        seconds += hour * 3600LL + minute * 60LL + second;
        if (pos < text.size() && text[pos] == u'.') {
            ++pos;
            int digits = 0;
            qint64 nanos = 0;
            while (pos < text.size() && text[pos].isDigit() && text[pos].unicode() < 128) {
                if (digits == 9)
                    return std::nullopt;
                nanos = nanos * 10 + (text[pos].unicode() - '0');
                ++digits;
                ++pos;
            }
            if (digits == 0)
                return std::nullopt;
            for (int i = digits; i < 9; ++i)
                nanos *= 10;
            fractionMicros = nanos / 1000;
            result.subMicros = int(nanos % 1000);
            result.spelling.fractionDigits = digits;
        }
        const QStringView zone = text.mid(pos);
        const auto offset = parseZone(zone);
        if (!offset)
            return std::nullopt;
        result.spelling.zone = zone.toString();
        result.spelling.zoneOffsetSeconds = *offset;
        seconds -= *offset;
    }
    result.micros = seconds * kMicrosPerSecond + fractionMicros;
    return result;
}

std::optional<QString> formatTimestamp(qint64 micros, const TimestampSpelling &spelling, int subMicros)
{
    const qint64 local = micros + spelling.zoneOffsetSeconds * kMicrosPerSecond;
    const qint64 totalSeconds = floorDiv(local, kMicrosPerSecond);
    const qint64 fraction = local - totalSeconds * kMicrosPerSecond;
    const qint64 days = floorDiv(totalSeconds, kSecondsPerDay);
    const qint64 secondOfDay = totalSeconds - days * kSecondsPerDay;
    const QDate date = QDate(1970, 1, 1).addDays(days);
    QString text = QString::asprintf("%04d-%02d-%02d", date.year(), date.month(), date.day());
    if (spelling.dateOnly) {
        if (secondOfDay != 0 || fraction != 0 || subMicros != 0)
            return std::nullopt;
        return text;
    }
    text += spelling.separator;
    text += QString::asprintf("%02d:%02d:%02d", int(secondOfDay / 3600), int(secondOfDay / 60 % 60),
                              int(secondOfDay % 60));
    const qint64 nanos = fraction * 1000 + subMicros;
    if (spelling.fractionDigits > 0) {
        qint64 divisor = 1;
        for (int i = spelling.fractionDigits; i < 9; ++i)
            divisor *= 10;
        if (nanos % divisor != 0)
            return std::nullopt;
        text += QLatin1Char('.')
                + QStringLiteral("%1").arg(nanos / divisor, spelling.fractionDigits, 10, QLatin1Char('0'));
    } else if (nanos != 0) {
        return std::nullopt;
    }
    return text + spelling.zone;
}

QString displayTimestamp(const ParsedTimestamp &value)
{
    TimestampSpelling utc;
    utc.dateOnly = false;
    utc.fractionDigits = value.spelling.dateOnly ? 0 : value.spelling.fractionDigits;
    utc.zone = QStringLiteral("Z");
    return formatTimestamp(value.micros, utc, value.subMicros).value_or(QString());
}

QString canonicalTimestamp(qint64 micros)
{
    return *formatTimestamp(micros, TimestampSpelling::canonical());
}

} // namespace tidemark
