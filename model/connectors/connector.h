// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/rowbatch.h"
#include "model/domain/position.h"
#include "model/domain/tablespec.h"
#include "model/domain/watermark.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <memory>
#include <optional>
#include <vector>

namespace tidemark {

struct ChecksumQuery; // model/connectors/rowchecksum.h

// What a column holds, independent of the engine that stores it; used to create target
// tables with matching types and to detect watermark columns.
enum class LogicalType {
    Integer, // any integer width
    Real,    // floating point
    Numeric, // exact decimal, carried as text
    Text,
    Blob,
    Boolean,
    Date,
    Timestamp,   // without time zone
    TimestampTz, // with time zone; carried as ISO-8601 UTC text
    Uuid,
    Json,
    Unknown,
};

struct ColumnInfo {
    QString name;
    QString nativeType; // as the engine declares it ("INTEGER", "timestamp with time zone", "")
    LogicalType logical = LogicalType::Unknown;
    bool notNull = false;
    int primaryKeyOrdinal = 0; // 1-based position in the primary key, 0 = not part of it
    // The column leads an index (or is SQLite's rowid), so a range on it is read from the index:
    // what makes a watermark column cheap to window. Filled by describeTable().
    bool indexed = false;
    QString origin; // the engine nativeType belongs to: "sqlite" | "postgres"
};

// A table as connectors see it: `schema` is empty for SQLite.
struct TableRef {
    QString schema;
    QString name;
    QString display() const { return schema.isEmpty() ? name : schema + QLatin1Char('.') + name; }
};

struct TableSchema {
    TableRef table;
    QList<ColumnInfo> columns;
    QStringList primaryKey() const; // in key order
    const ColumnInfo *column(const QString &name) const;
    QStringList columnNames() const;
};

// The rows of one iteration: strictly after `lower` (or from `lower`'s watermark inclusive, with
// a lookback) and up to `upper` inclusive, in keyset order (watermark, tiebreak).
// model/connectors/contractsql.h renders it.
struct WindowQuery {
    TableRef table;
    QStringList columns; // what to read, in this order
    QString watermarkColumn;
    // How the column orders: values it cannot order (ContractSql::probeWatermark) are in no window.
    WatermarkType watermarkType = WatermarkType::None;
    QString tiebreakColumn; // empty = none
    // Null = no lower bound. Its tiebreak counts only with an exclusive bound and a tiebreak
    // column; without one, rows strictly after its watermark.
    Position lower;
    bool lowerInclusive = false;
    Watermark upper; // none = no upper bound (overwrite without watermark)
    // The upper bound holds rows back (the future guard): the copy stops at it, even where a
    // shortcut would copy the whole table.
    bool upperHoldsBack = false;
    // The table's key: names the row in a read error (a MySQL zero date).
    QStringList keyColumns;
    // The rows the iteration's probe found in no window (NULL or unorderable watermarks), when it
    // probed. True of the target's snapshot only where it can tell that nothing was committed to
    // the source since (SqliteConnector::copiesWholeTable).
    std::optional<qint64> unselectableRows;
};

// What a source knows about a watermark column at the start of an iteration.
struct WatermarkProbe {
    Watermark maximum;    // the highest value a window can order; none when there is none
    qint64 nullCount = 0; // rows that no window can select
    // Rows whose watermark no window can order (infinity, NaN, a BC date, a year past 9999, a
    // SQLite value that is no timestamp or no integer): like NULLs, counted and never selected.
    qint64 unorderableCount = 0;
    QString unorderableLowest, unorderableHighest; // two of them as the source spells them, for the log
    // Every row of the table, in the probe's snapshot, when the connector counts them at little
    // cost (SQLite, probed for a first load): a first window's size without counting it.
    std::optional<qint64> tableRows;
};

// Streams a window. fetch() appends up to maxRows rows to `batch` (cleared first) and returns
// false once the window is exhausted and nothing was appended. Throws Error.
class SourceCursor {
public:
    virtual ~SourceCursor() = default;
    virtual bool fetch(RowBatch &batch, int maxRows) = 0;
};

// A row the target refused; the writer goes on with the next row.
struct RowRejection {
    int row = 0; // index in the batch
    QString error;
};

// How rows are written into the target.
struct WriteSpec {
    TableRef table;
    QList<ColumnInfo> columns; // source columns, in batch order
    WriteMode mode = WriteMode::Append;
    QStringList keyColumns;  // merge
    QString watermarkColumn; // merge rule: never replace newer with older
    QString tiebreakColumn;
    // False when any refused row fails the iteration anyway: a writer may then stream the whole
    // window as one bulk operation instead of isolating each batch to find the refused rows.
    bool tolerateRejects = true;
};

// Writes batches inside the target transaction opened by TargetSession::begin().
class RowWriter {
public:
    virtual ~RowWriter() = default;
    // Writes every row of `batch`; rows the target refuses are appended to `rejected` and
    // not written. Throws Error on anything that is not a single row's fault (connection lost).
    virtual void writeBatch(const RowBatch &batch, std::vector<RowRejection> &rejected) = 0;
    // Flushes what is buffered (e.g. a COPY, a staging-table merge). Called before the state
    // row is written and the transaction committed. Same rejection contract.
    virtual void finish(std::vector<RowRejection> &rejected) {}
};

// The target-side record of what the target holds for one table: written in the same
// transaction as the rows, so it is the truth after any crash.
struct TargetState {
    QString workspaceId;
    qint64 tableId = 0;
    Position position;
    qint64 runId = 0;
    // Raised by every backfill and by nothing else (docs/design.md, "Backfill"): a state is newer
    // than another when its generation is higher, or equal with a higher position.
    qint64 generation = 0;
    // Who owns the target table (docs/design.md, "The target is the lock"): written with every state,
    // so one target table belongs to one (workspace, table). Empty = not recorded (older rows).
    QString targetTable = {};   // stateTargetKey() of the target table
    QString workspacePath = {}; // where the owning workspace was, for messages
    // The iteration whose commit wrote this state (0: a backfill or an adoption, or an older row),
    // its rows committed so far, and whether that commit ended its window: what its history
    // record must say even when the workspace could not record it (docs/design.md, "Runs and history").
    qint64 iterationId = 0;
    qint64 rowsWritten = 0;
    qint64 rowsSkipped = 0;
    bool windowDone = false;
    // The fencing token of the claim that writes it (docs/design.md, "Fencing"); read: the highest
    // one any claim on the table has shown the target. A compare-and-set with a lower one fails.
    qint64 fence = 0;
};

// The state row that owns a target table.
struct StateOwner {
    QString workspaceId;
    qint64 tableId = 0;
    QString workspacePath; // empty when not recorded
};

// What a push-down copied: the whole window, moved inside the database.
struct PushDownResult {
    qint64 rowsRead = 0;    // rows in the window
    qint64 rowsWritten = 0; // rows the target now reflects (every read row: a failure throws)
    Position reached;       // the window's last (watermark, tiebreak) position; null when empty
};

// Where a source's tables can be read from inside a database: the read side of a push-down.
// A target of the same engine that reaches `database` copies the window in one statement.
struct PushDownOrigin {
    QString engine;   // "sqlite" | "postgres"
    QString database; // the SQLite file's absolute path, or PostgreSQL's database identity
};

// The roles a connection to a database plays. A connector supplies quoting, types and bulk I/O
// through them; the engine (model/engine) owns the copy contract and takes the narrowest role it
// needs. Every method throws Error with a message naming the connection and the table or column
// at fault (never a password). Owned by one thread; never shared.

// What is in the database: its tables and their columns.
class Catalog {
public:
    virtual ~Catalog() = default;

