// SPDX-License-Identifier: MIT
#include "model/storage/sqlite/sqlitestoredb.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/sqlite/sqlitedb.h"

#include <sqlite3.h>

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QMutex>

#include <array>

#include <pwd.h>
#include <unistd.h>

namespace tidemark {
namespace {

// "TDMK": marks a SQLite file as a Tidemark workspace, so `open` can refuse any other file
// before touching it.
constexpr quint32 kApplicationId = 0x54444D4B;

// Bump together with a new entry in kMigrations.
constexpr int kSchemaVersion = 18;

auto storageLog() {
    return logger("core.storage");
}

QString pragmaText(SqliteDb &db, const QString &pragma) {
    SqliteStatement stmt(db, pragma);
    return stmt.step() ? stmt.columnText(0) : QString();
}

qint64 pragmaInt(SqliteDb &db, const QString &pragma) {
    SqliteStatement stmt(db, pragma);
    return stmt.step() ? stmt.columnInt64(0) : 0;
}

// WAL lets the GUI read history while a run writes it; on a file system without shared memory
// SQLite silently keeps the old mode, so the result is checked rather than assumed.
void configureConnection(SqliteDb &db) {
    const QString mode = pragmaText(db, QStringLiteral("PRAGMA journal_mode = WAL")).toLower();
    if (mode != QLatin1String("wal"))
        throw Error(QStringLiteral("workspace file %1: cannot switch to WAL mode (journal mode is '%2')")
                        .arg(db.path(), mode));
    db.exec(QStringLiteral("PRAGMA foreign_keys = ON"));
    db.exec(QStringLiteral("PRAGMA synchronous = NORMAL"));
}

// Reads the SQLite header (magic at 0, application_id big-endian at 68) through SQLite's file
// layer: unlike opening a connection, this cannot create -wal/-shm files or touch the file,
// and unlike a descriptor of our own, closing it cannot drop the locks this process's other
// connections hold on the file (STYLE.md 25).
void checkIsWorkspace(const QString &path) {
    const QString notWorkspace = QStringLiteral("%1 is not a Tidemark workspace").arg(path);
    QByteArray header;
    try {
        header = SqliteDb::readHeader(path, 100);
    } catch (const Error &error) {
        throw ValidationError(QStringLiteral("cannot read workspace file %1: %2").arg(path, error.message()));
    }
    static const QByteArray magic("SQLite format 3\0", 16);
    if (header.size() < 100 || !header.startsWith(magic))
        throw ValidationError(notWorkspace);
    const auto byte = [&](int i) {
        return quint32(quint8(header[i]));
    };
    const quint32 applicationId = byte(68) << 24 | byte(69) << 16 | byte(70) << 8 | byte(71);
    if (applicationId != kApplicationId)
        throw ValidationError(notWorkspace);
}

} // namespace

// A workspace file this process pinned, and the -wal and -shm its connections use.
struct PinnedWorkspaceFile {
    static constexpr std::array<const char *, 2> kSideSuffixes{"-wal", "-shm"};

    QString name; // SQLite's full name of the file
    FileIdentity file;
    std::array<std::optional<FileIdentity>, 2> sides;

