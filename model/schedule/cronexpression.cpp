// SPDX-License-Identifier: MIT
#include "model/schedule/cronexpression.h"

#include "model/common/error.h"

#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <optional>

namespace tidemark {

namespace {

// One field of the expression: its allowed values as bits, and whether it counts as restricted
// for Vixie's day rule (its text does not start with `*`).
struct FieldSet {
    std::uint64_t bits = 0;
    bool restricted = false;
    QString text;

    bool has(int value) const { return (bits >> value) & 1U; }
    // The smallest value >= from in the set, or -1.
    int nextFrom(int from) const {
        if (from >= 64) {
            return -1;
        }
        const std::uint64_t rest = bits & (~std::uint64_t(0) << from);
        return rest == 0 ? -1 : std::countr_zero(rest);
    }
    int count() const { return std::popcount(bits); }
    int first() const { return nextFrom(0); }
};

enum FieldIndex { Second, Minute, Hour, DayOfMonth, Month, DayOfWeek, FieldCount };

struct FieldRule {
    const char *name;
    int min;
    int max;
};

constexpr std::array<FieldRule, FieldCount> fieldRules{{
    {"second", 0, 59},
    {"minute", 0, 59},
    {"hour", 0, 23},
    {"day-of-month", 1, 31},
    {"month", 1, 12},
    {"day-of-week", 0, 7},
}};

const QStringList monthNames{"jan", "feb", "mar", "apr", "may", "jun",
                             "jul", "aug", "sep", "oct", "nov", "dec"};
const QStringList weekdayNames{"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

[[noreturn]] void refuse(FieldIndex field, const QString &culprit, const QString &why) {
    throw ValidationError(
        QStringLiteral("cron %1: \"%2\" %3").arg(QLatin1String(fieldRules[field].name), culprit, why));
}

class FieldParser {
public:
    explicit FieldParser(FieldIndex field)
        : m_field(field)
        , m_rule(fieldRules[field]) {}

    FieldSet parse(const QString &text) const {
        refuseQuartz(text);
        FieldSet set;
        set.text = text;
        set.restricted = !text.startsWith(QLatin1Char('*'));
        for (const QString &item : text.split(QLatin1Char(','))) {
            if (item.isEmpty()) {
                refuse(m_field, text, QStringLiteral("has an empty list item"));
            }
            set.bits |= parseItem(item);
        }
        if (m_field == DayOfWeek && set.has(7)) {
            set.bits = (set.bits & ~(std::uint64_t(1) << 7)) | 1U; // 7 is Sunday, as 0
        }
        return set;
    }

private:
    void refuseQuartz(const QString &text) const {
        if (text.contains(QLatin1Char('?'))) {
            refuse(m_field, text,
                   QStringLiteral("is Quartz syntax, not cron: write * for any day (cron weekdays are 0-7, "
                                  "0 and 7 both Sunday)"));
        }
        if (text.contains(QLatin1Char('#'))) {
            refuse(m_field, text,
                   QStringLiteral("is Quartz syntax (nth weekday of the month), which cron does not have"));
        }
        static const QRegularExpression lastOrWeekday(QStringLiteral("^(\\d*l|l-?\\d*|\\d+w|lw)$"),
                                                      QRegularExpression::CaseInsensitiveOption);
        for (const QString &item : text.split(QLatin1Char(','))) {
            if (lastOrWeekday.match(item).hasMatch()) {
                refuse(m_field, item,
                       QStringLiteral("is Quartz syntax (L = last, W = nearest weekday), which cron does "
                                      "not have"));
            }
        }
    }

    std::uint64_t parseItem(const QString &item) const {
        const QStringList baseAndStep = item.split(QLatin1Char('/'));
        if (baseAndStep.size() > 2) {
            refuse(m_field, item, QStringLiteral("has more than one /"));
        }
        const QString &base = baseAndStep[0];
        const int lastValue = m_field == DayOfWeek ? 6 : m_rule.max; // 7 only when written
        int low = m_rule.min;
        int high = lastValue;
        if (base == QLatin1String("*")) {
            // the whole range
        } else if (const qsizetype dash = base.indexOf(QLatin1Char('-')); dash >= 0) {
            low = value(base.left(dash), item, false);
            high = value(base.mid(dash + 1), item, true);
            if (low > high) {
                refuse(m_field, item,
                       QStringLiteral("is a range that runs backwards; write it as a list of two ranges"));
            }
        } else {
            low = value(base, item, false);
            // `5/10` steps from 5 to the end of the range, as Vixie and cronie read it.
            high = baseAndStep.size() == 2 ? std::max(low, lastValue) : low;
        }
        int step = 1;
        if (baseAndStep.size() == 2) {
            const QString &stepText = baseAndStep[1];
            bool ok = false;
            step = isDigits(stepText) ? stepText.toInt(&ok) : 0;
            if (!ok || step < 1) {
                refuse(m_field, item, QStringLiteral("has a step that is not a positive number"));
            }
            if (step > m_rule.max - m_rule.min + 1) {
                refuse(
                    m_field, item,
                    QStringLiteral("has a step larger than the range %1-%2").arg(m_rule.min).arg(m_rule.max));
            }
        }
        std::uint64_t bits = 0;
        for (int v = low; v <= high; v += step) {
            bits |= std::uint64_t(1) << v;
        }
        return bits;
    }

    static bool isDigits(const QString &text) {
        return !text.isEmpty() && std::all_of(text.begin(), text.end(), [](QChar c) {
            return c >= QLatin1Char('0') && c <= QLatin1Char('9');
        });
    }

    int value(const QString &token, const QString &item, bool rangeEnd) const {
        if (isDigits(token)) {
            bool ok = false;
            const int v = token.size() <= 4 ? token.toInt(&ok) : -1;
            if (!ok || v < m_rule.min || v > m_rule.max) {
                refuse(m_field, token,
                       QStringLiteral("is out of range %1-%2").arg(m_rule.min).arg(m_rule.max));
            }
            return v;
        }
        const QString name = token.toLower();
        if (m_field == Month && monthNames.contains(name)) {
            return int(monthNames.indexOf(name)) + 1;
        }
        if (m_field == DayOfWeek && weekdayNames.contains(name)) {
            const int v = int(weekdayNames.indexOf(name));
            return v == 0 && rangeEnd ? 7 : v; // `mon-sun` ends on Sunday
        }
        if (token.isEmpty()) {
            refuse(m_field, item, QStringLiteral("has an empty value"));
        }
        if (m_field == Month) {
            refuse(m_field, token, QStringLiteral("is neither a number 1-12 nor a month name jan-dec"));
        }
        if (m_field == DayOfWeek) {
            refuse(m_field, token, QStringLiteral("is neither a number 0-7 nor a weekday name sun-sat"));
        }
        refuse(m_field, token, QStringLiteral("is not a number %1-%2").arg(m_rule.min).arg(m_rule.max));
    }

    FieldIndex m_field;
    FieldRule m_rule;
};

QString expandMacro(const QString &text) {
    const QString name = text.toLower();
    if (name == QLatin1String("@yearly") || name == QLatin1String("@annually")) {
        return QStringLiteral("0 0 1 1 *");
    }
    if (name == QLatin1String("@monthly")) {
        return QStringLiteral("0 0 1 * *");
    }
    if (name == QLatin1String("@weekly")) {
        return QStringLiteral("0 0 * * 0");
    }
    if (name == QLatin1String("@daily") || name == QLatin1String("@midnight")) {
        return QStringLiteral("0 0 * * *");
    }
    if (name == QLatin1String("@hourly")) {
        return QStringLiteral("0 * * * *");
    }
    if (name == QLatin1String("@reboot")) {
        throw ValidationError(QStringLiteral("cron: \"@reboot\" is not a schedule (the runner has no boot to "
                                             "fire at); use a time, e.g. @daily or \"*/5 * * * *\""));
    }
    throw ValidationError(QStringLiteral("cron: \"%1\" is not one of @hourly, @daily, @midnight, @weekly, "
                                         "@monthly, @yearly, @annually")
                              .arg(text));
}

// Wall-clock ("naive") times are seconds since 1970-01-01T00:00 of the zone's calendar.
constexpr qint64 secondsPerDay = 86400;
const qint64 epochJulianDay = QDate(1970, 1, 1).toJulianDay();

qint64 floorDiv(qint64 a, qint64 b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

QDate dateOf(qint64 wall) {
    return QDate::fromJulianDay(epochJulianDay + floorDiv(wall, secondsPerDay));
}

qint64 wallOf(const QDate &date, int secondOfDay) {
    return (date.toJulianDay() - epochJulianDay) * secondsPerDay + secondOfDay;
}

QDateTime utcAt(qint64 secs) {
    return QDateTime::fromSecsSinceEpoch(secs, Qt::UTC);
}

// describe(): plain English for the common shapes, the field texts for the rest.
class Description {
public:
    explicit Description(const std::array<FieldSet, FieldCount> &set)
        : m_set(set) {}

    QString text() const {
        const QString days = dayPhrase();
        const QString months = monthPhrase().isEmpty() ? QString() : QStringLiteral(", ") + monthPhrase();
        const QStringList times = clockTimes();
        if (times.isEmpty()) {
            return repeatingTime() + (days.isEmpty() ? QString() : QStringLiteral(", ") + days) + months;
        }
        const QString at = QStringLiteral("at ") + joined(times);
        if (days.isEmpty()) {
            return QStringLiteral("every day ") + at + months;
        }
        if (isAll(DayOfMonth)) {
            return days + QLatin1Char(' ') + at + months;
        }
        if (isAll(DayOfWeek) && m_set[DayOfMonth].count() == 1 && m_set[Month].count() == 1) {
            return QStringLiteral("%1 on %2 %3")
                .arg(at)
                .arg(m_set[DayOfMonth].first())
                .arg(monthName(m_set[Month].first()));
        }
        return at + QLatin1Char(' ') + days + months;
    }

private:
    bool isAll(FieldIndex field) const { return m_set[field].text == QLatin1String("*"); }

    // `*/N` -> N, else 0.
    int everyStep(FieldIndex field) const {
        const QString &text = m_set[field].text;
        return text.startsWith(QLatin1String("*/")) ? text.mid(2).toInt() : 0;
    }

    QList<int> values(FieldIndex field) const {
        QList<int> out;
        for (int v = m_set[field].first(); v >= 0; v = m_set[field].nextFrom(v + 1)) {
            out << v;
        }
        return out;
    }

    static QString joined(const QStringList &items) {
        if (items.size() <= 1) {
            return items.value(0);
        }
        return QStringList(items.mid(0, items.size() - 1)).join(QStringLiteral(", ")) +
               QStringLiteral(" and ") + items.last();
    }

    static QString monthName(int month) {
        static const QStringList names{"January", "February", "March",     "April",   "May",      "June",
                                       "July",    "August",   "September", "October", "November", "December"};
        return names.value(month - 1);
    }

    static QString weekdayName(int day) {
        static const QStringList names{"Sunday",   "Monday", "Tuesday", "Wednesday",
                                       "Thursday", "Friday", "Saturday"};
        return names.value(day);
    }

    // Up to four exact times of day ("09:00", "08:15:30"), or none when the time repeats more.
    QStringList clockTimes() const {
        const int combinations = m_set[Second].count() * m_set[Minute].count() * m_set[Hour].count();
        if (combinations > 4) {
            return {};
        }
        QStringList out;
        for (int hour : values(Hour)) {
            for (int minute : values(Minute)) {
                for (int second : values(Second)) {
                    QString time = QStringLiteral("%1:%2")
                                       .arg(hour, 2, 10, QLatin1Char('0'))
                                       .arg(minute, 2, 10, QLatin1Char('0'));
                    if (second != 0) {
                        time += QStringLiteral(":%1").arg(second, 2, 10, QLatin1Char('0'));
                    }
                    out << time;
                }
            }
        }
        return out;
    }

    QString repeatingTime() const {
        const bool onTheMinute = m_set[Second].text == QLatin1String("0");
        const bool everyHour = isAll(Hour);
        if (isAll(Second) && isAll(Minute) && everyHour) {
            return QStringLiteral("every second");
        }
        if (everyStep(Second) > 0 && isAll(Minute) && everyHour) {
            return QStringLiteral("every %1 seconds").arg(everyStep(Second));
        }
        if (onTheMinute && isAll(Minute)) {
            return everyHour ? QStringLiteral("every minute")
                             : QStringLiteral("every minute during hours %1").arg(m_set[Hour].text);
        }
        if (onTheMinute && everyStep(Minute) > 0) {
            const QString every = QStringLiteral("every %1 minutes").arg(everyStep(Minute));
            return everyHour ? every : every + QStringLiteral(" during hours ") + m_set[Hour].text;
        }
        if (onTheMinute && everyHour && m_set[Minute].count() == 1) {
            const int minute = m_set[Minute].first();
            return minute == 0 ? QStringLiteral("every hour")
                               : QStringLiteral("every hour at minute %1").arg(minute);
        }
        // Whatever else: the field texts, read aloud.
        QString out = QStringLiteral("at %1 of %2").arg(fieldWords(Minute), fieldWords(Hour));
        return onTheMinute ? out : QStringLiteral("at %1 of ").arg(fieldWords(Second)) + out.mid(3);
    }

    QString fieldWords(FieldIndex field) const {
        const QLatin1String name(fieldRules[field].name);
        return isAll(field) ? QStringLiteral("every %1").arg(name)
                            : QStringLiteral("%1 %2").arg(name, m_set[field].text);
    }

    QString weekdayPhrase() const {
        const QList<int> days = values(DayOfWeek);
        if (days == QList<int>{1, 2, 3, 4, 5}) {
            return QStringLiteral("every weekday");
        }
        QStringList names;
        for (int day : days) {
            names << weekdayName(day);
        }
        // Sunday last, as people say "Saturday and Sunday".
        if (days.size() > 1 && days.first() == 0) {
            names.append(names.takeFirst());
        }
        return QStringLiteral("every ") + joined(names);
    }

    QString dayOfMonthPhrase() const {
        const QList<int> days = values(DayOfMonth);
        if (days.size() == 1) {
            return QStringLiteral("on day %1 of the month").arg(days.first());
        }
        if (days.size() <= 4) {
            QStringList numbers;
            for (int day : days) {
                numbers << QString::number(day);
            }
            return QStringLiteral("on days %1 of the month").arg(joined(numbers));
        }
        return QStringLiteral("on days %1 of the month").arg(m_set[DayOfMonth].text);
    }

    QString dayPhrase() const {
        if (isAll(DayOfMonth) && isAll(DayOfWeek)) {
            return {};
        }
        if (isAll(DayOfMonth)) {
            return weekdayPhrase();
        }
        if (isAll(DayOfWeek)) {
            return dayOfMonthPhrase();
        }
        // Vixie: both restricted = either; otherwise both must match.
        const bool either = m_set[DayOfMonth].restricted && m_set[DayOfWeek].restricted;
        return dayOfMonthPhrase() + (either ? QStringLiteral(" or ") : QStringLiteral(" if also ")) +
               weekdayPhrase();
    }

    QString monthPhrase() const {
        if (isAll(Month)) {
            return {};
        }
        QStringList names;
        for (int month : values(Month)) {
            names << monthName(month);
        }
        return QStringLiteral("in ") + joined(names);
    }

    const std::array<FieldSet, FieldCount> &m_set;
};

} // namespace

struct CronExpression::Fields {
    QString text;
    bool hasSeconds = false;
    std::array<FieldSet, FieldCount> set;

    bool dayMatches(const QDate &date) const {
        const bool dom = set[DayOfMonth].has(date.day());
        const bool dow = set[DayOfWeek].has(date.dayOfWeek() % 7);
        // Vixie: both restricted = either matches; otherwise both must (an unrestricted one
        // matches every day unless it is a step like `*/2`).
        if (set[DayOfMonth].restricted && set[DayOfWeek].restricted) {
            return dom || dow;
        }
        return dom && dow;
    }

    // The first matching second of the day at or after `from`, or -1.
    int timeOfDayFrom(int from) const {
        const int fromHour = from / 3600;
        const int fromMinute = from / 60 % 60;
        for (int hour = set[Hour].nextFrom(fromHour); hour >= 0; hour = set[Hour].nextFrom(hour + 1)) {
            const int minuteStart = hour == fromHour ? fromMinute : 0;
            for (int minute = set[Minute].nextFrom(minuteStart); minute >= 0;
                 minute = set[Minute].nextFrom(minute + 1)) {
                const int second =
                    set[Second].nextFrom(hour == fromHour && minute == fromMinute ? from % 60 : 0);
                if (second >= 0) {
                    return hour * 3600 + minute * 60 + second;
                }
            }
        }
        return -1;
    }

    // The first matching wall time at or after `from` and before `limit`.
    std::optional<qint64> nextWall(qint64 from, qint64 limit) const {
        QDate date = dateOf(from);
        int secondOfDay = int(from - wallOf(date, 0));
        const QDate lastDate = dateOf(limit);
        while (date <= lastDate) {
            if (!set[Month].has(date.month())) {
                date = QDate(date.year(), date.month(), 1).addMonths(1);
                secondOfDay = 0;
                continue;
            }
            if (dayMatches(date)) {
                const int time = timeOfDayFrom(secondOfDay);
                if (time >= 0) {
                    const qint64 wall = wallOf(date, time);
                    return wall < limit ? std::optional(wall) : std::nullopt;
                }
            }
            date = date.addDays(1);
            secondOfDay = 0;
        }
        return std::nullopt;
    }
};

CronExpression::CronExpression(std::unique_ptr<Fields> fields)
    : m_fields(std::move(fields)) {}
CronExpression::CronExpression(const CronExpression &other)
    : m_fields(std::make_unique<Fields>(*other.m_fields)) {}
CronExpression &CronExpression::operator=(const CronExpression &other) {
    if (this != &other) {
        m_fields = std::make_unique<Fields>(*other.m_fields);
    }
    return *this;
}
CronExpression::~CronExpression() = default;

CronExpression CronExpression::parse(const QString &text) {
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) {
        throw ValidationError(QStringLiteral("cron: the expression is empty"));
    }
    const QString expanded = trimmed.startsWith(QLatin1Char('@')) ? expandMacro(trimmed) : trimmed;
    static const QRegularExpression spaces(QStringLiteral("\\s+"));
    QStringList parts = expanded.split(spaces);
    if (parts.size() == 7) {
        throw ValidationError(QStringLiteral("cron: \"%1\" has 7 fields, which is Quartz (seconds ... year); "
                                             "write 5 fields, or 6 with a leading seconds field, and no year")
                                  .arg(trimmed));
    }
    if (parts.size() != 5 && parts.size() != 6) {
        throw ValidationError(QStringLiteral("cron: \"%1\" has %2 fields; expected 5 (minute hour "
                                             "day-of-month month day-of-week) or 6 with a leading seconds "
                                             "field")
                                  .arg(trimmed)
                                  .arg(parts.size()));
    }
    auto fields = std::make_unique<Fields>();
    fields->text = trimmed;
    fields->hasSeconds = parts.size() == 6;
    if (!fields->hasSeconds) {
        parts.prepend(QStringLiteral("0"));
    }
    for (int i = 0; i < FieldCount; ++i) {
        fields->set[i] = FieldParser(FieldIndex(i)).parse(parts[i]);
    }
    return CronExpression(std::move(fields));
}

QDateTime CronExpression::nextAfter(const QDateTime &after, const QTimeZone &zone) const {
    if (!after.isValid()) {
        return {};
    }
    if (!zone.isValid()) {
        throw ValidationError(QStringLiteral("cron: the time zone is not valid"));
    }
    // Fires are whole seconds, so "strictly after" is "at or after the next whole second".
    qint64 cur = floorDiv(after.toMSecsSinceEpoch(), 1000) + 1;
    const bool hasTransitions = zone.hasTransitions();
    // The Gregorian calendar repeats every 400 years: nothing by then means never.
    const qint64 horizon = wallOf(dateOf(cur).addYears(400), 0) + secondsPerDay;
    qint64 wallFloor = std::numeric_limits<qint64>::min(); // wall times below it are used or no match

    for (int guard = 0; guard < 10000; ++guard) {
        const int offset = zone.offsetFromUtc(utcAt(cur));
        qint64 wallStart = cur + offset;
        if (hasTransitions) {
            const QTimeZone::OffsetData previous = zone.previousTransition(utcAt(cur + 1));
            if (previous.atUtc.isValid()) {
                const qint64 at = previous.atUtc.toSecsSinceEpoch();
                const int before = zone.offsetFromUtc(utcAt(at - 1));
                // Wall times skipped by a spring-forward gap that ends right now fire now.
                if (at == cur && offset > before && m_fields->nextWall(at + before, at + offset)) {
                    return utcAt(cur);
                }
                // After a fall back, the repeated wall times fired on their first pass.
                if (offset < before) {
                    wallStart = std::max(wallStart, at + before);
                }
            }
        }
        wallStart = std::max(wallStart, wallFloor);
        wallFloor = wallStart;
        const std::optional<qint64> wall = m_fields->nextWall(wallStart, horizon);
        if (!wall) {
            return {};
        }
        const QTimeZone::OffsetData next =
            hasTransitions ? zone.nextTransition(utcAt(cur)) : QTimeZone::OffsetData{};
        if (!next.atUtc.isValid() || *wall < next.atUtc.toSecsSinceEpoch() + offset) {
            return utcAt(*wall - offset);
        }
        // The match lies beyond this offset's span. Nothing matches before it in wall time, so
        // jump to two days before it (more than any offset change), or else to the transition.
        cur = std::max(next.atUtc.toSecsSinceEpoch(), *wall - offset - 2 * secondsPerDay);
    }
    return {};
}

QString CronExpression::text() const {
    return m_fields->text;
}

bool CronExpression::hasSeconds() const {
    return m_fields->hasSeconds;
}

QString CronExpression::describe() const {
    return Description(m_fields->set).text();
}

} // namespace tidemark
