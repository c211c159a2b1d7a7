// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/domain/connectionspec.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace tidemark {

class RemoteTask;

// Browsing a connection's catalog for people choosing a table (the window's Add Table and
// Connections dialogs; the CLI checks the same things through prepareTable). Every function
// connects on the calling thread — run them on a RemoteWorkQueue — through `task`, so a cancel
// interrupts the statement in progress. They throw Error naming the connection, table or file.

// A column of a source table with the watermark type its values allow.
struct SourceColumn {
    ColumnInfo column;
    WatermarkType watermarkType = WatermarkType::None;
};

// The tables of a connection, spelled as the CLI's `--source CONN:TABLE` takes them.
QStringList listSourceTables(const ConnectionSpec &connection, RemoteTask &task);
// The columns of `table` with their types, nullability, index and watermark type (detecting it
// may scan the column: checked for a cancel between columns).
QList<SourceColumn> describeSourceColumns(const ConnectionSpec &connection, const QString &table,
                                          RemoteTask &task);

// What "Test" found: the connection answers and holds this many tables.
struct ConnectionCheck {
    int tables = 0;
};
// Connects and lists the tables. A SQLite file that does not exist is refused in plain words
// (testing never creates it).
ConnectionCheck testConnection(const ConnectionSpec &connection, RemoteTask &task);

} // namespace tidemark
