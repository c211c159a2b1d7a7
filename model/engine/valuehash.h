// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/connectors/rowbatch.h"
#include "model/connectors/rowchecksum.h"

namespace tidemark {

// How one column's values are compared. Within one engine a value reads back as it was written,
// so cells compare exactly. Between engines a timestamp or a decimal is spelled by the engine
// that holds it, so those compare by meaning: the instant (to the microsecond, zone applied),
// the decimal as PostgreSQL's numeric spells it (scale included). Verify and reconcile compare
// a source's rows and keys with the target's this way.
enum class ValueCompare { Exact, Instant, Decimal };

ValueCompare valueCompare(const ColumnInfo &source, const ColumnInfo &target, bool sameEngine);
// The canonical text's rule for the same comparison (model/connectors/rowchecksum.h).
ChecksumCompare checksumCompare(ValueCompare how);

// A cell's hash chained onto `seed`: two cells hash alike when they compare equal under `how`
// (NULL, 0, 0.0, '' and x'' all differ; doubles bit for bit, one NaN).
quint64 hashCell(const RowBatch &batch, const Cell &cell, ValueCompare how, quint64 seed);

} // namespace tidemark
