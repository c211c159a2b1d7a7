// SPDX-License-Identifier: MIT
#pragma once

#include "model/common/fileidentity.h"

#include <QString>
#include <QVariant>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace tidemark {

// RAII owner of one sqlite3 connection. Owned by one thread. Errors throw tidemark::Error with
// the file name and SQLite's message.
class SqliteDb {
public:
    enum class Mode { ReadWrite, ReadWriteCreate, ReadOnly };
    // `busyTimeoutMs`: how long a statement waits for another connection's lock before it fails
    // with "database is locked".
    SqliteDb(const QString &path, Mode mode, int busyTimeoutMs = 10000);
    ~SqliteDb();
    SqliteDb(const SqliteDb &) = delete;
    SqliteDb &operator=(const SqliteDb &) = delete;

    // The first `size` bytes of a database file, read through SQLite's own file layer (never
    // through a descriptor of our own: closing any descriptor of a database file drops every
    // POSIX lock this process holds on it, and another process may then delete the live WAL;
    // SQLite's layer defers that close while locks are held). Creates no -wal/-shm and takes
    // no lock. Fewer bytes come back when the file is shorter. Throws Error naming the file.
    static QByteArray readHeader(const QString &path, int size);

    sqlite3 *handle() const { return m_db; }
    const QString &path() const { return m_path; }
    // The file this connection opened, while its name still leads to it; nullopt once that file
    // was renamed, replaced or deleted. Reads no page: a connection just opened may ask before
    // it reads anything through the name's -wal and -shm.
    std::optional<FileIdentity> openedFile() const;
    // Runs SQL without parameters (DDL, BEGIN/COMMIT, PRAGMA). Never pass values in `sql`.
    void exec(const QString &sql);
    qint64 lastInsertId() const;
    qint64 changes() const;
    QString lastError() const;

    // Stops the running statement and any wait for another connection's lock (which
    // sqlite3_interrupt alone does not end), from any thread. Stays in effect: an interrupted
    // connection is not used again.
    void interrupt();
    // While `*flag` is true (and `flag` is set), each statement of this connection stops with
    // "interrupted" within a few thousand steps, however long it would run; once it is false,
    // or null, statements run as usual. Set and cleared by the connection's own thread; the flag
    // may be raised from any thread.
    void stopStatementsWhile(const std::atomic_bool *flag);

    // Called once a statement or transaction of this connection has ended: when no transaction
    // is left open, its locks are gone, and the other connections of this process to the same
    // file that wait for them are woken at once (SqliteStatement and exec() call it).
    void noteStatementEnded() const;

private:
    struct FileWaiters;
    static int onBusy(void *self, int attempt);
    static int onProgress(void *self);
    void wakeWaiters() const;

    sqlite3 *m_db = nullptr;
    QString m_path;
    const int m_busyTimeoutMs;
    std::chrono::steady_clock::time_point m_busySince;
    std::atomic_bool m_interrupted{false};
    const std::atomic_bool *m_stopFlag = nullptr;
    std::shared_ptr<FileWaiters> m_waiters; // shared by this process's connections to the file
};

// RAII prepared statement with 1-based binds. Reset + rebind to reuse it on the hot path.
class SqliteStatement {
public:
    SqliteStatement(const SqliteDb &db, const QString &sql);
    // Errors read "<context>: <SQLite's message>" instead of naming the file.
    SqliteStatement(const SqliteDb &db, const QString &sql, const QString &context);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement &) = delete;
    SqliteStatement &operator=(const SqliteStatement &) = delete;

    sqlite3_stmt *handle() const { return m_stmt; }
    // Hands the statement over to an owner that finalizes it (a cursor or writer on the hot path).
    sqlite3_stmt *release();

    SqliteStatement &bind(int index, std::nullptr_t);
    SqliteStatement &bind(int index, qint64 value);
    SqliteStatement &bind(int index, int value) { return bind(index, qint64(value)); }
    SqliteStatement &bind(int index, double value);
    SqliteStatement &bind(int index, const QString &value);  // a null QString binds NULL
    SqliteStatement &bind(int index, const QVariant &value); // null/int/double/string/bytearray
    SqliteStatement &bindText(int index, std::string_view utf8);

    // Steps once: true when a row is available, false when done. Throws on error.
    bool step();
    // Steps to completion (for statements that return no rows).
    void run();
    void reset(); // also clears bindings

    int columnCount() const;
    bool isNull(int column) const;
    int columnType(int column) const; // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL
    qint64 columnInt64(int column) const;
    double columnDouble(int column) const;
    QString columnText(int column) const;
    QVariant columnVariant(int column) const;
    QString columnName(int column) const;

private:
    sqlite3_stmt *m_stmt = nullptr;
    const SqliteDb &m_db;
    QString m_sql;
    QString m_context;
};

} // namespace tidemark
