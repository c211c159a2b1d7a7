// SPDX-License-Identifier: MIT
#include "model/connectors/sqliteconnector.h"

#include "model/common/error.h"
#include "model/common/sqlquote.h"
#include "model/common/timestamp.h"
#include "model/connectors/contractsql.h"
#include "model/connectors/exactvalue.h"
#include "model/connectors/rowchecksum.h"
#include "model/connectors/statetable.h"
#include "model/sqlite/sqlitedb.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QUrl>

#include <sqlite3.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tidemark {
namespace {

const QString kStateTable = QStringLiteral("tidemark_state");

QString quoted(const TableRef &table) {
    return quoteQualified(table.schema, table.name);
}

constexpr auto kAttachedSchema = "tidemark_source";
constexpr auto kShapeFunction = "tidemark_has_shape";
// How long a statement waits for another connection's lock on a source or target file.
constexpr int kLockWaitMs = 5 * 60 * 1000;

// tidemark_has_shape(value, template): 1 when value is text of exactly the template's bytes, where
// '#' in the template stands for any ASCII digit. The spelling check runs it over many rows, and
// GLOB's character classes cost several times more per value.
void hasShape(sqlite3_context *context, int, sqlite3_value **argv) {
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
        sqlite3_result_int(context, 0);
        return;
    }
    const auto *value = sqlite3_value_text(argv[0]);
    const int length = sqlite3_value_bytes(argv[0]);
    const auto *shape = sqlite3_value_text(argv[1]);
    if (!value || !shape || length != sqlite3_value_bytes(argv[1])) {
        sqlite3_result_int(context, 0);
        return;
    }
    for (int i = 0; i < length; ++i) {
        const bool fits = shape[i] == '#' ? (value[i] >= '0' && value[i] <= '9') : value[i] == shape[i];
        if (!fits) {
            sqlite3_result_int(context, 0);
            return;
        }
    }
    sqlite3_result_int(context, 1);
}

// True only for text parseTimestamp() accepts, in the spellings columns usually have:
// YYYY-MM-DD, optionally 'T' or ' ' and HH:MM:SS, a fraction of 1 to 9 digits and a 'Z'. Bytes,
// no conversion: the probe runs it on every value of the column. False means "ask parseTimestamp".
bool isPlainTimestamp(const char *text, int length) {
    const auto digits = [text](int from, int count, int &value) {
        value = 0;
        for (int i = from; i < from + count; ++i) {
            if (text[i] < '0' || text[i] > '9')
                return false;
            value = value * 10 + (text[i] - '0');
        }
        return true;
    };
    int year = 0, month = 0, day = 0;
    if (length < 10 || !digits(0, 4, year) || text[4] != '-' || !digits(5, 2, month) || text[7] != '-' ||
        !digits(8, 2, day) || year < 1 || month < 1 || month > 12 || day < 1)
        return false;
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day > kDays[month - 1] + (month == 2 && leap ? 1 : 0))
        return false;
    if (length == 10)
        return true;
    int hour = 0, minute = 0, second = 0;
    if (length < 19 || (text[10] != 'T' && text[10] != ' ') || !digits(11, 2, hour) || text[13] != ':' ||
        !digits(14, 2, minute) || text[16] != ':' || !digits(17, 2, second) || hour > 23 || minute > 59 ||
        second > 59)
        return false;
    int pos = 19;
    if (pos < length && text[pos] == '.') {
        const int start = ++pos;
        while (pos < length && text[pos] >= '0' && text[pos] <= '9')
            ++pos;
        if (pos == start || pos - start > 9)
            return false;
    }
    return pos == length || (pos + 1 == length && text[pos] == 'Z');
}

// kSqliteIsTimestamp(value). Other spellings (zone offsets, 't') go through parseTimestamp.
void isTimestamp(sqlite3_context *context, int, sqlite3_value **argv) {
    const auto *value = reinterpret_cast<const char *>(sqlite3_value_text(argv[0]));
    const int length = sqlite3_value_bytes(argv[0]);
    const bool ok =
        sqlite3_value_type(argv[0]) == SQLITE_TEXT && value &&
        (isPlainTimestamp(value, length) || parseTimestamp(QString::fromUtf8(value, length)).has_value());
    sqlite3_result_int(context, ok ? 1 : 0);
}

// Timestamps bind as the exact text the source column spells; integers as int64.
void bindWatermark(SqliteStatement &statement, int index, const Watermark &value) {
    switch (value.type()) {
    case WatermarkType::Integer:
        statement.bind(index, value.toInteger());
        return;
    case WatermarkType::Timestamp:
        statement.bind(index, value.nativeText());
        return;
    case WatermarkType::None:
        break;
    }
    statement.bind(index, nullptr);
}

// A contract statement's values: a watermark as the column spells it, a tiebreak as it was read.
void bindContract(SqliteStatement &statement, const SqlBindings &bindings) {
    for (int i = 0; i < int(bindings.size()); ++i) {
        if (bindings[i].isTiebreak)
            statement.bind(i + 1, bindings[i].tiebreak);
        else
            bindWatermark(statement, i + 1, bindings[i].watermark);
    }
}

const ContractSql kContract(SqlDialect::Sqlite);

// Errors name the connection and table they concern (the context).
void execute(const SqliteDb &db, const QString &sql, const QString &context) {
    SqliteStatement(db, sql, context).run();
}

// Streams one SELECT inside a read transaction, so the rows come from one snapshot.
class SqliteCursor : public SourceCursor {
public:
    SqliteCursor(const SqliteDb &db, const QString &context)
        : m_db(db)
        , m_context(context) {
        if (sqlite3_get_autocommit(db.handle())) {
            execute(db, QStringLiteral("BEGIN"), context);
            m_ownsTransaction = true;
        }
    }
    ~SqliteCursor() override {
        sqlite3_finalize(m_stmt);
        if (m_ownsTransaction && !sqlite3_get_autocommit(m_db.handle()))
            sqlite3_exec(m_db.handle(), "COMMIT", nullptr, nullptr, nullptr);
    }

    void start(SqliteStatement &statement) {
        m_stmt = statement.release();
        m_columnCount = sqlite3_column_count(m_stmt);
    }

    bool fetch(RowBatch &batch, int maxRows) override {
        batch.reset(m_columnCount);
        if (m_done)
            return false;
        int rows = 0;
        while (rows < maxRows) {
            const int rc = sqlite3_step(m_stmt);
            if (rc == SQLITE_DONE) {
                m_done = true;
                break;
            }
            if (rc != SQLITE_ROW) {
                const QString message = m_db.lastError();
                m_done = true;
                batch.truncateRows(rows);
                throw Error(m_context + QStringLiteral(": ") + message);
            }
            for (int c = 0; c < m_columnCount; ++c) {
                switch (sqlite3_column_type(m_stmt, c)) {
                case SQLITE_INTEGER:
                    batch.appendInteger(sqlite3_column_int64(m_stmt, c));
                    break;
                case SQLITE_FLOAT:
                    batch.appendReal(sqlite3_column_double(m_stmt, c));
                    break;
                case SQLITE_TEXT: {
                    const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, c));
                    batch.appendText(data ? data : "", std::size_t(sqlite3_column_bytes(m_stmt, c)));
                    break;
                }
                case SQLITE_BLOB: {
                    const void *data = sqlite3_column_blob(m_stmt, c);
                    const auto size = std::size_t(sqlite3_column_bytes(m_stmt, c));
                    batch.appendBlob(size ? data : "", size);
                    break;
                }
                default:
                    batch.appendNull();
                    break;
                }
            }
            ++rows;
        }
        return rows > 0;
    }

