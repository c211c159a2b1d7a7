// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/rowbatch.h"

#include <QString>
#include <cstdint>
#include <string_view>

namespace tidemark {

// Helpers for the write paths' rule that a value the target cannot hold exactly is a rejected
// row, never a silent change (NaN that SQLite would store as NULL, digits a REAL would round).

// A cell as a rejection message shows it: text quoted and cut, a blob as its size and first bytes.
QString describeCell(const RowBatch &batch, const Cell &cell);

// "column 'name': value 'text' <reason>", the message of a value refused before the target saw it.
QString inexactValue(const QString &column, const RowBatch &batch, const Cell &cell, const QString &reason);

// True when the int64 is a double exactly (|value| <= 2^53, or a multiple of a power of two).
bool integerFitsDouble(std::int64_t value);

// True when `text` is a decimal number literal ("12", "-0.5", "1e30", surrounding spaces allowed).
bool isDecimalLiteral(std::string_view text);

// True when the decimal literal `text` survives a trip through a double: the shortest spelling of
// the nearest double has the same value ("0.1" does; "0.10000000000000000001" and
// "12345678901234567890" do not).
bool decimalFitsDouble(std::string_view text);
// True when the decimal literal `text` is a whole number an int64 holds, spelled without exponent.
bool decimalFitsInt64(std::string_view text);

} // namespace tidemark
