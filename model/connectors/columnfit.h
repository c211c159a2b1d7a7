// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"

#include <QString>

namespace tidemark {

// Why an existing PostgreSQL or MySQL/MariaDB target column cannot hold every value its source
// column may hold without changing it, or an empty string when it can. Only the losses a server
// makes silently are named, by the declared types alone: fraction digits of a second cut, digits
// after a decimal point rounded, a decimal or a double put in a float or an integer, a time of day
// dropped by a date. Values a server refuses aloud (a too long text, an integer or a decimal out of
// range) are left to the run, which fails naming the row: a SQLite INTEGER source column often
// goes into an `integer` one whose values all fit. A SQLite target keeps what the writer sends
// (its writer refuses any value SQLite would change).
// Example: "it keeps 2 digits after the point where the source has 4, so values would be rounded".
QString columnLoss(const ColumnInfo &source, const ColumnInfo &target);

} // namespace tidemark