private:
    const SqliteDb &m_db;
    sqlite3_stmt *m_stmt = nullptr;
    QString m_context;
    int m_columnCount = 0;
    bool m_ownsTransaction = false;
    bool m_done = false;
};

// An error by which SQLite refused one row, rolling back just its statement.
bool refusesRow(int code) {
    switch (code & 0xff) {
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
        return true;
    default:
        return false;
    }
}

enum class Affinity { Integer, Text, Blob, Real, Numeric }; // the order of affinityName()

// https://www.sqlite.org/datatype3.html#determination_of_column_affinity
Affinity affinityOf(const QString &declared) {
    const QString type = declared.toUpper();
    if (type.contains(QLatin1String("INT")))
        return Affinity::Integer;
    if (type.contains(QLatin1String("CHAR")) || type.contains(QLatin1String("CLOB")) ||
        type.contains(QLatin1String("TEXT")))
        return Affinity::Text;
    if (type.contains(QLatin1String("BLOB")) || type.trimmed().isEmpty())
        return Affinity::Blob;
    if (type.contains(QLatin1String("REAL")) || type.contains(QLatin1String("FLOA")) ||
        type.contains(QLatin1String("DOUB")))
        return Affinity::Real;
    return Affinity::Numeric;
}

// One prepared INSERT (or upsert) reused for every row of every batch. A value the target column
// would not keep exactly (NaN becomes NULL; a REAL affinity rounds a long integer or decimal) is a
// rejected row naming the column, not a silent change.
class SqliteWriter : public RowWriter {
public:
    SqliteWriter(const SqliteDb &db, SqliteStatement &statement, QStringList columns,
                 std::vector<Affinity> affinities, const QString &context)
        : m_db(db)
        , m_stmt(statement.release())
        , m_columns(std::move(columns))
        , m_affinities(std::move(affinities))
        , m_columnCount(int(m_columns.size()))
        , m_context(context) {}
    ~SqliteWriter() override { sqlite3_finalize(m_stmt); }

    void writeBatch(const RowBatch &batch, std::vector<RowRejection> &rejected) override {
        if (batch.isEmpty())
            return;
        if (batch.columnCount() != m_columnCount)
            throw Error(
                QStringLiteral("%1: a batch of %2 columns was given to a writer of %3 columns")
                    .arg(m_context, QString::number(batch.columnCount()), QString::number(m_columnCount)));
        const int rows = batch.rowCount();
        for (int row = 0; row < rows; ++row) {
            if (const QString problem = inexact(batch, row); !problem.isEmpty()) {
                rejected.push_back(RowRejection{row, m_context + QStringLiteral(": ") + problem});
                continue;
            }
            sqlite3_reset(m_stmt);
            int rc = SQLITE_OK;
            for (int c = 0; c < m_columnCount && rc == SQLITE_OK; ++c)
                rc = bindCell(batch, batch.cell(row, c), c + 1);
            if (rc == SQLITE_OK)
                rc = sqlite3_step(m_stmt);
            if (rc == SQLITE_DONE)
                continue;
            const QString message = m_context + QStringLiteral(": ") + m_db.lastError();
            sqlite3_reset(m_stmt);
            if (!refusesRow(rc))
                throw Error(message);
            // SQLite rolled back just this statement; the transaction and earlier rows stand.
            rejected.push_back(RowRejection{row, message});
        }
        sqlite3_reset(m_stmt);
    }

private:
    // Why the row's values would not be stored as they are (empty: they would).
    QString inexact(const RowBatch &batch, int row) const {
        for (int c = 0; c < m_columnCount; ++c) {
            const Cell &cell = batch.cell(row, c);
            const Affinity affinity = m_affinities[std::size_t(c)];
            if (cell.type == CellType::Real && std::isnan(cell.real))
                return inexactValue(
                    m_columns[c], batch, cell,
                    QStringLiteral("cannot be stored in SQLite, which would turn it into NULL"));
            const bool numeric =
                affinity == Affinity::Real || affinity == Affinity::Integer || affinity == Affinity::Numeric;
            if (!numeric)
                continue;
            if (cell.type == CellType::Integer && affinity == Affinity::Real &&
                !integerFitsDouble(cell.integer))
                return inexactValue(m_columns[c], batch, cell,
                                    QStringLiteral("would be rounded by the column's REAL affinity"));
            if (cell.type == CellType::Text) {
                const std::string_view text = batch.bytes(cell);
                if (isDecimalLiteral(text) && !fitsAffinity(text, affinity))
                    return inexactValue(
                        m_columns[c], batch, cell,
                        QStringLiteral("would be rounded to a number by the column's %1 affinity")
                            .arg(affinityName(affinity)));
            }
        }
        return QString();
    }

    // SQLite stores a decimal text in a numeric column as an int64 when it is a whole number that
    // fits (INTEGER, NUMERIC affinity), else as a double.
    static bool fitsAffinity(std::string_view text, Affinity affinity) {
        return (affinity != Affinity::Real && decimalFitsInt64(text)) || decimalFitsDouble(text);
    }

    static QString affinityName(Affinity affinity) {
        static const char *const names[] = {"INTEGER", "TEXT", "BLOB", "REAL", "NUMERIC"};
        return QLatin1String(names[int(affinity)]);
    }

    int bindCell(const RowBatch &batch, const Cell &cell, int index) {
        switch (cell.type) {
        case CellType::Integer:
            return sqlite3_bind_int64(m_stmt, index, cell.integer);
        case CellType::Real:
            return sqlite3_bind_double(m_stmt, index, cell.real);
        case CellType::Text: {
            const std::string_view bytes = batch.bytes(cell);
            return sqlite3_bind_text64(m_stmt, index, bytes.data(), bytes.size(), SQLITE_STATIC, SQLITE_UTF8);
        }
        case CellType::Blob: {
            const std::string_view bytes = batch.bytes(cell);
            return sqlite3_bind_blob64(m_stmt, index, bytes.data(), bytes.size(), SQLITE_STATIC);
        }
        case CellType::Null:
            break;
        }
        return sqlite3_bind_null(m_stmt, index);
    }

    const SqliteDb &m_db;
    sqlite3_stmt *m_stmt = nullptr;
    QStringList m_columns;
    std::vector<Affinity> m_affinities; // of the target columns, in batch order
    int m_columnCount = 0;
    QString m_context;
};

// Whether a target column declared `declared` stores every value of `logical` unchanged.
bool keepsValues(Affinity affinity, LogicalType logical) {
    switch (logical) {
    case LogicalType::Integer:
    case LogicalType::Boolean:
        return affinity == Affinity::Integer || affinity == Affinity::Numeric;
    case LogicalType::Real:
        return affinity == Affinity::Real;
    case LogicalType::Numeric:
        // Exact decimals from another engine arrive as text; NUMERIC affinity would round them.
        return affinity == Affinity::Text || affinity == Affinity::Blob;
    case LogicalType::Text:
    case LogicalType::Uuid:
    case LogicalType::Json:
        return affinity == Affinity::Text || affinity == Affinity::Blob;
    case LogicalType::Date:
    case LogicalType::Timestamp:
    case LogicalType::TimestampTz:
        return affinity == Affinity::Text || affinity == Affinity::Numeric || affinity == Affinity::Blob;
    case LogicalType::Blob:
        return affinity == Affinity::Blob;
    case LogicalType::Unknown:
        // Another engine's type that Tidemark reads as text (interval, bit, inet ...): a numeric
        // affinity would turn "0101" into 101.
        return affinity == Affinity::Text || affinity == Affinity::Blob;
    }
    return false;
}

