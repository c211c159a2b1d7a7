// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QVariant>
#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

namespace tidemark {

// The SQL dialects a workspace is stored in. The stores (model/storage/stores/) write each
// statement once; what differs between the dialects is rendered by StoreDb's fragments below.
enum class StoreDialect { Sqlite, Postgres };

// One prepared statement of a StoreDb, with 1-based binds ("?1" in the SQL, as SQLite writes it;
// the PostgreSQL backend renders them as "$1"). An index that is never bound is NULL.
class StatementBackend {
public:
    virtual ~StatementBackend() = default;
    virtual void bindNull(int index) = 0;
    virtual void bindInt(int index, qint64 value) = 0;
    virtual void bindDouble(int index, double value) = 0;
    virtual void bindText(int index, const QString &value) = 0; // a null QString binds NULL
    virtual void bindBlob(int index, const QByteArray &value) = 0;
    virtual bool step() = 0;  // true while a row is available
    virtual void reset() = 0; // also clears the binds
    virtual bool isNull(int column) const = 0;
    virtual qint64 columnInt64(int column) const = 0; // a boolean reads 1 or 0
    virtual double columnDouble(int column) const = 0;
    virtual QString columnText(int column) const = 0;
    // The column's UTF-8 bytes, valid until the next step or reset; empty when NULL.
    virtual std::string_view columnUtf8(int column) const = 0;
    // Integer, real, text or bytes as the column holds it; null when NULL.
    virtual QVariant columnVariant(int column) const = 0;
};

// A column of one of the workspace's own tables, as `workspace copy` writes into it.
struct StoreColumn {
    enum class Kind { AsIs, Integer, Real, Text, Blob };
    QString name;
    Kind kind = Kind::AsIs; // what a value bound into it is converted to (AsIs: SQLite's affinity decides)
};

// The rows a write must lock before it decides, where the row may not exist yet (a lease, the
// runner's slot) or the decision reads several rows (the control table's targets). The SQLite
// file needs none: its write transactions are IMMEDIATE, one writer at a time.
enum class StoreLock { Lease, RunnerSlot, ControlTable, Migration, Slots, Runs };

// One connection to a workspace's store, owned by one thread (never shared). Every failure
// throws tidemark::Error naming the workspace (location()).
class StoreDb {
public:
    enum class TransactionKind {
        Write, // serialised with every other write that locks what it reads
        Read,  // one snapshot for several statements; no lock taken
    };

    virtual ~StoreDb() = default;
    virtual StoreDialect dialect() const = 0;
    // The workspace as messages name it: a file path, or the server URI (no password) and schema.
    virtual QString location() const = 0;
    // SQL without parameters (DDL, BEGIN/COMMIT). Never pass values in `sql`.
    virtual void exec(const QString &sql) = 0;
    virtual std::unique_ptr<StatementBackend> prepare(const QString &sql) = 0;
    // The id the last INSERT of this connection gave its row.
    virtual qint64 lastInsertId() = 0;
    // Rows changed by the last INSERT, UPDATE or DELETE of this connection.
    virtual qint64 changes() const = 0;
    virtual void begin(TransactionKind kind) = 0;
    // Inside a write transaction: waits for, then holds until its end, the lock of `what` (and
    // `id`). No-op where the transaction itself serialises writers.
    virtual void lock(StoreLock what, qint64 id = 0) = 0;
    // See SqliteDb::stopStatementsWhile. A server connection cannot stop a statement midway:
    // the statement running finishes, and the next one stops.
    virtual void stopStatementsWhile(const std::atomic_bool *flag) = 0;
    // A number that changes whenever another connection commits (SQLite's data_version), so a
    // watcher reads nothing while nobody wrote; nullopt where the backend cannot tell cheaply.
    virtual std::optional<qint64> dataVersion() = 0;
    // Commits of other connections as they happen (a server's LISTEN/NOTIFY): a socket that
    // becomes readable when one may have changed the workspace, or -1 where the backend sends
    // none (a watcher then polls dataVersion()). Subscribes on the first call.
    virtual int listenForChanges() { return -1; }
    // Reads what arrived on that socket: whether another connection committed a change since
    // the last call. Throws when the connection is lost.
    virtual bool takeChangeNotifications() { return false; }
    // A file backend: see Workspace::pinFile and pinnedFileReplaced. A server workspace has no
    // file to replace.
    virtual void pinFile() {}
    virtual bool pinnedFileReplaced() { return false; }

