// SPDX-License-Identifier: MIT
#include "model/sqlite/sqlitedb.h"

#include "model/common/error.h"

#include <sqlite3.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>

namespace tidemark {

// A busy handler that only slept could not tell this process's own lock holders from other
// processes': two worker threads of one run, each with its own connection to the workspace (or
// to one target file), would sleep on each other's short transactions for a whole back-off
// step. The connections of this process to one file share this: a waiting handler sleeps on
// `ended` and is woken as soon as one of them ends a transaction; locks held by other processes
// are still waited for with the back-off delays.
struct SqliteDb::FileWaiters {
    std::mutex mutex;
    std::condition_variable ended;
    std::atomic<quint64> endings{0};
    std::atomic<int> waiting{0};

    static std::shared_ptr<FileWaiters> of(const std::string &file) {
        static std::mutex registryMutex;
        static std::unordered_map<std::string, std::weak_ptr<FileWaiters>> registry;
        const std::lock_guard lock(registryMutex);
        std::weak_ptr<FileWaiters> &slot = registry[file];
        auto waiters = slot.lock();
        if (!waiters) {
            std::erase_if(registry, [](const auto &entry) { return entry.second.expired(); });
            waiters = std::make_shared<FileWaiters>();
            registry[file] = waiters;
        }
        return waiters;
    }
};

SqliteDb::SqliteDb(const QString &path, Mode mode, int busyTimeoutMs)
    : m_path(path)
    , m_busyTimeoutMs(busyTimeoutMs) {
    // URI names let an ATTACH say mode=ro; a plain path (absolute here) reads as before.
    int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
    switch (mode) {
    case Mode::ReadWrite:
        flags |= SQLITE_OPEN_READWRITE;
        break;
    case Mode::ReadWriteCreate:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        break;
    case Mode::ReadOnly:
        flags |= SQLITE_OPEN_READONLY;
        break;
    }
    const QByteArray file = path.toUtf8();
    const int rc = sqlite3_open_v2(file.constData(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        const QString message =
            m_db ? QString::fromUtf8(sqlite3_errmsg(m_db)) : QStringLiteral("out of memory");
        sqlite3_close(m_db);
        m_db = nullptr;
        throw Error(QStringLiteral("cannot open SQLite file %1: %2").arg(path, message));
    }
    sqlite3_busy_handler(m_db, &SqliteDb::onBusy, this);
    sqlite3_extended_result_codes(m_db, 1);
    // The file's full name as SQLite resolved it: every connection to it agrees, however the
    // path was spelled. In-memory and temporary databases have none, and nothing to share.
    const char *resolved = sqlite3_db_filename(m_db, "main");
    if (resolved && *resolved)
        m_waiters = FileWaiters::of(resolved);
}

int SqliteDb::onBusy(void *self, int attempt) {
    auto *db = static_cast<SqliteDb *>(self);
    const auto now = std::chrono::steady_clock::now();
    if (attempt == 0)
        db->m_busySince = now;
    if (db->m_interrupted.load() || now - db->m_busySince >= std::chrono::milliseconds(db->m_busyTimeoutMs))
        return 0;
    // SQLite's own back-off (1 ms growing to 100 ms): short waits stay short, long ones cheap.
    static constexpr int kDelaysMs[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
    constexpr int kSteps = int(std::size(kDelaysMs));
    const std::chrono::milliseconds delay(kDelaysMs[std::min(attempt, kSteps - 1)]);
    if (!db->m_waiters) {
        std::this_thread::sleep_for(delay);
        return 1;
    }
    // Woken early when a connection of this process ends a transaction on the file.
    FileWaiters &waiters = *db->m_waiters;
    std::unique_lock lock(waiters.mutex);
    const quint64 seen = waiters.endings.load();
    waiters.waiting.fetch_add(1);
    waiters.ended.wait_for(lock, delay,
                           [&] { return waiters.endings.load() != seen || db->m_interrupted.load(); });
    waiters.waiting.fetch_sub(1);
    return 1;
}

void SqliteDb::stopStatementsWhile(const std::atomic_bool *flag) {
    m_stopFlag = flag;
    // Looked at every 1,000 virtual machine steps: an atomic load, nothing a statement notices.
    sqlite3_progress_handler(m_db, flag ? 1000 : 0, flag ? &SqliteDb::onProgress : nullptr, this);
}

int SqliteDb::onProgress(void *self) {
    const std::atomic_bool *flag = static_cast<SqliteDb *>(self)->m_stopFlag;
    return flag && flag->load(std::memory_order_relaxed) ? 1 : 0;
}

void SqliteDb::interrupt() {
    m_interrupted.store(true);
    sqlite3_interrupt(m_db);
    wakeWaiters();
}

void SqliteDb::noteStatementEnded() const {
    if (m_waiters && sqlite3_get_autocommit(m_db))
        wakeWaiters();
}

void SqliteDb::wakeWaiters() const {
    if (!m_waiters)
        return;
    m_waiters->endings.fetch_add(1);
    if (m_waiters->waiting.load() == 0)
        return;
    // Taken, so a handler between reading `endings` and waiting cannot miss the notification.
    { const std::lock_guard lock(m_waiters->mutex); }
    m_waiters->ended.notify_all();
}

std::optional<FileIdentity> SqliteDb::openedFile() const {
    // SQLite says whether its descriptor is still the file at the name; the name read before
    // and after that answer is the same file only if nobody replaced it in between.
    const char *name = sqlite3_db_filename(m_db, "main");
    if (!name || !*name)
        return std::nullopt; // in memory
    const QString path = QString::fromUtf8(name);
    const std::optional<FileIdentity> before = FileIdentity::of(path);
    int moved = 1;
    if (!before || sqlite3_file_control(m_db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK || moved)
        return std::nullopt;
    return FileIdentity::of(path) == before ? before : std::nullopt;
}

QByteArray SqliteDb::readHeader(const QString &path, int size) {
    sqlite3_vfs *vfs = sqlite3_vfs_find(nullptr);
    if (!vfs)
        throw Error(QStringLiteral("cannot read %1: no SQLite file layer").arg(path));
    // xOpen keeps the name pointer until xClose.
    const QByteArray name = path.toUtf8();
    std::unique_ptr<char[]> storage(new char[size_t(vfs->szOsFile)]);
    std::memset(storage.get(), 0, size_t(vfs->szOsFile));
    auto *file = reinterpret_cast<sqlite3_file *>(storage.get());
    int outFlags = 0;
    if (vfs->xOpen(vfs, name.constData(), file, SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READONLY, &outFlags) !=
        SQLITE_OK) {
        // A failed xOpen may still have set pMethods; then it must be closed.
        if (file->pMethods)
            file->pMethods->xClose(file);
        throw Error(QStringLiteral("cannot read %1").arg(path));
    }
    QByteArray header(size, '\0');
    sqlite3_int64 fileSize = 0;
    int rc = file->pMethods->xFileSize(file, &fileSize);
    if (rc == SQLITE_OK) {
        header.truncate(int(qMin<sqlite3_int64>(fileSize, size)));
        if (!header.isEmpty())
            rc = file->pMethods->xRead(file, header.data(), int(header.size()), 0);
    }
    file->pMethods->xClose(file);
    if (rc != SQLITE_OK)
        throw Error(QStringLiteral("cannot read %1 (SQLite error %2)").arg(path).arg(rc));
    return header;
}

SqliteDb::~SqliteDb() {
    sqlite3_close_v2(m_db);
}

void SqliteDb::exec(const QString &sql) {
    char *message = nullptr;
    const QByteArray text = sql.toUtf8();
    const int rc = sqlite3_exec(m_db, text.constData(), nullptr, nullptr, &message);
    noteStatementEnded();
    if (rc != SQLITE_OK) {
        const QString error = QString::fromUtf8(message ? message : sqlite3_errmsg(m_db));
        sqlite3_free(message);
        throw Error(QStringLiteral("%1: %2").arg(m_path, error));
    }
}

qint64 SqliteDb::lastInsertId() const {
    return sqlite3_last_insert_rowid(m_db);
}

qint64 SqliteDb::changes() const {
    return sqlite3_changes64(m_db);
}

QString SqliteDb::lastError() const {
    return QString::fromUtf8(sqlite3_errmsg(m_db));
}

SqliteStatement::SqliteStatement(const SqliteDb &db, const QString &sql)
    : SqliteStatement(db, sql, db.path()) {}

SqliteStatement::SqliteStatement(const SqliteDb &db, const QString &sql, const QString &context)
    : m_db(db)
    , m_sql(sql)
    , m_context(context) {
    const QByteArray text = sql.toUtf8();
    if (sqlite3_prepare_v3(db.handle(), text.constData(), int(text.size()), SQLITE_PREPARE_PERSISTENT,
                           &m_stmt, nullptr) != SQLITE_OK)
        throw Error(m_context + QStringLiteral(": ") + db.lastError());
}

SqliteStatement::~SqliteStatement() {
    if (m_stmt) {
        sqlite3_finalize(m_stmt);
        m_db.noteStatementEnded();
    }
}

sqlite3_stmt *SqliteStatement::release() {
    return std::exchange(m_stmt, nullptr);
}

SqliteStatement &SqliteStatement::bind(int index, std::nullptr_t) {
    sqlite3_bind_null(m_stmt, index);
    return *this;
}

SqliteStatement &SqliteStatement::bind(int index, qint64 value) {
    sqlite3_bind_int64(m_stmt, index, value);
    return *this;
}

SqliteStatement &SqliteStatement::bind(int index, double value) {
    sqlite3_bind_double(m_stmt, index, value);
    return *this;
}

SqliteStatement &SqliteStatement::bind(int index, const QString &value) {
    if (value.isNull())
        return bind(index, nullptr);
    return bindText(index, value.toUtf8().toStdString());
}

SqliteStatement &SqliteStatement::bindText(int index, std::string_view utf8) {
    sqlite3_bind_text64(m_stmt, index, utf8.data(), utf8.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    return *this;
}

SqliteStatement &SqliteStatement::bind(int index, const QVariant &value) {
    if (value.isNull())
        return bind(index, nullptr);
    switch (value.typeId()) {
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::UInt:
    case QMetaType::Bool:
    case QMetaType::Short:
    case QMetaType::UShort:
        return bind(index, value.toLongLong());
    case QMetaType::ULongLong:
        return bind(index, qint64(value.toULongLong()));
    case QMetaType::Double:
    case QMetaType::Float:
        return bind(index, value.toDouble());
    case QMetaType::QByteArray: {
        const QByteArray bytes = value.toByteArray();
        sqlite3_bind_blob64(m_stmt, index, bytes.constData(), bytes.size(), SQLITE_TRANSIENT);
        return *this;
    }
    default:
        return bind(index, value.toString());
    }
}

bool SqliteStatement::step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE) {
        m_db.noteStatementEnded();
        return false;
    }
    const QString message = m_db.lastError();
    sqlite3_reset(m_stmt);
    m_db.noteStatementEnded();
    throw Error(m_context + QStringLiteral(": ") + message);
}

void SqliteStatement::run() {
    while (step()) {
    }
}

void SqliteStatement::reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
    m_db.noteStatementEnded();
}

int SqliteStatement::columnCount() const {
    return sqlite3_column_count(m_stmt);
}

bool SqliteStatement::isNull(int column) const {
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

int SqliteStatement::columnType(int column) const {
    return sqlite3_column_type(m_stmt, column);
}

qint64 SqliteStatement::columnInt64(int column) const {
    return sqlite3_column_int64(m_stmt, column);
}

double SqliteStatement::columnDouble(int column) const {
    return sqlite3_column_double(m_stmt, column);
}

QString SqliteStatement::columnText(int column) const {
    const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    if (!text)
        return QString();
    return QString::fromUtf8(text, sqlite3_column_bytes(m_stmt, column));
}

QVariant SqliteStatement::columnVariant(int column) const {
    switch (sqlite3_column_type(m_stmt, column)) {
    case SQLITE_INTEGER:
        return QVariant(qint64(sqlite3_column_int64(m_stmt, column)));
    case SQLITE_FLOAT:
        return QVariant(sqlite3_column_double(m_stmt, column));
    case SQLITE_TEXT:
        return QVariant(columnText(column));
    case SQLITE_BLOB: {
        const void *data = sqlite3_column_blob(m_stmt, column);
        return QVariant(QByteArray(static_cast<const char *>(data), sqlite3_column_bytes(m_stmt, column)));
    }
    default:
        return QVariant();
    }
}

QString SqliteStatement::columnName(int column) const {
    return QString::fromUtf8(sqlite3_column_name(m_stmt, column));
}

} // namespace tidemark
