// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"
#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"
#include "model/engine/verifier.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace tidemark {
struct WatermarkChange;
}

namespace tidemark::cli {

// Readable (non-JSON) output for operators at a terminal. Not a contract: scripts use --json.

// Pads each column to its widest cell, two spaces apart; one line per row.
QString alignColumns(const QList<QStringList> &rows);

QString connectionsText(const QList<ConnectionSpec> &connections);
QString tablesText(const QList<TableSpec> &tables);
// One line per iteration and a summary line.
QString runText(const RunRecord &run);
// Runs newest first, each followed by its iterations.
QString historyText(const QList<RunRecord> &runs);
QString verifyText(const VerifyResult &result);
// A table's audit trail, one line per position change.
QString changesText(const QList<WatermarkChange> &changes);

} // namespace tidemark::cli