    virtual QString connectionName() const = 0;
    // "schema.table" / "table" as the CLI spells it, into a TableRef (PostgreSQL defaults to
    // "public"; SQLite takes the text verbatim).
    virtual TableRef parseTableName(const QString &text) const = 0;
    virtual QList<TableRef> listTables() = 0;
    virtual bool tableExists(const TableRef &table) = 0;
    virtual TableSchema describeTable(const TableRef &table) = 0; // throws when missing
};

// Reads a source table: its watermark column, the window's rows, a whole scan.
class SourceReader : public virtual Catalog {
public:
    // Timestamp, Integer, or None when the column cannot order a watermark.
    virtual WatermarkType detectWatermarkType(const TableRef &table, const ColumnInfo &column) = 0;
    // Reads the highest orderable value, the NULL and unorderable counts; refuses (throws) a
    // timestamp column whose values mix spellings.
    // `lowerBound` is the bound the window will compare values against. Text order and time order
    // of two spellings disagree only within a day (zone offsets), and whatever sorts lower is a late
    // row the window skips by design, so only values near the bound are checked; with no lower
    // bound (a first full load) nothing can compare wrongly. nullopt (adding a table) checks all.
    virtual WatermarkProbe probeWatermark(const TableRef &table, const QString &column, WatermarkType type,
                                          const std::optional<Watermark> &lowerBound = std::nullopt) = 0;
    // A value of the column, to spell user input like the column does (none when empty).
    virtual Watermark sampleWatermark(const TableRef &table, const QString &column, WatermarkType type) = 0;
    virtual qint64 countWindow(const WindowQuery &query) = 0;
    // Whether the window holds a row: one read, where countWindow() reads every row.
    virtual bool windowHasRows(const WindowQuery &query) { return countWindow(query) > 0; }
    // The cursor reads from a consistent snapshot; it may keep a transaction open until destroyed.
    virtual std::unique_ptr<SourceCursor> openWindow(const WindowQuery &query) = 0;
    // Every row of `table` ordered by `orderBy` (verify reads both sides with it).
    virtual std::unique_ptr<SourceCursor> openScan(const TableRef &table, const QStringList &columns,
                                                   const QStringList &orderBy) = 0;
    // Where a target could read this source's tables itself (see TargetWriter::pushDown).
    virtual PushDownOrigin pushDownOrigin() = 0;
    // How the windows and scans opened from now on read a MySQL/MariaDB zero date outside the
    // watermark column (TableSpec::zeroDates). No other engine holds zero dates.
    virtual void setZeroDates(ZeroDates) {}
    // Range checksums (model/connectors/rowchecksum.h), computed by the database: one row per
    // bucket of keys that holds rows: (bucket, rows, hash sum). The sum is an integer modulo
    // 2^64 or a decimal text to reduce modulo 2^64. Null: the engine cannot hash rows itself.
    virtual std::unique_ptr<SourceCursor> openChecksums(const ChecksumQuery &query) { return nullptr; }
    // The rows (query.columns, in order) of the buckets named, in no order. Null as above.
    virtual std::unique_ptr<SourceCursor> openBucketScan(const ChecksumQuery &query,
                                                         const QList<int> &buckets) {
        return nullptr;
    }
};

// Writes a target table and its state row, one transaction at a time.
class TargetWriter : public virtual Catalog {
public:
    virtual void begin() = 0;
    virtual void commit() = 0;
    virtual void rollback() = 0; // no-op when no transaction is open
    // Creates `table` with columns mapped from the source's, `primaryKey` as its key.
    virtual void createTable(const TableRef &table, const QList<ColumnInfo> &columns,
                             const QStringList &primaryKey) = 0;
    virtual void addColumn(const TableRef &table, const ColumnInfo &column) = 0;
    virtual std::unique_ptr<RowWriter> openWriter(const WriteSpec &spec) = 0;
    virtual void deleteAll(const TableRef &table) = 0;
    // Deletes rows whose watermark is after `position` (backfill --delete-newer).
    virtual qint64 deleteNewerThan(const TableRef &table, const QString &watermarkColumn,
                                   const Watermark &position) = 0;
    // Reconcile (DeletePolicy), inside the write transaction opened by beginStateWrite(): removes
    // the rows whose `keyColumns` equal one of `keys` (a value per key column, as this target
    // spells it: read back from it; bytes as QByteArray), or with `markColumn` stamps those not
    // stamped yet with `markedAt` (UTC). Returns the rows changed.
    virtual qint64 removeKeys(const TableRef &table, const QStringList &keyColumns,
                              const QList<QVariantList> &keys, const QString &markColumn,
                              const QDateTime &markedAt) = 0;