// The type `target` declares for the source column `column` (SQLite's names ignore case); the
// source's own when the target lacks the column.
QString declaredType(const TableSchema &target, const ColumnInfo &column) {
    for (const ColumnInfo &candidate : target.columns) {
        if (candidate.name.compare(column.name, Qt::CaseInsensitive) == 0)
            return candidate.nativeType;
    }
    return column.nativeType;
}

// Creates the empty file `path` with `mode` (less the umask) if nothing is there; SQLite takes an
// empty file as a new database. Made under a private name and linked into place, so that the
// file never exists with other bits, an existing file is never touched (link() does not
// replace), and no descriptor of the live name is ever closed by anyone but SQLite (closing one
// would drop another connection's POSIX locks on it: STYLE.md 25). Failures are left to
// sqlite3_open_v2, which names the file.
void createFileWithMode(const QString &path, int mode) {
    static std::atomic_int counter{0};
    const QByteArray name = QFile::encodeName(path);
    const QByteArray scratch =
        name + ".tidemark-new." + QByteArray::number(::getpid()) + '.' + QByteArray::number(counter++);
    const int fd = ::open(scratch.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode));
    if (fd < 0)
        return;
    ::close(fd);
    if (::link(scratch.constData(), name.constData()) != 0 && errno != EEXIST) {
        // A file system without hard links: create the name itself, still with the bits.
        const int direct = ::open(name.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(mode));
        if (direct >= 0)
            ::close(direct);
    }
    ::unlink(scratch.constData());
}

} // namespace

SqliteConnector::SqliteConnector(const ConnectionSpec &spec)
    : m_name(spec.name)
    , m_path(spec.path) {
    const bool special = m_path == QLatin1String(":memory:") || m_path.startsWith(QLatin1String("file:"));
    if (special || QFileInfo::exists(m_path))
        open(special);
}

SqliteConnector::~SqliteConnector() {
    m_interruptible.store(nullptr);
}

void SqliteConnector::open(bool create) {
    const bool special = m_path == QLatin1String(":memory:") || m_path.startsWith(QLatin1String("file:"));
    if (create && !special && !QFileInfo::exists(m_path))
        createFileWithMode(m_path, m_newFileMode);
    try {
        // Iterations of one run often write into one target file; each waits its turn behind
        // the others' commits (a Cancel still stops the wait at once).
        m_db = std::make_unique<SqliteDb>(
            m_path, create ? SqliteDb::Mode::ReadWriteCreate : SqliteDb::Mode::ReadWrite, kLockWaitMs);
    } catch (const Error &error) {
        throw Error(QStringLiteral("connection '%1': %2").arg(m_name, error.message()));
    }
    // The file keeps its own journal mode: a user's database is not ours to convert to WAL, and a
    // rollback journal writes a bulk load once where WAL writes it twice (log, then checkpoint).
    // The engine reads and writes a file that is both source and target through one connector.
    m_writeCache = false;
    m_interruptible.store(m_db.get());
    sqlite3_create_function_v2(m_db->handle(), kShapeFunction, 2,
                               SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, nullptr, hasShape,
                               nullptr, nullptr, nullptr);
    sqlite3_create_function_v2(m_db->handle(), kSqliteIsTimestamp, 1,
                               SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY, nullptr, isTimestamp,
                               nullptr, nullptr, nullptr);
    registerSqliteChecksumFunctions(m_db->handle());
}

SqliteDb &SqliteConnector::handle() {
    if (!m_db)
        throw Error(QStringLiteral("connection '%1': SQLite file %2 does not exist").arg(m_name, m_path));
    return *m_db;
}

SqliteDb &SqliteConnector::writable() {
    if (!m_db)
        open(true);
    if (!m_writeCache) {
        // A larger page cache keeps big copy transactions from spilling pages early. Only where
        // the connector writes: a source's reads stream through the OS cache, and 32 MB more per
        // source connection, times the run's concurrency, was most of a run's peak memory.
        sqlite3_exec(m_db->handle(), "PRAGMA cache_size=-32768", nullptr, nullptr, nullptr);
        m_writeCache = true;
    }
    return *m_db;
}

QString SqliteConnector::where(const TableRef &table) const {
    return QStringLiteral("connection '%1', table '%2'").arg(m_name, table.display());
}

TableRef SqliteConnector::parseTableName(const QString &text) const {
    return TableRef{QString(), text};
}

