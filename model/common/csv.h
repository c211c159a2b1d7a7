// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QTimeZone>

namespace tidemark {

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
QString csvField(const QString &text);
// One record: the fields quoted where needed, joined by commas, ended by CRLF.
QString csvRecord(const QStringList &fields);
// ISO-8601 in `zone` with its offset ("2026-11-30T04:00:00.000+01:00", "+00:00" in UTC), so
// the file reads as the window showed it and still names the instant; empty when invalid.
QString csvTime(const QDateTime &time, const QTimeZone &zone);
// A duration in seconds, to the millisecond ("12.345"): the unit goes in the column's header.
QString csvSeconds(qint64 milliseconds);

} // namespace tidemark
