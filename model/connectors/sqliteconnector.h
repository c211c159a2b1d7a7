// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/connectors/staterows.h"
#include "model/domain/connectionspec.h"

#include <QHash>
#include <atomic>
#include <memory>

struct sqlite3;

namespace tidemark {

class SqliteDb;

// A Connector over one SQLite file and one sqlite3 connection, owned by one thread.
// A file that does not exist yet is only created when something is written to it (a target);
// reading from it as a source fails with an error naming the connection and the path.
// Cursors and writers borrow the connection: destroy them before the connector.
class SqliteConnector : public Connector, private StatePort {
public:
    explicit SqliteConnector(const ConnectionSpec &spec);
    ~SqliteConnector() override;

    QString connectionName() const override { return m_name; }

    TableRef parseTableName(const QString &text) const override;
    QList<TableRef> listTables() override;
    bool tableExists(const TableRef &table) override;
    TableSchema describeTable(const TableRef &table) override;

    WatermarkType detectWatermarkType(const TableRef &table, const ColumnInfo &column) override;
    WatermarkProbe probeWatermark(const TableRef &table, const QString &column, WatermarkType type,
                                  const std::optional<Watermark> &lowerBound = std::nullopt) override;
    Watermark sampleWatermark(const TableRef &table, const QString &column, WatermarkType type) override;
    qint64 countWindow(const WindowQuery &query) override;
    bool windowHasRows(const WindowQuery &query) override;
    std::unique_ptr<SourceCursor> openWindow(const WindowQuery &query) override;
    std::unique_ptr<SourceCursor> openChecksums(const ChecksumQuery &query) override;
    std::unique_ptr<SourceCursor> openBucketScan(const ChecksumQuery &query,
                                                 const QList<int> &buckets) override;
    std::unique_ptr<SourceCursor> openScan(const TableRef &table, const QStringList &columns,
                                           const QStringList &orderBy) override;
    PushDownOrigin pushDownOrigin() override;

    void begin() override;
    void commit() override;
    void rollback() override;
    void createTable(const TableRef &table, const QList<ColumnInfo> &columns,
                     const QStringList &primaryKey) override;
    void addColumn(const TableRef &table, const ColumnInfo &column) override;
    std::unique_ptr<RowWriter> openWriter(const WriteSpec &spec) override;
    void deleteAll(const TableRef &table) override;
    qint64 removeKeys(const TableRef &table, const QStringList &keyColumns, const QList<QVariantList> &keys,
                      const QString &markColumn, const QDateTime &markedAt) override;
    qint64 deleteNewerThan(const TableRef &table, const QString &watermarkColumn,
                           const Watermark &position) override;
    std::optional<TargetState> readState(const QString &workspaceId, qint64 tableId) override;
    std::optional<TargetState> beginStateWrite(const QString &workspaceId, qint64 tableId) override;
    bool compareAndSetState(const std::optional<Position> &expected, const TargetState &next) override;
    void writeState(const TargetState &state) override;
    void clearState(const QString &workspaceId, qint64 tableId) override;
    bool raiseFence(const QString &workspaceId, qint64 tableId, qint64 token,
                    const std::optional<Position> &expected, qint64 generation) override;
    std::optional<StateOwner> readTargetOwner(const QString &targetKey) override;
    // The file is created with these bits (less the umask) before SQLite opens it: it never
    // exists with SQLite's default 0644 in between.
    void setNewFileMode(int mode) override { m_newFileMode = mode; }
    void interrupt() override;
    void preparePushDown(SourceReader &source) override;
    std::optional<PushDownResult> pushDown(SourceReader &source, const WindowQuery &window,
                                           const WriteSpec &write) override;

    // SQLite's type affinity rules, refined: what a declared column type holds.
    static LogicalType logicalTypeFor(const QString &declaredType);
    // The declared type a target column gets for a source column.
    static QString declaredTypeFor(const ColumnInfo &column);

private:
    static QStringList columnNames(const WriteSpec &spec);
    QString insertSql(const WriteSpec &spec, const QString &rows);
    bool copiesWholeTable(const WindowQuery &window, const WriteSpec &write);
    bool keepsSourceValues(const WriteSpec &write);
    void attachSource(const QString &connectionName, const QString &path);
    qint64 sourceVersion();
    // The schema under which `source`'s tables are visible on this connection, or empty when
    // they are not (another engine, or not attached).
    QString sourceSchema(SourceReader &source);
    SqliteDb &handle();   // throws when the file does not exist
    SqliteDb &writable(); // creates the file when missing
    void open(bool create);
    void markIndexedColumns(TableSchema &schema);
    QString where(const TableRef &table) const;
    bool hasRowid(const TableRef &table);
    // StatePort
    StateDialect stateDialect() const override { return StateDialect::Sqlite; }
    QString stateContext() const override;
    QStringList stateColumns() override;
    QList<QVariantList> stateQuery(const QString &sql, const QVariantList &values) override;
    qint64 stateExec(const QString &sql, const QVariantList &values) override;
    qint64 stateTrySet(const QString &sql, const QVariantList &values) override {
        return stateExec(sql, values);
    }
    bool stateDdlInTransaction() const override { return true; }
    bool runStateDdl(const QStringList &statements, const QStringList &present) override;
    void beginStateTransaction(const QString &workspaceId, qint64 tableId) override;
    void rollbackStateTransaction() override { rollback(); }
    void upgradeVersion1Rows();
    QStringList tieOrder(const TableRef &table);

    QString m_name;
    QString m_path;
    std::unique_ptr<SqliteDb> m_db;
    int m_newFileMode = 0600;
    bool m_writeCache = false; // m_db has the larger page cache writes want (writable())
    QHash<QString, bool> m_rowidTables;
    QString m_attachedPath; // source file attached as "tidemark_source" for push-down
    // The attached source's data version before the iteration probed it (preparePushDown).
    std::optional<qint64> m_sourceVersion;
    std::atomic<SqliteDb *> m_interruptible{nullptr}; // m_db, for interrupt()
    StateRows m_stateRows{*this};
};

} // namespace tidemark
