// SPDX-License-Identifier: MIT
#include "model/storage/workspace.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/storage/sqlitedb.h"

#include <sqlite3.h>

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSysInfo>
#include <QUuid>

#include <cerrno>
#include <limits>
#include <signal.h>
#include <sys/types.h>

namespace tidemark {
namespace {

// "TDMK": marks a SQLite file as a Tidemark workspace, so `open` can refuse any other file
// before touching it.
constexpr quint32 kApplicationId = 0x54444D4B;
constexpr int kBusyTimeoutMs = 10000;

// Bump together with a new entry in kMigrations.
constexpr int kSchemaVersion = 11;

// A run's owner beats this often; a run whose last beat is older than kBeatsToExpire beats is
// taken for dead (its process frozen or on a host whose pids we cannot check).
constexpr int kRunHeartbeatMs = 5000;
constexpr int kBeatsToExpire = 4;

auto storageLog() {
    return logger("core.storage");
}

// `defaultMs`, or what the test-only variable `testVariable` says.
int intervalMs(const char *testVariable, int defaultMs) {
    bool ok = false;
    const int testMs = qEnvironmentVariableIntValue(testVariable, &ok);
    return ok && testMs > 0 ? testMs : defaultMs;
}

// kRunHeartbeatMs, or what the test-only variable `testVariable` says.
int heartbeatIntervalMs(const char *testVariable) {
    return intervalMs(testVariable, kRunHeartbeatMs);
}

// kBusyTimeoutMs, or TIDEMARK_TEST_WORKSPACE_BUSY_MS: a test that holds the workspace's lock
// makes its writes fail in a fraction of a second instead of ten.
int busyTimeoutMs() {
    return intervalMs("TIDEMARK_TEST_WORKSPACE_BUSY_MS", kBusyTimeoutMs);
}

QString nowText() {
    return isoUtc(QDateTime::currentDateTimeUtc());
}

// Invalid times are stored as NULL (a null QString binds NULL).
QString timeText(const QDateTime &time) {
    return time.isValid() ? isoUtc(time) : QString();
}

// The digits text[from, from + count), or -1 when one is not a digit.
int digits(const char *text, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; ++i) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

// Times are stored as isoUtc() writes them, "yyyy-MM-ddTHH:mm:ss.zzzZ": that form is read by
// hand, since QDateTime::fromString took a quarter of a history read. Anything else (older or
// hand-written rows) goes through Qt's parser.
QDateTime parseStoredTime(const char *text, int size) {
    if (size == 24 && text[4] == '-' && text[7] == '-' && text[10] == 'T' && text[13] == ':' &&
        text[16] == ':' && text[19] == '.' && text[23] == 'Z') {
        const QDate date(digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2));
        const QTime time(digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2), digits(text, 20, 3));
        constexpr qint64 kMsPerDay = 24 * 3600 * 1000;
        if (date.isValid() && time.isValid())
            return QDateTime::fromMSecsSinceEpoch((date.toJulianDay() - QDate(1970, 1, 1).toJulianDay()) *
                                                          kMsPerDay +
                                                      time.msecsSinceStartOfDay(),
                                                  Qt::UTC);
    }
    const QDateTime time = QDateTime::fromString(QString::fromUtf8(text, size), Qt::ISODateWithMs);
    return time.isValid() ? time.toUTC() : QDateTime();
}

QDateTime readTime(const SqliteStatement &stmt, int column) {
    const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(stmt.handle(), column));
    if (!text)
        return QDateTime();
    return parseStoredTime(text, sqlite3_column_bytes(stmt.handle(), column));
}

QString textOrNull(const QString &text) {
    return text.isEmpty() ? QString() : text;
}

QVariant idOrNull(qint64 id) {
    return id > 0 ? QVariant(id) : QVariant();
}

// Rolls back unless committed, so a throw anywhere leaves the workspace as it was. IMMEDIATE
// takes the write lock up front: in WAL mode a deferred read-then-write transaction can fail
// with SQLITE_BUSY without waiting for the busy timeout. A Read transaction (deferred BEGIN)
// takes no write lock: it only makes several statements see one snapshot.
class Transaction {
public:
    enum class Kind { Write, Read };
    explicit Transaction(SqliteDb &db, Kind kind = Kind::Write)
        : m_db(db) {
        m_db.exec(kind == Kind::Write ? QStringLiteral("BEGIN IMMEDIATE") : QStringLiteral("BEGIN"));
    }
    ~Transaction() {
        if (!m_done) {
            try {
                m_db.exec(QStringLiteral("ROLLBACK"));
            } catch (const Error &) {
                // Rolled back by SQLite already (e.g. after SQLITE_FULL); nothing left to undo.
            }
        }
    }
    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;
    void commit() {
        m_db.exec(QStringLiteral("COMMIT"));
        m_done = true;
    }

private:
    SqliteDb &m_db;
    bool m_done = false;
};

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

void removeWorkspaceFiles(const QString &path) {
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
        QFile::remove(path + suffix);
}

bool processAlive(qint64 pid) {
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max())
        return false;
    if (::kill(pid_t(pid), 0) == 0)
        return true;
    return errno != ESRCH; // EPERM: alive, owned by someone else
}

QString hostName() {
    return QSysInfo::machineHostName();
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

using MigrationStep = void (*)(SqliteDb &);
constexpr MigrationStep kMigrations[kSchemaVersion] = {&migrateTo1, &migrateTo2,  &migrateTo3, &migrateTo4,
                                                       &migrateTo5, &migrateTo6,  &migrateTo7, &migrateTo8,
                                                       &migrateTo9, &migrateTo10, &migrateTo11};

// --- row mapping ---

const QString kConnectionColumns = QStringLiteral("id, name, kind, path, conninfo, password_env");

ConnectionSpec readConnection(const SqliteStatement &stmt) {
    ConnectionSpec spec;
    spec.id = stmt.columnInt64(0);
    spec.name = stmt.columnText(1);
    spec.kind = connectionKindFromName(stmt.columnText(2));
    spec.path = stmt.columnText(3);
    spec.conninfo = stmt.columnText(4);
    spec.passwordEnv = stmt.columnText(5);
    return spec;
}

const QString kTableColumns = QStringLiteral(
    "id, source_connection, source_table, target_connection, target_table, watermark_column, watermark_type, "
    "tiebreak_column, key_columns, mode, lookback, initial_watermark, last_watermark, last_tiebreak, active, "
    "max_skipped, expect_rows, commit_per_batch, batch_size, add_new_columns, last_generation, max_future, "
    "max_jump");

QString keyColumnsJson(const QStringList &columns) {
    return QString::fromUtf8(
        QJsonDocument(QJsonArray::fromStringList(columns)).toJson(QJsonDocument::Compact));
}

QStringList keyColumnsFromJson(const QString &text) {
    QStringList columns;
    const QJsonArray array = QJsonDocument::fromJson(text.toUtf8()).array();
    for (const QJsonValue &value : array)
        columns.append(value.toString());
    return columns;
}

WatermarkType storedWatermarkType(const TableSpec &spec) {
    if (spec.watermarkType != WatermarkType::None)
        return spec.watermarkType;
    if (!spec.lastWatermark.isNull())
        return spec.lastWatermark.type();
    return spec.initialWatermark.type();
}

TableSpec readTable(const SqliteStatement &stmt) {
    TableSpec spec;
    spec.id = stmt.columnInt64(0);
    spec.sourceConnection = stmt.columnText(1);
    spec.sourceTable = stmt.columnText(2);
    spec.targetConnection = stmt.columnText(3);
    spec.targetTable = stmt.columnText(4);
    spec.watermarkColumn = stmt.columnText(5);
    spec.watermarkType = watermarkTypeFromName(stmt.columnText(6));
    spec.tiebreakColumn = stmt.columnText(7);
    spec.keyColumns = keyColumnsFromJson(stmt.columnText(8));
    spec.mode = writeModeFromName(stmt.columnText(9)).value_or(WriteMode::Append);
    spec.lookback = stmt.columnText(10);
    spec.initialWatermark = Watermark::fromStored(spec.watermarkType, stmt.columnText(11));
    spec.lastWatermark = Watermark::fromStored(spec.watermarkType, stmt.columnText(12));
    spec.lastTiebreak = stmt.columnVariant(13);
    spec.active = stmt.columnInt64(14) != 0;
    spec.maxSkipped = stmt.columnInt64(15);
    spec.expectRows = stmt.columnInt64(16) != 0;
    spec.commitPerBatch = stmt.columnInt64(17) != 0;
    spec.batchSize = int(stmt.columnInt64(18));
    spec.addNewColumns = stmt.columnInt64(19) != 0;
    spec.lastGeneration = stmt.columnInt64(20);
    spec.maxFuture = stmt.columnText(21);
    spec.maxJump = stmt.columnInt64(22);
    return spec;
}

// Binds the configuration fields (everything but id, last watermark and tiebreak) from ?1.
void bindTableConfig(SqliteStatement &stmt, const TableSpec &spec) {
    stmt.bind(1, spec.sourceConnection)
        .bind(2, spec.sourceTable)
        .bind(3, spec.targetConnection)
        .bind(4, spec.targetTable)
        .bind(5, spec.watermarkColumn.isNull() ? QStringLiteral("") : spec.watermarkColumn)
        .bind(6, watermarkTypeName(storedWatermarkType(spec)))
        .bind(7, spec.tiebreakColumn.isNull() ? QStringLiteral("") : spec.tiebreakColumn)
        .bind(8, keyColumnsJson(spec.keyColumns))
        .bind(9, writeModeName(spec.mode))
        .bind(10, spec.lookback.isNull() ? QStringLiteral("") : spec.lookback)
        .bind(11, textOrNull(spec.initialWatermark.nativeText()))
        .bind(12, spec.active ? 1 : 0)
        .bind(13, spec.maxSkipped)
        .bind(14, spec.expectRows ? 1 : 0)
        .bind(15, spec.commitPerBatch ? 1 : 0)
        .bind(16, spec.batchSize)
        .bind(17, spec.addNewColumns ? 1 : 0)
        .bind(18, spec.maxFuture.isNull() ? QStringLiteral("") : spec.maxFuture)
        .bind(19, spec.maxJump);
}

const QString kIterationColumns = QStringLiteral(
    "id, run_id, table_id, source, target, status, started_at, finished_at, duration_ms, rows_read, "
    "rows_written, "
    "rows_skipped, rows_null_watermark, window_rows, watermark_before, watermark_after, window_lower, "
    "window_upper, error, rows_unorderable_watermark, rows_pending, rows_rolled_back, rows_future, "
    "source_behind");

// kIterationColumns, each qualified by `alias`.
QString iterationColumnsOf(const QString &alias) {
    return alias + QLatin1Char('.') +
           QString(kIterationColumns)
               .replace(QStringLiteral(", "), QStringLiteral(", ") + alias + QLatin1Char('.'));
}

// kIterationColumns from column `first` on.
IterationRecord readIteration(const SqliteStatement &stmt, int first = 0) {
    IterationRecord record;
    record.id = stmt.columnInt64(first + 0);
    record.runId = stmt.columnInt64(first + 1);
    record.tableId = stmt.columnInt64(first + 2);
    record.source = stmt.columnText(first + 3);
    record.target = stmt.columnText(first + 4);
    record.status = iterationStatusFromName(stmt.columnText(first + 5)).value_or(IterationStatus::Failed);
    record.startedAt = readTime(stmt, first + 6);
    record.finishedAt = readTime(stmt, first + 7);
    record.durationMs = stmt.columnInt64(first + 8);
    record.rowsRead = stmt.columnInt64(first + 9);
    record.rowsWritten = stmt.columnInt64(first + 10);
    record.rowsSkipped = stmt.columnInt64(first + 11);
    record.rowsNullWatermark = stmt.columnInt64(first + 12);
    record.windowRows = stmt.columnInt64(first + 13);
    record.watermarkBefore = stmt.columnText(first + 14);
    record.watermarkAfter = stmt.columnText(first + 15);
    record.windowLower = stmt.columnText(first + 16);
    record.windowUpper = stmt.columnText(first + 17);
    record.error = stmt.columnText(first + 18);
    record.rowsUnorderableWatermark = stmt.columnInt64(first + 19);
    record.rowsPending = stmt.columnInt64(first + 20);
    record.rowsRolledBack = stmt.columnInt64(first + 21);
    record.rowsFuture = stmt.columnInt64(first + 22);
    record.sourceBehind = stmt.columnInt64(first + 23) != 0;
    return record;
}

const QString kRunColumns = QStringLiteral(
    R"(r.id, r."trigger", r.host, r.pid, r.started_at, r.finished_at, r.status, r.concurrency, r.dry_run, )"
    "r.schedule");
constexpr int kRunColumnCount = 10;

RunRecord readRun(const SqliteStatement &stmt) {
    RunRecord run;
    run.id = stmt.columnInt64(0);
    run.trigger = stmt.columnText(1);
    run.host = stmt.columnText(2);
    run.pid = stmt.columnInt64(3);
    run.startedAt = readTime(stmt, 4);
    run.finishedAt = readTime(stmt, 5);
    run.status = stmt.columnText(6);
    run.concurrency = int(stmt.columnInt64(7));
    run.dryRun = stmt.columnInt64(8) != 0;
    run.schedule = stmt.columnText(9);
    return run;
}

// Binds the iteration's fields from run_id on, starting at ?1.
void bindIteration(SqliteStatement &stmt, const IterationRecord &record) {
    stmt.bind(1, record.runId)
        .bind(2, record.tableId)
        .bind(3, record.source.isNull() ? QStringLiteral("") : record.source)
        .bind(4, record.target.isNull() ? QStringLiteral("") : record.target)
        .bind(5, iterationStatusName(record.status))
        .bind(6, timeText(record.startedAt))
        .bind(7, timeText(record.finishedAt))
        .bind(8, record.durationMs)
        .bind(9, record.rowsRead)
        .bind(10, record.rowsWritten)
        .bind(11, record.rowsSkipped)
        .bind(12, record.rowsNullWatermark)
        .bind(13, record.windowRows)
        .bind(14, textOrNull(record.watermarkBefore))
        .bind(15, textOrNull(record.watermarkAfter))
        .bind(16, textOrNull(record.windowLower))
        .bind(17, textOrNull(record.windowUpper))
        .bind(18, textOrNull(record.error))
        .bind(19, record.rowsUnorderableWatermark)
        .bind(20, record.rowsPending)
        .bind(21, record.rowsRolledBack)
        .bind(22, record.rowsFuture)
        .bind(23, record.sourceBehind ? 1 : 0);
}

QString tiebreakText(const QVariant &value) {
    return value.isNull() ? QString() : value.toString();
}

} // namespace