    // Who this connection writes as, for the audit trail and a run's started_by: the server's
    // login (session_user), or the operating system's for a file.
    virtual QString userName() = 0;

    // The columns of one of the workspace's own tables, in their order.
    virtual QList<StoreColumn> columns(const QString &table) = 0;
    // After rows were written with the ids they had elsewhere (`workspace copy`): the next id
    // `table` draws comes after the largest. No-op where ids follow the rows by themselves.
    virtual void continueIdsAfterRows(const QString &) {}
    // After many rows arrived at once (`workspace copy`): the planner's statistics of `table`,
    // which a server otherwise gathers only when its autovacuum gets to it. Until then it plans
    // the window's first reads as if the tables were empty (32 s to show 1,000 tables over
    // 400,000 iterations, against 0.3 s). SQLite plans the workspace's indexes without them.
    virtual void updateStatistics(const QString &) {}

    // --- what each dialect writes its own way ---
    // A subquery of the ids in the JSON array bound at `param`: "IN (<this>)".
    virtual QString idsFromJson(int param) const = 0;
    // Appended to a SELECT inside a write transaction whose rows it decides on.
    virtual QString forUpdate() const = 0;
    // The same, passing over rows another transaction holds (a queue's claim), locking only
    // `alias`'s rows.
    virtual QString forUpdateSkipLocked(const QString &alias) const = 0;
    // The value of a LIMIT parameter for "no limit".
    virtual QVariant noLimit() const = 0;
    // Days (fractional) since a fixed epoch of an ISO 8601 text expression.
    virtual QString dayNumber(const QString &textExpression) const = 0;
    // The smaller / larger of two values (SQLite's two-argument min and max).
    virtual QString least(const QString &a, const QString &b) const = 0;
    virtual QString greatest(const QString &a, const QString &b) const = 0;
    // A real expression truncated toward zero to an integer.
    virtual QString truncated(const QString &expression) const = 0;
    // A table's tiebreak as stored (its type kept: an integer stays one) and as read back.
    virtual QVariant storedTiebreak(const QVariant &tiebreak) const = 0;
    virtual QVariant tiebreakFromStored(const QVariant &stored) const = 0;
};

// How long a workspace write waits for a lock another connection holds (a file's busy timeout, a
// server's lock_timeout) before it fails: ten seconds, or TIDEMARK_TEST_WORKSPACE_BUSY_MS, with
// which a test that holds the workspace's lock makes writes fail in a fraction of a second.
int workspaceLockWaitMs();

// A StatementBackend on the stack, as SqliteStatement is written: chained binds, reuse by reset.
class Statement {
public:
    Statement(StoreDb &db, const QString &sql)
        : m_backend(db.prepare(sql)) {}

    Statement &bind(int index, std::nullptr_t) {
        m_backend->bindNull(index);
        return *this;
    }
    Statement &bind(int index, qint64 value) {
        m_backend->bindInt(index, value);
        return *this;
    }
    Statement &bind(int index, int value) { return bind(index, qint64(value)); }
    Statement &bind(int index, double value) {
        m_backend->bindDouble(index, value);
        return *this;
    }
    Statement &bind(int index, const QString &value) {
        m_backend->bindText(index, value);
        return *this;
    }
    Statement &bind(int index, const QVariant &value); // null, integer, real, text or bytes

    bool step() { return m_backend->step(); }
    void run() {
        while (m_backend->step()) {
        }
    }
    void reset() { m_backend->reset(); }

    bool isNull(int column) const { return m_backend->isNull(column); }
    qint64 columnInt64(int column) const { return m_backend->columnInt64(column); }
    double columnDouble(int column) const { return m_backend->columnDouble(column); }
    QString columnText(int column) const { return m_backend->columnText(column); }
    std::string_view columnUtf8(int column) const { return m_backend->columnUtf8(column); }
    QVariant columnVariant(int column) const { return m_backend->columnVariant(column); }

private:
    std::unique_ptr<StatementBackend> m_backend;
};

// Rolls back unless committed, so a throw anywhere leaves the workspace as it was.
class Transaction {
public:
    using Kind = StoreDb::TransactionKind;
    explicit Transaction(StoreDb &db, Kind kind = Kind::Write);
    ~Transaction();
    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;
    void commit();

private:
    StoreDb &m_db;
    bool m_done = false;
};

} // namespace tidemark