QList<TableRef> SqliteConnector::listTables() {
    SqliteStatement query(
        handle(),
        QStringLiteral("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                       "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> ?1 ORDER BY name"),
        QStringLiteral("connection '%1'").arg(m_name));
    query.bind(1, kStateTable);
    QList<TableRef> tables;
    while (query.step())
        tables.append(TableRef{QString(), query.columnText(0)});
    return tables;
}

bool SqliteConnector::tableExists(const TableRef &table) {
    if (!m_db)
        return false; // a target file that is created on first write
    // Table names are ASCII case-insensitive in SQLite, like NOCASE.
    SqliteStatement query(handle(),
                          QStringLiteral("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') "
                                         "AND name = ?1 COLLATE NOCASE"),
                          where(table));
    query.bind(1, table.name);
    return query.step();
}

TableSchema SqliteConnector::describeTable(const TableRef &table) {
    // hidden = 1 marks a virtual table's hidden columns; 2 and 3 are generated columns.
    SqliteStatement query(handle(),
                          QStringLiteral("SELECT name, type, \"notnull\", pk FROM pragma_table_xinfo(?1) "
                                         "WHERE hidden <> 1 ORDER BY cid"),
                          where(table));
    query.bind(1, table.name);
    TableSchema schema;
    schema.table = table;
    while (query.step()) {
        ColumnInfo column;
        column.origin = QStringLiteral("sqlite");
        column.name = query.columnText(0);
        column.nativeType = query.columnText(1);
        column.logical = logicalTypeFor(column.nativeType);
        column.notNull = query.columnInt64(2) != 0;
        column.primaryKeyOrdinal = int(query.columnInt64(3));
        schema.columns.append(column);
    }
    if (schema.columns.isEmpty())
        throw Error(
            QStringLiteral("connection '%1': table '%2' does not exist").arg(m_name, table.display()));
    markIndexedColumns(schema);
    return schema;
}

void SqliteConnector::markIndexedColumns(TableSchema &schema) {
    // Only an index's first column serves a range on that column; an INTEGER PRIMARY KEY is the
    // rowid itself and has no index of its own.
    SqliteStatement query(handle(),
                          QStringLiteral("SELECT i.name FROM pragma_index_list(?1) AS l, "
                                         "pragma_index_info(l.name) AS i WHERE i.seqno = 0"),
                          where(schema.table));
    query.bind(1, schema.table.name);
    QStringList leading;
    while (query.step())
        leading << query.columnText(0);
    const QStringList key = schema.primaryKey();
    for (ColumnInfo &column : schema.columns) {
        const bool rowid = key == QStringList{column.name} &&
                           column.nativeType.compare(QLatin1String("INTEGER"), Qt::CaseInsensitive) == 0;
        column.indexed = rowid || leading.contains(column.name, Qt::CaseInsensitive);
        // table_info says a rowid may be null, but SQLite gives it a value whenever none is given.
        column.notNull = column.notNull || rowid;
    }
}

LogicalType SqliteConnector::logicalTypeFor(const QString &declaredType) {
    const QString type = declaredType.toUpper();
    const auto has = [&type](const char *word) {
        return type.contains(QLatin1String(word));
    };
    if (has("NUMERIC_TEXT"))
        return LogicalType::Numeric; // an exact decimal kept as text (see declaredTypeFor)
    if (has("INT"))
        return LogicalType::Integer;
    if (has("CHAR") || has("CLOB") || has("TEXT"))
        return LogicalType::Text;
    if (has("BLOB"))
        return LogicalType::Blob;
    if (type.trimmed().isEmpty())
        return LogicalType::Unknown; // no affinity: the column holds whatever was stored
    if (has("REAL") || has("FLOA") || has("DOUB"))
        return LogicalType::Real;
    if (has("BOOL"))
        return LogicalType::Boolean;
    if (has("TIMESTAMPTZ") || has("WITH TIME ZONE"))
        return LogicalType::TimestampTz;
    if (has("TIME"))
        return LogicalType::Timestamp;
    if (has("DATE"))
        return LogicalType::Date;
    if (has("NUMERIC") || has("DECIMAL"))
        return LogicalType::Numeric;
    if (has("UUID"))
        return LogicalType::Uuid;
    if (has("JSON"))
        return LogicalType::Json;
    return LogicalType::Numeric;
}

QString SqliteConnector::declaredTypeFor(const ColumnInfo &column) {
    // A declared type becomes SQL text, so only plain type names are kept verbatim; and only when
    // its affinity stores the values unchanged (PostgreSQL's "numeric" would turn "12.30" into 12.3).
    static const QRegularExpression plainType(
        QStringLiteral("^[A-Za-z][A-Za-z0-9_ ]*(\\(\\s*[+-]?\\d+\\s*(,\\s*[+-]?\\d+\\s*)?\\))?$"));
    const QString native = column.nativeType.trimmed();
    if (!native.isEmpty() && plainType.match(native).hasMatch() &&
        (column.origin == QLatin1String("sqlite") || keepsValues(affinityOf(native), column.logical)))
        return native;
    switch (column.logical) {
    case LogicalType::Integer:
    case LogicalType::Boolean:
        return QStringLiteral("INTEGER");
    case LogicalType::Real:
        return QStringLiteral("REAL");
    case LogicalType::Blob:
        return QStringLiteral("BLOB");
    case LogicalType::Unknown:
        return QString();
    case LogicalType::Numeric: {
        // TEXT affinity keeps every digit; the name keeps the type (and its precision) for the
        // next engine the column is copied to.
        static const QRegularExpression precision(QStringLiteral("\\(\\s*\\d+\\s*(,\\s*-?\\d+\\s*)?\\)$"));
        const auto match = precision.match(native);
        return QStringLiteral("NUMERIC_TEXT") +
               (match.hasMatch() ? match.captured(0).remove(QLatin1Char(' ')) : QString());
    }
    case LogicalType::Text:
    case LogicalType::Date:
    case LogicalType::Timestamp:
    case LogicalType::TimestampTz:
    case LogicalType::Uuid:
    case LogicalType::Json:
        break;
    }
    return QStringLiteral("TEXT");
}

WatermarkType SqliteConnector::detectWatermarkType(const TableRef &table, const ColumnInfo &column) {
    const TableSchema schema = describeTable(table);
    const ColumnInfo *info = schema.column(column.name);
    if (!info) {
        for (const ColumnInfo &candidate : schema.columns) {
            if (candidate.name.compare(column.name, Qt::CaseInsensitive) == 0)
                info = &candidate;
        }
    }
    if (!info)
        throw Error(QStringLiteral("connection '%1': column '%2' does not exist in table '%3'")
                        .arg(m_name, column.name, table.display()));
    const QString declared = info->nativeType.toUpper();
    if (declared.contains(QLatin1String("DATE")) || declared.contains(QLatin1String("TIME")))
        return WatermarkType::Timestamp;

    const QString col = quoteIdentifier(info->name);
    const QString from = quoted(table);
    SqliteStatement types(
        handle(),
        QStringLiteral("SELECT count(%1), sum(typeof(%1) = 'integer'), sum(typeof(%1) = 'text') FROM %2")
            .arg(col, from),
        where(table));
    types.step();
    const qint64 values = types.columnInt64(0);
    if (values == 0)
        return info->logical == LogicalType::Integer ? WatermarkType::Integer : WatermarkType::None;
    if (types.columnInt64(1) == values)
        return WatermarkType::Integer;
    if (types.columnInt64(2) != values)
        return WatermarkType::None;

    // Every value must start like a date; a sample (first rows, smallest, largest) must parse.
    SqliteStatement shape(
        handle(),
        QStringLiteral("SELECT count(*) FROM %2 WHERE %1 IS NOT NULL AND NOT (%1 GLOB ?1)").arg(col, from),
        where(table));
    shape.bind(1, QStringLiteral("[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*"));
    if (!shape.step() || shape.columnInt64(0) != 0)
        return WatermarkType::None;
    SqliteStatement sample(handle(),
                           QStringLiteral("SELECT * FROM (SELECT %1 FROM %2 WHERE %1 IS NOT NULL LIMIT 100) "
                                          "UNION ALL SELECT min(%1) FROM %2 UNION ALL SELECT max(%1) FROM %2")
                               .arg(col, from),
                           where(table));
    while (sample.step()) {
        if (!sample.isNull(0) && !parseTimestamp(sample.columnText(0)))
            return WatermarkType::None;
    }
    return WatermarkType::Timestamp;
}

WatermarkProbe SqliteConnector::probeWatermark(const TableRef &table, const QString &column,
                                               WatermarkType type,
                                               const std::optional<Watermark> &lowerBound) {
    const QString col = quoteIdentifier(column);
    const QString from = quoted(table);
    const QString what =
        QStringLiteral("connection '%1': column '%2' of '%3'").arg(m_name, column, table.display());
    if (type != WatermarkType::Integer && type != WatermarkType::Timestamp)
        throw Error(QStringLiteral("%1 is not a watermark column").arg(what));

    WatermarkProbe probe;
    // A first window holds every row that orders: SQLite counts the table from its smallest
    // b-tree, a fraction of counting the window with its conditions.
    const bool firstWindow = lowerBound && lowerBound->isNull();
    const BoundSql probeSql =
        kContract.probeWatermark(table, column, type, QStringLiteral("%1"), firstWindow);
    SqliteStatement summary(handle(), probeSql.sql, where(table));
    bindContract(summary, probeSql.bindings);
    summary.step();
    probe.nullCount = summary.columnInt64(1);
    probe.unorderableCount = summary.columnInt64(2);
    probe.unorderableLowest = summary.columnText(3);
    probe.unorderableHighest = summary.columnText(4);
    if (firstWindow)
        probe.tableRows = summary.columnInt64(5);
    if (summary.isNull(0))
        return probe;
    if (type == WatermarkType::Integer) {
        probe.maximum = Watermark::integer(summary.columnInt64(0));
        return probe;
    }

    // Orderable (kSqliteIsTimestamp), so it parses.
    const Watermark maximum = *Watermark::timestamp(summary.columnText(0));
    const TimestampSpelling spelling = parseTimestamp(maximum.nativeText())->spelling;

    // Every value must be spelled like the maximum: same separator, fraction digits and zone.
    // The template pins each byte ('#' = a digit), so any difference is found in one pass.
    QString shape = QStringLiteral("####-##-##");
    if (!spelling.dateOnly) {
        shape += spelling.separator;
        shape += QStringLiteral("##:##:##");
        if (spelling.fractionDigits > 0)
            shape += QLatin1Char('.') + QString(spelling.fractionDigits, QLatin1Char('#'));
        shape += spelling.zone;
    }
    if (lowerBound && lowerBound->isNull()) {
        probe.maximum = maximum;
        return probe;
    }
    QString range = QStringLiteral("%1 IS NOT NULL").arg(col);
    QString rangeStart;
    if (lowerBound && lowerBound->type() == WatermarkType::Timestamp) {
        constexpr qint64 kDay = 86400LL * 1000 * 1000;
        TimestampSpelling day;
        day.dateOnly = true;
        // Two zone offsets differ by 28 hours at most; the range starts on a date boundary because a
        // value spelled with ' ' instead of 'T' sorts before every 'T' value of its own date.
        constexpr qint64 kWidestOffsets = 28LL * 3600 * 1000 * 1000;
        const qint64 earliest = lowerBound->micros() - kWidestOffsets;
        rangeStart = formatTimestamp(earliest - ((earliest % kDay) + kDay) % kDay, day).value_or(QString());
        if (!rangeStart.isEmpty())
            range = QStringLiteral("%1 >= ?2").arg(col);
    }
    // Values that are no timestamp are in no window (counted above); only timestamps can mix.
    SqliteStatement odd(
        handle(),
        QStringLiteral("SELECT %1 FROM %2 WHERE %3 AND %5(%1) AND NOT %4(%1, ?1) LIMIT 1")
            .arg(col, from, range, QLatin1String(kShapeFunction), QLatin1String(kSqliteIsTimestamp)),
        where(table));
    odd.bind(1, shape);
    if (!rangeStart.isEmpty())
        odd.bind(2, rangeStart);
    if (odd.step())
        throw Error(
            QStringLiteral("%1 mixes timestamp spellings: '%2' and '%3'")
                .arg(what, spelling.describe(), parseTimestamp(odd.columnText(0))->spelling.describe()));
    probe.maximum = maximum;
    return probe;
}

Watermark SqliteConnector::sampleWatermark(const TableRef &table, const QString &column, WatermarkType type) {
    SqliteStatement query(
        handle(), QStringLiteral("SELECT max(%1) FROM %2").arg(quoteIdentifier(column), quoted(table)),
        where(table));
    if (!query.step() || query.isNull(0))
        return Watermark();
    if (type == WatermarkType::Integer)
        return query.columnType(0) == SQLITE_INTEGER ? Watermark::integer(query.columnInt64(0)) : Watermark();
    if (type == WatermarkType::Timestamp && query.columnType(0) == SQLITE_TEXT)
        return Watermark::timestamp(query.columnText(0)).value_or(Watermark());
    return Watermark();
}

bool SqliteConnector::hasRowid(const TableRef &table) {
    const auto cached = m_rowidTables.constFind(table.display());
    if (cached != m_rowidTables.constEnd())
        return *cached;
    // WITHOUT ROWID tables and views have no rowid: preparing the query is the test.
    sqlite3_stmt *stmt = nullptr;
    const QByteArray sql = QStringLiteral("SELECT rowid FROM %1 LIMIT 0").arg(quoted(table)).toUtf8();
    const bool result =
        sqlite3_prepare_v2(handle().handle(), sql.constData(), int(sql.size()), &stmt, nullptr) == SQLITE_OK;
    sqlite3_finalize(stmt);
    m_rowidTables.insert(table.display(), result);
    return result;
}

namespace {

// SQLite compares timestamps as text: a lower bound spelled unlike the column (a position kept
// from before the column changed spelling) is respelled like the upper bound, read from the column.
Watermark spelledLike(const Watermark &value, const Watermark &model) {
    if (value.type() != WatermarkType::Timestamp || model.type() != WatermarkType::Timestamp)
        return value;
    const auto parsed = parseTimestamp(value.nativeText());
    const auto pattern = parseTimestamp(model.nativeText());
    if (!parsed || !pattern || parsed->spelling == pattern->spelling)
        return value;
    const auto text = formatTimestamp(parsed->micros, pattern->spelling, parsed->subMicros);
    if (!text)
        return value;
    return Watermark::timestamp(*text).value_or(value);
}

// The window as SQLite compares it: timestamps are text, so the lower bound is spelled like the
// column (its upper bound, read from it).
WindowQuery comparable(WindowQuery query) {
    query.lower = Position(spelledLike(query.lower.watermark(), query.upper), query.lower.tiebreak());
    return query;
}

} // namespace

QStringList SqliteConnector::tieOrder(const TableRef &table) {
    // Without a tiebreak, rows of equal watermark come in insertion order.
    return hasRowid(table) ? QStringList{QStringLiteral("rowid")} : QStringList();
}

qint64 SqliteConnector::countWindow(const WindowQuery &query) {
    const BoundSql count = kContract.countWindow(comparable(query));
    SqliteStatement statement(handle(), count.sql, where(query.table));
    bindContract(statement, count.bindings);
    statement.step();
    return statement.columnInt64(0);
}

bool SqliteConnector::windowHasRows(const WindowQuery &query) {
    const BoundSql any = kContract.anyInWindow(comparable(query));
    SqliteStatement statement(handle(), any.sql, where(query.table));
    bindContract(statement, any.bindings);
    return statement.step();
}

std::unique_ptr<SourceCursor> SqliteConnector::openWindow(const WindowQuery &query) {
    if (query.columns.isEmpty())
        throw Error(QStringLiteral("%1: no columns to read").arg(where(query.table)));
    SqliteDb &db = handle();
    const BoundSql select = kContract.selectWindow(comparable(query), tieOrder(query.table));
    auto cursor = std::make_unique<SqliteCursor>(db, where(query.table));
    SqliteStatement statement(db, select.sql, where(query.table));
    bindContract(statement, select.bindings);
    cursor->start(statement);
    return cursor;
}

std::unique_ptr<SourceCursor> SqliteConnector::openScan(const TableRef &table, const QStringList &columns,
                                                        const QStringList &orderBy) {
    if (columns.isEmpty())
        throw Error(QStringLiteral("%1: no columns to read").arg(where(table)));
    SqliteDb &db = handle();
    QString sql = QStringLiteral("SELECT %1 FROM %2").arg(quoteIdentifierList(columns), quoted(table));
    if (!orderBy.isEmpty())
        sql += QStringLiteral(" ORDER BY ") + quoteIdentifierList(orderBy);
    else if (hasRowid(table))
        sql += QStringLiteral(" ORDER BY rowid");
    auto cursor = std::make_unique<SqliteCursor>(db, where(table));
    SqliteStatement statement(db, sql, where(table));
    cursor->start(statement);
    return cursor;
}

namespace {

QString checksumCall(const char *function, const QList<ColumnInfo> &columns, int modesParameter) {
    QStringList names;
    for (const ColumnInfo &column : columns)
        names << column.name;
    return QStringLiteral("%1(?%2, %3)")
        .arg(QLatin1String(function))
        .arg(modesParameter)
        .arg(quoteIdentifierList(names));
}

} // namespace

std::unique_ptr<SourceCursor> SqliteConnector::openChecksums(const ChecksumQuery &query) {
    SqliteDb &db = handle();
    // One pass filling every bucket, no GROUP BY (whose sort cost more than the hashing); when
    // the compared columns are the key (reconcile), one digest gives the bucket and the hash.
    const bool keyOnly = query.keyIsRow();
    QStringList arguments;
    for (const ColumnInfo &column : keyOnly ? query.columns : query.keyColumns() + query.columns)
        arguments << quoteIdentifier(column.name);
    const QString sql = QStringLiteral("SELECT tidemark_bucket_sums(?1, ?2, ?3, %1) FROM %2")
                            .arg(arguments.join(QStringLiteral(", ")), quoted(query.table));
    auto cursor = std::make_unique<SqliteCursor>(db, where(query.table));
    SqliteStatement statement(db, sql, where(query.table));
    statement.bind(1, query.keyModes());
    statement.bind(2, query.modes());
    statement.bind(3, keyOnly ? 0 : int(query.keyColumns().size()));
    cursor->start(statement);
    return std::make_unique<BucketBlobCursor>(std::move(cursor));
}

std::unique_ptr<SourceCursor> SqliteConnector::openBucketScan(const ChecksumQuery &query,
                                                              const QList<int> &buckets) {
    SqliteDb &db = handle();
    QStringList names;
    for (const ColumnInfo &column : query.columns)
        names << column.name;
    QStringList numbers;
    for (int bucket : buckets)
        numbers << QString::number(bucket);
    const QString sql = QStringLiteral("SELECT %1 FROM %2 WHERE %3 IN (SELECT value FROM json_each(?2))")
                            .arg(quoteIdentifierList(names), quoted(query.table),
                                 checksumCall("tidemark_bucket", query.keyColumns(), 1));
    auto cursor = std::make_unique<SqliteCursor>(db, where(query.table));
    SqliteStatement statement(db, sql, where(query.table));
    statement.bind(1, query.keyModes());
    statement.bind(2, QLatin1Char('[') + numbers.join(QLatin1Char(',')) + QLatin1Char(']'));
    cursor->start(statement);
    return cursor;
}

void SqliteConnector::begin() {
    execute(writable(), QStringLiteral("BEGIN IMMEDIATE"), QStringLiteral("connection '%1'").arg(m_name));
}

void SqliteConnector::commit() {
    execute(handle(), QStringLiteral("COMMIT"), QStringLiteral("connection '%1'").arg(m_name));
}

void SqliteConnector::rollback() {
    if (!m_db || sqlite3_get_autocommit(m_db->handle()))
        return;
    execute(*m_db, QStringLiteral("ROLLBACK"), QStringLiteral("connection '%1'").arg(m_name));
}

void SqliteConnector::createTable(const TableRef &table, const QList<ColumnInfo> &columns,
                                  const QStringList &primaryKey) {
    if (columns.isEmpty())
        throw Error(QStringLiteral("%1: cannot create a table without columns").arg(where(table)));
    QStringList definitions;
    for (const ColumnInfo &column : columns) {
        QString definition = quoteIdentifier(column.name);
        const QString type = declaredTypeFor(column);
        if (!type.isEmpty())
            definition += QLatin1Char(' ') + type;
        // SQLite lets a key column hold NULL, and NULL keys never conflict: forbid them.
        if (column.notNull || primaryKey.contains(column.name))
            definition += QStringLiteral(" NOT NULL");
        definitions << definition;
    }
    if (!primaryKey.isEmpty())
        definitions << QStringLiteral("PRIMARY KEY (%1)").arg(quoteIdentifierList(primaryKey));
    execute(writable(),
            QStringLiteral("CREATE TABLE %1 (%2)").arg(quoted(table), definitions.join(QLatin1String(", "))),
            where(table));
    m_rowidTables.remove(table.name);
}

void SqliteConnector::addColumn(const TableRef &table, const ColumnInfo &column) {
    QString sql =
        QStringLiteral("ALTER TABLE %1 ADD COLUMN %2").arg(quoted(table), quoteIdentifier(column.name));
    const QString type = declaredTypeFor(column);
    if (!type.isEmpty())
        sql += QLatin1Char(' ') + type;
    execute(writable(), sql, where(table));
}

std::unique_ptr<RowWriter> SqliteConnector::openWriter(const WriteSpec &spec) {
    SqliteDb &db = writable();
    if (spec.columns.isEmpty())
        throw Error(QStringLiteral("%1: nothing to write, no columns").arg(where(spec.table)));
    QStringList placeholders;
    for (int i = 1; i <= spec.columns.size(); ++i)
        placeholders << QStringLiteral("?%1").arg(i);
    const QString sql =
        insertSql(spec, QStringLiteral("VALUES (%1)").arg(placeholders.join(QLatin1String(", "))));
    SqliteStatement statement(db, sql, where(spec.table));
    // The target's own declared types decide what SQLite does to a value (its affinity).
    const TableSchema target = describeTable(spec.table);
    std::vector<Affinity> affinities;
    for (const ColumnInfo &column : spec.columns)
        affinities.push_back(affinityOf(declaredType(target, column)));
    return std::make_unique<SqliteWriter>(db, statement, columnNames(spec), std::move(affinities),
                                          where(spec.table));
}

QStringList SqliteConnector::columnNames(const WriteSpec &spec) {
    QStringList names;
    for (const ColumnInfo &column : spec.columns)
        names << column.name;
    return names;
}

// "INSERT INTO t (cols) <rows>", plus the merge rule's upsert clause in merge mode.
QString SqliteConnector::insertSql(const WriteSpec &spec, const QString &rows) {
    SqliteDb &db = writable();
    const QStringList names = columnNames(spec);
    const QString target = quoted(spec.table);
    QString sql = QStringLiteral("INSERT INTO %1 (%2) %3").arg(target, quoteIdentifierList(names), rows);
    if (spec.mode != WriteMode::Merge)
        return sql;
    if (spec.keyColumns.isEmpty())
        throw Error(QStringLiteral("%1: merge needs key columns").arg(where(spec.table)));
    // ON CONFLICT needs a primary key or a unique index on exactly the key columns.
    QSet<QString> keys;
    for (const QString &key : spec.keyColumns)
        keys.insert(key.toLower());
    bool unique = false;
    {
        SqliteStatement pk(db, QStringLiteral("SELECT name FROM pragma_table_xinfo(?1) WHERE pk > 0"),
                           where(spec.table));
        pk.bind(1, spec.table.name);
        QSet<QString> columns;
        while (pk.step())
            columns.insert(pk.columnText(0).toLower());
        unique = columns == keys;
    }
    if (!unique) {
        SqliteStatement indexes(
            db, QStringLiteral("SELECT name FROM pragma_index_list(?1) WHERE \"unique\" = 1 AND partial = 0"),
            where(spec.table));
        indexes.bind(1, spec.table.name);
        while (!unique && indexes.step()) {
            SqliteStatement info(db, QStringLiteral("SELECT name FROM pragma_index_info(?1)"),
                                 where(spec.table));
            info.bind(1, indexes.columnText(0));
            QSet<QString> columns;
            bool expression = false;
            while (info.step()) {
                expression = expression || info.isNull(0);
                columns.insert(info.columnText(0).toLower());
            }
            unique = !expression && columns == keys;
        }
    }
    if (!unique)
        throw Error(QStringLiteral("%1: merge needs a primary key or unique index on (%2) in the target")
                        .arg(where(spec.table), spec.keyColumns.join(QLatin1String(", "))));

    return sql + kContract.mergeConflict(spec, names, target);
}

void SqliteConnector::deleteAll(const TableRef &table) {
    execute(writable(), QStringLiteral("DELETE FROM %1").arg(quoted(table)), where(table));
}

qint64 SqliteConnector::removeKeys(const TableRef &table, const QStringList &keyColumns,
                                   const QList<QVariantList> &keys, const QString &markColumn,
                                   const QDateTime &markedAt) {
    SqliteDb &db = writable();
    SqliteStatement statement(db, kContract.removeKey(table, keyColumns, markColumn), where(table));
    qint64 changed = 0;
    for (const QVariantList &key : keys) {
        statement.reset();
        for (int i = 0; i < int(key.size()); ++i)
            statement.bind(i + 1, key[i]);
        if (!markColumn.isEmpty())
            statement.bind(int(key.size()) + 1, canonicalTimestamp(markedAt.toMSecsSinceEpoch() * 1000));
        statement.run();
        changed += db.changes();
    }
    return changed;
}

qint64 SqliteConnector::deleteNewerThan(const TableRef &table, const QString &watermarkColumn,
                                        const Watermark &position) {
    SqliteDb &db = writable();
    // Text comparison: the position is spelled like the target column spells its values.
    const Watermark bound =
        position.type() == WatermarkType::Timestamp
            ? spelledLike(position, sampleWatermark(table, watermarkColumn, position.type()))
            : position;
    const BoundSql sql = kContract.deleteNewer(table, watermarkColumn, bound);
    SqliteStatement statement(db, sql.sql, where(table));
    bindContract(statement, sql.bindings);
    statement.run();
    return db.changes();
}

// --- the state row: StateRows over this port ---

QString SqliteConnector::stateContext() const {
    return QStringLiteral("connection '%1', table '%2'").arg(m_name, kStateTable);
}

QStringList SqliteConnector::stateColumns() {
    if (!m_db)
        return {}; // no file: no state table either
    SqliteStatement query(*m_db, QStringLiteral("SELECT name FROM pragma_table_info(?1)"), stateContext());
    query.bind(1, kStateTable);
    QStringList names;
    while (query.step())
        names << query.columnText(0);
    return names;
}

namespace {

void bindAll(SqliteStatement &statement, const QVariantList &values) {
    for (int i = 0; i < values.size(); ++i)
        statement.bind(i + 1, values[i]);
}

} // namespace

QList<QVariantList> SqliteConnector::stateQuery(const QString &sql, const QVariantList &values) {
    SqliteStatement query(handle(), sql, stateContext());
    bindAll(query, values);
    QList<QVariantList> rows;
    while (query.step()) {
        QVariantList row;
        for (int column = 0; column < query.columnCount(); ++column)
            row << query.columnVariant(column);
        rows << row;
    }
    return rows;
}

qint64 SqliteConnector::stateExec(const QString &sql, const QVariantList &values) {
    SqliteStatement statement(writable(), sql, stateContext());
    bindAll(statement, values);
    statement.run();
    return m_db->changes();
}

// Inside the write transaction, whose write lock serializes concurrent creators.
bool SqliteConnector::runStateDdl(const QStringList &statements, const QStringList &present) {
    SqliteDb &db = writable();
    for (const QString &statement : statements)
        execute(db, statement, stateContext());
    if (!present.contains(QStringLiteral("state_version")))
        upgradeVersion1Rows();
    return false;
}

void SqliteConnector::beginStateTransaction(const QString &, qint64) {
    begin(); // BEGIN IMMEDIATE: the write lock is ours until commit or rollback
}

// Version 1 kept the tiebreak as SQLite's own value (an integer stayed an integer) and had no
// tiebreak_type; the same position is rewritten in the stored text form every engine uses.
void SqliteConnector::upgradeVersion1Rows() {
    struct Row {
        QString workspaceId;
        qint64 tableId;
        QVariant tiebreak;
    };
    std::vector<Row> rows;
    {
        SqliteStatement query(*m_db,
                              QStringLiteral("SELECT workspace_id, table_id, tiebreak FROM tidemark_state "
                                             "WHERE state_version IS NULL AND tiebreak_type IS NULL"),
                              stateContext());
        while (query.step())
            rows.push_back({query.columnText(0), query.columnInt64(1), query.columnVariant(2)});
    }
    for (const Row &row : rows) {
        SqliteStatement update(*m_db,
                               QStringLiteral("UPDATE tidemark_state SET tiebreak = ?1, tiebreak_type = ?2 "
                                              "WHERE workspace_id = ?3 AND table_id = ?4"),
                               stateContext());
        update.bind(1, tiebreakStoredText(row.tiebreak))
            .bind(2, tiebreakStoredType(row.tiebreak))
            .bind(3, row.workspaceId)
            .bind(4, row.tableId);
        update.run();
    }
    SqliteStatement version(
        *m_db, QStringLiteral("UPDATE tidemark_state SET state_version = ?1 WHERE state_version IS NULL"),
        stateContext());
    version.bind(1, qint64(kStateTableVersion));
    version.run();
}

std::optional<TargetState> SqliteConnector::readState(const QString &workspaceId, qint64 tableId) {
    return m_stateRows.read(workspaceId, tableId);
}

std::optional<TargetState> SqliteConnector::beginStateWrite(const QString &workspaceId, qint64 tableId) {
    return m_stateRows.beginWrite(workspaceId, tableId);
}

bool SqliteConnector::compareAndSetState(const std::optional<Position> &expected, const TargetState &next) {
    return m_stateRows.compareAndSet(expected, next);
}

void SqliteConnector::writeState(const TargetState &state) {
    m_stateRows.write(state);
}

void SqliteConnector::clearState(const QString &workspaceId, qint64 tableId) {
    m_stateRows.clear(workspaceId, tableId);
}

bool SqliteConnector::raiseFence(const QString &workspaceId, qint64 tableId, qint64 token,
                                 const std::optional<Position> &expected, qint64 generation) {
    const bool raised = m_stateRows.raiseFence(workspaceId, tableId, token, expected, generation);
    commit();
    return raised;
}

std::optional<StateOwner> SqliteConnector::readTargetOwner(const QString &targetKey) {
    return m_stateRows.owner(targetKey);
}

void SqliteConnector::interrupt() {
    // Safe from another thread while the connection is open; it is published once open and
    // withdrawn before it closes.
    if (SqliteDb *db = m_interruptible.load())
        db->interrupt();
}

} // namespace tidemark