    // Another file is at the name now (none there is not "replaced": it may be moved back).
    bool replaced() const {
        const std::optional<FileIdentity> now = FileIdentity::of(name);
        return now && *now != file;
    }
    // SQLite neither checkpoints nor deletes a moved file's -wal and -shm when it closes it: the
    // next opener of the name would read that WAL into the new file. The ones still the old
    // file's (nobody has made them the new file's) are removed. Called while this process still
    // holds them open, so their inodes cannot have been reused.
    void removeOldSideFiles() const {
        for (std::size_t i = 0; i < sides.size(); ++i) {
            const QString side = name + QLatin1String(kSideSuffixes[i]);
            if (sides[i] && FileIdentity::of(side) == sides[i] && QFile::remove(side))
                storageLog()->warn("removed {}, the replaced workspace file's own", str(side));
        }
    }
};

namespace {

// The workspace files this process pinned (Workspace::pinFile), by SQLite's full name of each.
// The old file's -wal and -shm keep their names when a file is replaced; a connection that
// opened the new file by that name would share them with this process's connections to the old
// one (POSIX locks never conflict within a process), take the old WAL's pages for the new
// file's, and checkpoint them into it: a malformed workspace. So a connection to a pinned name
// is checked right after it opened the file, before it reads any page.
struct PinnedFiles {
    QMutex mutex;
    QHash<QString, PinnedWorkspaceFile> byName;
};

PinnedFiles &pinnedFiles() {
    static PinnedFiles pinned;
    return pinned;
}

QString fullName(const SqliteDb &db) {
    return QString::fromUtf8(sqlite3_db_filename(db.handle(), "main"));
}

Error replacedError(const QString &path) {
    return Error(
        QStringLiteral("workspace file %1 is no longer the file this process opened (it was replaced, moved "
                       "or deleted since): this process reads and writes it no more")
            .arg(path));
}

void refuseIfPinnedFileReplaced(const SqliteDb &db) {
    std::optional<PinnedWorkspaceFile> pin;
    {
        PinnedFiles &pinned = pinnedFiles();
        const QMutexLocker lock(&pinned.mutex);
        const auto found = pinned.byName.constFind(fullName(db));
        if (found == pinned.byName.cend())
            return;
        pin = *found;
    }
    if (db.openedFile() == pin->file)
        return;
    if (pin->replaced())
        pin->removeOldSideFiles();
    throw replacedError(db.path());
}

void removeWorkspaceFiles(const QString &path) {
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
        QFile::remove(path + suffix);
}

// --- migrations: one function per step, each run in its own transaction ---

void migrateTo1(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
CREATE TABLE meta (
    "key" TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE connections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    path TEXT,
    conninfo TEXT,
    password_env TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_connection TEXT NOT NULL,
    source_table TEXT NOT NULL,
    target_connection TEXT NOT NULL,
    target_table TEXT NOT NULL,
    watermark_column TEXT NOT NULL DEFAULT '',
    watermark_type TEXT NOT NULL DEFAULT 'none',
    tiebreak_column TEXT NOT NULL DEFAULT '',
    key_columns TEXT NOT NULL DEFAULT '[]',
    mode TEXT NOT NULL DEFAULT 'append',
    lookback TEXT NOT NULL DEFAULT '',
    initial_watermark TEXT,
    last_watermark TEXT,
    last_tiebreak, -- no declared type: keeps the value's own type (no affinity)
    active INTEGER NOT NULL DEFAULT 1,
    max_skipped INTEGER NOT NULL DEFAULT 0,
    expect_rows INTEGER NOT NULL DEFAULT 0,
    commit_per_batch INTEGER NOT NULL DEFAULT 0,
    batch_size INTEGER NOT NULL DEFAULT 10000,
    add_new_columns INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    "trigger" TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    concurrency INTEGER NOT NULL,
    dry_run INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE iterations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL,
    table_id INTEGER NOT NULL,
    source TEXT NOT NULL,
    target TEXT NOT NULL,
    status TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    rows_read INTEGER NOT NULL DEFAULT 0,
    rows_written INTEGER NOT NULL DEFAULT 0,
    rows_skipped INTEGER NOT NULL DEFAULT 0,
    rows_null_watermark INTEGER NOT NULL DEFAULT 0,
    window_rows INTEGER NOT NULL DEFAULT -1,
    watermark_before TEXT,
    watermark_after TEXT,
    window_lower TEXT,
    window_upper TEXT,
    error TEXT
);
CREATE TABLE iteration_logs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    iteration_id INTEGER NOT NULL REFERENCES iterations(id) ON DELETE CASCADE,
    at TEXT NOT NULL,
    level TEXT NOT NULL,
    message TEXT NOT NULL
);
CREATE TABLE rejects (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER,
    iteration_id INTEGER,
    table_id INTEGER NOT NULL,
    at TEXT NOT NULL,
    error TEXT NOT NULL,
    row_key TEXT,
    row_data TEXT
);
CREATE TABLE leases (
    table_id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    acquired_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE TABLE watermark_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER NOT NULL,
    at TEXT NOT NULL,
    old_value TEXT,
    new_value TEXT,
    old_tiebreak TEXT,
    new_tiebreak TEXT,
    cause TEXT NOT NULL,
    run_id INTEGER
);
CREATE INDEX iterations_by_run ON iterations(run_id, id);
CREATE INDEX iterations_by_table ON iterations(table_id, id);
CREATE INDEX iteration_logs_by_iteration ON iteration_logs(iteration_id, id);
CREATE INDEX rejects_by_table ON rejects(table_id, id);
CREATE INDEX watermark_changes_by_table ON watermark_changes(table_id, id);
)"));
}

