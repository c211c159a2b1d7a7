// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/connectors/contractsql.h"
#include "model/connectors/staterows.h"
#include "model/domain/connectionspec.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <memory>

struct pg_conn;
struct pg_cancel;

namespace tidemark {

// Opens a PostgreSQL connection for the calling thread. Throws Error naming the connection
// (host, port, dbname; never the password).
std::unique_ptr<Connector> openPostgresConnector(const ConnectionSpec &spec);

// A Connector on libpq: reads windows through a server-side cursor in a REPEATABLE READ
// snapshot, writes with COPY FROM STDIN (merge through a temporary staging table and
// INSERT … ON CONFLICT). The session runs in UTC with ISO dates, so timestamps travel as
// ISO-8601 text and compare in the server on their native type.
// Owned by one thread; the connection is closed by the destructor.
class PostgresConnector : public Connector, private StatePort {
public:
    explicit PostgresConnector(const ConnectionSpec &spec);
    ~PostgresConnector() override;

    QString connectionName() const override;
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
    void interrupt() override;
    std::optional<PushDownResult> pushDown(SourceReader &source, const WindowQuery &window,
                                           const WriteSpec &write) override;

    // Runs one statement with bound text parameters (a null QString binds NULL) and returns its
    // rows as text (NULL as a null QString). For tests, tools and the push-down.
    QList<QStringList> query(const QString &sql, const QStringList &params = {});
    // The same, for statements: returns the affected row count (0 when there is none).
    qint64 execute(const QString &sql, const QStringList &params = {});

    // Identifies the database this connection reaches (system identifier + database oid), so
    // a caller can tell whether two connections reach the same database (push-down).
    QString databaseIdentity();

    // The PostgreSQL type a column of `column`'s logical type gets in a created table.
    static QString mappedType(const ColumnInfo &column);

    bool inTransaction() const { return m_inTransaction; }
    // Bumped by every begin(): writers re-create per-transaction objects (staging tables).
    quint64 transactionGeneration() const { return m_generation; }
    pg_conn *handle() const { return m_conn; }
    // "connection 'name' (host=… port=… dbname=…)" for messages.
    QString describe() const;
    // Throws Error "<describe()>: <context>: <libpq message>", never with the password.
    [[noreturn]] void fail(const QString &context, const QString &message) const;
    QString scrub(QString message) const;

private:
    QString columnTypeName(const TableRef &table, const QString &column);
    QString watermarkCast(const TableRef &table, const QString &column);
    QString boundWatermark(const Watermark &value, const QString &cast) const;
    void lockName(const QString &kind, const QString &name);
    // StatePort
    StateDialect stateDialect() const override { return StateDialect::Postgres; }
    QString stateContext() const override;
    QStringList stateColumns() override;
    QList<QVariantList> stateQuery(const QString &sql, const QVariantList &values) override;
    qint64 stateExec(const QString &sql, const QVariantList &values) override;
    qint64 stateTrySet(const QString &sql, const QVariantList &values) override;
    bool stateDdlInTransaction() const override { return false; }
    bool runStateDdl(const QStringList &statements, const QStringList &present) override;
    void beginStateTransaction(const QString &workspaceId, qint64 tableId) override;
    void rollbackStateTransaction() override { rollback(); }
    void releaseStateLock();
    qint64 execute(const QString &sql, const QStringList &params, bool *conflict);
    std::unique_ptr<SourceCursor> openCursor(const QString &select, const QStringList &params,
                                             const QString &what);
    ContractSql windowContract(const WindowQuery &query);
    QStringList boundParams(const SqlBindings &bindings) const;
    QString m_identity; // databaseIdentity(), cached

    ConnectionSpec m_spec;
    pg_conn *m_conn = nullptr;
    QByteArray m_password;
    bool m_inTransaction = false;
    bool m_cursorTransaction = false; // opened by a cursor, committed when the last one closes
    int m_openCursors = 0;
    quint64 m_generation = 0;
    int m_cursorCounter = 0;
    QStringList m_stateLock;             // the advisory lock of beginStateWrite(), until commit or rollback
    pg_cancel *m_cancel = nullptr;       // for interrupt(), from any thread
    QHash<QString, QString> m_typeCache; // "schema\0table\0column" -> typname
    StateRows m_stateRows{*this};

    friend class PostgresCursor;
};

} // namespace tidemark
