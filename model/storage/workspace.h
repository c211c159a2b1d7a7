// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"
#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <chrono>
#include <memory>
#include <optional>

struct sqlite3;

namespace tidemark {

class SqliteDb;

struct WatermarkChange {
    qint64 id = 0;
    qint64 tableId = 0;
    QDateTime at;
    QString oldValue; // display form
    QString newValue;
    QString cause; // "run", "reconcile", "backfill", "edit"
    qint64 runId = 0;
};

struct RejectedRow {
    qint64 id = 0;
    qint64 runId = 0;
    qint64 iterationId = 0;
    qint64 tableId = 0;
    QDateTime at;
    QString error;
    QString rowKey;  // JSON object of the key columns (or of the whole row without key)
    QString rowData; // JSON object of the row
};

struct Lease {
    qint64 tableId = 0;
    qint64 runId = 0;
    QString host;
    qint64 pid = 0;
    QDateTime expiresAt;
};

// The result of trying to take a table's lease.
struct LeaseAttempt {
    bool acquired = false;
    std::optional<Lease> holder; // the live holder when not acquired; the dead one taken over when acquired
};

// One workspace file (*.tidemark): connections, control table, run history, rejects, leases
// and the watermark log, in SQLite (WAL, busy timeout, schema in PRAGMA user_version,
// migrated on open). One Workspace object = one connection, owned by one thread; open another
// object on each worker thread. Every method throws Error naming the file on failure.
class Workspace {
public:
    // Creates a new workspace file. Refuses (ValidationError) when the file exists.
    static std::unique_ptr<Workspace> create(const QString &path);
    // Opens an existing workspace and migrates it. A missing file, or a file that is not a
    // Tidemark workspace, is refused (ValidationError) and never modified.
    static std::unique_ptr<Workspace> open(const QString &path);
    ~Workspace();
    Workspace(const Workspace &) = delete;
    Workspace &operator=(const Workspace &) = delete;

    QString path() const { return m_path; }
    // A UUID made at create time; target-side state rows carry it.
    QString workspaceId() const { return m_workspaceId; }
    static int schemaVersion();

    // --- connections ---
    QList<ConnectionSpec> connections();
    std::optional<ConnectionSpec> connection(const QString &name);
    qint64 addConnection(const ConnectionSpec &spec); // ValidationError when the name exists
    void updateConnection(const ConnectionSpec &spec);
    void removeConnection(const QString &name); // ValidationError while a table uses it

    // --- control table ---
    QList<TableSpec> tables(); // ordered by id
    std::optional<TableSpec> table(qint64 id);
    qint64 addTable(const TableSpec &spec); // returns the new id (never reused)
    void updateTable(const TableSpec &spec); // configuration fields; not the last watermark
    void removeTable(qint64 id);
    void setActive(qint64 id, bool active);
    // Moves the last watermark and records the change (old, new, cause, run id, time).
    void setWatermark(qint64 tableId, const Watermark &watermark, const QVariant &tiebreak, const QString &cause,
                      qint64 runId);
    QList<WatermarkChange> watermarkChanges(qint64 tableId);
    // The status of the table's most recent iteration, or empty.
    QString lastIterationStatus(qint64 tableId);

    // --- runs and iterations ---
    qint64 beginRun(const QString &trigger, int concurrency, bool dryRun);
    void finishRun(qint64 runId, const QString &status);
    qint64 addIteration(const IterationRecord &record); // returns its id
    void updateIteration(const IterationRecord &record); // every field but the log
    void appendLog(qint64 iterationId, const LogLine &line);
    void addReject(const RejectedRow &row);
    QList<RejectedRow> rejects(qint64 tableId);
    // Newest first; runId > 0 limits to that run; limit <= 0 = all. Iterations with their logs.
    QList<RunRecord> runs(int limit = 0, qint64 runId = 0);

    // --- leases ---
    // Takes the lease when free, expired, or held by a process that is no longer alive on this
    // host. Atomic across processes (one IMMEDIATE transaction).
    LeaseAttempt acquireLease(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl);
    LeaseAttempt acquireLease(qint64 tableId, qint64 runId, int ttlSeconds) {
        return acquireLease(tableId, runId, std::chrono::seconds(ttlSeconds));
    }
    // Throws Error when the lease is no longer held by `runId` (taken over after it expired).
    void renewLease(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl);
    void renewLease(qint64 tableId, qint64 runId, int ttlSeconds) {
        renewLease(tableId, runId, std::chrono::seconds(ttlSeconds));
    }
    void releaseLease(qint64 tableId, qint64 runId);

private:
    Workspace(std::unique_ptr<SqliteDb> db, const QString &path);
    void migrate();

    std::unique_ptr<SqliteDb> m_db;
    QString m_path;
    QString m_workspaceId;
};

} // namespace tidemark