Workspace::Workspace(std::unique_ptr<SqliteDb> db, const QString &path)
    : m_db(std::move(db))
    , m_path(path) {}

Workspace::~Workspace() = default;

int Workspace::schemaVersion() {
    return kSchemaVersion;
}

void Workspace::stopStatementsWhile(const std::atomic_bool *flag) {
    m_db->stopStatementsWhile(flag);
}

std::unique_ptr<Workspace> Workspace::create(const QString &path) {
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
        auto db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::ReadWrite, busyTimeoutMs());
        // Before WAL, so the id lands in the main file's header where `open` reads it.
        db->exec(QStringLiteral("PRAGMA application_id = %1").arg(kApplicationId));
        configureConnection(*db);
        std::unique_ptr<Workspace> workspace(new Workspace(std::move(db), path));
        workspace->migrate();
        storageLog()->info("created workspace {} ({})", str(path), str(workspace->m_workspaceId));
        return workspace;
    } catch (...) {
        removeWorkspaceFiles(path);
        throw;
    }
}

std::unique_ptr<Workspace> Workspace::open(const QString &path) {
    if (!QFileInfo::exists(path))
        throw ValidationError(
            QStringLiteral("workspace file %1 does not exist (create it with 'tidemark-cli init')")
                .arg(path));
    checkIsWorkspace(path);
    auto db = std::make_unique<SqliteDb>(path, SqliteDb::Mode::ReadWrite, busyTimeoutMs());
    configureConnection(*db);
    std::unique_ptr<Workspace> workspace(new Workspace(std::move(db), path));
    workspace->migrate();
    return workspace;
}

