// SPDX-License-Identifier: MIT
#include "model/domain/schedulespec.h"

#include "model/common/duration.h"
#include "model/common/error.h"

namespace tidemark {

qint64 parseDurationSeconds(const QString &text, const QString &what) {
    const qint64 ms = parseDurationMs(text, what);
    if (ms % 1000 != 0)
        throw ValidationError(QStringLiteral("%1: '%2' is not a whole number of seconds").arg(what, text));
    return ms / 1000;
}

} // namespace tidemark
