// SPDX-License-Identifier: MIT
#pragma once

#include "model/engine/sourcecatalog.h"

#include <QList>
#include <QString>
#include <optional>

namespace tidemark {

// The watermark column a new table starts with, and why, in the user's words
// ("updated_at: indexed timestamp, never null").
struct WatermarkSuggestion {
    QString column;
    QString reason;
};

// Ranks the columns that can order a watermark (timestamps and integers; SourceColumn's
// detected type) and returns the best, or nullopt when none can. Never null comes first: a row
// whose watermark is NULL is never copied. Then a name that says the row changed (updated_at,
// modified): only such a column brings changed rows, not just new ones. Then indexed: each run
// reads a range of the column, which an index serves without scanning the table. Then
// timestamps before integers, other names before one that says the row was made, and a column
// outside the primary key before a key column (a key only grows with new rows).
std::optional<WatermarkSuggestion> suggestWatermark(const QList<SourceColumn> &columns);

// What a column offers as a watermark ("indexed timestamp, never null"), for any column the
// user picks; empty when it cannot order one.
QString watermarkQualities(const SourceColumn &column);

} // namespace tidemark