namespace tidemark {

PushDownOrigin SqliteConnector::pushDownOrigin() {
    return {QStringLiteral("sqlite"), QFileInfo(m_path).absoluteFilePath()};
}

QString SqliteConnector::sourceSchema(SourceReader &source) {
    if (&source == static_cast<SourceReader *>(this))
        return QStringLiteral("main");
    const PushDownOrigin origin = source.pushDownOrigin();
    if (origin.engine == QLatin1String("sqlite") && !m_attachedPath.isEmpty() &&
        m_attachedPath == origin.database)
        return QString::fromLatin1(kAttachedSchema);
    return QString();
}

void SqliteConnector::preparePushDown(SourceReader &source) {
    m_sourceVersion.reset();
    if (&source == static_cast<SourceReader *>(this))
        return;
    const PushDownOrigin origin = source.pushDownOrigin();
    if (origin.engine != QLatin1String("sqlite"))
        return;
    if (m_attachedPath.isEmpty())
        attachSource(source.connectionName(), origin.database);
    if (m_attachedPath == origin.database)
        m_sourceVersion = sourceVersion();
}

// Changes whenever another connection commits to the attached source (PRAGMA data_version).
qint64 SqliteConnector::sourceVersion() {
    SqliteStatement version(writable(),
                            QStringLiteral("PRAGMA %1.data_version").arg(quoteIdentifier(kAttachedSchema)),
                            QStringLiteral("connection '%1'").arg(m_name));
    version.step();
    return version.columnInt64(0);
}

void SqliteConnector::attachSource(const QString &connectionName, const QString &path) {
    SqliteDb &db = writable();
    // Read-only, so a source file deleted since it was opened is an error, never a new empty file.
    const QString uri =
        QStringLiteral("file:%1?mode=ro").arg(QString::fromLatin1(QUrl::toPercentEncoding(path, "/")));
    try {
        SqliteStatement attach(
            db, QStringLiteral("ATTACH DATABASE ?1 AS %1").arg(quoteIdentifier(kAttachedSchema)));
        attach.bind(1, uri);
        attach.step();
    } catch (const Error &error) {
        throw Error(QStringLiteral("connection '%1': cannot open source file %2 read-only: %3")
                        .arg(connectionName, path, error.message()));
    }
    m_attachedPath = path;
}

// A first load into an empty table with the source's columns in the source's order, and no NULL
// or unorderable watermark in this transaction's snapshot: the window is then the whole table, so the plain
// INSERT ... SELECT * copies exactly the window (up to the snapshot's maximum, which pushDown
// reports as the position reached).
bool SqliteConnector::copiesWholeTable(const WindowQuery &window, const WriteSpec &write) {
    if (write.mode == WriteMode::Merge || !window.lower.isNull() || window.upperHoldsBack)
        return false;
    const QString context = where(write.table);
    // window.columns is the source's full column list in table order (the engine reads them all).
    if (window.columns != columnNames(write) || describeTable(write.table).columnNames() != window.columns)
        return false;
    SqliteStatement any(writable(), QStringLiteral("SELECT 1 FROM %1 LIMIT 1").arg(quoted(write.table)),
                        context);
    if (any.step())
        return false;
    // The engine's probe found every row in the window, and nothing was committed to the source
    // since before it: this transaction's snapshot is the probe's.
    if (window.unselectableRows == 0 && window.table.schema == QLatin1String(kAttachedSchema) &&
        m_sourceVersion && sourceVersion() == *m_sourceVersion)
        return true;
    // Rows no window selects (NULL or unorderable watermarks) would be copied too.
    const BoundSql probe =
        kContract.probeWatermark(window.table, window.watermarkColumn, window.watermarkType);
    SqliteStatement outside(writable(), probe.sql, context);
    bindContract(outside, probe.bindings);
    outside.step();
    return outside.columnInt64(1) == 0 && outside.columnInt64(2) == 0;
}

// Every target column has its source column's affinity: SQLite then stores each value as the
// source holds it, so no row is one the streaming writer would refuse as changed
// (SqliteWriter::inexact).
bool SqliteConnector::keepsSourceValues(const WriteSpec &write) {
    const TableSchema target = describeTable(write.table);
    for (const ColumnInfo &column : write.columns) {
        if (column.origin != QLatin1String("sqlite") ||
            affinityOf(declaredType(target, column)) != affinityOf(column.nativeType))
            return false;
    }
    return true;
}

std::optional<PushDownResult> SqliteConnector::pushDown(SourceReader &source, const WindowQuery &window,
                                                        const WriteSpec &write) {
    const QString schema = sourceSchema(source);
    if (schema.isEmpty() || window.watermarkColumn.isEmpty() || sqlite3_get_autocommit(writable().handle()) ||
        !keepsSourceValues(write))
        return std::nullopt;
    // Runs the INSERT; false when SQLite refused a row (it rolled back that statement alone, the
    // transaction stands) and the table may skip rows: the caller streams them, skipping that one.
    const auto inserted = [&](SqliteStatement &insert) {
        try {
            insert.step();
            return true;
        } catch (const Error &) {
            // handle(), not writable(): raising the cache again would clear the error code.
            if (write.tolerateRejects && refusesRow(sqlite3_extended_errcode(handle().handle())))
                return false;
            throw;
        }
    };
    WindowQuery attached = comparable(window);
    attached.table.schema = schema;
    const QString context = where(write.table);

    // All three statements run in the target's transaction, so they see one snapshot of the source.
    PushDownResult result;
    if (write.mode == WriteMode::Merge) {
        // A merge that keeps a newer stored version changes nothing, yet the row is reflected:
        // only a count tells how many rows the window held.
        const BoundSql sql = kContract.countWindow(attached);
        SqliteStatement count(writable(), sql.sql, context);
        bindContract(count, sql.bindings);
        count.step();
        result.rowsRead = count.columnInt64(0);
    }
    WindowQuery reach = attached;
    if (copiesWholeTable(attached, write)) {
        // SQLite's transfer optimisation copies whole records when the statement is this plain.
        // The snapshot's maximum, not the one probed before, is then the position reached.
        reach.upper = Watermark();
        SqliteStatement insert(writable(),
                               QStringLiteral("INSERT INTO %1 SELECT * FROM %2")
                                   .arg(quoted(write.table), quoted(attached.table)),
                               context);
        // New pages into an empty table need no journal: SQLite's default cache (2 MB) writes
        // them out as it goes, where the copy cache (writable()) would hold them all to the commit.
        sqlite3_exec(writable().handle(), "PRAGMA cache_size=-2000", nullptr, nullptr, nullptr);
        m_writeCache = false; // writable() raises it again for what follows
        if (!inserted(insert))
            return std::nullopt;
        result.rowsRead = result.rowsWritten = writable().changes();
    } else {
        const BoundSql select = kContract.selectWindow(attached, tieOrder(attached.table));
        SqliteStatement insert(writable(), insertSql(write, select.sql), context);
        bindContract(insert, select.bindings);
        if (!inserted(insert))
            return std::nullopt;
        if (write.mode != WriteMode::Merge)
            result.rowsRead = writable().changes(); // every row inserted, or the statement failed
        result.rowsWritten = result.rowsRead;
    }
    if (result.rowsRead > 0) {
        QStringList position{quoteIdentifier(window.watermarkColumn)};
        if (!window.tiebreakColumn.isEmpty())
            position << quoteIdentifier(window.tiebreakColumn);
        const BoundSql sql = kContract.positionReached(reach, position);
        SqliteStatement maximum(writable(), sql.sql, context);
        bindContract(maximum, sql.bindings);
        if (maximum.step())
            result.reached =
                Position(maximum.columnType(0) == SQLITE_INTEGER
                             ? Watermark::integer(maximum.columnInt64(0))
                             : Watermark::timestamp(maximum.columnText(0)).value_or(Watermark()),
                         window.tiebreakColumn.isEmpty() ? QVariant() : maximum.columnVariant(1));
    }
    return result;
}

} // namespace tidemark
