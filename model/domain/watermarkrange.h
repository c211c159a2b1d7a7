// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark {

// The range of `backfill ID --range FROM..TO`, both ends included, as typed (ISO-8601 or integers):
// the iteration reads each end against the source column's own spelling (parseUserWatermark).
struct WatermarkRangeText {
    QString from;
    QString to;

    QString display() const { return from + QStringLiteral("..") + to; }
    // ValidationError naming --range unless `text` is two values around one "..".
    static WatermarkRangeText parse(const QString &text);
};

} // namespace tidemark