bool Workspace::checkpoint(const QString &path, int waitMs) {
    checkIsWorkspace(path);
    SqliteDb db(path, SqliteDb::Mode::ReadWrite, waitMs);
    // PASSIVE first: it copies the bulk without the write lock; TRUNCATE then holds that lock
    // only for what is left and for the wait on readers. Each answers (busy, log, checkpointed).
    pragmaInt(db, QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
    return pragmaInt(db, QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)")) == 0;
}

void Workspace::migrate() {
    const qint64 found = pragmaInt(*m_db, QStringLiteral("PRAGMA user_version"));
    if (found > kSchemaVersion)
        throw ValidationError(
            QStringLiteral("workspace file %1 has schema version %2, newer than this Tidemark "
                           "knows (%3); use a newer Tidemark")
                .arg(m_path)
                .arg(found)
                .arg(kSchemaVersion));
    for (int step = int(found); step < kSchemaVersion; ++step) {
        Transaction transaction(*m_db);
        // Another process may have migrated between our read and the write lock.
        if (pragmaInt(*m_db, QStringLiteral("PRAGMA user_version")) > step)
            continue;
        kMigrations[step](*m_db);
        // PRAGMA takes no bound parameters; the version is a constant of this build.
        m_db->exec(QStringLiteral("PRAGMA user_version = %1").arg(step + 1));
        transaction.commit();
        storageLog()->info("migrated workspace {} to schema version {}", str(m_path), step + 1);
    }

    SqliteStatement select(*m_db, QStringLiteral(R"(SELECT value FROM meta WHERE "key" = 'workspace_id')"));
    if (select.step()) {
        m_workspaceId = select.columnText(0);
        return;
    }
    select.reset();
    Transaction transaction(*m_db);
    SqliteStatement insert(*m_db,
                           QStringLiteral(R"(INSERT OR IGNORE INTO meta ("key", value) VALUES (?1, ?2))"));
    insert.bind(1, QStringLiteral("workspace_id"))
        .bind(2, QUuid::createUuid().toString(QUuid::WithoutBraces))
        .run();
    insert.reset();
    insert.bind(1, QStringLiteral("created_at")).bind(2, nowText()).run();
    insert.reset();
    insert.bind(1, QStringLiteral("created_by")).bind(2, QStringLiteral("tidemark " TIDEMARK_VERSION)).run();
    transaction.commit();
    if (!select.step())
        throw Error(QStringLiteral("workspace file %1: cannot record the workspace id").arg(m_path));
    m_workspaceId = select.columnText(0);
}

// --- alerts ---

AlertSettings Workspace::alertSettings() {
    SqliteStatement select(*m_db,
                           QStringLiteral("SELECT hook_command, hook_timeout_ms, webhook_url, "
                                          "webhook_timeout_ms, on_statuses, hook_env FROM alert_settings"));
    AlertSettings settings;
    if (!select.step())
        return settings;
    settings.hookCommand = select.columnText(0);
    settings.hookTimeoutMs = int(select.columnInt64(1));
    settings.webhookUrl = select.columnText(2);
    settings.webhookTimeoutMs = int(select.columnInt64(3));
    settings.on = select.columnText(4).split(QLatin1Char(','), Qt::SkipEmptyParts);
    settings.hookEnv = select.columnText(5).split(QLatin1Char(','), Qt::SkipEmptyParts);
    return settings;
}

void Workspace::setAlertSettings(const AlertSettings &settings) {
    if (!settings.webhookUrl.isEmpty())
        checkWebhookUrl(settings.webhookUrl);
    Transaction transaction(*m_db);
    m_db->exec(QStringLiteral("DELETE FROM alert_settings"));
    if (!settings.isEmpty()) {
        SqliteStatement insert(*m_db,
                               QStringLiteral("INSERT INTO alert_settings (id, hook_command, "
                                              "hook_timeout_ms, webhook_url, webhook_timeout_ms, "
                                              "on_statuses, hook_env) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)"));
        insert.bind(1, textOrNull(settings.hookCommand))
            .bind(2, settings.hookTimeoutMs)
            .bind(3, textOrNull(settings.webhookUrl))
            .bind(4, settings.webhookTimeoutMs)
            .bind(5, settings.on.join(QLatin1Char(',')))
            .bind(6,
                  settings.hookEnv.isEmpty() ? QStringLiteral("") : settings.hookEnv.join(QLatin1Char(',')))
            .run();
    }
    transaction.commit();
    storageLog()->info("workspace {}: alerts {}", str(m_path),
                       settings.isEmpty() ? std::string("cleared") : str(settings.on.join(QLatin1Char(','))));
}

// --- connections ---

QList<ConnectionSpec> Workspace::connections() {
    SqliteStatement stmt(*m_db,
                         QStringLiteral("SELECT %1 FROM connections ORDER BY name").arg(kConnectionColumns));
    QList<ConnectionSpec> result;
    while (stmt.step()) {
        result.append(readConnection(stmt));
        result.last().keychainKey = connectionKeychainKey(m_workspaceId, result.last().id);
    }
    return result;
}

std::optional<ConnectionSpec> Workspace::connection(const QString &name) {
    SqliteStatement stmt(
        *m_db, QStringLiteral("SELECT %1 FROM connections WHERE name = ?1").arg(kConnectionColumns));
    stmt.bind(1, name);
    if (!stmt.step())
        return std::nullopt;
    ConnectionSpec spec = readConnection(stmt);
    spec.keychainKey = connectionKeychainKey(m_workspaceId, spec.id);
    return spec;
}

qint64 Workspace::addConnection(const ConnectionSpec &spec) {
    if (spec.name.isEmpty())
        throw ValidationError(QStringLiteral("a connection needs a name"));
    Transaction transaction(*m_db);
    if (connection(spec.name))
        throw ValidationError(QStringLiteral("connection '%1' already exists").arg(spec.name));
    SqliteStatement insert(*m_db,
                           QStringLiteral("INSERT INTO connections (name, kind, path, conninfo, "
                                          "password_env, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
    insert.bind(1, spec.name)
        .bind(2, connectionKindName(spec.kind))
        .bind(3, textOrNull(spec.path))
        .bind(4, textOrNull(spec.conninfo))
        .bind(5, textOrNull(spec.passwordEnv))
        .bind(6, nowText())
        .run();
    const qint64 id = m_db->lastInsertId();
    transaction.commit();
    return id;
}

void Workspace::updateConnection(const ConnectionSpec &spec) {
    Transaction transaction(*m_db);
    QString oldName = spec.name;
    qint64 id = spec.id;
    if (id > 0) {
        SqliteStatement select(*m_db, QStringLiteral("SELECT name FROM connections WHERE id = ?1"));
        select.bind(1, id);
        if (!select.step())
            throw ValidationError(QStringLiteral("connection id %1 does not exist").arg(id));
        oldName = select.columnText(0);
    } else {
        const auto existing = connection(spec.name);
        if (!existing)
            throw ValidationError(QStringLiteral("connection '%1' does not exist").arg(spec.name));
        id = existing->id;
    }
    if (spec.name != oldName && connection(spec.name))
        throw ValidationError(QStringLiteral("connection '%1' already exists").arg(spec.name));
    SqliteStatement update(*m_db, QStringLiteral("UPDATE connections SET name = ?1, kind = ?2, path = ?3, "
                                                 "conninfo = ?4, password_env = ?5 WHERE id = ?6"));
    update.bind(1, spec.name)
        .bind(2, connectionKindName(spec.kind))
        .bind(3, textOrNull(spec.path))
        .bind(4, textOrNull(spec.conninfo))
        .bind(5, textOrNull(spec.passwordEnv))
        .bind(6, id)
        .run();
    if (spec.name != oldName) {
        // Tables refer to connections by name; a rename must not orphan them.
        for (const QString &column :
             {QStringLiteral("source_connection"), QStringLiteral("target_connection")}) {
            SqliteStatement rename(*m_db,
                                   QStringLiteral("UPDATE tables SET %1 = ?1 WHERE %1 = ?2").arg(column));
            rename.bind(1, spec.name).bind(2, oldName).run();
        }
    }
    transaction.commit();
}

void Workspace::removeConnection(const QString &name) {
    Transaction transaction(*m_db);
    if (!connection(name))
        throw ValidationError(QStringLiteral("connection '%1' does not exist").arg(name));
    SqliteStatement users(*m_db,
                          QStringLiteral("SELECT id FROM tables WHERE (source_connection = ?1 OR "
                                         "target_connection = ?1) AND archived_at IS NULL ORDER BY id"));
    users.bind(1, name);
    QStringList ids;
    while (users.step())
        ids.append(QString::number(users.columnInt64(0)));
    if (!ids.isEmpty())
        throw ValidationError(QStringLiteral("connection '%1' is used by table %2; remove those tables first")
                                  .arg(name, ids.join(QStringLiteral(", "))));
    SqliteStatement remove(*m_db, QStringLiteral("DELETE FROM connections WHERE name = ?1"));
    remove.bind(1, name).run();
    transaction.commit();
}

// --- control table ---

namespace {

// Ids as a JSON array, for `IN (SELECT value FROM json_each(?))`: a set of rows in one bound
// query.
QString idsJson(const QList<qint64> &ids) {
    QString json = QStringLiteral("[");
    for (qint64 id : ids)
        json += QString::number(id) + QLatin1Char(',');
    json.chop(ids.isEmpty() ? 0 : 1);
    return json + QLatin1Char(']');
}

// Removed tables are set apart by archived_at; every read says which side it wants.
QString archivedCondition(bool archived) {
    return archived ? QStringLiteral("archived_at IS NOT NULL") : QStringLiteral("archived_at IS NULL");
}

QList<TableSpec> readTables(SqliteDb &db, bool archived) {
    // Counted first: growing the list would move every table read so far, again and again
    // (a quarter of the read's time at 10,000 tables). Only a size hint: no snapshot needed.
    SqliteStatement count(
        db, QStringLiteral("SELECT count(*) FROM tables WHERE %1").arg(archivedCondition(archived)));
    count.step();
    SqliteStatement stmt(db, QStringLiteral("SELECT %1 FROM tables WHERE %2 ORDER BY id")
                                 .arg(kTableColumns, archivedCondition(archived)));
    QList<TableSpec> result;
    result.reserve(count.columnInt64(0));
    while (stmt.step())
        result.append(readTable(stmt));
    return result;
}

std::optional<TableSpec> readTable(SqliteDb &db, qint64 id, bool archived) {
    SqliteStatement stmt(db, QStringLiteral("SELECT %1 FROM tables WHERE id = ?1 AND %2")
                                 .arg(kTableColumns, archivedCondition(archived)));
    stmt.bind(1, id);
    if (!stmt.step())
        return std::nullopt;
    return readTable(stmt);
}

} // namespace

QList<TableSpec> Workspace::tables() {
    return readTables(*m_db, false);
}

QHash<qint64, IterationRecord> Workspace::lastFinishedIterations() {
    // One probe per table (iterations_by_table, newest first), not one per iteration of history.
    SqliteStatement select(
        *m_db, QStringLiteral("SELECT %1 FROM tables t JOIN iterations i ON i.id = (SELECT max(l.id) "
                              "FROM iterations l WHERE l.table_id = t.id AND l.status NOT IN "
                              "(?1, ?2, ?3, ?4))")
                   .arg(iterationColumnsOf(QStringLiteral("i"))));
    select.bind(1, iterationStatusName(IterationStatus::Queued))
        .bind(2, iterationStatusName(IterationStatus::Running))
        .bind(3, iterationStatusName(IterationStatus::Skipped))
        .bind(4, iterationStatusName(IterationStatus::DryRun));
    QHash<qint64, IterationRecord> last;
    while (select.step()) {
        const IterationRecord record = readIteration(select);
        last.insert(record.tableId, record);
    }
    return last;
}

bool Workspace::hasTables() {
    SqliteStatement stmt(
        *m_db, QStringLiteral("SELECT EXISTS (SELECT 1 FROM tables WHERE %1)").arg(archivedCondition(false)));
    stmt.step();
    return stmt.columnInt64(0) != 0;
}

QList<TableSpec> Workspace::archivedTables() {
    return readTables(*m_db, true);
}

std::optional<TableSpec> Workspace::table(qint64 id) {
    return readTable(*m_db, id, false);
}

std::optional<TableSpec> Workspace::archivedTable(qint64 id) {
    return readTable(*m_db, id, true);
}

qint64 Workspace::addTable(const TableSpec &spec) {
    Transaction transaction(*m_db);
    SqliteStatement insert(
        *m_db, QStringLiteral(
                   "INSERT INTO tables (source_connection, source_table, target_connection, target_table, "
                   "watermark_column, watermark_type, tiebreak_column, key_columns, mode, lookback, "
                   "initial_watermark, active, max_skipped, expect_rows, commit_per_batch, batch_size, "
                   "add_new_columns, max_future, max_jump, last_watermark, last_tiebreak, created_at) VALUES "
                   "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
                   "?20, ?21, ?22)"));
    bindTableConfig(insert, spec);
    insert.bind(20, textOrNull(spec.lastWatermark.nativeText()))
        .bind(21, spec.lastTiebreak)
        .bind(22, nowText());
    insert.run();
    const qint64 id = m_db->lastInsertId();
    transaction.commit();
    return id;
}

void Workspace::updateTable(const TableSpec &spec) {
    Transaction transaction(*m_db);
    writeTableConfig(spec);
    transaction.commit();
}

void Workspace::writeTableConfig(const TableSpec &spec) {
    const std::optional<TableSpec> stored = readTable(*m_db, spec.id, false);
    if (!stored)
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(spec.id));
    // As in setArchived: an edit moved back by Undo, or made while another process added a
    // table, must not make a second writer of one target table; this transaction decides.
    const bool movesTarget =
        stored->targetConnection != spec.targetConnection || stored->targetTable != spec.targetTable;
    if (const auto target = connection(spec.targetConnection); movesTarget && target) {
        if (const auto other = otherTableWritingInto(*target, spec.targetTable, spec.id, false))
            throw ValidationError(
                QStringLiteral("table %1 (%2 -> %3) cannot write into %4: table %5 (%6 -> %7) writes into "
                               "it now, and one target table takes one table's rows (keep table %1's "
                               "target, or remove table %5 first)")
                    .arg(spec.id)
                    .arg(stored->sourceDisplay(), stored->targetDisplay(), spec.targetDisplay())
                    .arg(other->id)
                    .arg(other->sourceDisplay(), other->targetDisplay()));
    }
    SqliteStatement update(
        *m_db,
        QStringLiteral("UPDATE tables SET source_connection = ?1, source_table = ?2, target_connection = ?3, "
                       "target_table = ?4, watermark_column = ?5, watermark_type = ?6, tiebreak_column = ?7, "
                       "key_columns = ?8, mode = ?9, lookback = ?10, initial_watermark = ?11, active = ?12, "
                       "max_skipped = ?13, expect_rows = ?14, commit_per_batch = ?15, batch_size = ?16, "
                       "add_new_columns = ?17, max_future = ?18, max_jump = ?19 WHERE id = ?20 AND "
                       "archived_at IS NULL"));
    bindTableConfig(update, spec);
    update.bind(20, spec.id).run();
}

void Workspace::removeTable(qint64 id) {
    setArchived(id, true);
}

void Workspace::restoreTable(qint64 id) {
    setArchived(id, false);
}

std::optional<TableSpec> Workspace::otherTableWritingInto(const ConnectionSpec &target,
                                                          const QString &targetTable, qint64 exceptId,
                                                          bool archived) {
    const QString identity = tableIdentity(target.kind, targetTable);
    for (const TableSpec &other : readTables(*m_db, archived)) {
        if (other.id == exceptId || tableIdentity(target.kind, other.targetTable) != identity)
            continue;
        const auto connection = this->connection(other.targetConnection);
        if (connection ? sameDatabase(*connection, target) : other.targetConnection == target.name)
            return other;
    }
    return std::nullopt;
}

void Workspace::setArchived(qint64 id, bool archived) {
    Transaction transaction(*m_db);
    SqliteStatement select(*m_db,
                           QStringLiteral("SELECT archived_at IS NOT NULL, last_watermark, last_tiebreak, "
                                          "watermark_type, source_connection, target_connection FROM "
                                          "tables WHERE id = ?1"));
    select.bind(1, id);
    if (!select.step())
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(id));
    if ((select.columnInt64(0) != 0) == archived)
        throw ValidationError(archived ? QStringLiteral("table %1 is removed already").arg(id)
                                       : QStringLiteral("table %1 is not removed").arg(id));
    const QString position =
        Watermark::fromStored(watermarkTypeFromName(select.columnText(3)), select.columnText(1)).display();
    const QString tiebreak = tiebreakText(select.columnVariant(2));
    const QStringList connectionNames{select.columnText(4), select.columnText(5)};
    select.reset();
    if (!archived) {
        // A removed table does not keep its connections from being removed; it needs them back.
        for (const QString &name : connectionNames) {
            if (!connection(name))
                throw ValidationError(
                    QStringLiteral("table %1 cannot be restored: its connection '%2' no longer "
                                   "exists; add it again first")
                        .arg(id)
                        .arg(name));
        }
        // One target table takes one table's rows. Table setup refuses a second writer, but
        // not one that reached the target while this table was away (its connection removed and
        // the file added again under another name, a workspace from before that check), nor
        // another process adding one right now: this transaction is the one place to decide.
        const TableSpec restoring = *readTable(*m_db, id, true);
        if (const auto other = otherTableWritingInto(*connection(restoring.targetConnection),
                                                     restoring.targetTable, id, false))
            throw ValidationError(
                QStringLiteral("table %1 (%2 -> %3) cannot be restored: table %4 (%5 -> %6) writes into "
                               "its target now, and one target table takes one table's rows (remove "
                               "table %4 first, or keep table %1 removed)")
                    .arg(id)
                    .arg(restoring.sourceDisplay(), restoring.targetDisplay())
                    .arg(other->id)
                    .arg(other->sourceDisplay(), other->targetDisplay()));
    }
    SqliteStatement update(*m_db, QStringLiteral("UPDATE tables SET archived_at = ?1 WHERE id = ?2"));
    update.bind(1, archived ? nowText() : QString()).bind(2, id).run();
    if (archived) {
        SqliteStatement lease(*m_db, QStringLiteral("DELETE FROM leases WHERE table_id = ?1"));
        lease.bind(1, id).run();
    }
    // The position is untouched; the log says when the table left and came back with it.
    SqliteStatement log(
        *m_db,
        QStringLiteral("INSERT INTO watermark_changes (table_id, at, old_value, new_value, "
                       "old_tiebreak, new_tiebreak, cause, host) VALUES (?1, ?2, ?3, ?3, ?4, ?4, ?5, ?6)"));
    log.bind(1, id)
        .bind(2, nowText())
        .bind(3, textOrNull(position))
        .bind(4, tiebreak)
        .bind(5, archived ? QStringLiteral("remove") : QStringLiteral("restore"))
        .bind(6, hostName())
        .run();
    transaction.commit();
}

void Workspace::purgeTable(qint64 id) {
    Transaction transaction(*m_db);
    const std::optional<TableSpec> removed = readTable(*m_db, id, true);
    if (!removed) {
        if (readTable(*m_db, id, false))
            throw ValidationError(QStringLiteral("table %1 is not removed").arg(id));
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(id));
    }
    SqliteStatement remove(*m_db, QStringLiteral("DELETE FROM tables WHERE id = ?1"));
    remove.bind(1, id).run();
    SqliteStatement lease(*m_db, QStringLiteral("DELETE FROM leases WHERE table_id = ?1"));
    lease.bind(1, id).run();
    // The last word of the table's watermark log: where it stood when it was forgotten.
    SqliteStatement log(*m_db, QStringLiteral("INSERT INTO watermark_changes (table_id, at, old_value, "
                                              "new_value, old_tiebreak, new_tiebreak, cause, host) VALUES "
                                              "(?1, ?2, ?3, NULL, ?4, NULL, 'purge', ?5)"));
    log.bind(1, id)
        .bind(2, nowText())
        .bind(3, textOrNull(removed->lastWatermark.display()))
        .bind(4, tiebreakText(removed->lastTiebreak))
        .bind(5, hostName())
        .run();
    transaction.commit();
}

