// SPDX-License-Identifier: MIT
#include "model/engine/sourcecatalog.h"

#include "model/common/error.h"
#include "model/engine/remotework.h"

#include <QDir>
#include <QFileInfo>

namespace tidemark {
namespace {

bool isSqliteFile(const ConnectionSpec &connection) {
    return connection.kind == ConnectionKind::Sqlite && connection.path != QLatin1String(":memory:") &&
           !connection.path.startsWith(QLatin1String("file:"));
}

void requireSqliteFile(const ConnectionSpec &connection) {
    if (isSqliteFile(connection) && !QFileInfo::exists(connection.path))
        throw Error(QStringLiteral("The SQLite file %1 of connection '%2' does not exist: as a source it has "
                                   "no tables; as a target the first run creates it.")
                        .arg(connection.path, connection.name));
}

} // namespace

QStringList listSourceTables(const ConnectionSpec &connection, RemoteTask &task) {
    requireSqliteFile(connection);
    QStringList names;
    for (const TableRef &ref : task.open(connection)->listTables())
        names << ref.display();
    return names;
}

QList<SourceColumn> describeSourceColumns(const ConnectionSpec &connection, const QString &table,
                                          RemoteTask &task) {
    requireSqliteFile(connection);
    const std::shared_ptr<Connector> source = task.open(connection);
    const TableRef ref = source->parseTableName(table);
    const TableSchema schema = source->describeTable(ref);
    QList<SourceColumn> columns;
    for (const ColumnInfo &column : schema.columns) {
        task.throwIfCancelled();
        columns << SourceColumn{column, source->detectWatermarkType(ref, column)};
    }
    return columns;
}

ConnectionCheck testConnection(const ConnectionSpec &connection, RemoteTask &task) {
    requireSqliteFile(connection);
    return ConnectionCheck{int(task.open(connection)->listTables().size())};
}

} // namespace tidemark
