// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QString>
#include <QTimeZone>
#include <memory>

namespace tidemark {

// A cron expression as DESIGN.md's schedule contract defines it: 5 fields (minute hour
// day-of-month month day-of-week) or 6 with a leading seconds field; lists, ranges, steps,
// month and weekday names, @hourly/@daily/@weekly/@monthly (and @yearly/@annually,
// @midnight); day-of-month and day-of-week both restricted = either matches (Vixie).
// Evaluated in an IANA zone: a local time that does not exist (spring forward) fires at the
// first instant after it, a repeated local time (fall back) fires once.
class CronExpression {
public:
    // Throws ValidationError with one line naming the field and the text at fault
    // ("cron day-of-week: \"8\" is out of range 0-7"); Quartz's `?` and 1-7 weekdays are
    // refused with a hint.
    static CronExpression parse(const QString &text);

    // The first fire time strictly after `after`, as a UTC instant; invalid when the
    // expression never fires again (e.g. "0 0 30 2 *").
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