// Removing a table archives it (the row, its position and its history stay; its id is never
// reused), and a run records a heartbeat so a dead one can be closed as interrupted.
void migrateTo2(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
ALTER TABLE tables ADD COLUMN archived_at TEXT;
ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
ALTER TABLE runs ADD COLUMN heartbeat_expires_at TEXT;
CREATE INDEX runs_by_status ON runs(status);
)"));
}

// The table's position follows the target's state row in (generation, position) order, so it
// keeps the generation it was copied from; every table so far follows generation 0.
void migrateTo3(SqliteDb &db) {
    db.exec(QStringLiteral("ALTER TABLE tables ADD COLUMN last_generation INTEGER NOT NULL DEFAULT 0"));
}

// The workspace's alerts (AlertSettings): one row at most. The webhook URL holds `${NAME}`
// references where a secret goes, never the secret (checkWebhookUrl refuses one in clear).
void migrateTo4(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
CREATE TABLE alert_settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    hook_command TEXT,
    hook_timeout_ms INTEGER NOT NULL,
    webhook_url TEXT,
    webhook_timeout_ms INTEGER NOT NULL,
    on_statuses TEXT NOT NULL
);
)"));
}

// Schedules, the schedule that fired a run, and the heartbeat of the workspace's one active
// runner (the CHECK keeps it to one row).
void migrateTo5(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
CREATE TABLE schedules (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    cron TEXT NOT NULL,
    tz TEXT NOT NULL,
    tables TEXT NOT NULL DEFAULT '[]', -- JSON array of table ids; [] = every active table
    concurrency INTEGER NOT NULL DEFAULT 2,
    retries INTEGER NOT NULL DEFAULT 0,
    timeout_seconds INTEGER NOT NULL DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_fired_at TEXT,
    last_run_id INTEGER
);
ALTER TABLE runs ADD COLUMN schedule TEXT;
CREATE TABLE runner (
    slot INTEGER PRIMARY KEY CHECK (slot = 1),
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    version TEXT NOT NULL,
    started_at TEXT NOT NULL,
    last_beat_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
)"));
}

// A watermark change records the host that made it: a backfill or a hand edit has no run to
// name one (older changes take their run's host when read). One iteration's rejected rows are
// read a page at a time: 300,000 rejects, a page after another iteration's 100,000, took 134 ms
// through rejects_by_table, under 1 ms through this index.
void migrateTo6(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
ALTER TABLE watermark_changes ADD COLUMN host TEXT;
CREATE INDEX rejects_by_iteration ON rejects(iteration_id, id);
)"));
}

// A schedule's own alerts (ScheduleSpec::alerts) as JSON (alertSettingsToJson); NULL = none.
void migrateTo7(SqliteDb &db) {
    db.exec(QStringLiteral("ALTER TABLE schedules ADD COLUMN alerts TEXT"));
}

// Rows whose watermark no window can order (infinity, NaN, ...), counted like NULL watermarks.
void migrateTo8(SqliteDb &db) {
    db.exec(QStringLiteral(
        "ALTER TABLE iterations ADD COLUMN rows_unorderable_watermark INTEGER NOT NULL DEFAULT 0"));
}

// History at scale (keyset pages newest first, filtered to a table or a status): pages walk
// runs in (started_at, id) order; a table's runs are found from its iterations, and a status
// among a run's iterations without reading them. IF NOT EXISTS: only indexes, so a workspace
// taken back to an older version by hand (tests do) migrates again.
void migrateTo9(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
CREATE INDEX IF NOT EXISTS runs_by_start ON runs(started_at, id);
CREATE INDEX IF NOT EXISTS iterations_by_table_run ON iterations(table_id, run_id, status);
CREATE INDEX IF NOT EXISTS iterations_by_run_status ON iterations(run_id, status);
)"));
}