void Workspace::setActive(qint64 id, bool active) {
    SqliteStatement update(
        *m_db, QStringLiteral("UPDATE tables SET active = ?1 WHERE id = ?2 AND archived_at IS NULL"));
    update.bind(1, active ? 1 : 0).bind(2, id).run();
    if (m_db->changes() == 0)
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(id));
}

namespace {

// A table's position as the workspace holds it, read inside the transaction that moves it.
struct HeldPosition {
    WatermarkType type = WatermarkType::None;
    Position position;
    qint64 generation = 0;
};

HeldPosition readHeldPosition(SqliteDb &db, qint64 tableId) {
    SqliteStatement select(db, QStringLiteral("SELECT watermark_type, last_watermark, last_tiebreak, "
                                              "last_generation FROM tables WHERE id = ?1"));
    select.bind(1, tableId);
    if (!select.step())
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(tableId));
    HeldPosition held;
    held.type = watermarkTypeFromName(select.columnText(0));
    held.position = Position(Watermark::fromStored(held.type, select.columnText(1)), select.columnVariant(2));
    held.generation = select.columnInt64(3);
    return held;
}

// Moves the position and records the change (old, new, cause, run id, time).
void movePosition(SqliteDb &db, const QString &path, qint64 tableId, const HeldPosition &held,
                  const Position &next, qint64 generation, const QString &cause, qint64 runId) {
    WatermarkType type = held.type;
    const Watermark &watermark = next.watermark();
    if (!watermark.isNull()) {
        if (type != WatermarkType::None && type != watermark.type())
            throw Error(QStringLiteral("workspace file %1: table %2 has a %3 watermark, not a %4 one")
                            .arg(path)
                            .arg(tableId)
                            .arg(watermarkTypeName(type), watermarkTypeName(watermark.type())));
        type = watermark.type();
    }
    SqliteStatement update(db, QStringLiteral("UPDATE tables SET watermark_type = ?1, last_watermark = ?2, "
                                              "last_tiebreak = ?3, last_generation = ?4 WHERE id = ?5"));
    update.bind(1, watermarkTypeName(type))
        .bind(2, textOrNull(watermark.nativeText()))
        .bind(3, next.tiebreak())
        .bind(4, generation)
        .bind(5, tableId)
        .run();
    SqliteStatement log(db,
                        QStringLiteral("INSERT INTO watermark_changes (table_id, at, old_value, new_value, "
                                       "old_tiebreak, new_tiebreak, cause, run_id, host) VALUES (?1, ?2, ?3, "
                                       "?4, ?5, ?6, ?7, ?8, ?9)"));
    log.bind(1, tableId)
        .bind(2, nowText())
        .bind(3, textOrNull(held.position.watermark().display()))
        .bind(4, textOrNull(watermark.display()))
        .bind(5, tiebreakText(held.position.tiebreak()))
        .bind(6, tiebreakText(next.tiebreak()))
        .bind(7, cause)
        .bind(8, idOrNull(runId))
        .bind(9, hostName())
        .run();
}

} // namespace

void Workspace::setWatermark(qint64 tableId, const Watermark &watermark, const QVariant &tiebreak,
                             const QString &cause, qint64 runId) {
    Transaction transaction(*m_db);
    const HeldPosition held = readHeldPosition(*m_db, tableId);
    movePosition(*m_db, m_path, tableId, held, Position(watermark, tiebreak), held.generation, cause, runId);
    transaction.commit();
}

FollowResult Workspace::followTargetState(qint64 tableId, qint64 generation, const Position &position,
                                          const QString &cause, qint64 runId) {
    // One IMMEDIATE transaction: no other process can move the position between the compare
    // and the write.
    Transaction transaction(*m_db);
    const HeldPosition held = readHeldPosition(*m_db, tableId);
    const int order = generation != held.generation ? (generation < held.generation ? -1 : 1)
                                                    : position.compare(held.position);
    if (order <= 0) {
        if (order < 0)
            storageLog()->debug("table {}: kept generation {} at {}; the {} of generation {} at {} is older",
                                tableId, held.generation, str(held.position.display()), str(cause),
                                generation, str(position.display()));
        return order < 0 ? FollowResult::Stale : FollowResult::Unchanged;
    }
    movePosition(*m_db, m_path, tableId, held, position, generation, cause, runId);
    transaction.commit();
    return FollowResult::Moved;
}

void Workspace::replaceTable(const TableSpec &spec, qint64 generation, const Position &position,
                             const QString &cause) {
    Transaction transaction(*m_db);
    // Read while the row still has its old type: the log shows where the table stood.
    HeldPosition held = readHeldPosition(*m_db, spec.id);
    writeTableConfig(spec);
    held.type = spec.watermarkType; // the new position is of the new type
    movePosition(*m_db, m_path, spec.id, held, position, generation, cause, 0);
    transaction.commit();
}

namespace {

// Changes from before schema 6 name no host: their run's, when they had one.
const char *const kWatermarkChangeSelect =
    "SELECT c.id, c.table_id, c.at, c.old_value, c.new_value, c.cause, c.run_id, "
    "coalesce(c.host, r.host) FROM watermark_changes c LEFT JOIN runs r ON r.id = c.run_id ";

QList<WatermarkChange> readWatermarkChanges(SqliteStatement &stmt) {
    QList<WatermarkChange> result;
    while (stmt.step()) {
        WatermarkChange change;
        change.id = stmt.columnInt64(0);
        change.tableId = stmt.columnInt64(1);
        change.at = readTime(stmt, 2);
        change.oldValue = stmt.columnText(3);
        change.newValue = stmt.columnText(4);
        change.cause = stmt.columnText(5);
        change.runId = stmt.columnInt64(6);
        change.host = stmt.columnText(7);
        result.append(change);
    }
    return result;
}

IterationStatus statusOfSeverity(qint64 severity) {
    switch (severity) {
    case 4:
        return IterationStatus::Failed;
    case 3:
        return IterationStatus::Interrupted;
    case 2:
        return IterationStatus::Cancelled;
    case 1:
        return IterationStatus::Warning;
    default:
        return IterationStatus::Succeeded;
    }
}

} // namespace

QList<WatermarkChange> Workspace::watermarkChanges(qint64 tableId) {
    SqliteStatement stmt(*m_db, QLatin1String(kWatermarkChangeSelect) +
                                    QStringLiteral("WHERE c.table_id = ?1 ORDER BY c.id"));
    stmt.bind(1, tableId);
    return readWatermarkChanges(stmt);
}

Trend Workspace::trend(const TrendQuery &query) {
    const QString tableCondition =
        query.tableId > 0 ? QStringLiteral("i.table_id = ?1") : QStringLiteral("?1 = 0");
    Trend trend;
    trend.to = query.to.isValid() ? query.to.toUTC() : QDateTime::currentDateTimeUtc();
    trend.from = query.from.toUTC();
    if (!trend.from.isValid()) {
        // Ids grow with time: the first iteration (or run) is the first to have started.
        SqliteStatement first(
            *m_db, query.tableId > 0
                       ? QStringLiteral("SELECT r.started_at FROM iterations i JOIN runs r ON "
                                        "r.id = i.run_id WHERE i.table_id = ?1 ORDER BY i.id LIMIT 1")
                       : QStringLiteral("SELECT started_at FROM runs ORDER BY id LIMIT 1"));
        if (query.tableId > 0)
            first.bind(1, query.tableId);
        trend.from = first.step() ? readTime(first, 0) : QDateTime();
        if (!trend.from.isValid() || trend.from > trend.to)
            trend.from = trend.to.addDays(-30);
    }

    // Per run: the table's iterations (or all of them) summed; then, when there are more runs
    // than points, runs grouped by the slice of the period they started in.
    SqliteStatement points(*m_db, QStringLiteral(R"(
WITH per_run AS (
    SELECT r.id AS run_id, r.started_at AS at, sum(i.rows_written) AS written,
           CASE WHEN ?1 = 0 AND r.finished_at IS NOT NULL
                THEN CAST(round((julianday(r.finished_at) - julianday(r.started_at)) * 86400000) AS INTEGER)
                ELSE max(i.duration_ms) END AS duration_ms,
           max(CASE i.status WHEN ?5 THEN 4 WHEN ?6 THEN 3 WHEN ?7 THEN 2 WHEN ?8 THEN 1 ELSE 0 END) AS severity
    FROM runs r JOIN iterations i ON i.run_id = r.id
    WHERE %1 AND r.dry_run = 0 AND r.started_at >= ?2 AND r.started_at <= ?3
      AND i.status NOT IN (?9, ?10, ?11, ?12)
    GROUP BY r.id
), counted AS (
    SELECT *, count(*) OVER () AS total FROM per_run
)
SELECT min(at), min(run_id), max(run_id), count(*), sum(written), max(duration_ms), max(severity)
FROM counted
GROUP BY CASE WHEN total <= ?4 THEN run_id
              ELSE min(?4 - 1, CAST((julianday(at) - julianday(?2)) * ?4
                                    / max(julianday(?3) - julianday(?2), 1e-9) AS INTEGER)) END
ORDER BY 1, 2)")
                                      .arg(tableCondition));
    points.bind(1, query.tableId)
        .bind(2, isoUtc(trend.from))
        .bind(3, isoUtc(trend.to))
        .bind(4, qint64(qMax(1, query.maxPoints)));
    int index = 5;
    for (IterationStatus status :
         {IterationStatus::Failed, IterationStatus::Interrupted, IterationStatus::Cancelled,
          IterationStatus::Warning, IterationStatus::Queued, IterationStatus::Running,
          IterationStatus::Skipped, IterationStatus::DryRun})
        points.bind(index++, iterationStatusName(status));
    while (points.step()) {
        TrendPoint point;
        point.at = readTime(points, 0);
        point.firstRunId = points.columnInt64(1);
        point.lastRunId = points.columnInt64(2);
        point.runs = int(points.columnInt64(3));
        point.rowsWritten = points.columnInt64(4);
        point.durationMs = points.columnInt64(5);
        point.status = statusOfSeverity(points.columnInt64(6));
        trend.points.append(point);
    }

    SqliteStatement backfills(
        *m_db,
        QLatin1String(kWatermarkChangeSelect) +
            QStringLiteral("WHERE %1 AND c.cause = ?2 AND c.at >= ?3 AND c.at <= ?4 ORDER BY c.id")
                .arg(query.tableId > 0 ? QStringLiteral("c.table_id = ?1") : QStringLiteral("?1 = 0")));
    backfills.bind(1, query.tableId)
        .bind(2, QStringLiteral("backfill"))
        .bind(3, isoUtc(trend.from))
        .bind(4, isoUtc(trend.to));
    trend.backfills = readWatermarkChanges(backfills);
    return trend;
}

