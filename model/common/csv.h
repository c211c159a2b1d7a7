// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>

namespace tidemark {

// RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
QString csvField(const QString &text);
// One record: the fields quoted where needed, joined by commas, ended by CRLF.
QString csvRecord(const QStringList &fields);
// ISO-8601 in local time with its offset ("2026-11-30T04:00:00.000+01:00", "+00:00" in UTC);
// empty when invalid.
QString csvTime(const QDateTime &time);

} // namespace tidemark