// How many runs a status filter takes, counted from the runs and the iterations that ended so
// (two index ranges) instead of probing every run's iterations: at 100,000 runs of 20 tables,
// 10 ms instead of 650 ms. A table's history sorted by its iteration's status, duration or rows,
// a page at a time (RunOrder): a table of 100,000 runs, 1 ms a page instead of 100 ms (each
// page sorted whole). IF NOT EXISTS, as in step 9.
void migrateTo10(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
CREATE INDEX IF NOT EXISTS iterations_by_status_run ON iterations(status, run_id);
CREATE INDEX IF NOT EXISTS iterations_by_table_status ON iterations(table_id, status, run_id);
CREATE INDEX IF NOT EXISTS iterations_by_table_duration ON iterations(table_id, duration_ms, run_id);
CREATE INDEX IF NOT EXISTS iterations_by_table_read ON iterations(table_id, rows_read, run_id);
CREATE INDEX IF NOT EXISTS iterations_by_table_written ON iterations(table_id, rows_written, run_id);
)"));
}

// Unattended honesty. The runner's heartbeat says how its last firing went, so a schedule whose
// firing failed before its run existed is visible where the runner is. An iteration records
// only what its committed transactions hold as written: rows streamed into a transaction not
// (yet) committed are pending while it runs and rolled back once it ended otherwise. Rows held
// back beyond a table's future guard (max_future: a duration, empty = the default; max_jump: an
// integer watermark's largest step, 0 = none) are counted. The variables the workspace's hook
// asks for (AlertSettings::hookEnv), comma-separated: hooks now get a minimal environment, and
// one set before this step asks for none (a schedule's alerts carry theirs as JSON "hook_env").
void migrateTo11(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
ALTER TABLE runner ADD COLUMN last_firing_at TEXT;
ALTER TABLE runner ADD COLUMN last_firing_schedule TEXT;
ALTER TABLE runner ADD COLUMN last_firing_error TEXT;
ALTER TABLE iterations ADD COLUMN rows_pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE iterations ADD COLUMN rows_rolled_back INTEGER NOT NULL DEFAULT 0;
ALTER TABLE iterations ADD COLUMN rows_future INTEGER NOT NULL DEFAULT 0;
ALTER TABLE iterations ADD COLUMN source_behind INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN max_future TEXT NOT NULL DEFAULT '';
ALTER TABLE tables ADD COLUMN max_jump INTEGER NOT NULL DEFAULT 0;
ALTER TABLE alert_settings ADD COLUMN hook_env TEXT NOT NULL DEFAULT '';
)"));
}

// Version 12: a table's --stale-after (a duration, empty = never).
void migrateTo12(SqliteDb &db) {
    db.exec(QStringLiteral("ALTER TABLE tables ADD COLUMN stale_after TEXT NOT NULL DEFAULT ''"));
}

// Version 13: the alarms raised for stalled tables (one row per table while it stays stalled,
// so each stall is sent once), and "stalled" among the alerts of settings that asked for
// warnings: a stalled table used to be silent. A table's delete policy (DeletePolicy as JSON,
// empty = ignore) and the rows an iteration's reconcile deleted or marked.
void migrateTo13(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
CREATE TABLE table_alarms (
    table_id INTEGER PRIMARY KEY,
    health TEXT NOT NULL,
    raised_at TEXT NOT NULL
);
UPDATE alert_settings SET on_statuses = on_statuses || ',stalled'
    WHERE ',' || on_statuses || ',' LIKE '%,warning,%';
ALTER TABLE tables ADD COLUMN delete_policy TEXT NOT NULL DEFAULT '';
ALTER TABLE iterations ADD COLUMN rows_deleted INTEGER NOT NULL DEFAULT 0;
)"));
}

// Version 14: what a run does (RunRecord::kind): "copy", or "range_backfill"; the zone of a
// table's naive timestamp watermark (empty = UTC).
void migrateTo14(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'copy';
ALTER TABLE tables ADD COLUMN source_timezone TEXT NOT NULL DEFAULT '';
)"));
}