QString Workspace::lastIterationStatus(qint64 tableId) {
    // A dry run says nothing about the table's real state: it is left out.
    SqliteStatement stmt(*m_db,
                         QStringLiteral("SELECT i.status FROM iterations i JOIN runs r ON r.id = i.run_id "
                                        "WHERE i.table_id = ?1 AND r.dry_run = 0 "
                                        "ORDER BY i.id DESC LIMIT 1"));
    stmt.bind(1, tableId);
    return stmt.step() ? stmt.columnText(0) : QString();
}

QHash<qint64, QString> Workspace::lastIterationStatuses() {
    // lastIterationStatus for every live table in one statement: the window reads 10,000 of
    // them at each reload, and one statement is one index probe per table with no round trips.
    SqliteStatement stmt(*m_db, QStringLiteral("SELECT t.id, (SELECT i.status FROM iterations i JOIN runs r "
                                               "ON r.id = i.run_id WHERE i.table_id = t.id AND "
                                               "r.dry_run = 0 ORDER BY i.id DESC LIMIT 1) FROM tables t "
                                               "WHERE %1")
                                    .arg(archivedCondition(false)));
    QHash<qint64, QString> result;
    while (stmt.step())
        result.insert(stmt.columnInt64(0), stmt.columnText(1));
    return result;
}

QHash<qint64, QString> Workspace::lastIterationStatuses(const QList<qint64> &tableIds) {
    QHash<qint64, QString> result;
    if (tableIds.isEmpty())
        return result;
    SqliteStatement stmt(*m_db, QStringLiteral("SELECT t.id, (SELECT i.status FROM iterations i JOIN runs r "
                                               "ON r.id = i.run_id WHERE i.table_id = t.id AND "
                                               "r.dry_run = 0 ORDER BY i.id DESC LIMIT 1) FROM tables t "
                                               "WHERE t.id IN (SELECT value FROM json_each(?1)) AND %1")
                                    .arg(archivedCondition(false)));
    stmt.bind(1, idsJson(tableIds));
    while (stmt.step())
        result.insert(stmt.columnInt64(0), stmt.columnText(1));
    return result;
}

IterationActivity Workspace::iterationActivity(std::optional<qint64> afterIterationId) {
    IterationActivity activity;
    {
        SqliteStatement last(*m_db, QStringLiteral("SELECT coalesce(max(id), 0) FROM iterations"));
        activity.lastIterationId = last.step() ? last.columnInt64(0) : 0;
    }
    if (afterIterationId) {
        SqliteStatement since(*m_db, QStringLiteral("SELECT DISTINCT table_id FROM iterations WHERE id > ?1 "
                                                    "AND id <= ?2 AND table_id IS NOT NULL"));
        since.bind(1, *afterIterationId).bind(2, activity.lastIterationId);
        while (since.step())
            activity.tablesIteratedSince << since.columnInt64(0);
    }
    SqliteStatement open(*m_db, QStringLiteral("SELECT id, table_id, status FROM iterations WHERE status IN "
                                               "('queued', 'running') AND table_id IS NOT NULL"));
    while (open.step())
        activity.open.insert(open.columnInt64(0), {open.columnInt64(1), open.columnText(2)});
    return activity;
}

// --- runs and iterations ---

int Workspace::runHeartbeatIntervalMs() {
    return heartbeatIntervalMs("TIDEMARK_TEST_RUN_HEARTBEAT_MS");
}

qint64 Workspace::beginRun(const QString &trigger, int concurrency, bool dryRun, const QString &schedule) {
    const QDateTime now = QDateTime::currentDateTimeUtc();
    SqliteStatement insert(*m_db,
                           QStringLiteral(R"(INSERT INTO runs ("trigger", host, pid, started_at, status, )"
                                          R"(concurrency, dry_run, heartbeat_at, heartbeat_expires_at, )"
                                          R"(schedule) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?4, ?8, ?9))"));
    insert.bind(1, trigger)
        .bind(2, hostName())
        .bind(3, QCoreApplication::applicationPid())
        .bind(4, isoUtc(now))
        .bind(5, QStringLiteral("running"))
        .bind(6, concurrency)
        .bind(7, dryRun ? 1 : 0)
        .bind(8, isoUtc(now.addMSecs(qint64(runHeartbeatIntervalMs()) * kBeatsToExpire)))
        .bind(9, textOrNull(schedule))
        .run();
    return m_db->lastInsertId();
}

void Workspace::beatRun(qint64 runId) {
    const QDateTime now = QDateTime::currentDateTimeUtc();
    SqliteStatement update(*m_db,
                           QStringLiteral("UPDATE runs SET heartbeat_at = ?1, heartbeat_expires_at = ?2 "
                                          "WHERE id = ?3"));
    update.bind(1, isoUtc(now))
        .bind(2, isoUtc(now.addMSecs(qint64(runHeartbeatIntervalMs()) * kBeatsToExpire)))
        .bind(3, runId)
        .run();
}

void Workspace::finishRun(qint64 runId, const QString &status) {
    SqliteStatement update(*m_db,
                           QStringLiteral("UPDATE runs SET finished_at = ?1, status = ?2 WHERE id = ?3"));
    update.bind(1, nowText()).bind(2, status).bind(3, runId).run();
    if (m_db->changes() == 0)
        throw Error(QStringLiteral("workspace file %1: run %2 does not exist").arg(m_path).arg(runId));
}

namespace {

struct LiveRun {
    qint64 id = 0;
    QString host;
    qint64 pid = 0;
    QDateTime expiresAt; // invalid: the run never beat (recorded before schema 2)
};

QList<LiveRun> runningRuns(SqliteDb &db) {
    SqliteStatement select(db, QStringLiteral("SELECT id, host, pid, heartbeat_expires_at FROM runs "
                                              "WHERE status = 'running' ORDER BY id"));
    QList<LiveRun> runs;
    while (select.step())
        runs.append(
            LiveRun{select.columnInt64(0), select.columnText(1), select.columnInt64(2), readTime(select, 3)});
    return runs;
}

// Why the run's owner is taken for dead, or empty while it may still be alive. A pid only
// means something on its own host; elsewhere the heartbeat is all we can trust.
QString deathOf(const LiveRun &run, const QDateTime &now) {
    if (run.host == hostName() && !processAlive(run.pid))
        return QStringLiteral("process %1 on host %2 is gone").arg(run.pid).arg(run.host);
    if (run.expiresAt.isValid() ? run.expiresAt <= now : run.host != hostName())
        return QStringLiteral("process %1 on host %2 stopped beating (heartbeat expired %3)")
            .arg(run.pid)
            .arg(run.host, isoUtc(run.expiresAt));
    return {};
}

} // namespace

int Workspace::repairInterruptedRuns(QList<qint64> *closedRunIds) {
    // A cheap read first: nearly always nothing is dead, and then no write lock is taken.
    QDateTime now = QDateTime::currentDateTimeUtc();
    bool anyDead = false;
    for (const LiveRun &run : runningRuns(*m_db))
        anyDead = anyDead || !deathOf(run, now).isEmpty();
    if (!anyDead)
        return 0;

    // Decided again under the write lock, so of several processes opening at once exactly one
    // closes each run, and a run that finished meanwhile is left alone.
    Transaction transaction(*m_db);
    now = QDateTime::currentDateTimeUtc();
    const QString nowIso = isoUtc(now);
    const QString interrupted = iterationStatusName(IterationStatus::Interrupted);
    SqliteStatement closeRun(*m_db,
                             QStringLiteral("UPDATE runs SET status = ?1, finished_at = ?2 WHERE id = ?3 "
                                            "AND status = 'running'"));
    SqliteStatement openIterations(*m_db,
                                   QStringLiteral("SELECT id, table_id FROM iterations WHERE run_id = ?1 AND "
                                                  "status IN ('queued', 'running') ORDER BY id"));
    SqliteStatement closeIteration(
        *m_db,
        QStringLiteral("UPDATE iterations SET status = ?1, finished_at = ?2, error = coalesce(error, ?3), "
                       "rows_rolled_back = rows_rolled_back + rows_pending, rows_pending = 0 WHERE id = ?4"));
    SqliteStatement log(*m_db, QStringLiteral("INSERT INTO iteration_logs (iteration_id, at, level, message) "
                                              "VALUES (?1, ?2, 'warning', ?3)"));
    int repaired = 0;
    for (const LiveRun &run : runningRuns(*m_db)) {
        const QString why = deathOf(run, now);
        if (why.isEmpty())
            continue;
        const QString message = QStringLiteral("run %1 interrupted: %2").arg(run.id).arg(why);
        closeRun.reset();
        closeRun.bind(1, interrupted).bind(2, nowIso).bind(3, run.id).run();
        openIterations.reset();
        openIterations.bind(1, run.id);
        QList<qint64> iterationIds;
        while (openIterations.step())
            iterationIds.append(openIterations.columnInt64(0));
        for (const qint64 iterationId : std::as_const(iterationIds)) {
            closeIteration.reset();
            closeIteration.bind(1, interrupted).bind(2, nowIso).bind(3, message).bind(4, iterationId).run();
            log.reset();
            log.bind(1, iterationId).bind(2, nowIso).bind(3, message).run();
        }
        if (closedRunIds)
            closedRunIds->append(run.id);
        storageLog()->warn("workspace {}: {} ({} iteration(s) closed as interrupted)", str(m_path),
                           str(message), iterationIds.size());
        ++repaired;
    }
    transaction.commit();
    return repaired;
}

namespace {

void insertLogLine(SqliteDb &db, qint64 iterationId, const LogLine &line) {
    SqliteStatement insert(db, QStringLiteral("INSERT INTO iteration_logs (iteration_id, at, level, message) "
                                              "VALUES (?1, ?2, ?3, ?4)"));
    insert.bind(1, iterationId)
        .bind(2, line.at.isValid() ? isoUtc(line.at) : nowText())
        .bind(3, line.level.isEmpty() ? QStringLiteral("info") : line.level)
        .bind(4, line.message.isNull() ? QStringLiteral("") : line.message)
        .run();
}

void writeIteration(SqliteDb &db, const QString &path, const IterationRecord &record) {
    SqliteStatement update(
        db, QStringLiteral(
                "UPDATE iterations SET run_id = ?1, table_id = ?2, source = ?3, target = ?4, "
                "status = ?5, started_at = ?6, finished_at = ?7, duration_ms = ?8, rows_read = ?9, "
                "rows_written = ?10, rows_skipped = ?11, rows_null_watermark = ?12, window_rows = ?13, "
                "watermark_before = ?14, watermark_after = ?15, window_lower = ?16, "
                "window_upper = ?17, error = ?18, rows_unorderable_watermark = ?19, rows_pending = ?20, "
                "rows_rolled_back = ?21, rows_future = ?22, source_behind = ?23 WHERE id = ?24"));
    bindIteration(update, record);
    update.bind(24, record.id).run();
    if (db.changes() == 0)
        throw Error(
            QStringLiteral("workspace file %1: iteration %2 does not exist").arg(path).arg(record.id));
}

void deleteLease(SqliteDb &db, qint64 tableId, qint64 runId) {
    SqliteStatement remove(db, QStringLiteral("DELETE FROM leases WHERE table_id = ?1 AND run_id = ?2"));
    remove.bind(1, tableId).bind(2, runId).run();
}

// The record of the iteration `committed` names, when it is closed and says less than that.
std::optional<IterationRecord> recordToComplete(SqliteDb &db, const CommittedIteration &committed) {
    SqliteStatement select(db,
                           QStringLiteral("SELECT %1 FROM iterations WHERE id = ?1").arg(kIterationColumns));
    select.bind(1, committed.iterationId);
    if (!select.step())
        return std::nullopt;
    IterationRecord record = readIteration(select);
    const bool open = record.status == IterationStatus::Queued || record.status == IterationStatus::Running;
    const bool saysSo = record.rowsWritten == committed.rowsWritten &&
                        record.rowsSkipped == committed.rowsSkipped &&
                        record.watermarkAfter == committed.watermarkAfter;
    if (record.runId != committed.runId || record.tableId != committed.tableId || open || saysSo)
        return std::nullopt;
    return record;
}

} // namespace

