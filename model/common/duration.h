// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark {

// "500ms", "30s", "15m", "2h", "1d" (a bare number is seconds), as every duration option takes
// it, in milliseconds. Throws ValidationError naming `what` (the option) and the text.
qint64 parseDurationMs(const QString &text, const QString &what);
// The shortest of those spellings for `ms` ("500ms", "90s", "15m", "2h").
QString durationText(qint64 ms);
// "3s", "4 min", "2 h", "5 days": how long ago, for people.
QString formatAge(qint64 seconds);

} // namespace tidemark