// Version 15: the caps (docs/design.md, "Caps"): a connection's max connections (0 = none; the
// workspace's max concurrency is a meta key); the process that ran an iteration ("host:pid")
// and why a queued one waits.
void migrateTo15(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
ALTER TABLE connections ADD COLUMN max_connections INTEGER NOT NULL DEFAULT 0;
ALTER TABLE iterations ADD COLUMN runner TEXT NOT NULL DEFAULT '';
ALTER TABLE iterations ADD COLUMN waiting TEXT NOT NULL DEFAULT '';
)"));
}

// Version 16: the queue runners share (docs/design.md, "The runner fleet"): a run handed to the
// fleet, an iteration's cancel request, every live runner's row, and one row per schedule
// firing so a firing makes its run once whichever runner sees it due.
void migrateTo16(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
ALTER TABLE runs ADD COLUMN queued INTEGER NOT NULL DEFAULT 0;
ALTER TABLE iterations ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
CREATE TABLE fleet_runners (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    version TEXT NOT NULL,
    slots INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    last_beat_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE TABLE schedule_firings (
    schedule TEXT NOT NULL,
    fire_at TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    PRIMARY KEY (schedule, fire_at)
);
CREATE INDEX iterations_by_runner ON iterations(status, runner);
)"));
}

// Version 17: each lease's fencing token and the last one drawn (docs/design.md, "Fencing"); a
// queued range backfill's FROM..TO, for whichever runner claims it; a table's zero-date policy.
void migrateTo17(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
ALTER TABLE runs ADD COLUMN backfill_range TEXT NOT NULL DEFAULT '';
ALTER TABLE tables ADD COLUMN zero_dates TEXT NOT NULL DEFAULT 'fail';
ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0;
INSERT INTO meta ("key", value) VALUES ('last_lease_token', '0') ON CONFLICT ("key") DO NOTHING;
)"));
}

// Version 18: who started each run and who made each position change (docs/team.md, "Roles").
void migrateTo18(SqliteDb &db) {
    db.exec(QStringLiteral(R"(
ALTER TABLE runs ADD COLUMN started_by TEXT NOT NULL DEFAULT '';
ALTER TABLE watermark_changes ADD COLUMN changed_by TEXT NOT NULL DEFAULT '';
)"));
}

using MigrationStep = void (*)(SqliteDb &);
constexpr MigrationStep kMigrations[kSchemaVersion] = {
    &migrateTo1,  &migrateTo2,  &migrateTo3,  &migrateTo4,  &migrateTo5,  &migrateTo6,
    &migrateTo7,  &migrateTo8,  &migrateTo9,  &migrateTo10, &migrateTo11, &migrateTo12,
    &migrateTo13, &migrateTo14, &migrateTo15, &migrateTo16, &migrateTo17, &migrateTo18};

class SqliteStatementBackend : public StatementBackend {
public:
    SqliteStatementBackend(const SqliteDb &db, const QString &sql)
        : m_stmt(db, sql) {}
    void bindNull(int index) override { m_stmt.bind(index, nullptr); }
    void bindInt(int index, qint64 value) override { m_stmt.bind(index, value); }
    void bindDouble(int index, double value) override { m_stmt.bind(index, value); }
    void bindText(int index, const QString &value) override { m_stmt.bind(index, value); }
    void bindBlob(int index, const QByteArray &value) override { m_stmt.bind(index, QVariant(value)); }
    bool step() override { return m_stmt.step(); }
    void reset() override { m_stmt.reset(); }
    bool isNull(int column) const override { return m_stmt.isNull(column); }
    qint64 columnInt64(int column) const override { return m_stmt.columnInt64(column); }
    double columnDouble(int column) const override { return m_stmt.columnDouble(column); }
    QString columnText(int column) const override { return m_stmt.columnText(column); }
    std::string_view columnUtf8(int column) const override {
        const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt.handle(), column));
        return text ? std::string_view(text, size_t(sqlite3_column_bytes(m_stmt.handle(), column)))
                    : std::string_view();
    }
    QVariant columnVariant(int column) const override { return m_stmt.columnVariant(column); }