    // --- the state row (model/connectors/statetable.h has its one definition) ---
    // Reads outside or inside a transaction; never creates anything: a target without
    // tidemark_state has no state (so a dry run never writes to the target, not even DDL).
    virtual std::optional<TargetState> readState(const QString &workspaceId, qint64 tableId) = 0;
    // Opens the write transaction for one table's rows and state row, creating or migrating
    // tidemark_state first (only writes do), and returns the state row as this transaction sees
    // it: the early check of the compare-and-set. Other writers of the same table wait until
    // commit() or rollback() (SQLite: the write lock; PostgreSQL: an advisory lock taken before
    // the snapshot, then the row locked FOR UPDATE), and then see this one's commit.
    virtual std::optional<TargetState> beginStateWrite(const QString &workspaceId, qint64 tableId) = 0;
    // The authoritative compare-and-set, inside the write transaction: writes `next` only if the
    // row is still at `expected` (nullopt: no row yet). Returns false, having written nothing,
    // when another writer moved it (a serialization failure on the row counts as that too). A run
    // never changes the generation: the row must also still hold `next.generation`, so a backfill
    // that committed in between makes it fail even when it put the position back where it was.
    virtual bool compareAndSetState(const std::optional<Position> &expected, const TargetState &next) = 0;
    // Writes the row whatever it holds (an explicit backfill); creates the table when missing.
    virtual void writeState(const TargetState &state) = 0;
    virtual void clearState(const QString &workspaceId, qint64 tableId) = 0;
    // A claim that took the table over tells the target first (its own transaction, committed):
    // raises the state row's fence to `token`, so the claim it replaced, if it still runs, can
    // commit nothing more. Only while the row is still at `expected` with `generation`, where
    // this claim's copy starts: once the replaced claim has committed (a batch, its window) this
    // one finds the position moved and yields, and the other must be free to finish. Returns
    // whether it raised it (no row yet: nothing to fence).
    virtual bool raiseFence(const QString &workspaceId, qint64 tableId, qint64 token,
                            const std::optional<Position> &expected, qint64 generation) = 0;
    // The row owning `targetKey` (stateTargetKey()); nullopt when no row names it. Inside the
    // write transaction opened by beginStateWrite() it is the answer that transaction acts on;
    // outside one it only reads, like readState() (no tidemark_state, or one from before owners
    // were recorded: nullopt).
    virtual std::optional<StateOwner> readTargetOwner(const QString &targetKey) = 0;

