// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"

namespace tidemark {

// "src:orders → dst:orders_2024": how the window names a table wherever two could be confused
// (two tables may copy one source table to two targets): status messages, confirmations, undo
// commands and dialog titles.
inline QString tableName(const TableSpec &spec) {
    return spec.sourceDisplay() + QStringLiteral(" → ") + spec.targetDisplay();
}

} // namespace tidemark
