// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/domain/connectionspec.h"
#include "model/domain/tablespec.h"

#include <QString>
#include <QStringList>

namespace tidemark {

class Workspace;

// What a user asked for when adding or editing a table; text fields as typed.
struct TableDraft {
    TableSpec spec;               // connections, tables, columns, mode, flags, lookback text
    QString initialWatermarkText; // empty = none (full load on the first run)
    // The watermark type the user names (`--watermark-type`); None = detect from the source. Only
    // decides for a SQLite column that holds no value yet; otherwise it must match the values.
    WatermarkType watermarkType = WatermarkType::None;
};

// The rules that need no database: lookback needs merge, overwrite may omit the watermark,
// max skipped >= 0, ... Returns one message per broken rule (empty = fine). The GUI shows
// these while the user types; the CLI gets the first one from prepareTable().
QStringList checkTableRules(const TableSpec &spec);

// Validates a draft against the workspace and the live source: connections exist, the source
// table exists, the watermark/tiebreak/key columns exist, the watermark column has a usable
// type (detected and filled in), merge has keys (--key, else the source's primary key, filled
// in), lookback parses for the type, the initial watermark parses (spelled like the column).
// Returns the spec ready for Workspace::addTable/updateTable. Throws ValidationError whose
// message names the table, column or connection at fault.
TableSpec prepareTable(Workspace &workspace, const TableDraft &draft);

// Columns of a source table, for the GUI's pickers: each with its detected watermark type.
struct SourceColumn {
    ColumnInfo column;
    WatermarkType watermarkType = WatermarkType::None;
};
QList<SourceColumn> describeSourceColumns(Workspace &workspace, const QString &connection,
                                          const QString &table);
// The tables of a connection, spelled as `--source CONN:TABLE` takes them.
QStringList listSourceTables(Workspace &workspace, const QString &connection);
// Connects and counts the tables: the window's "test connection".
int countTables(const ConnectionSpec &spec);
// Adds a connection after the checks `connection add` makes (a PostgreSQL conninfo must parse and
// must not hold a password); returns its id. A non-empty `password` goes to the system keychain
// (never the workspace); all or nothing: when the keychain refuses it, the connection is removed
// again and the Error says so.
qint64 addCheckedConnection(Workspace &workspace, const ConnectionSpec &spec, const QString &password = {});
// Changes a connection (found by spec.id; it may be renamed) after the same checks. A non-empty
// `password` is stored first, so a refusing keychain changes nothing.
void updateCheckedConnection(Workspace &workspace, const ConnectionSpec &spec, const QString &password = {});

} // namespace tidemark