bool Workspace::completeCommittedIteration(const CommittedIteration &committed, qint64 byRunId) {
    // A cheap read first: nearly always the record says so already, and then no write lock is taken.
    if (!recordToComplete(*m_db, committed))
        return false;
    Transaction transaction(*m_db);
    std::optional<IterationRecord> toComplete = recordToComplete(*m_db, committed); // again, under the lock
    if (!toComplete)
        return false;
    IterationRecord &record = *toComplete;

    const QString was =
        QStringLiteral("%1, %2 rows written, watermark after %3")
            .arg(iterationStatusName(record.status))
            .arg(record.rowsWritten)
            .arg(record.watermarkAfter.isEmpty() ? QStringLiteral("none") : record.watermarkAfter);
    // What the target's state row shows committed was counted as rolled back when the run was
    // closed: it landed after all.
    const qint64 landed =
        committed.rowsWritten + committed.rowsSkipped - record.rowsWritten - record.rowsSkipped;
    record.rowsRolledBack = qMax<qint64>(0, record.rowsRolledBack - qMax<qint64>(0, landed));
    record.rowsPending = 0;
    record.rowsWritten = committed.rowsWritten;
    record.rowsSkipped = committed.rowsSkipped;
    record.rowsRead = committed.windowDone
                          ? committed.rowsWritten + committed.rowsSkipped
                          : qMax(record.rowsRead, committed.rowsWritten + committed.rowsSkipped);
    record.watermarkAfter = committed.watermarkAfter;
    if (committed.windowDone) {
        record.error =
            QStringLiteral("committed to the target, but the workspace could not record it%1; "
                           "completed from the target's state row")
                .arg(record.error.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(record.error));
        record.status = IterationStatus::Warning;
    }
    SqliteStatement update(
        *m_db, QStringLiteral("UPDATE iterations SET status = ?1, rows_read = ?2, rows_written = ?3, "
                              "rows_skipped = ?4, watermark_after = ?5, error = ?6, rows_pending = 0, "
                              "rows_rolled_back = ?7 WHERE id = ?8"));
    update.bind(1, iterationStatusName(record.status))
        .bind(2, record.rowsRead)
        .bind(3, record.rowsWritten)
        .bind(4, record.rowsSkipped)
        .bind(5, textOrNull(record.watermarkAfter))
        .bind(6, textOrNull(record.error))
        .bind(7, record.rowsRolledBack)
        .bind(8, record.id)
        .run();
    appendLog(record.id,
              LogLine{QDateTime::currentDateTimeUtc(), QStringLiteral("warning"),
                      QStringLiteral("completed by run %1 from the target's state row: %2 rows "
                                     "written, %3 skipped, watermark after %4 (the record said %5)")
                          .arg(byRunId)
                          .arg(record.rowsWritten)
                          .arg(record.rowsSkipped)
                          .arg(record.watermarkAfter, was)});

    // The run was closed as interrupted because its iterations could not be recorded; once
    // none is left open or interrupted it gets the status they give.
    SqliteStatement statuses(*m_db, QStringLiteral("SELECT i.status FROM iterations i JOIN runs r ON "
                                                   "r.id = i.run_id WHERE r.id = ?1 AND r.status = ?2"));
    statuses.bind(1, record.runId).bind(2, iterationStatusName(IterationStatus::Interrupted));
    QList<IterationStatus> found;
    while (statuses.step())
        found << iterationStatusFromName(statuses.columnText(0)).value_or(IterationStatus::Failed);
    const bool settled = !found.isEmpty() && !found.contains(IterationStatus::Queued) &&
                         !found.contains(IterationStatus::Running) &&
                         !found.contains(IterationStatus::Interrupted);
    if (settled) {
        SqliteStatement run(*m_db, QStringLiteral("UPDATE runs SET status = ?1 WHERE id = ?2"));
        run.bind(1, deriveRunStatus(found, false)).bind(2, record.runId).run();
    }
    transaction.commit();
    storageLog()->warn("workspace {}: iteration {} of run {} completed from the target's state row by run {}",
                       str(m_path), record.id, record.runId, byRunId);
    return true;
}

qint64 Workspace::addIteration(const IterationRecord &record) {
    QList<IterationRecord> records{record};
    addIterations(records);
    return records.first().id;
}

