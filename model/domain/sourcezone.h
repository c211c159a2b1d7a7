// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/watermark.h"

#include <QString>
#include <QTimeZone>

namespace tidemark {

// The zone whose wall-clock time a timestamp watermark without zone holds (TableSpec::
// sourceTimezone: SQLite text without offset, PostgreSQL `timestamp without time zone`, MariaDB
// `DATETIME`). Such a value is kept and compared as the source spells it; this class relates it
// to instants. Wall-clock micros are the naive value read as if it were UTC (Watermark::micros).
// See docs/design.md, "Naive timestamps".
class SourceZone {
public:
    SourceZone() = default; // UTC
    // ValidationError naming `option` unless `name` is empty or "UTC" (UTC), or a zone the
    // system's time zone database knows ("Europe/Berlin", "UTC+02:00").
    static SourceZone parse(const QString &name, const QString &option = QStringLiteral("--source-timezone"));

    QString name() const { return m_name.isEmpty() ? QStringLiteral("UTC") : m_name; }
    bool isUtc() const { return m_name.isEmpty(); }
    // The wall-clock time in this zone at the instant `utcMicros`.
    qint64 wallMicros(qint64 utcMicros) const;
    // The zone's offset from UTC (seconds) at a wall-clock time; in an hour the clocks repeat,
    // the offset of its first pass.
    int offsetAtWall(qint64 wallMicros) const;
    // How far the clocks went back at a transition whose repeated wall-clock times hold `wall`
    // (micros; one hour for the end of summer time); 0 outside every repeated interval.
    qint64 repeatStepAt(qint64 wallMicros) const;
    // Whether the zone ever turns its clocks back (summer time, mostly): a naive watermark then
    // repeats an hour of values, and a copy must reach back over it (needs merge).
    bool repeatsWallTimes() const;

    // `value` typed by a user (`--from`, `--range`, an initial watermark) for a column spelled
    // like `spellingOf`: a text naming its zone is moved to this zone's wall clock when the
    // column holds none; otherwise as parseUserWatermark.
    Watermark parseTyped(WatermarkType type, const QString &text, const Watermark &spellingOf,
                         const QString &what) const;
    // A naive timestamp as an instant, ISO-8601 with this zone's offset
    // ("2026-10-25T02:30:00+02:00", the first pass in a repeated hour); anything else as
    // Watermark::display().
    QString display(const Watermark &value) const;

private:
    QString m_name;
    QTimeZone m_zone{QTimeZone::utc()};
};

// SourceZone::display in the zone named `sourceTimezone` (TableSpec::sourceTimezone); a name
// this system does not know shows the value as Watermark::display(). Never throws.
QString shownWatermark(const Watermark &value, const QString &sourceTimezone);

} // namespace tidemark