private:
    SqliteStatement m_stmt;
};

} // namespace

SqliteStoreDb::SqliteStoreDb(std::unique_ptr<SqliteDb> db)
    : m_db(std::move(db)) {}

SqliteStoreDb::~SqliteStoreDb() {
    if (!m_pinned)
        return;
    if (m_pinned->replaced())
        m_pinned->removeOldSideFiles(); // before this connection lets go of them
    PinnedFiles &pinned = pinnedFiles();
    const QMutexLocker lock(&pinned.mutex);
    const auto found = pinned.byName.constFind(m_pinned->name);
    if (found != pinned.byName.cend() && found->file == m_pinned->file)
        pinned.byName.erase(found);
}

int SqliteStoreDb::schemaVersion() {
    return kSchemaVersion;
}

std::unique_ptr<SqliteStoreDb> SqliteStoreDb::create(const QString &path) {
    const QString exists = QStringLiteral("workspace file %1 already exists").arg(path);
    if (QFileInfo::exists(path) || QFileInfo(path).isSymLink())
        throw ValidationError(exists);
    {
        // NewOnly is O_EXCL: a file appearing between the check and here is refused, not reused.
        // Our own descriptor is harmless here only because the file is new: no connection to
        // it can exist yet, so closing it drops no lock (see checkIsWorkspace).
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly)) {
            if (QFileInfo::exists(path))
                throw ValidationError(exists);
            throw Error(QStringLiteral("cannot create workspace file %1: %2").arg(path, file.errorString()));
        }
        // Private whatever the umask: it holds rejected rows and connection details. SQLite
        // gives its -wal and -shm files the main file's permissions.
        if (!file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
            file.close();
            QFile::remove(path);
            throw Error(
                QStringLiteral("cannot make workspace file %1 private: %2").arg(path, file.errorString()));
        }
    }
    try {
        auto db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::ReadWrite, workspaceLockWaitMs());
        // Before WAL, so the id lands in the main file's header where `open` reads it.
        db->exec(QStringLiteral("PRAGMA application_id = %1").arg(kApplicationId));
        configureConnection(*db);
        std::unique_ptr<SqliteStoreDb> store(new SqliteStoreDb(std::move(db)));
        store->migrate();
        return store;
    } catch (...) {
        removeWorkspaceFiles(path);
        throw;
    }
}

std::unique_ptr<SqliteStoreDb> SqliteStoreDb::open(const QString &path) {
    if (!QFileInfo::exists(path))
        throw ValidationError(
            QStringLiteral("workspace file %1 does not exist (create it with 'tidemark-cli init')")
                .arg(path));
    checkIsWorkspace(path);
    auto db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::ReadWrite, workspaceLockWaitMs());
    refuseIfPinnedFileReplaced(*db);
    configureConnection(*db);
    std::unique_ptr<SqliteStoreDb> store(new SqliteStoreDb(std::move(db)));
    store->migrate();
    return store;
}

