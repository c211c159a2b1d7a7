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
#include <QVariantList>
#include <atomic>
#include <memory>
#include <string_view>

struct st_mysql;

namespace tidemark {

// The settings of a MySQL/MariaDB connection, read from `connection add --mysql` text:
// "host=H port=P user=U dbname=D [socket=PATH] [sslmode=disable|prefer|require|verify-ca|verify-full]
// [sslca=FILE] [sslcert=FILE] [sslkey=FILE] [connect_timeout=S]", values quoted with '…' when they
// hold spaces. No password: secrets never live in the workspace.
struct MysqlParams {
    QString host;
    unsigned port = 0; // 0: the library's default (3306)
    QString user;
    QString database;
    QString socket;
    QString sslMode;
    QString sslCa, sslCert, sslKey;
    unsigned connectTimeout = 10;
};

// Parses and checks the text; throws ValidationError naming the connection and the keyword at fault.
MysqlParams parseMysqlConninfo(const QString &connectionName, const QString &text);

// One session to a server, set up the way every Tidemark statement expects it: UTF-8 (utf8mb4),
// time_zone '+00:00' (TIMESTAMP values are UTC), sql_mode with ANSI_QUOTES (quoteIdentifier's
// double quotes name identifiers) and STRICT_ALL_TABLES (a value the column cannot hold is an
// error, never a silent change), long network timeouts for slow streaming readers. Owned by one
// thread; closed by the destructor.
class MariadbSession {
public:
    MariadbSession(const ConnectionSpec &spec, const MysqlParams &params, const QByteArray &password);
    ~MariadbSession();
    MariadbSession(const MariadbSession &) = delete;
    MariadbSession &operator=(const MariadbSession &) = delete;

    st_mysql *handle() const { return m_mysql; }
    unsigned long threadId() const;
    // "connection 'name' (host=… port=… dbname=…)" for messages.
    QString describe() const;
    [[noreturn]] void fail(const QString &context, const QString &message) const;
    [[noreturn]] void failLast(const QString &context) const; // the connection's own last error

    // Runs `sql`, its placeholders numbered ?1, ?2, … (each may repeat), with `params` bound in
    // that order (an invalid or null QVariant binds NULL; qint64 an integer, double a double,
    // QByteArray bytes, anything else text). Returns the rows as text, NULL as a null QString.
    QList<QStringList> query(const QString &sql, const QVariantList &params = {});
    // The same for a statement: its affected (with CLIENT_FOUND_ROWS: matched) row count. With
    // `errorCode`, a server error sets it and returns -1 instead of throwing.
    qint64 execute(const QString &sql, const QVariantList &params = {}, unsigned *errorCode = nullptr);
    // Runs a `LOAD DATA LOCAL INFILE` statement with `data` as its file, served from memory by the
    // session's own handler (the server is never given a file of this machine: asked for one at
    // any other time, the handler refuses). Returns the rows loaded and sets `warnings`; a server
    // error sets `errorCode` and returns -1.
    qint64 loadLocal(const QString &sql, std::string_view data, unsigned *errorCode, unsigned *warnings);

    // What the local-infile handler serves (loadLocal); armed only while loadLocal runs.
    struct LocalInfile {
        std::string_view data;
        std::size_t offset = 0;
        bool armed = false;
    };

private:
    ConnectionSpec m_spec;
    MysqlParams m_params;
    st_mysql *m_mysql = nullptr;
    LocalInfile m_infile;
};

// A Connector on MariaDB Connector/C for MySQL and MariaDB servers. Reads a window through an
// unbuffered prepared statement on a connection of its own, in a consistent-snapshot read-only
// transaction, so rows stream in bounded batches and the main connection stays free for writes;
// the end of the stream is checked for an error, so a dropped stream fails the read instead of
// ending it short. Writes with multi-row prepared INSERTs sized below @@max_allowed_packet (merge:
// INSERT … ON DUPLICATE KEY UPDATE guarded by the version columns). The state row lives in
// `tidemark_state` of the connection's database (InnoDB, binary collation), in the rows'
// transaction. Owned by one thread; interrupt() may be called from any.
class MariadbConnector : public Connector, private StatePort {
public:
    explicit MariadbConnector(const ConnectionSpec &spec);
    ~MariadbConnector() override;

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
    std::unique_ptr<SourceCursor> openScan(const TableRef &table, const QStringList &columns,
                                           const QStringList &orderBy) override;
    PushDownOrigin pushDownOrigin() override;
    void setZeroDates(ZeroDates policy) override { m_zeroDates = policy; }

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

    // The main session's query/execute, for tests and tools.
    QList<QStringList> query(const QString &sql, const QVariantList &params = {});
    qint64 execute(const QString &sql, const QVariantList &params = {});

    // The MySQL type a column of `column`'s logical type gets in a created table; `key`: it is
    // part of the primary key (text and bytes then need a length).
    static QString mappedType(const ColumnInfo &column, bool key = false);

    MariadbSession &session() { return *m_session; }
    QString describe() const { return m_session->describe(); }
    // DATA_TYPE of each column of `table`, lower case, by column name (lower case).
    QHash<QString, QString> columnTypes(const TableRef &table);

private:
    QString dataType(const TableRef &table, const QString &column);
    QString watermarkCast(const TableRef &table, const QString &column);
    ContractSql contract(const TableRef &table, const QString &watermarkColumn,
                         const QString &tiebreakColumn);
    QVariantList boundParams(const SqlBindings &bindings) const;
    QString spelledWatermark(const TableRef &table, const QString &column);
    // `keyColumns` name a row in a read error.
    std::unique_ptr<SourceCursor> openCursor(const QString &sql, const QVariantList &params,
                                             const QString &what, const QStringList &keyColumns = {});
    // StatePort
    StateDialect stateDialect() const override { return StateDialect::Mysql; }
    QString stateContext() const override;
    QStringList stateColumns() override;
    QList<QVariantList> stateQuery(const QString &sql, const QVariantList &values) override;
    qint64 stateExec(const QString &sql, const QVariantList &values) override;
    qint64 stateTrySet(const QString &sql, const QVariantList &values) override;
    bool stateDdlInTransaction() const override { return false; }
    bool runStateDdl(const QStringList &statements, const QStringList &present) override;
    void beginStateTransaction(const QString &workspaceId, qint64 tableId) override;
    void rollbackStateTransaction() override { rollback(); }
    // DDL commits the open transaction implicitly: re-opens it and takes the state row's lock again.
    void afterImplicitCommit();

    ConnectionSpec m_spec;
    MysqlParams m_params;
    QByteArray m_password;
    std::unique_ptr<MariadbSession> m_session;
    std::atomic<unsigned long> m_threadId{0};
    bool m_inTransaction = false;
    ZeroDates m_zeroDates = ZeroDates::Fail;
    QVariantList m_stateLock; // (workspace id, table id) locked by beginStateWrite(), until the end
    QString m_identity;
    QHash<QString, QHash<QString, QString>> m_typeCache; // "db\0table" -> column -> DATA_TYPE
    StateRows m_stateRows{*this};
};

} // namespace tidemark