    // --- optional: a database that is a file this connector may create ---
    // The permission bits the file gets if this connector creates it (targetFileMode(),
    // model/connectors/sqliteconnector.h): owner-only until told. An existing file keeps its
    // own. Connectors to a server ignore it.
    virtual void setNewFileMode(int mode) {}

    // --- optional: same-database push-down (default: not possible) ---
    // Called before the source is probed when the engine may push the copy down: set-up that
    // cannot run inside a transaction (SQLite's ATTACH of the source file) happens here.
    virtual void preparePushDown(SourceReader &source) {}
    // Copies `window` from `source` into `write.table` as one statement inside this target's
    // open transaction, when this connection reaches the source's database
    // (SourceReader::pushDownOrigin()); no row travels through Tidemark. Returns nullopt when
    // push-down is not possible (the caller streams instead). When `write.tolerateRejects`, a
    // row the target refuses must leave the transaction as it was, then nullopt: the caller
    // streams the window and skips that row.
    virtual std::optional<PushDownResult> pushDown(SourceReader &source, const WindowQuery &window,
                                                   const WriteSpec &write) {
        return std::nullopt;
    }
};

// One open connection to a database, in every role: what the concrete SQLite and PostgreSQL
// connectors implement and the factory opens.
class Connector : public SourceReader, public TargetWriter {
public:
    // Interrupts the statement this connector is running (or about to run), from any thread:
    // how Cancel stops a push-down, a count or a probe. The statement fails with an Error.
    virtual void interrupt() {}
};

} // namespace tidemark