bool SqliteStoreDb::checkpoint(const QString &path, int waitMs) {
    checkIsWorkspace(path);
    SqliteDb db(path, SqliteDb::Mode::ReadWrite, waitMs);
    refuseIfPinnedFileReplaced(db);
    // PASSIVE first: it copies the bulk without the write lock; TRUNCATE then holds that lock
    // only for what is left and for the wait on readers. Each answers (busy, log, checkpointed).
    pragmaInt(db, QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
    return pragmaInt(db, QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)")) == 0;
}

void SqliteStoreDb::migrate() {
    const qint64 found = pragmaInt(*m_db, QStringLiteral("PRAGMA user_version"));
    if (found > kSchemaVersion)
        throw ValidationError(
            QStringLiteral("workspace file %1 has schema version %2, newer than this Tidemark "
                           "knows (%3); use a newer Tidemark")
                .arg(m_db->path())
                .arg(found)
                .arg(kSchemaVersion));
    for (int step = int(found); step < kSchemaVersion; ++step) {
        Transaction transaction(*this);
        // Another process may have migrated between our read and the write lock.
        if (pragmaInt(*m_db, QStringLiteral("PRAGMA user_version")) > step)
            continue;
        kMigrations[step](*m_db);
        // PRAGMA takes no bound parameters; the version is a constant of this build.
        m_db->exec(QStringLiteral("PRAGMA user_version = %1").arg(step + 1));
        transaction.commit();
        storageLog()->info("migrated workspace {} to schema version {}", str(m_db->path()), step + 1);
    }
}

void SqliteStoreDb::pinFile() {
    const std::optional<FileIdentity> opened = m_db->openedFile();
    if (!opened)
        throw replacedError(m_db->path());
    auto pin = std::make_unique<PinnedWorkspaceFile>();
    pin->name = fullName(*m_db);
    pin->file = *opened;
    for (std::size_t i = 0; i < pin->sides.size(); ++i) // open since this connection's first read
        pin->sides[i] = FileIdentity::of(pin->name + QLatin1String(PinnedWorkspaceFile::kSideSuffixes[i]));
    PinnedFiles &pinned = pinnedFiles();
    const QMutexLocker lock(&pinned.mutex);
    pinned.byName.insert(pin->name, *pin);
    m_pinned = std::move(pin);
}

bool SqliteStoreDb::pinnedFileReplaced() {
    if (!m_pinned || !m_pinned->replaced())
        return false;
    m_pinned->removeOldSideFiles();
    return true;
}

QString SqliteStoreDb::location() const {
    return m_db->path();
}

void SqliteStoreDb::exec(const QString &sql) {
    m_db->exec(sql);
}

std::unique_ptr<StatementBackend> SqliteStoreDb::prepare(const QString &sql) {
    return std::make_unique<SqliteStatementBackend>(*m_db, sql);
}

qint64 SqliteStoreDb::lastInsertId() {
    return m_db->lastInsertId();
}

qint64 SqliteStoreDb::changes() const {
    return m_db->changes();
}

// IMMEDIATE takes the write lock up front: in WAL mode a deferred read-then-write transaction
// can fail with SQLITE_BUSY without waiting for the busy timeout. A read (deferred BEGIN) takes
// no write lock: it only makes several statements see one snapshot.
void SqliteStoreDb::begin(TransactionKind kind) {
    m_db->exec(kind == TransactionKind::Write ? QStringLiteral("BEGIN IMMEDIATE") : QStringLiteral("BEGIN"));
}

void SqliteStoreDb::stopStatementsWhile(const std::atomic_bool *flag) {
    m_db->stopStatementsWhile(flag);
}

// The process's login from the password database rather than $USER, which anyone sets; a uid
// with no entry (a container's) is named by its number.
QString SqliteStoreDb::userName() {
    static const QString name = [] {
        passwd entry{};
        passwd *found = nullptr;
        std::array<char, 4096> buffer{};
        if (::getpwuid_r(::geteuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found)
            return QString::fromLocal8Bit(found->pw_name);
        return QString::number(::geteuid());
    }();
    return name;
}

QList<StoreColumn> SqliteStoreDb::columns(const QString &table) {
    Statement select(*this, QStringLiteral("SELECT name FROM pragma_table_info(?1) ORDER BY cid"));
    select.bind(1, table);
    QList<StoreColumn> found;
    while (select.step())
        found << StoreColumn{select.columnText(0)};
    return found;
}

std::optional<qint64> SqliteStoreDb::dataVersion() {
    return pragmaInt(*m_db, QStringLiteral("PRAGMA data_version"));
}

QString SqliteStoreDb::idsFromJson(int param) const {
    return QStringLiteral("SELECT value FROM json_each(?%1)").arg(param);
}

QString SqliteStoreDb::dayNumber(const QString &textExpression) const {
    return QStringLiteral("julianday(%1)").arg(textExpression);
}

QString SqliteStoreDb::least(const QString &a, const QString &b) const {
    return QStringLiteral("min(%1, %2)").arg(a, b);
}

QString SqliteStoreDb::greatest(const QString &a, const QString &b) const {
    return QStringLiteral("max(%1, %2)").arg(a, b);
}

QString SqliteStoreDb::truncated(const QString &expression) const {
    return QStringLiteral("CAST(%1 AS INTEGER)").arg(expression);
}

} // namespace tidemark
