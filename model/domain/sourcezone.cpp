// SPDX-License-Identifier: MIT
#include "model/domain/sourcezone.h"

#include "model/common/error.h"
#include "model/common/timestamp.h"

#include <QDateTime>
#include <algorithm>
#include <vector>

namespace tidemark {
namespace {

constexpr qint64 kMicrosPerSecond = 1'000'000;
// No zone is further than 14 hours from UTC: offsets read this far either side of a wall-clock
// time (taken as UTC) are every offset it can have.
constexpr qint64 kWidestOffsetMicros = 14LL * 3600 * kMicrosPerSecond;

qint64 floorDiv(qint64 value, qint64 divisor) {
    const qint64 quotient = value / divisor;
    return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient;
}

int offsetAt(const QTimeZone &zone, qint64 utcMicros) {
    return zone.offsetFromUtc(QDateTime::fromMSecsSinceEpoch(floorDiv(utcMicros, 1000), QTimeZone::utc()));
}

// The offsets (seconds, largest first) the zone has at some instant whose wall-clock time is
// `wall`: two in an hour the clocks repeat, none in an hour they skip, one otherwise.
std::vector<int> offsetsAtWall(const QTimeZone &zone, qint64 wall) {
    std::vector<int> offsets;
    for (const qint64 probe : {wall - kWidestOffsetMicros, wall, wall + kWidestOffsetMicros}) {
        const int offset = offsetAt(zone, probe);
        if (std::find(offsets.begin(), offsets.end(), offset) == offsets.end() &&
            offsetAt(zone, wall - offset * kMicrosPerSecond) == offset)
            offsets.push_back(offset);
    }
    std::sort(offsets.rbegin(), offsets.rend());
    return offsets;
}

bool isNaive(const Watermark &value) {
    if (value.type() != WatermarkType::Timestamp)
        return false;
    const auto parsed = parseTimestamp(value.nativeText());
    return parsed && parsed->spelling.zone.isEmpty();
}

} // namespace

SourceZone SourceZone::parse(const QString &name, const QString &option) {
    const QString trimmed = name.trimmed();
    SourceZone zone;
    if (trimmed.isEmpty() || trimmed == QLatin1String("UTC"))
        return zone;
    // Only a name the database lists: Qt also reads a bare word ("Berlin") as a POSIX rule of UTC.
    const QByteArray id = trimmed.toUtf8();
    const QTimeZone known(id);
    if (!QTimeZone::isTimeZoneIdAvailable(id) || !known.isValid())
        throw ValidationError(
            QStringLiteral("%1: '%2' is no time zone this system knows (an IANA name such as "
                           "Europe/Berlin or America/New_York, or UTC)")
                .arg(option, trimmed));
    zone.m_name = trimmed;
    zone.m_zone = known;
    return zone;
}

qint64 SourceZone::wallMicros(qint64 utcMicros) const {
    return isUtc() ? utcMicros : utcMicros + offsetAt(m_zone, utcMicros) * kMicrosPerSecond;
}

int SourceZone::offsetAtWall(qint64 wallMicros) const {
    if (isUtc())
        return 0;
    const std::vector<int> offsets = offsetsAtWall(m_zone, wallMicros);
    // A wall-clock time the clocks skipped: the offset before the skip.
    return offsets.empty() ? offsetAt(m_zone, wallMicros - kWidestOffsetMicros) : offsets.front();
}

qint64 SourceZone::repeatStepAt(qint64 wallMicros) const {
    if (isUtc())
        return 0;
    const std::vector<int> offsets = offsetsAtWall(m_zone, wallMicros);
    return offsets.size() < 2 ? 0 : qint64(offsets.front() - offsets.back()) * kMicrosPerSecond;
}

bool SourceZone::repeatsWallTimes() const {
    if (isUtc())
        return false;
    // Rows are stamped from now on: a zone that kept summer time only long ago (Asia/Tokyo until
    // 1951) repeats nothing a copy will meet.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const QDateTime before = m_zone.previousTransition(now.addYears(-1)).atUtc;
    const QTimeZone::OffsetDataList transitions =
        m_zone.transitions(before.isValid() ? before : now.addYears(-1), now.addYears(30));
    for (qsizetype i = 1; i < transitions.size(); ++i) {
        if (transitions[i].offsetFromUtc < transitions[i - 1].offsetFromUtc)
            return true;
    }
    return false;
}

Watermark SourceZone::parseTyped(WatermarkType type, const QString &text, const Watermark &spellingOf,
                                 const QString &what) const {
    const auto parsed = parseTimestamp(text.trimmed());
    if (type != WatermarkType::Timestamp || isUtc() || !parsed || parsed->spelling.zone.isEmpty() ||
        !isNaive(spellingOf))
        return parseUserWatermark(type, text, spellingOf, what);
    TimestampSpelling wall = parsed->spelling;
    wall.zone.clear();
    wall.zoneOffsetSeconds = 0;
    const auto wallText = formatTimestamp(wallMicros(parsed->micros), wall, parsed->subMicros);
    return parseUserWatermark(type, wallText.value_or(text), spellingOf, what);
}

QString SourceZone::display(const Watermark &value) const {
    if (isUtc() || !isNaive(value))
        return value.display();
    const auto parsed = parseTimestamp(value.nativeText());
    const int offset = offsetAtWall(parsed->micros);
    TimestampSpelling spelling;
    spelling.fractionDigits = parsed->spelling.dateOnly ? 0 : parsed->spelling.fractionDigits;
    spelling.zoneOffsetSeconds = offset;
    const int minutes = std::abs(offset) / 60;
    spelling.zone = QString::asprintf("%c%02d:%02d", offset < 0 ? '-' : '+', minutes / 60, minutes % 60);
    return formatTimestamp(parsed->micros - offset * kMicrosPerSecond, spelling, parsed->subMicros)
        .value_or(value.display());
}

QString shownWatermark(const Watermark &value, const QString &sourceTimezone) {
    try {
        return SourceZone::parse(sourceTimezone).display(value);
    } catch (const Error &) {
        return value.display();
    }
}

} // namespace tidemark
