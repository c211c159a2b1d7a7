// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/domain/connectionspec.h"
#include "model/domain/tablespec.h"

#include <QString>
#include <QStringList>

namespace tidemark {

class RemoteTask;
class Workspace;

// What a user asked for when adding or editing a table; text fields as typed.
struct TableDraft {
    TableSpec spec;               // connections, tables, columns, mode, flags, lookback text
    QString initialWatermarkText; // empty = none (full load on the first run)
    // The watermark type the user names (`--watermark-type`); None = detect from the source. Only
    // decides for a SQLite column that holds no value yet; otherwise it must match the values.
    WatermarkType watermarkType = WatermarkType::None;
};

// Who reads a refusal: the CLI's user knows its options (`--watermark`), the window's user the
// dialog's fields ("the watermark column"). Same rules, two wordings.
enum class Wording { Cli, Window };

// The rules that need no database: lookback needs merge, overwrite may omit the watermark,
// max skipped >= 0, ... Returns one message per broken rule (empty = fine). The GUI shows
// these while the user types; the CLI gets the first one from prepareTable().
QStringList checkTableRules(const TableSpec &spec, Wording wording = Wording::Cli);

// Validates a draft against the workspace and the live source: connections exist, the source
// table exists, the watermark/tiebreak/key columns exist, the watermark column has a usable
// type (detected and filled in), merge has keys (--key, else the source's primary key, filled
// in), lookback parses for the type, the initial watermark parses (spelled like the column).
// Returns the spec ready for Workspace::addTable/updateTable. Throws ValidationError whose
// message names the table, column or connection at fault. With a `task` (the window runs it
// on a RemoteWorkQueue) a cancel interrupts the source's statement in progress.
TableSpec prepareTable(Workspace &workspace, const TableDraft &draft, Wording wording = Wording::Cli,
                       RemoteTask *task = nullptr);

// Why a run refuses a target table that exists without source column `column` (and the table
// does not add new columns): said the same at Add (prepareTable) as at the run.
QString missingTargetColumnMessage(const TableSpec &spec, const QString &column);
// The columns of a target a run creates: the source's, except that the watermark column takes the
// watermark's type, whatever the source declares (SQLite: TEXT, NUMERIC, DATE or nothing), so every
// operator action (backfill --delete-newer, the merge rule) compares it as a timestamp or an
// integer. A SQLite timestamp watermark becomes one with time zone (SQLite's mean UTC and may carry
// an offset), unless its declared type says it has none (how a PostgreSQL timestamp came in). Zero
// dates copied as NULL need a column that takes NULL, whatever the source declares.
QList<ColumnInfo> createdTargetColumns(const TableSpec &spec, const TableSchema &source);
// Why a run refuses the existing `target` table of `spec`, or empty: a source column it lacks
// (unless the table adds new columns), or a column that would change its source column's values
// (columnLoss). Said the same at Add (prepareTable) as at the run.
QString targetColumnsProblem(const TableSpec &spec, const TableSchema &source, const TableSchema &target);

// Adds a connection after the checks `connection add` makes (a PostgreSQL conninfo must parse and
// must not hold a password); returns its id. A non-empty `password` goes to the system keychain
// (never the workspace); all or nothing: when the keychain refuses it, the connection is removed
// again and the Error says so.
qint64 addCheckedConnection(Workspace &workspace, const ConnectionSpec &spec, const QString &password = {});
// Changes a connection (found by spec.id; it may be renamed) after the same checks. A non-empty
// `password` is stored first, so a refusing keychain changes nothing.
void updateCheckedConnection(Workspace &workspace, const ConnectionSpec &spec, const QString &password = {});

} // namespace tidemark