void Workspace::addIterations(QList<IterationRecord> &records) {
    Transaction transaction(*m_db);
    SqliteStatement insert(
        *m_db, QStringLiteral(
                   "INSERT INTO iterations (run_id, table_id, source, target, status, started_at, "
                   "finished_at, duration_ms, rows_read, rows_written, rows_skipped, rows_null_watermark, "
                   "window_rows, watermark_before, watermark_after, window_lower, window_upper, error, "
                   "rows_unorderable_watermark, rows_pending, rows_rolled_back, rows_future, source_behind) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                   "?18, ?19, ?20, ?21, ?22, ?23)"));
    for (IterationRecord &record : records) {
        insert.reset();
        bindIteration(insert, record);
        insert.run();
        record.id = m_db->lastInsertId();
        for (const LogLine &line : std::as_const(record.log))
            insertLogLine(*m_db, record.id, line);
    }
    transaction.commit();
}

void Workspace::updateIteration(const IterationRecord &record) {
    writeIteration(*m_db, m_path, record);
}

void Workspace::finishIteration(const IterationRecord &record, const QList<LogLine> &newLines,
                                bool releaseLease) {
    Transaction transaction(*m_db);
    if (record.id > 0) {
        writeIteration(*m_db, m_path, record);
        for (const LogLine &line : newLines)
            insertLogLine(*m_db, record.id, line);
    }
    if (releaseLease)
        deleteLease(*m_db, record.tableId, record.runId);
    transaction.commit();
}

void Workspace::appendLog(qint64 iterationId, const LogLine &line) {
    insertLogLine(*m_db, iterationId, line);
}

void Workspace::appendLogs(qint64 iterationId, const QList<LogLine> &lines) {
    Transaction transaction(*m_db);
    for (const LogLine &line : lines)
        insertLogLine(*m_db, iterationId, line);
    transaction.commit();
}

void Workspace::addReject(const RejectedRow &row) {
    SqliteStatement insert(*m_db,
                           QStringLiteral("INSERT INTO rejects (run_id, iteration_id, table_id, at, error, "
                                          "row_key, row_data) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
    insert.bind(1, idOrNull(row.runId))
        .bind(2, idOrNull(row.iterationId))
        .bind(3, row.tableId)
        .bind(4, row.at.isValid() ? isoUtc(row.at) : nowText())
        .bind(5, row.error.isNull() ? QStringLiteral("") : row.error)
        .bind(6, row.rowKey)
        .bind(7, row.rowData)
        .run();
}

namespace {

const QString kRejectColumns =
    QStringLiteral("id, run_id, iteration_id, table_id, at, error, row_key, row_data");

QList<RejectedRow> readRejects(SqliteStatement &stmt) {
    QList<RejectedRow> result;
    while (stmt.step()) {
        RejectedRow row;
        row.id = stmt.columnInt64(0);
        row.runId = stmt.columnInt64(1);
        row.iterationId = stmt.columnInt64(2);
        row.tableId = stmt.columnInt64(3);
        row.at = readTime(stmt, 4);
        row.error = stmt.columnText(5);
        row.rowKey = stmt.columnText(6);
        row.rowData = stmt.columnText(7);
        result.append(row);
    }
    return result;
}

const QString kIterationRejects = QStringLiteral("FROM rejects WHERE iteration_id = ?1");

} // namespace

QList<RejectedRow> Workspace::rejects(qint64 tableId) {
    SqliteStatement stmt(
        *m_db, QStringLiteral("SELECT %1 FROM rejects WHERE table_id = ?1 ORDER BY id").arg(kRejectColumns));
    stmt.bind(1, tableId);
    return readRejects(stmt);
}

QList<RejectedRow> Workspace::iterationRejects(qint64 iterationId, qint64 afterId, int limit) {
    SqliteStatement stmt(*m_db, QStringLiteral("SELECT %1 %2 AND id > ?2 ORDER BY id LIMIT ?3")
                                    .arg(kRejectColumns, kIterationRejects));
    stmt.bind(1, iterationId).bind(2, afterId).bind(3, qint64(limit > 0 ? limit : -1));
    return readRejects(stmt);
}

qint64 Workspace::iterationRejectCount(qint64 iterationId) {
    SqliteStatement stmt(*m_db, QStringLiteral("SELECT count(*) %1").arg(kIterationRejects));
    stmt.bind(1, iterationId);
    return stmt.step() ? stmt.columnInt64(0) : 0;
}

namespace {

// The columns a history read orders by: the order's key (empty for the id alone), then the
// run's id — a whitelist, so no identifier ever comes from the caller. Filtered to a table, the
// iteration's own columns (an index each: iterations_by_table_*), its run_id standing for the
// run's id so the index also gives the tie order.
struct PageOrder {
    QString key;
    QString id;
};

PageOrder pageOrder(const RunPageQuery &query) {
    if (!canSortRuns(query.order.by, query.tableId))
        throw Error(QStringLiteral("the run history can be ordered by its runs' figures only when "
                                   "filtered to one table"));
    const bool table = query.tableId > 0;
    switch (query.order.by) {
    case RunSort::Started:
        return {QStringLiteral("r.started_at"), QStringLiteral("r.id")};
    case RunSort::Id:
        return {QString(), table ? QStringLiteral("i.run_id") : QStringLiteral("r.id")};
    case RunSort::Status:
        return table ? PageOrder{QStringLiteral("i.status"), QStringLiteral("i.run_id")}
                     : PageOrder{QStringLiteral("r.status"), QStringLiteral("r.id")};
    case RunSort::Duration:
        return {QStringLiteral("i.duration_ms"), QStringLiteral("i.run_id")};
    case RunSort::RowsRead:
        return {QStringLiteral("i.rows_read"), QStringLiteral("i.run_id")};
    case RunSort::RowsWritten:
        return {QStringLiteral("i.rows_written"), QStringLiteral("i.run_id")};
    }
    return {};
}

// FROM and WHERE of a history read. Parameters: ?1 table, ?2 status, ?3 run, ?4 ?5 the cursor
// (the order's key, the id); the clauses of the filters not asked for are left out, so each
// read gets the plan it needs (keyset paging only stays cheap when the cursor bounds the index
// range).
QString pageFromWhere(const RunPageQuery &query) {
    QString sql;
    QStringList where;
    if (query.tableId > 0) {
        sql = QStringLiteral(" FROM iterations i JOIN runs r ON r.id = i.run_id");
        where << QStringLiteral("i.table_id = ?1");
        if (!query.status.isEmpty())
            where << QStringLiteral("i.status = ?2");
    } else {
        sql = QStringLiteral(" FROM runs r");
        if (!query.status.isEmpty())
            where << QStringLiteral("(r.status = ?2 OR EXISTS (SELECT 1 FROM iterations s "
                                    "WHERE s.run_id = r.id AND s.status = ?2))");
    }
    if (query.runId > 0)
        where << QStringLiteral("r.id = ?3");
    if (query.before) {
        const PageOrder order = pageOrder(query);
        const QString after = query.order.descending ? QStringLiteral("<") : QStringLiteral(">");
        where << (order.key.isEmpty()
                      ? QStringLiteral("%1 %2 ?5").arg(order.id, after)
                      : QStringLiteral("(%1, %2) %3 (?4, ?5)").arg(order.key, order.id, after));
    }
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "));
    return sql;
}

// The SELECT of a history page: kRunColumns, then (filtered to a table) that table's
// iteration's kIterationColumns; ?6 the limit.
QString pageSql(const RunPageQuery &query) {
    QString columns = kRunColumns;
    if (query.tableId > 0)
        columns += QStringLiteral(", ") + iterationColumnsOf(QStringLiteral("i"));
    const PageOrder order = pageOrder(query);
    const QString direction = query.order.descending ? QStringLiteral(" DESC") : QStringLiteral(" ASC");
    QString orderBy = order.id + direction;
    if (!order.key.isEmpty())
        orderBy.prepend(order.key + direction + QStringLiteral(", "));
    return QStringLiteral("SELECT ") + columns + pageFromWhere(query) + QStringLiteral(" ORDER BY ") +
           orderBy + QStringLiteral(" LIMIT ?6");
}

void bindFilter(SqliteStatement &stmt, const RunPageQuery &query) {
    if (query.tableId > 0)
        stmt.bind(1, query.tableId);
    if (!query.status.isEmpty())
        stmt.bind(2, query.status);
    if (query.runId > 0)
        stmt.bind(3, query.runId);
    if (query.before) {
        if (query.order.by == RunSort::Started)
            stmt.bind(4, timeText(query.before->startedAt));
        else if (query.order.by != RunSort::Id)
            stmt.bind(4, query.before->key);
        stmt.bind(5, query.before->runId);
    }
}

// The page's runs; filtered to a table, each with that table's iteration (and no other).
QList<RunRecord> selectPageRuns(SqliteDb &db, const RunPageQuery &query) {
    SqliteStatement select(db, pageSql(query));
    bindFilter(select, query);
    select.bind(6, query.limit > 0 ? qint64(query.limit) : qint64(-1));
    QList<RunRecord> runs;
    while (select.step()) {
        runs.append(readRun(select));
        if (query.tableId > 0)
            runs.last().iterations.append(readIteration(select, kRunColumnCount));
    }
    return runs;
}

// The runs' ids (idsJson): a whole page's iterations in one bound query.
QString runIdsJson(const QList<RunRecord> &runs) {
    QList<qint64> ids;
    ids.reserve(runs.size());
    for (const RunRecord &run : runs)
        ids << run.id;
    return idsJson(ids);
}

QHash<qint64, qsizetype> indexOfRuns(const QList<RunRecord> &runs) {
    QHash<qint64, qsizetype> index;
    index.reserve(runs.size());
    for (qsizetype i = 0; i < runs.size(); ++i)
        index.insert(runs.at(i).id, i);
    return index;
}

QList<RunRecord> readRunPage(SqliteDb &db, const RunPageQuery &query) {
    QList<RunRecord> runs = selectPageRuns(db, query);
    if (query.tableId > 0 || runs.isEmpty())
        return runs;
    const QHash<qint64, qsizetype> index = indexOfRuns(runs);
    SqliteStatement select(db, QStringLiteral("SELECT %1 FROM iterations WHERE run_id IN "
                                              "(SELECT value FROM json_each(?1)) ORDER BY run_id, id")
                                   .arg(kIterationColumns));
    select.bind(1, runIdsJson(runs));
    while (select.step()) {
        IterationRecord iteration = readIteration(select);
        runs[index.value(iteration.runId)].iterations.append(std::move(iteration));
    }
    return runs;
}

} // namespace

QList<RunRecord> Workspace::runPage(const RunPageQuery &query) {
    Transaction read(*m_db, Transaction::Kind::Read);
    QList<RunRecord> runs = readRunPage(*m_db, query);
    read.commit();
    return runs;
}

QList<RunOverview> Workspace::runOverviews(const RunPageQuery &query) {
    Transaction read(*m_db, Transaction::Kind::Read);
    const QList<RunRecord> runs = selectPageRuns(*m_db, query);
    QList<RunOverview> overviews;
    overviews.reserve(runs.size());
    if (query.tableId > 0) {
        // One iteration each: the same figures as the C++ definition, from that iteration.
        for (const RunRecord &run : runs)
            overviews.append(*overviewOf(run, query));
        read.commit();
        return overviews;
    }
    for (const RunRecord &run : runs) {
        RunOverview overview;
        overview.run = run;
        overview.status = run.status;
        overview.finishedAt = run.finishedAt;
        overviews.append(overview);
    }
    if (!runs.isEmpty()) {
        const QHash<qint64, qsizetype> index = indexOfRuns(runs);
        const QString ids = runIdsJson(runs);
        // Figures summed by SQLite: a run of a thousand tables costs no thousand records here.
        // The kept figure is rowsShownRead's, in SQL.
        SqliteStatement sums(
            *m_db, QStringLiteral("SELECT run_id, count(*), sum(rows_read), sum(rows_written), "
                                  "sum(rows_skipped), max(duration_ms), sum(CASE WHEN status IN (?2, ?3, ?4) "
                                  "THEN min(rows_read, rows_written + rows_skipped) ELSE rows_read END) "
                                  "FROM iterations WHERE run_id IN (SELECT value FROM json_each(?1)) "
                                  "GROUP BY run_id"));
        sums.bind(1, ids)
            .bind(2, iterationStatusName(IterationStatus::Cancelled))
            .bind(3, iterationStatusName(IterationStatus::Failed))
            .bind(4, iterationStatusName(IterationStatus::Interrupted));
        while (sums.step()) {
            RunOverview &overview = overviews[index.value(sums.columnInt64(0))];
            overview.tables = int(sums.columnInt64(1));
            overview.rowsRead = sums.columnInt64(2);
            overview.rowsWritten = sums.columnInt64(3);
            overview.rowsSkipped = sums.columnInt64(4);
            overview.durationMs = sums.columnInt64(5);
            overview.rowsReadKept = sums.columnInt64(6);
        }
        SqliteStatement problems(*m_db, QStringLiteral("SELECT run_id, source, status FROM iterations "
                                                       "WHERE run_id IN (SELECT value FROM json_each(?1)) "
                                                       "AND status IN (?2, ?3, ?4, ?5) ORDER BY run_id, id"));
        problems.bind(1, ids)
            .bind(2, iterationStatusName(IterationStatus::Failed))
            .bind(3, iterationStatusName(IterationStatus::Warning))
            .bind(4, iterationStatusName(IterationStatus::Cancelled))
            .bind(5, iterationStatusName(IterationStatus::Interrupted));
        while (problems.step())
            overviews[index.value(problems.columnInt64(0))].problems.append(
                {problems.columnText(1),
                 iterationStatusFromName(problems.columnText(2)).value_or(IterationStatus::Failed)});
    }
    for (RunOverview &overview : overviews) {
        if (overview.run.startedAt.isValid() && overview.run.finishedAt.isValid())
            overview.durationMs = overview.run.startedAt.msecsTo(overview.run.finishedAt);
    }
    read.commit();
    return overviews;
}

qint64 Workspace::runCount(const RunPageQuery &query) {
    // A status alone: the runs that ended so and the runs with an iteration that did, each an
    // index range (the page's OR EXISTS would probe every run's iterations).
    const bool statusAlone =
        query.tableId <= 0 && !query.status.isEmpty() && query.runId <= 0 && !query.before;
    SqliteStatement count(*m_db, statusAlone
                                     ? QStringLiteral("SELECT count(*) FROM (SELECT id FROM runs WHERE "
                                                      "status = ?2 UNION SELECT run_id FROM "
                                                      "iterations WHERE status = ?2)")
                                     : QStringLiteral("SELECT count(*)") + pageFromWhere(query));
    bindFilter(count, query);
    return count.step() ? count.columnInt64(0) : 0;
}

QList<LogLine> Workspace::iterationLog(qint64 iterationId) {
    SqliteStatement select(*m_db, QStringLiteral("SELECT at, level, message FROM iteration_logs "
                                                 "WHERE iteration_id = ?1 ORDER BY id"));
    select.bind(1, iterationId);
    QList<LogLine> lines;
    while (select.step())
        lines.append(LogLine{readTime(select, 0), select.columnText(1), select.columnText(2)});
    return lines;
}

QList<RunRecord> Workspace::runs(int limit, qint64 runId) {
    // One read transaction, so a run being written meanwhile is seen whole or not at all.
    Transaction read(*m_db, Transaction::Kind::Read);
    RunPageQuery query;
    query.limit = limit;
    query.runId = runId;
    QList<RunRecord> runs = readRunPage(*m_db, query);
    // Each run's log lines in one query.
    SqliteStatement selectLog(*m_db, QStringLiteral("SELECT l.iteration_id, l.at, l.level, l.message "
                                                    "FROM iteration_logs l JOIN iterations i ON "
                                                    "i.id = l.iteration_id WHERE i.run_id = ?1 "
                                                    "ORDER BY l.iteration_id, l.id"));
    for (RunRecord &run : runs) {
        QHash<qint64, qsizetype> index;
        for (qsizetype i = 0; i < run.iterations.size(); ++i)
            index.insert(run.iterations.at(i).id, i);
        selectLog.reset();
        selectLog.bind(1, run.id);
        while (selectLog.step())
            run.iterations[index.value(selectLog.columnInt64(0))].log.append(
                LogLine{readTime(selectLog, 1), selectLog.columnText(2), selectLog.columnText(3)});
    }
    read.commit();
    return runs;
}

// --- leases ---

namespace {

// Inside the caller's IMMEDIATE transaction; writes nothing when the lease is refused.
LeaseAttempt takeLease(SqliteDb &db, qint64 tableId, qint64 runId, std::chrono::milliseconds ttl) {
    const QString host = hostName();
    const qint64 pid = QCoreApplication::applicationPid();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    LeaseAttempt attempt;
    SqliteStatement select(db, QStringLiteral("SELECT run_id, host, pid, expires_at FROM leases "
                                              "WHERE table_id = ?1"));
    select.bind(1, tableId);
    if (select.step()) {
        Lease current{tableId, select.columnInt64(0), select.columnText(1), select.columnInt64(2),
                      readTime(select, 3)};
        select.reset();
        const bool sameHost = current.host == host;
        const bool expired = !current.expiresAt.isValid() || current.expiresAt <= now;
        // A pid only means something on its own host; elsewhere the expiry is all we can trust.
        const bool dead = sameHost && !processAlive(current.pid);
        const bool ownRun = sameHost && current.pid == pid && current.runId == runId;
        if (!expired && !dead && !ownRun) {
            attempt.holder = current;
            return attempt; // nothing written: the caller rolls back
        }
        if (!ownRun) {
            attempt.holder = current;
            storageLog()->warn("table {}: taking over the lease of run {} (host {}, pid {}, {})", tableId,
                               current.runId, str(current.host), current.pid,
                               expired ? "expired" : "process gone");
        }
    }
    SqliteStatement upsert(db, QStringLiteral("INSERT OR REPLACE INTO leases (table_id, run_id, host, pid, "
                                              "acquired_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
    upsert.bind(1, tableId)
        .bind(2, runId)
        .bind(3, host)
        .bind(4, pid)
        .bind(5, isoUtc(now))
        .bind(6, isoUtc(now.addMSecs(ttl.count())))
        .run();
    attempt.acquired = true;
    return attempt;
}

} // namespace

LeaseAttempt Workspace::acquireLease(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl) {
    Transaction transaction(*m_db);
    const LeaseAttempt attempt = takeLease(*m_db, tableId, runId, ttl);
    if (attempt.acquired)
        transaction.commit();
    return attempt;
}

LeaseAttempt Workspace::startIteration(const IterationRecord &record, std::chrono::milliseconds ttl) {
    Transaction transaction(*m_db);
    const LeaseAttempt attempt = takeLease(*m_db, record.tableId, record.runId, ttl);
    if (!attempt.acquired)
        return attempt;
    if (record.id > 0)
        writeIteration(*m_db, m_path, record);
    transaction.commit();
    return attempt;
}

void Workspace::renewLease(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl) {
    SqliteStatement update(*m_db, QStringLiteral("UPDATE leases SET expires_at = ?1 WHERE table_id = ?2 AND "
                                                 "run_id = ?3"));
    update.bind(1, isoUtc(QDateTime::currentDateTimeUtc().addMSecs(ttl.count())))
        .bind(2, tableId)
        .bind(3, runId)
        .run();
    if (m_db->changes() == 0)
        throw Error(QStringLiteral("workspace file %1: the lease of table %2 is no longer held by run %3")
                        .arg(m_path)
                        .arg(tableId)
                        .arg(runId));
}

void Workspace::releaseLease(qint64 tableId, qint64 runId) {
    deleteLease(*m_db, tableId, runId);
}

// --- schedules ---

namespace {

const QString kScheduleColumns =
    QStringLiteral("id, name, cron, tz, tables, concurrency, retries, timeout_seconds, active, created_at, "
                   "updated_at, last_fired_at, last_run_id, alerts");

ScheduleSpec readSchedule(const SqliteStatement &stmt) {
    ScheduleSpec spec;
    spec.id = stmt.columnInt64(0);
    spec.name = stmt.columnText(1);
    spec.cron = stmt.columnText(2);
    spec.timeZone = stmt.columnText(3);
    const QJsonArray tables = QJsonDocument::fromJson(stmt.columnText(4).toUtf8()).array();
    for (const QJsonValue &id : tables)
        spec.tableIds.append(id.toInteger());
    spec.concurrency = int(stmt.columnInt64(5));
    spec.retries = int(stmt.columnInt64(6));
    spec.timeoutSeconds = stmt.columnInt64(7);
    spec.active = stmt.columnInt64(8) != 0;
    spec.createdAt = readTime(stmt, 9);
    spec.updatedAt = readTime(stmt, 10);
    spec.lastFiredAt = readTime(stmt, 11);
    spec.lastRunId = stmt.columnInt64(12);
    if (const QString alerts = stmt.columnText(13); !alerts.isEmpty())
        spec.alerts = alertSettingsFromJson(QJsonDocument::fromJson(alerts.toUtf8()).object());
    return spec;
}

} // namespace

QList<ScheduleSpec> Workspace::schedules() {
    SqliteStatement stmt(*m_db,
                         QStringLiteral("SELECT %1 FROM schedules ORDER BY name").arg(kScheduleColumns));
    QList<ScheduleSpec> result;
    while (stmt.step())
        result.append(readSchedule(stmt));
    return result;
}

std::optional<ScheduleSpec> Workspace::schedule(const QString &name) {
    SqliteStatement stmt(*m_db,
                         QStringLiteral("SELECT %1 FROM schedules WHERE name = ?1").arg(kScheduleColumns));
    stmt.bind(1, name);
    if (!stmt.step())
        return std::nullopt;
    return readSchedule(stmt);
}

namespace {

// A schedule's tables as stored (a JSON array of ids; [] = every active table), each checked
// to be a live table of `workspace`.
QString scheduleTablesJson(Workspace &workspace, const ScheduleSpec &spec) {
    QJsonArray tables;
    for (const qint64 id : spec.tableIds) {
        if (!workspace.table(id))
            throw ValidationError(QStringLiteral("schedule '%1': table %2 is not a table of workspace %3")
                                      .arg(spec.name)
                                      .arg(id)
                                      .arg(workspace.path()));
        tables.append(id);
    }
    return QString::fromUtf8(QJsonDocument(tables).toJson(QJsonDocument::Compact));
}

// A schedule's alerts as stored: NULL when it has none; a webhook URL holding a secret in clear
// is refused (checkWebhookUrl) before anything is written.
QVariant scheduleAlertsJson(const ScheduleSpec &spec) {
    if (spec.alerts.isEmpty())
        return {};
    if (!spec.alerts.webhookUrl.isEmpty())
        checkWebhookUrl(spec.alerts.webhookUrl);
    return QString::fromUtf8(QJsonDocument(alertSettingsToJson(spec.alerts)).toJson(QJsonDocument::Compact));
}

// Binds what adding and editing a schedule both write: ?1 name, ?2 cron, ?3 zone, ?4 tables,
// ?5 concurrency, ?6 retries, ?7 timeout, ?8 now (the update time) and ?9 alerts. The tables and
// the alerts are checked here, so a refused schedule writes nothing.
SqliteStatement &bindSchedule(SqliteStatement &stmt, Workspace &workspace, const ScheduleSpec &spec) {
    return stmt.bind(1, spec.name)
        .bind(2, spec.cron)
        .bind(3, spec.timeZone)
        .bind(4, scheduleTablesJson(workspace, spec))
        .bind(5, spec.concurrency)
        .bind(6, spec.retries)
        .bind(7, spec.timeoutSeconds)
        .bind(8, nowText())
        .bind(9, scheduleAlertsJson(spec));
}

} // namespace

qint64 Workspace::addSchedule(const ScheduleSpec &spec) {
    if (spec.name.trimmed().isEmpty())
        throw ValidationError(QStringLiteral("a schedule needs a name"));
    Transaction transaction(*m_db);
    if (schedule(spec.name))
        throw ValidationError(QStringLiteral("schedule '%1' already exists").arg(spec.name));
    SqliteStatement insert(
        *m_db, QStringLiteral("INSERT INTO schedules (name, cron, tz, tables, concurrency, retries, "
                              "timeout_seconds, created_at, updated_at, alerts, active) "
                              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10)"));
    bindSchedule(insert, *this, spec).bind(10, spec.active ? 1 : 0).run();
    const qint64 id = m_db->lastInsertId();
    transaction.commit();
    storageLog()->info("workspace {}: schedule '{}' added ({}, {})", str(m_path), str(spec.name),
                       str(spec.cron), str(spec.timeZone));
    return id;
}

void Workspace::editSchedule(const ScheduleSpec &spec) {
    SqliteStatement update(*m_db, QStringLiteral("UPDATE schedules SET cron = ?2, tz = ?3, tables = ?4, "
                                                 "concurrency = ?5, retries = ?6, timeout_seconds = ?7, "
                                                 "updated_at = ?8, alerts = ?9 WHERE name = ?1"));
    bindSchedule(update, *this, spec).run();
    if (m_db->changes() == 0)
        throw ValidationError(
            QStringLiteral("schedule '%1': no such schedule in workspace %2").arg(spec.name, m_path));
    storageLog()->info("workspace {}: schedule '{}' edited ({}, {})", str(m_path), str(spec.name),
                       str(spec.cron), str(spec.timeZone));
}

namespace {

// Runs `sql` with ?1 = the schedule's name and `values` from ?2 on; ValidationError when no
// schedule has that name.
void updateSchedule(SqliteDb &db, const QString &workspacePath, const QString &name, const QString &sql,
                    const QVariantList &values = {}) {
    SqliteStatement update(db, sql);
    update.bind(1, name);
    for (int i = 0; i < values.size(); ++i)
        update.bind(i + 2, values[i]);
    update.run();
    if (db.changes() == 0)
        throw ValidationError(
            QStringLiteral("schedule '%1': no such schedule in workspace %2").arg(name, workspacePath));
}

} // namespace

void Workspace::setScheduleActive(const QString &name, bool active) {
    updateSchedule(*m_db, m_path, name,
                   QStringLiteral("UPDATE schedules SET active = ?2, updated_at = ?3 WHERE name = ?1"),
                   {active ? 1 : 0, nowText()});
}

void Workspace::removeSchedule(const QString &name) {
    updateSchedule(*m_db, m_path, name, QStringLiteral("DELETE FROM schedules WHERE name = ?1"));
    storageLog()->info("workspace {}: schedule '{}' removed", str(m_path), str(name));
}

void Workspace::recordScheduleFiring(const QString &name, const QDateTime &firedAt) {
    updateSchedule(*m_db, m_path, name,
                   QStringLiteral("UPDATE schedules SET last_fired_at = ?2 WHERE name = ?1"),
                   {isoUtc(firedAt)});
}

void Workspace::setScheduleLastRun(const QString &name, qint64 runId) {
    updateSchedule(*m_db, m_path, name,
                   QStringLiteral("UPDATE schedules SET last_run_id = ?2 WHERE name = ?1"), {runId});
}

QString Workspace::runStatus(qint64 runId) {
    SqliteStatement select(*m_db, QStringLiteral("SELECT status FROM runs WHERE id = ?1"));
    select.bind(1, runId);
    return select.step() ? select.columnText(0) : QString();
}

// --- the runner's heartbeat ---

int Workspace::runnerHeartbeatIntervalMs() {
    return heartbeatIntervalMs("TIDEMARK_TEST_RUNNER_HEARTBEAT_MS");
}

std::optional<RunnerHeartbeat> Workspace::runner() {
    SqliteStatement select(*m_db,
                           QStringLiteral("SELECT host, pid, version, started_at, last_beat_at, expires_at, "
                                          "last_firing_at, last_firing_schedule, last_firing_error "
                                          "FROM runner WHERE slot = 1"));
    if (!select.step())
        return std::nullopt;
    return RunnerHeartbeat{select.columnText(0),
                           select.columnInt64(1),
                           select.columnText(2),
                           readTime(select, 3),
                           readTime(select, 4),
                           readTime(select, 5),
                           FiringOutcome{readTime(select, 6), select.columnText(7), select.columnText(8)}};
}

RunnerClaim Workspace::claimRunner(const QDateTime &startedAt, std::chrono::milliseconds ttl,
                                   const QDateTime &staleBeat) {
    const QString host = hostName();
    const qint64 pid = QCoreApplication::applicationPid();
    Transaction transaction(*m_db);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    RunnerClaim claim;
    if (const std::optional<RunnerHeartbeat> current = runner()) {
        const bool sameHost = current->host == host;
        const bool own = sameHost && current->pid == pid;
        const bool expired = !current->expiresAt.isValid() || current->expiresAt <= now ||
                             (staleBeat.isValid() && current->lastBeatAt == staleBeat);
        // A pid only means something on its own host; elsewhere the heartbeat is all we trust.
        const bool dead = sameHost && !processAlive(current->pid);
        if (!own && !expired && !dead) {
            claim.holder = current;
            return claim; // rolls back: nothing written
        }
        if (!own) {
            claim.holder = current;
            storageLog()->warn("workspace {}: taking over from runner pid {} on host {} ({})", str(m_path),
                               current->pid, str(current->host),
                               expired ? "heartbeat expired" : "process gone");
        }
    }
    SqliteStatement upsert(*m_db, QStringLiteral("INSERT OR REPLACE INTO runner (slot, host, pid, version, "
                                                 "started_at, last_beat_at, expires_at) "
                                                 "VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)"));
    upsert.bind(1, host)
        .bind(2, pid)
        .bind(3, QStringLiteral(TIDEMARK_VERSION))
        .bind(4, isoUtc(startedAt.isValid() ? startedAt : now))
        .bind(5, isoUtc(now))
        .bind(6, isoUtc(now.addMSecs(ttl.count())))
        .run();
    transaction.commit();
    claim.acquired = true;
    return claim;
}

bool Workspace::beatRunner(std::chrono::milliseconds ttl, const FiringOutcome &lastFiring) {
    const QDateTime now = QDateTime::currentDateTimeUtc();
    SqliteStatement update(*m_db, QStringLiteral("UPDATE runner SET last_beat_at = ?1, expires_at = ?2, "
                                                 "last_firing_at = ?5, last_firing_schedule = ?6, "
                                                 "last_firing_error = ?7 "
                                                 "WHERE slot = 1 AND host = ?3 AND pid = ?4"));
    update.bind(1, isoUtc(now))
        .bind(2, isoUtc(now.addMSecs(ttl.count())))
        .bind(3, hostName())
        .bind(4, QCoreApplication::applicationPid())
        .bind(5, timeText(lastFiring.at))
        .bind(6, textOrNull(lastFiring.schedule))
        .bind(7, textOrNull(lastFiring.error))
        .run();
    return m_db->changes() > 0;
}

void Workspace::releaseRunner() {
    SqliteStatement remove(*m_db,
                           QStringLiteral("DELETE FROM runner WHERE slot = 1 AND host = ?1 AND pid = ?2"));
    remove.bind(1, hostName()).bind(2, QCoreApplication::applicationPid()).run();
}

} // namespace tidemark
