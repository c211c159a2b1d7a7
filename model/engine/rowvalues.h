// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/rowbatch.h"
#include "model/domain/watermark.h"

#include <QString>
#include <QStringList>
#include <QVariant>

namespace tidemark {

// The watermark a cell holds: integer cells are integer watermarks, text cells are timestamps
// kept in the source's spelling. Throws Error for anything else.
Watermark watermarkFromCell(const RowBatch &batch, const Cell &cell);

// A cell as a QVariant (for tiebreak positions and messages; not for the row path).
QVariant cellToVariant(const RowBatch &batch, const Cell &cell);

// {"column": value, ...} for the listed columns of one row; blobs as hex.
QString rowToJson(const RowBatch &batch, int row, const QStringList &batchColumns,
                  const QStringList &columns);

} // namespace tidemark
