// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/storedb.h"

#include <memory>

namespace tidemark {

class SqliteDb;

// A workspace file (*.tidemark) as a StoreDb: SQLite in WAL mode with a busy timeout, marked as
// Tidemark's by its application_id, schema version in PRAGMA user_version, migrated on open.
struct PinnedWorkspaceFile;

class SqliteStoreDb : public StoreDb {
public:
    // A new, private (0600) workspace file, migrated to the current version. Refuses
    // (ValidationError) when the file exists; leaves no file behind on failure.
    static std::unique_ptr<SqliteStoreDb> create(const QString &path);
    // An existing workspace file, migrated. A missing file, or one that is not a Tidemark
    // workspace, is refused (ValidationError) and never modified.
    static std::unique_ptr<SqliteStoreDb> open(const QString &path);
    // Workspace::checkpoint.
    static bool checkpoint(const QString &path, int waitMs);
    static int schemaVersion();
    ~SqliteStoreDb() override;

    StoreDialect dialect() const override { return StoreDialect::Sqlite; }
    QString location() const override;
    void exec(const QString &sql) override;
    std::unique_ptr<StatementBackend> prepare(const QString &sql) override;
    qint64 lastInsertId() override;
    qint64 changes() const override;
    void begin(TransactionKind kind) override;
    void lock(StoreLock, qint64) override {}
    void stopStatementsWhile(const std::atomic_bool *flag) override;
    std::optional<qint64> dataVersion() override;
    QString userName() override;
    QList<StoreColumn> columns(const QString &table) override;
    void pinFile() override;
    bool pinnedFileReplaced() override;

    QString idsFromJson(int param) const override;
    QString forUpdate() const override { return {}; }
    QString forUpdateSkipLocked(const QString &) const override { return {}; }
    QVariant noLimit() const override { return qint64(-1); }
    QString dayNumber(const QString &textExpression) const override;
    QString least(const QString &a, const QString &b) const override;
    QString greatest(const QString &a, const QString &b) const override;
    QString truncated(const QString &expression) const override;
    QVariant storedTiebreak(const QVariant &tiebreak) const override { return tiebreak; }
    QVariant tiebreakFromStored(const QVariant &stored) const override { return stored; }

private:
    explicit SqliteStoreDb(std::unique_ptr<SqliteDb> db);
    void migrate();

    std::unique_ptr<SqliteDb> m_db;
    std::unique_ptr<const PinnedWorkspaceFile> m_pinned; // what pinFile() found; ends with this connection
};

} // namespace tidemark
