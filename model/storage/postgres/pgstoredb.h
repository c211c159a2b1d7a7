// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/storedb.h"
#include "model/storage/workspacelocation.h"

#include <atomic>
#include <memory>

struct pg_conn;

namespace tidemark {

// A workspace in one schema of a PostgreSQL database (a server workspace) as a StoreDb. The
// connection finds its password the way libpq does (PGPASSWORD, ~/.pgpass, a service file):
// the URI never holds one (WorkspaceLocation refuses it). Unqualified table names resolve to
// the workspace's schema (search_path). Write transactions are READ COMMITTED; what a write
// decides on is locked (FOR UPDATE, lock()); reads that need one snapshot are REPEATABLE READ.
class PgStoreDb : public StoreDb {
public:
    // Creates the schema and the workspace in it; refuses (ValidationError) when the schema
    // exists already.
    static std::unique_ptr<PgStoreDb> create(const WorkspaceLocation &location);
    // Opens the workspace in the location's schema and migrates it; refuses (ValidationError)
    // when the schema holds none.
    static std::unique_ptr<PgStoreDb> open(const WorkspaceLocation &location);
    static int schemaVersion();
    ~PgStoreDb() override;

    StoreDialect dialect() const override { return StoreDialect::Postgres; }
    QString location() const override { return m_location.text(); }
    const QString &schema() const { return m_location.schema(); }
    void exec(const QString &sql) override;
    std::unique_ptr<StatementBackend> prepare(const QString &sql) override;
    qint64 lastInsertId() override;
    qint64 changes() const override { return m_changes; }
    void begin(TransactionKind kind) override;
    void lock(StoreLock what, qint64 id) override;
    void stopStatementsWhile(const std::atomic_bool *flag) override { m_stopFlag = flag; }
    std::optional<qint64> dataVersion() override { return std::nullopt; }
    QString userName() override;
    QList<StoreColumn> columns(const QString &table) override;
    void continueIdsAfterRows(const QString &table) override;
    void updateStatistics(const QString &table) override;
    int listenForChanges() override;
    bool takeChangeNotifications() override;

    QString idsFromJson(int param) const override;
    QString forUpdate() const override { return QStringLiteral(" FOR UPDATE"); }
    QString forUpdateSkipLocked(const QString &alias) const override {
        return QStringLiteral(" FOR UPDATE OF %1 SKIP LOCKED").arg(alias);
    }
    QVariant noLimit() const override { return QVariant(); }
    QString dayNumber(const QString &textExpression) const override;
    QString least(const QString &a, const QString &b) const override;
    QString greatest(const QString &a, const QString &b) const override;
    QString truncated(const QString &expression) const override;
    QVariant storedTiebreak(const QVariant &tiebreak) const override;
    QVariant tiebreakFromStored(const QVariant &stored) const override;

    // libpq's connection, for the statements of this file only.
    pg_conn *handle() const { return m_conn; }
    void noteChanges(qint64 changes) { m_changes = changes; }
    // Before each statement: see the definitions.
    void throwIfStopped() const;
    void reconnectIfLost();
    // "workspace <location>: <what>: <libpq's message>".
    [[noreturn]] void fail(const QString &what) const;

private:
    explicit PgStoreDb(const WorkspaceLocation &location);
    bool schemaExists();
    void setUpSession();
    void listen();
    void migrate();

    WorkspaceLocation m_location;
    pg_conn *m_conn = nullptr;
    qint64 m_changes = 0;
    QString m_userName;       // read once: a session never changes its login
    bool m_listening = false; // LISTENs again after a reconnect
    const std::atomic_bool *m_stopFlag = nullptr;
};

} // namespace tidemark
