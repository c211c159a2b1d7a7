// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QString>
#include <QTimeZone>
#include <memory>

namespace tidemark {

// A cron expression as docs/design.md's schedule contract defines it: 5 fields (minute hour
// day-of-month month day-of-week) or 6 with a leading seconds field; lists, ranges, steps,
// month and weekday names, @hourly/@daily/@weekly/@monthly (and @yearly/@annually,
// @midnight); day-of-month and day-of-week both restricted = either matches (Vixie).
// Evaluated in an IANA zone: a local time that does not exist (spring forward) fires at the
// first instant after it, a repeated local time (fall back) fires once.
//
// Precisely, every matching wall-clock time W fires once, at:
// - the instant W names, when it exists once;
// - its first occurrence (the summer-time one), when a fall back repeats it. Nothing fires on the
//   second pass through repeated wall times, so `*/15 * * * *` is silent for the repeated hour
//   (Paris, 25 Oct 2026: 02:45 CEST, then 03:00 CET; never 02:00-02:45 CET);
// - the end of the gap (the transition instant), when a spring forward skips it. All matches
//   inside one gap collapse into that one fire, which is also the fire of the first wall time
//   after the gap if it matches: `30 2 * * *` and `*/15 * * * *` both fire at 03:00 CEST
//   (01:00Z) on Paris's spring-forward day, `*/15` then at 03:15.
// So fire times never go backwards and a wall time never fires twice.
//
// Quartz: every valid Quartz expression has `?` in a day field (or a 7th, year field), both
// refused with a hint, which is how its 1-7 weekday numbering is kept out; a 6-field expression's
// weekdays are cron's (0-7, 0 and 7 Sunday), as in Spring's 6-field form. `L`, `W` and `#` are
// refused too.
class CronExpression {
public:
    // Throws ValidationError with one line naming the field and the text at fault
    // ("cron day-of-week: \"8\" is out of range 0-7"); Quartz's `?` and 1-7 weekdays are
    // refused with a hint.
    static CronExpression parse(const QString &text);

    // The first fire time strictly after `after`, as a UTC instant; invalid when the
    // expression never fires again (e.g. "0 0 30 2 *"; searched 400 years, the Gregorian
    // cycle) or `after` is invalid. Skips by field, never second by second. Throws
    // ValidationError for an invalid zone.
    QDateTime nextAfter(const QDateTime &after, const QTimeZone &zone) const;

    QString text() const;
    bool hasSeconds() const;
    // For people: "every weekday at 09:00", "every 5 minutes", "at 02:30 on day 1 of the month".
    QString describe() const;

    CronExpression(const CronExpression &);
    CronExpression &operator=(const CronExpression &);
    ~CronExpression();

private:
    struct Fields;
    explicit CronExpression(std::unique_ptr<Fields> fields);
    std::unique_ptr<Fields> m_fields;
};

} // namespace tidemark
