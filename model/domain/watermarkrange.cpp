// SPDX-License-Identifier: MIT
#include "model/domain/watermarkrange.h"

#include "model/common/error.h"

#include <QStringList>

namespace tidemark {

WatermarkRangeText WatermarkRangeText::parse(const QString &text) {
    const QStringList ends = text.split(QStringLiteral(".."));
    if (ends.size() != 2 || ends[0].trimmed().isEmpty() || ends[1].trimmed().isEmpty())
        throw ValidationError(
            QStringLiteral("--range: '%1' is not FROM..TO (two watermarks, both included, e.g. "
                           "2026-01-01..2026-02-01 or 1000..2000)")
                .arg(text));
    return {ends[0].trimmed(), ends[1].trimmed()};
}

} // namespace tidemark
