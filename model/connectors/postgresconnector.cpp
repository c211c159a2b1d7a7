// SPDX-License-Identifier: MIT
#include "model/connectors/postgresconnector.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/sqlquote.h"
#include "model/common/timestamp.h"
#include "model/connectors/conninfo.h"
#include "model/connectors/contractsql.h"
#include "model/connectors/exactvalue.h"
#include "model/connectors/rowchecksum.h"
#include "model/connectors/statetable.h"
#include "model/credentials/credentialstore.h"

#include <libpq-fe.h>

#include <QByteArray>
#include <QRegularExpression>
#include <QSet>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace tidemark {
namespace {

// Type OIDs from pg_type.dat; stable across server versions.
constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kOidOid = 26;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kTimestampOid = 1114;
constexpr Oid kTimestampTzOid = 1184;

constexpr std::size_t kCopyChunk = 1 << 20;
const QString kRowIndexColumn = QStringLiteral("__tidemark_row");

struct ResultDeleter {
    void operator()(PGresult *result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// For cleanup statements whose failure changes nothing (the connection may already be gone).
void runQuietly(PGconn *conn, const char *sql) {
    PQclear(PQexec(conn, sql));
}

QString utf8(const char *text) {
    return text ? QString::fromUtf8(text) : QString();
}

// Primary message, detail and (for COPY) the line/column context: enough to find the row.
QString resultError(PGconn *conn, const PGresult *result) {
    QString message;
    if (result) {
        message = utf8(PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY));
        const QString detail = utf8(PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL));
        if (!detail.isEmpty())
            message += QStringLiteral(" (%1)").arg(detail);
        const QString context = utf8(PQresultErrorField(result, PG_DIAG_CONTEXT));
        if (!context.isEmpty() && context.startsWith(QLatin1String("COPY ")))
            message += QStringLiteral(" [%1]").arg(context.section(QLatin1Char('\n'), 0, 0));
    }
    if (message.isEmpty())
        message = utf8(PQerrorMessage(conn)).trimmed();
    if (message.isEmpty())
        message = QStringLiteral("unknown error");
    return message.split(QLatin1Char('\n'), Qt::SkipEmptyParts).join(QStringLiteral("; "));
}

QString sqlState(const PGresult *result) {
    return result ? utf8(PQresultErrorField(result, PG_DIAG_SQLSTATE)) : QString();
}

// Data exceptions and constraint violations are one row's fault; anything else (a lost
// connection, a missing column, an aborted transaction) fails the whole write.
bool isRowFault(const QString &state) {
    return state.startsWith(QLatin1String("22")) || state.startsWith(QLatin1String("23"));
}

bool parseInt64(const char *text, int length, std::int64_t &value) {
    const auto [end, ec] = std::from_chars(text, text + length, value);
    return ec == std::errc() && end == text + length;
}

bool parseDouble(const char *text, int length, double &value) {
    const auto [end, ec] = std::from_chars(text, text + length, value);
    if (ec == std::errc() && end == text + length)
        return true;
    // "Infinity", "-Infinity", "NaN" as the server spells them.
    char *stop = nullptr;
    value = std::strtod(text, &stop);
    return stop == text + length;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// The session runs with TimeZone UTC and DateStyle ISO: "2025-07-30 23:05:18.5+00". Tidemark
// spells timestamps "2025-07-30T23:05:18.500000Z" (UTC, six fraction digits) everywhere.
// Values the canonical form cannot hold (infinity, BC dates) are passed on as the server spells them.
bool canonicalFromServer(const char *text, int length, bool withZone, std::string &out) {
    const char *space = static_cast<const char *>(std::memchr(text, ' ', std::size_t(length)));
    if (!space || space - text < 10)
        return false;
    const char *time = space + 1;
    const char *end = text + length;
    if (end - time < 8 || time[2] != ':' || time[5] != ':')
        return false;
    const char *p = time + 8;
    const char *fraction = nullptr;
    int fractionDigits = 0;
    if (p < end && *p == '.') {
        fraction = ++p;
        while (p < end && *p >= '0' && *p <= '9')
            ++p;
        fractionDigits = int(p - fraction);
        if (fractionDigits > 6)
            return false;
    }
    if (withZone) {
        if (end - p != 3 || p[0] != '+' || p[1] != '0' || p[2] != '0')
            return false;
    } else if (p != end) {
        return false;
    }
    out.assign(text, std::size_t(space - text));
    out += 'T';
    out.append(time, 8);
    out += '.';
    if (fraction)
        out.append(fraction, std::size_t(fractionDigits));
    out.append(std::size_t(6 - fractionDigits), '0');
    if (withZone)
        out += 'Z';
    return true;
}

enum class ReadKind { Integer, Real, Real4, Boolean, Bytea, TimestampTz, Timestamp, Text };

ReadKind readKind(Oid type) {
    switch (type) {
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid:
    case kOidOid:
        return ReadKind::Integer;
    case kFloat4Oid:
        return ReadKind::Real4;
    case kFloat8Oid:
        return ReadKind::Real;
    case kBoolOid:
        return ReadKind::Boolean;
    case kByteaOid:
        return ReadKind::Bytea;
    case kTimestampTzOid:
        return ReadKind::TimestampTz;
    case kTimestampOid:
        return ReadKind::Timestamp;
    default:
        return ReadKind::Text;
    }
}

LogicalType logicalFromTypname(const QString &typname) {
    static const QHash<QString, LogicalType> map = {
        {QStringLiteral("int2"), LogicalType::Integer},
        {QStringLiteral("int4"), LogicalType::Integer},
        {QStringLiteral("int8"), LogicalType::Integer},
        {QStringLiteral("numeric"), LogicalType::Numeric},
        {QStringLiteral("float4"), LogicalType::Real},
        {QStringLiteral("float8"), LogicalType::Real},
        {QStringLiteral("text"), LogicalType::Text},
        {QStringLiteral("varchar"), LogicalType::Text},
        {QStringLiteral("bpchar"), LogicalType::Text},
        {QStringLiteral("name"), LogicalType::Text},
        {QStringLiteral("citext"), LogicalType::Text},
        {QStringLiteral("bytea"), LogicalType::Blob},
        {QStringLiteral("bool"), LogicalType::Boolean},
        {QStringLiteral("date"), LogicalType::Date},
        {QStringLiteral("timestamp"), LogicalType::Timestamp},
        {QStringLiteral("timestamptz"), LogicalType::TimestampTz},
        {QStringLiteral("uuid"), LogicalType::Uuid},
        {QStringLiteral("json"), LogicalType::Json},
        {QStringLiteral("jsonb"), LogicalType::Json},
    };
    return map.value(typname, LogicalType::Unknown);
}

bool isTextType(const QString &typname) {
    return logicalFromTypname(typname) == LogicalType::Text;
}

// COPY text format: backslash escapes for the characters that end a field or a row.
void appendCopyText(std::string &out, std::string_view text) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const char *escape = nullptr;
        switch (c) {
        case '\\':
            escape = "\\\\";
            break;
        case '\t':
            escape = "\\t";
            break;
        case '\n':
            escape = "\\n";
            break;
        case '\r':
            escape = "\\r";
            break;
        default:
            continue;
        }
        out.append(text.data() + start, i - start);
        out.append(escape);
        start = i + 1;
    }
    out.append(text.data() + start, text.size() - start);
}

// What a target column does to the values COPY gives it, where that matters for exactness.
enum class TargetKind { Other, Bytea, Float8, Float4, Date, Timestamp, TimestampTz };

TargetKind targetKind(const QString &typname) {
    static const QHash<QString, TargetKind> kinds = {
        {QStringLiteral("bytea"), TargetKind::Bytea},
        {QStringLiteral("float8"), TargetKind::Float8},
        {QStringLiteral("float4"), TargetKind::Float4},
        {QStringLiteral("date"), TargetKind::Date},
        {QStringLiteral("timestamp"), TargetKind::Timestamp},
        {QStringLiteral("timestamptz"), TargetKind::TimestampTz},
    };
    return kinds.value(typname, TargetKind::Other);
}

// bytea hex input "\x…", with the backslash escaped for COPY.
void appendCopyHex(std::string &out, std::string_view bytes) {
    static const char hex[] = "0123456789abcdef";
    out.append("\\\\x");
    for (const char b : bytes) {
        const auto u = static_cast<unsigned char>(b);
        out += hex[u >> 4];
        out += hex[u & 0xf];
    }
}

void appendCopyCell(std::string &out, const RowBatch &batch, const Cell &cell, TargetKind kind) {
    switch (cell.type) {
    case CellType::Null:
        out.append("\\N");
        return;
    case CellType::Integer: {
        char buffer[24];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, cell.integer);
        out.append(buffer, result.ptr);
        return;
    }
    case CellType::Real: {
        if (std::isnan(cell.real)) {
            out.append("NaN");
        } else if (std::isinf(cell.real)) {
            out.append(cell.real > 0 ? "Infinity" : "-Infinity");
        } else {
            char buffer[32];
            const auto result = std::to_chars(buffer, buffer + sizeof buffer, cell.real); // shortest exact
            out.append(buffer, result.ptr);
        }
        return;
    }
    case CellType::Text:
        // Text into bytea goes as its bytes: bytea's own input would read backslashes in it.
        if (kind == TargetKind::Bytea)
            appendCopyHex(out, batch.bytes(cell));
        else
            appendCopyText(out, batch.bytes(cell));
        return;
    case CellType::Blob:
        appendCopyHex(out, batch.bytes(cell));
        return;
    }
}

void appendCopyRow(std::string &out, const RowBatch &batch, int row, const std::vector<TargetKind> &kinds,
                   bool withIndex, qint64 indexBase = 0) {
    const int columns = batch.columnCount();
    for (int column = 0; column < columns; ++column) {
        if (column > 0)
            out += '\t';
        appendCopyCell(out, batch, batch.cell(row, column),
                       std::size_t(column) < kinds.size() ? kinds[std::size_t(column)] : TargetKind::Other);
    }
    if (withIndex) {
        if (columns > 0)
            out += '\t';
        out += std::to_string(indexBase + row);
    }
    out += '\n';
}

} // namespace

// The merge rule as one statement: the latest version per key from `from` (highest watermark,
// then tiebreak, then `lastOrder`), upserted only over an older or equal stored version.
// PostgreSQL cannot change one row twice in one INSERT ... ON CONFLICT, hence DISTINCT ON.
QString mergeStatement(const QString &target, const QStringList &columns, const WriteSpec &spec,
                       const QString &from, const QString &where, const QString &lastOrder) {
    const QString keys = quoteIdentifierList(spec.keyColumns);
    QStringList order;
    for (const QString &key : spec.keyColumns)
        order << quoteIdentifier(key);
    for (const QString &version : ContractSql::versionColumns(spec, columns))
        order << quoteIdentifier(version) + QStringLiteral(" DESC");
    if (!lastOrder.isEmpty())
        order << lastOrder;
    const QString list = quoteIdentifierList(columns);
    QString sql = QStringLiteral("INSERT INTO %1 AS t (%2) SELECT DISTINCT ON (%3) %2 FROM %4")
                      .arg(target, list, keys, from);
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") + where;
    return sql + QStringLiteral(" ORDER BY ") + order.join(QStringLiteral(", ")) +
           ContractSql(SqlDialect::Postgres).mergeConflict(spec, columns, QStringLiteral("t"));
}

// ---------------------------------------------------------------------------------------------
// Reading: a NO SCROLL cursor in a REPEATABLE READ READ ONLY transaction, FETCH per batch.

class PostgresCursor : public SourceCursor {
public:
    PostgresCursor(PostgresConnector &connector, QString name, QString what)
        : m_connector(connector)
        , m_name(std::move(name))
        , m_what(std::move(what)) {}

    ~PostgresCursor() override {
        PGconn *conn = m_connector.m_conn;
        if (PQstatus(conn) == CONNECTION_OK && PQtransactionStatus(conn) == PQTRANS_INTRANS)
            runQuietly(conn, ("CLOSE " + quoteIdentifier(m_name)).toUtf8().constData());
        if (--m_connector.m_openCursors == 0 && m_connector.m_cursorTransaction) {
            m_connector.m_cursorTransaction = false;
            if (PQstatus(conn) == CONNECTION_OK)
                runQuietly(conn, PQtransactionStatus(conn) == PQTRANS_INTRANS ? "COMMIT" : "ROLLBACK");
        }
    }

    bool fetch(RowBatch &batch, int maxRows) override {
        PGconn *conn = m_connector.m_conn;
        const int columns = m_kinds.empty() ? 0 : int(m_kinds.size());
        batch.reset(m_columnCount);
        if (m_done)
            return false;
        const QByteArray sql = QStringLiteral("FETCH FORWARD %1 FROM %2")
                                   .arg(qMax(1, maxRows))
                                   .arg(quoteIdentifier(m_name))
                                   .toUtf8();
        Result result(PQexec(conn, sql.constData()));
        if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
            m_connector.fail(m_what, resultError(conn, result.get()));
        if (m_kinds.empty()) {
            m_columnCount = PQnfields(result.get());
            for (int i = 0; i < m_columnCount; ++i)
                m_kinds.push_back(readKind(PQftype(result.get(), i)));
            batch.reset(m_columnCount);
        }
        Q_UNUSED(columns);
        const int rows = PQntuples(result.get());
        if (rows < maxRows)
            m_done = true;
        for (int row = 0; row < rows; ++row) {
            for (int column = 0; column < m_columnCount; ++column)
                appendValue(batch, result.get(), row, column);
        }
        return rows > 0;
    }

private:
    void appendValue(RowBatch &batch, const PGresult *result, int row, int column) {
        if (PQgetisnull(result, row, column)) {
            batch.appendNull();
            return;
        }
        const char *text = PQgetvalue(result, row, column);
        const int length = PQgetlength(result, row, column);
        switch (m_kinds[std::size_t(column)]) {
        case ReadKind::Integer: {
            std::int64_t value = 0;
            if (parseInt64(text, length, value)) {
                batch.appendInteger(value);
                return;
            }
            break;
        }
        case ReadKind::Real: {
            double value = 0;
            if (parseDouble(text, length, value)) {
                batch.appendReal(value);
                return;
            }
            break;
        }
        case ReadKind::Real4: {
            // The float4's exact value, widened: parsing its short spelling as a double would
            // give a neighbouring double ("1.1" is not the float 1.1).
            float value = 0;
            const auto [end, ec] = std::from_chars(text, text + length, value);
            if (ec == std::errc() && end == text + length) {
                batch.appendReal(double(value));
                return;
            }
            double wide = 0;
            if (parseDouble(text, length, wide)) {
                batch.appendReal(double(float(wide)));
                return;
            }
            break;
        }
        case ReadKind::Boolean:
            batch.appendInteger(text[0] == 't' ? 1 : 0);
            return;
        case ReadKind::Bytea: {
            size_t size = 0;
            if (length >= 2 && text[0] == '\\' && text[1] == 'x') {
                m_scratch.resize(std::size_t(length - 2) / 2);
                for (int i = 2; i + 1 < length; i += 2)
                    m_scratch[std::size_t(i - 2) / 2] =
                        char((hexValue(text[i]) << 4) | hexValue(text[i + 1]));
                batch.appendBlob(m_scratch.data(), m_scratch.size());
                return;
            }
            unsigned char *bytes = PQunescapeBytea(reinterpret_cast<const unsigned char *>(text), &size);
            batch.appendBlob(bytes, size);
            PQfreemem(bytes);
            return;
        }
        case ReadKind::TimestampTz:
        case ReadKind::Timestamp:
            if (canonicalFromServer(text, length, m_kinds[std::size_t(column)] == ReadKind::TimestampTz,
                                    m_scratch)) {
                batch.appendText(m_scratch.data(), m_scratch.size());
                return;
            }
            break;
        case ReadKind::Text:
            break;
        }
        batch.appendText(text, std::size_t(length));
    }

    PostgresConnector &m_connector;
    QString m_name;
    QString m_what;
    std::vector<ReadKind> m_kinds;
    int m_columnCount = 0;
    bool m_done = false;
    std::string m_scratch;
};

// ---------------------------------------------------------------------------------------------
// Writing: COPY FROM STDIN per batch inside a savepoint; a batch the server refuses for one
// row's sake is redone row by row to find and report exactly the bad rows. A value the target
// column would change without an error (a blob in a text column, a zone a timestamp column
// drops, digits a float column rounds) is refused before COPY, naming the column.

class PostgresWriter : public RowWriter {
public:
    PostgresWriter(PostgresConnector &connector, WriteSpec spec, QStringList targetTypes)
        : m_connector(connector)
        , m_spec(std::move(spec))
        , m_targetTypes(std::move(targetTypes)) {
        for (const QString &type : m_targetTypes)
            m_kinds.push_back(targetKind(type));
        m_target = quoteQualified(m_spec.table.schema, m_spec.table.name);
        for (const ColumnInfo &column : m_spec.columns)
            m_columnNames << column.name;
        m_merge = m_spec.mode == WriteMode::Merge;
        if (m_merge && m_spec.keyColumns.isEmpty())
            throw Error(QStringLiteral("%1: merge into %2 needs key columns")
                            .arg(m_connector.describe(), m_spec.table.display()));
        static int counter = 0;
        m_stage = QStringLiteral("tidemark_stage_%1").arg(++counter);
        m_what = QStringLiteral("writing %1").arg(m_spec.table.display());
    }

    void writeBatch(const RowBatch &batch, std::vector<RowRejection> &rejected) override {
        if (batch.rowCount() == 0)
            return;
        if (batch.columnCount() != m_columnNames.size())
            throw Error(QStringLiteral("%1: %2: batch has %3 columns, expected %4")
                            .arg(m_connector.describe(), m_what)
                            .arg(batch.columnCount())
                            .arg(m_columnNames.size()));
        m_refused.assign(std::size_t(batch.rowCount()), false);
        for (int row = 0; row < batch.rowCount(); ++row) {
            if (const QString problem = inexact(batch, row); !problem.isEmpty()) {
                rejected.push_back(
                    {row, QStringLiteral("%1: %2: %3").arg(m_connector.describe(), m_what, problem)});
                m_refused[std::size_t(row)] = true;
            }
        }
        if (!m_spec.tolerateRejects && m_connector.inTransaction()) {
            streamBatch(batch);
            return;
        }
        // Savepoints need a transaction block; without the caller's, each batch is its own.
        const bool local = !m_connector.inTransaction();
        if (local)
            m_connector.begin();
        try {
            if (m_merge)
                mergeBatch(batch, rejected);
            else
                copyRows(m_target, quoteIdentifierList(m_columnNames), batch, false, rejected, nullptr);
            if (local)
                m_connector.commit();
        } catch (...) {
            if (local)
                m_connector.rollback();
            throw;
        }
    }

    // Ends the streamed COPY (and, for merge, upserts the staged window in one statement).
    void finish(std::vector<RowRejection> &) override {
        if (!m_streaming)
            return;
        m_streaming = false;
        PGconn *conn = m_connector.handle();
        if (PQputCopyEnd(conn, nullptr) != 1)
            m_connector.fail(m_what, resultError(conn, nullptr));
        QString error;
        while (PGresult *raw = PQgetResult(conn)) {
            Result result(raw);
            if (PQresultStatus(raw) != PGRES_COMMAND_OK && error.isEmpty())
                error = resultError(conn, raw);
        }
        if (!error.isEmpty())
            m_connector.fail(m_what, error);
        if (m_merge)
            m_connector.execute(m_mergeAll);
    }

    ~PostgresWriter() override {
        // A window abandoned mid-stream (cancel, failure): end the COPY so the rollback can run.
        if (!m_streaming)
            return;
        try {
            PGconn *conn = m_connector.handle();
            PQputCopyEnd(conn, "abandoned by Tidemark");
            while (PGresult *raw = PQgetResult(conn))
                PQclear(raw);
        } catch (const Error &) {
            // The connection is gone; there is no COPY left to end.
        }
    }

private:
    struct Outcome {
        bool ok = true;
        QString state;
        QString message;
    };

    // One COPY for the whole window: the server parses a batch while the next one is read, and
    // no savepoints are needed because any refused row fails the iteration (and the COPY) anyway.
    void streamBatch(const RowBatch &batch) {
        PGconn *conn = m_connector.handle();
        if (!m_streaming) {
            QString table = m_target;
            QStringList columns = m_columnNames;
            if (m_merge) {
                ensureStage();
                table = quoteIdentifier(m_stage);
                columns << kRowIndexColumn;
            }
            const QByteArray sql =
                QStringLiteral("COPY %1 (%2) FROM STDIN").arg(table, quoteIdentifierList(columns)).toUtf8();
            Result start(PQexec(conn, sql.constData()));
            if (PQresultStatus(start.get()) != PGRES_COPY_IN)
                m_connector.fail(m_what, resultError(conn, start.get()));
            m_streaming = true;
        }
        m_buffer.clear();
        for (int row = 0; row < batch.rowCount(); ++row) {
            if (!m_refused[std::size_t(row)])
                appendCopyRow(m_buffer, batch, row, m_kinds, m_merge, m_streamedRows);
        }
        m_streamedRows += batch.rowCount();
        for (std::size_t offset = 0; offset < m_buffer.size(); offset += kCopyChunk) {
            const std::size_t size = std::min(kCopyChunk, m_buffer.size() - offset);
            if (PQputCopyData(conn, m_buffer.data() + offset, int(size)) != 1)
                m_connector.fail(m_what, resultError(conn, nullptr));
        }
    }

    Outcome copyIn(const QByteArray &sql, const std::string &data) {
        PGconn *conn = m_connector.handle();
        Result start(PQexec(conn, sql.constData()));
        if (PQresultStatus(start.get()) != PGRES_COPY_IN)
            return {false, sqlState(start.get()), resultError(conn, start.get())};
        bool sent = true;
        for (std::size_t offset = 0; offset < data.size() && sent; offset += kCopyChunk) {
            const std::size_t size = std::min(kCopyChunk, data.size() - offset);
            sent = PQputCopyData(conn, data.data() + offset, int(size)) == 1;
        }
        if (PQputCopyEnd(conn, sent ? nullptr : "client could not send the data") != 1)
            m_connector.fail(m_what, resultError(conn, nullptr));
        Outcome outcome;
        while (PGresult *raw = PQgetResult(conn)) {
            Result result(raw);
            if (PQresultStatus(raw) != PGRES_COMMAND_OK && outcome.ok)
                outcome = {false, sqlState(raw), resultError(conn, raw)};
        }
        if (!outcome.ok && PQstatus(conn) != CONNECTION_OK)
            m_connector.fail(m_what, outcome.message);
        return outcome;
    }

    // Runs a statement that may fail for one row's sake; throws on any other failure.
    Outcome runRowStatement(const QString &sql, const QStringList &params) {
        PGconn *conn = m_connector.handle();
        std::vector<QByteArray> storage;
        std::vector<const char *> values;
        for (const QString &param : params) {
            storage.push_back(param.toUtf8());
            values.push_back(storage.back().constData());
        }
        Result result(PQexecParams(conn, sql.toUtf8().constData(), int(values.size()), nullptr, values.data(),
                                   nullptr, nullptr, 0));
        const ExecStatusType status = PQresultStatus(result.get());
        if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
            return {};
        Outcome outcome{false, sqlState(result.get()), resultError(conn, result.get())};
        if (PQstatus(conn) != CONNECTION_OK || !isRowFault(outcome.state))
            m_connector.fail(m_what, outcome.message);
        return outcome;
    }

    void checkedCopy(const Outcome &outcome) {
        if (!outcome.ok && !isRowFault(outcome.state))
            m_connector.fail(m_what, outcome.message);
    }

    // COPY the batch into `table`; on a row fault, redo it row by row. `accepted` (optional)
    // gets the rows that made it.
    void copyRows(const QString &table, const QString &columnList, const RowBatch &batch, bool withIndex,
                  std::vector<RowRejection> &rejected, std::vector<int> *accepted) {
        const QByteArray sql = QStringLiteral("COPY %1 (%2) FROM STDIN").arg(table, columnList).toUtf8();
        const int rows = batch.rowCount();
        m_buffer.clear();
        for (int row = 0; row < rows; ++row) {
            if (!m_refused[std::size_t(row)])
                appendCopyRow(m_buffer, batch, row, m_kinds, withIndex);
        }
        m_connector.execute(QStringLiteral("SAVEPOINT tidemark_batch"));
        Outcome outcome = copyIn(sql, m_buffer);
        checkedCopy(outcome);
        if (outcome.ok) {
            m_connector.execute(QStringLiteral("RELEASE SAVEPOINT tidemark_batch"));
            if (accepted) {
                for (int row = 0; row < rows; ++row) {
                    if (!m_refused[std::size_t(row)])
                        accepted->push_back(row);
                }
            }
            return;
        }
        m_connector.execute(QStringLiteral("ROLLBACK TO SAVEPOINT tidemark_batch"));
        m_connector.execute(QStringLiteral("RELEASE SAVEPOINT tidemark_batch"));
        for (int row = 0; row < rows; ++row) {
            if (m_refused[std::size_t(row)])
                continue;
            m_buffer.clear();
            appendCopyRow(m_buffer, batch, row, m_kinds, withIndex);
            m_connector.execute(QStringLiteral("SAVEPOINT tidemark_row"));
            outcome = copyIn(sql, m_buffer);
            checkedCopy(outcome);
            if (outcome.ok) {
                m_connector.execute(QStringLiteral("RELEASE SAVEPOINT tidemark_row"));
                if (accepted)
                    accepted->push_back(row);
            } else {
                m_connector.execute(QStringLiteral("ROLLBACK TO SAVEPOINT tidemark_row"));
                m_connector.execute(QStringLiteral("RELEASE SAVEPOINT tidemark_row"));
                rejected.push_back({row, outcome.message});
            }
        }
    }

    // Why a row's values would not arrive as they are (empty: they would).
    QString inexact(const RowBatch &batch, int row) const {
        for (int c = 0; c < batch.columnCount(); ++c) {
            const QString problem = inexactCell(batch, batch.cell(row, c), std::size_t(c));
            if (!problem.isEmpty())
                return inexactValue(m_columnNames[c], batch, batch.cell(row, c), problem);
        }
        return QString();
    }

    QString inexactCell(const RowBatch &batch, const Cell &cell, std::size_t column) const {
        const TargetKind kind = column < m_kinds.size() ? m_kinds[column] : TargetKind::Other;
        const QString type = column < std::size_t(m_targetTypes.size()) ? m_targetTypes[column] : QString();
        switch (cell.type) {
        case CellType::Blob:
            if (kind != TargetKind::Bytea)
                return QStringLiteral("cannot be stored exactly in a %1 column (only bytea keeps bytes)")
                    .arg(type);
            return QString();
        case CellType::Integer: {
            const bool exact = integerFitsDouble(cell.integer);
            if ((kind == TargetKind::Float8 && !exact) ||
                (kind == TargetKind::Float4 &&
                 (!exact || double(float(cell.integer)) != double(cell.integer))))
                return QStringLiteral("would be rounded by the %1 column").arg(type);
            return QString();
        }
        case CellType::Real:
            if (kind == TargetKind::Float4 && std::isfinite(cell.real) &&
                double(float(cell.real)) != cell.real)
                return QStringLiteral("would be rounded by the %1 column").arg(type);
            return QString();
        case CellType::Text:
            return inexactText(batch.bytes(cell), kind, type);
        case CellType::Null:
            break;
        }
        return QString();
    }

    static QString inexactText(std::string_view text, TargetKind kind, const QString &type) {
        if (text.find('\0') != std::string_view::npos && kind != TargetKind::Bytea)
            return QStringLiteral("holds a NUL byte, which PostgreSQL text cannot store");
        if (kind != TargetKind::Date && kind != TargetKind::Timestamp && kind != TargetKind::TimestampTz)
            return QString();
        // Tidemark's own spelling (what any PostgreSQL source gives): microseconds, UTC.
        const bool canonical = (text.size() == 26 || (text.size() == 27 && text[26] == 'Z')) &&
                               text[10] == 'T' && text[19] == '.';
        if (canonical && kind != TargetKind::Date)
            return QString();
        // Values that are no ISO-8601 timestamp ("infinity", BC dates) are the server's to take or refuse.
        const auto parsed = parseTimestamp(QString::fromUtf8(text.data(), qsizetype(text.size())));
        if (!parsed)
            return QString();
        if (parsed->subMicros != 0)
            return QStringLiteral("has more than six fraction digits, which the %1 column would round")
                .arg(type);
        if (kind == TargetKind::Timestamp && parsed->spelling.zoneOffsetSeconds != 0)
            return QStringLiteral("has a zone offset, which the %1 column (without time zone) would drop")
                .arg(type);
        constexpr qint64 kDay = 86400LL * 1000 * 1000;
        if (kind == TargetKind::Date && ((parsed->micros % kDay) + kDay) % kDay != 0)
            return QStringLiteral("has a time of day, which the %1 column would drop").arg(type);
        return QString();
    }

    void ensureStage() {
        if (m_stageGeneration == m_connector.transactionGeneration())
            return;
        // Typed like the target's columns, so a value the target refuses is refused here, per row.
        m_connector.execute(
            QStringLiteral("CREATE TEMP TABLE %1 ON COMMIT DROP AS SELECT %2, 0::bigint AS %3 FROM %4 "
                           "WITH NO DATA")
                .arg(quoteIdentifier(m_stage), quoteIdentifierList(m_columnNames),
                     quoteIdentifier(kRowIndexColumn), m_target));
        m_stageGeneration = m_connector.transactionGeneration();
        buildMergeSql();
    }

    void buildMergeSql() {
        const QString stage = quoteIdentifier(m_stage);
        const QString last = quoteIdentifier(kRowIndexColumn) + QStringLiteral(" DESC");
        m_mergeAll = mergeStatement(m_target, m_columnNames, m_spec, stage, QString(), last);
        m_mergeOne = mergeStatement(m_target, m_columnNames, m_spec, stage,
                                    quoteIdentifier(kRowIndexColumn) + QStringLiteral(" = $1"), last);
    }

    void mergeBatch(const RowBatch &batch, std::vector<RowRejection> &rejected) {
        ensureStage();
        m_connector.execute(QStringLiteral("TRUNCATE %1").arg(quoteIdentifier(m_stage)));
        std::vector<int> staged;
        QStringList stageColumns = m_columnNames;
        stageColumns << kRowIndexColumn;
        copyRows(quoteIdentifier(m_stage), quoteIdentifierList(stageColumns), batch, true, rejected, &staged);
        if (staged.empty())
            return;
        m_connector.execute(QStringLiteral("SAVEPOINT tidemark_batch"));
        Outcome outcome = runRowStatement(m_mergeAll, {});
        if (outcome.ok) {
            m_connector.execute(QStringLiteral("RELEASE SAVEPOINT tidemark_batch"));
            return;
        }
        m_connector.execute(QStringLiteral("ROLLBACK TO SAVEPOINT tidemark_batch"));
        m_connector.execute(QStringLiteral("RELEASE SAVEPOINT tidemark_batch"));
        // Row by row in keyset order gives the same result as DISTINCT ON: later versions win.
        for (const int row : staged) {
            m_connector.execute(QStringLiteral("SAVEPOINT tidemark_row"));
            outcome = runRowStatement(m_mergeOne, {QString::number(row)});
            if (outcome.ok) {
                m_connector.execute(QStringLiteral("RELEASE SAVEPOINT tidemark_row"));
            } else {
                m_connector.execute(QStringLiteral("ROLLBACK TO SAVEPOINT tidemark_row"));
                m_connector.execute(QStringLiteral("RELEASE SAVEPOINT tidemark_row"));
                rejected.push_back({row, outcome.message});
            }
        }
    }

    PostgresConnector &m_connector;
    WriteSpec m_spec;
    QStringList m_targetTypes;       // typname of each target column, in batch order
    std::vector<TargetKind> m_kinds; // the same, as what matters for exactness
    std::vector<bool> m_refused;     // rows of the current batch refused before COPY
    QString m_target;
    QStringList m_columnNames;
    bool m_merge = false;
    QString m_stage;
    quint64 m_stageGeneration = ~quint64(0);
    QString m_mergeAll;
    QString m_mergeOne;
    QString m_what;
    std::string m_buffer;
    bool m_streaming = false; // a COPY is open on the connection
    qint64 m_streamedRows = 0;
};

// ---------------------------------------------------------------------------------------------

std::unique_ptr<Connector> openPostgresConnector(const ConnectionSpec &spec) {
    return std::make_unique<PostgresConnector>(spec);
}

PostgresConnector::PostgresConnector(const ConnectionSpec &spec)
    : m_spec(spec) {
    QString keychainProblem;
    m_password = resolvePostgresPassword(spec, &keychainProblem);
    // libpq reads the conninfo itself (expand_dbname), so ~/.pgpass, service files and PG*
    // variables work as in psql; later keywords override it.
    const QByteArray conninfo = spec.conninfo.toUtf8();
    std::vector<const char *> keywords{"connect_timeout", "dbname", "client_encoding", "application_name"};
    std::vector<const char *> values{"10", conninfo.constData(), "UTF8", "tidemark"};
    if (!m_password.isEmpty()) {
        keywords.push_back("password");
        values.push_back(m_password.constData());
    }
    keywords.push_back(nullptr);
    values.push_back(nullptr);
    m_conn = PQconnectdbParams(keywords.data(), values.data(), 1);
    if (!m_conn)
        throw Error(QStringLiteral("connection '%1': out of memory").arg(spec.name));
    if (PQstatus(m_conn) != CONNECTION_OK) {
        const QString message = scrub(utf8(PQerrorMessage(m_conn)).trimmed());
        const QString where =
            QStringLiteral("connection '%1' (%2)").arg(spec.name, redactConninfo(spec.conninfo));
        PQfinish(m_conn);
        m_conn = nullptr;
        QString error = message.split(QLatin1Char('\n'), Qt::SkipEmptyParts).join(QStringLiteral("; "));
        // A runner under systemd or cron, an SSH session: no keychain answers there, and libpq's
        // "no password supplied" alone does not say where the password was looked for.
        if (m_password.isEmpty() && !keychainProblem.isEmpty() && message.contains(QLatin1String("password")))
            error +=
                QStringLiteral(" (its password may be in the system keychain, which could not be reached "
                               "here: %1; give it another way: an environment variable named by "
                               "--password-env, or a line in ~/.pgpass)")
                    .arg(keychainProblem);
        throw Error(QStringLiteral("%1: %2").arg(where, error));
    }
    // Server notices ("table does not exist, skipping") are not the user's business.
    PQsetNoticeProcessor(
        m_conn,
        [](void *, const char *message) { logger("core.connectors")->debug("server notice: {}", message); },
        nullptr);
    // The session's zone is whatever the server or the user set; Tidemark's is UTC, so
    // timestamps come out as UTC text and bounds are read as UTC.
    Result setup(PQexec(m_conn,
                        "SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'iso_8601'; "
                        "SET extra_float_digits = 3; SET bytea_output = 'hex'"));
    if (PQresultStatus(setup.get()) != PGRES_COMMAND_OK)
        fail(QStringLiteral("setting up the session"), resultError(m_conn, setup.get()));
    m_cancel = PQgetCancel(m_conn);
    logger("core.connectors")->debug("connected to {}", str(describe()));
}

PostgresConnector::~PostgresConnector() {
    if (m_cancel)
        PQfreeCancel(m_cancel);
    if (m_conn)
        PQfinish(m_conn);
}

QString PostgresConnector::describe() const {
    if (!m_conn)
        return QStringLiteral("connection '%1' (%2)").arg(m_spec.name, redactConninfo(m_spec.conninfo));
    return QStringLiteral("connection '%1' (host=%2 port=%3 dbname=%4)")
        .arg(m_spec.name, utf8(PQhost(m_conn)), utf8(PQport(m_conn)), utf8(PQdb(m_conn)));
}

QString PostgresConnector::scrub(QString message) const {
    if (!m_password.isEmpty())
        message.replace(QString::fromUtf8(m_password), QStringLiteral("***"));
    return message;
}

void PostgresConnector::fail(const QString &context, const QString &message) const {
    const QString text = context.isEmpty() ? QStringLiteral("%1: %2").arg(describe(), message)
                                           : QStringLiteral("%1: %2: %3").arg(describe(), context, message);
    throw Error(scrub(text));
}

QString PostgresConnector::connectionName() const {
    return m_spec.name;
}

TableRef PostgresConnector::parseTableName(const QString &text) const {
    const qsizetype dot = text.indexOf(QLatin1Char('.'));
    if (dot < 0)
        return {QStringLiteral("public"), text};
    return {text.left(dot), text.mid(dot + 1)};
}

QList<QStringList> PostgresConnector::query(const QString &sql, const QStringList &params) {
    std::vector<QByteArray> storage;
    std::vector<const char *> values;
    storage.reserve(std::size_t(params.size()));
    for (const QString &param : params) {
        storage.push_back(param.isNull() ? QByteArray() : param.toUtf8());
        values.push_back(param.isNull() ? nullptr : storage.back().constData());
    }
    Result result(PQexecParams(m_conn, sql.toUtf8().constData(), int(values.size()), nullptr, values.data(),
                               nullptr, nullptr, 0));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK)
        fail(QString(), resultError(m_conn, result.get()));
    QList<QStringList> rows;
    const int count = PQntuples(result.get());
    const int fields = PQnfields(result.get());
    rows.reserve(count);
    for (int row = 0; row < count; ++row) {
        QStringList values;
        for (int field = 0; field < fields; ++field)
            values << (PQgetisnull(result.get(), row, field)
                           ? QString()
                           : QString::fromUtf8(PQgetvalue(result.get(), row, field),
                                               PQgetlength(result.get(), row, field)));
        rows << values;
    }
    return rows;
}

qint64 PostgresConnector::execute(const QString &sql, const QStringList &params) {
    return execute(sql, params, nullptr);
}

// With `conflict`, a serialization failure or deadlock (SQLSTATE class 40) sets it instead of
// throwing; the transaction is then aborted and can only roll back.
qint64 PostgresConnector::execute(const QString &sql, const QStringList &params, bool *conflict) {
    std::vector<QByteArray> storage;
    std::vector<const char *> values;
    storage.reserve(std::size_t(params.size()));
    for (const QString &param : params) {
        storage.push_back(param.isNull() ? QByteArray() : param.toUtf8());
        values.push_back(param.isNull() ? nullptr : storage.back().constData());
    }
    Result result(params.isEmpty() ? PQexec(m_conn, sql.toUtf8().constData())
                                   : PQexecParams(m_conn, sql.toUtf8().constData(), int(values.size()),
                                                  nullptr, values.data(), nullptr, nullptr, 0));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
        if (conflict && sqlState(result.get()).startsWith(QLatin1String("40"))) {
            *conflict = true;
            return 0;
        }
        fail(QString(), resultError(m_conn, result.get()));
    }
    return QByteArray(PQcmdTuples(result.get())).toLongLong();
}

QString PostgresConnector::databaseIdentity() {
    // Port, postmaster start time and database name single out a database on this host; they
    // are readable by any role (pg_control_system() is not).
    if (m_identity.isEmpty())
        m_identity = query(QStringLiteral(
                               "SELECT current_setting('port') || '/' || pg_postmaster_start_time()::text || "
                               "'/' || current_database()"))
                         .value(0)
                         .value(0);
    return m_identity;
}

QList<TableRef> PostgresConnector::listTables() {
    QList<TableRef> tables;
    const auto rows = query(QStringLiteral(
        "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = "
        "c.relnamespace "
        "WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN ('pg_catalog', "
        "'information_schema') "
        "AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' ORDER BY 1, 2"));
    for (const QStringList &row : rows)
        tables << TableRef{row.value(0), row.value(1)};
    return tables;
}

bool PostgresConnector::tableExists(const TableRef &table) {
    const auto rows =
        query(QStringLiteral("SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid "
                             "= c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN "
                             "('r', 'p', 'v', 'm', 'f')"),
              {table.schema, table.name});
    return !rows.isEmpty();
}

TableSchema PostgresConnector::describeTable(const TableRef &table) {
    const auto rows = query(
        QStringLiteral("SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), "
                       "coalesce(bt.typname, t.typname), a.attnotnull, "
                       "coalesce((SELECT k.ord FROM pg_catalog.pg_index i, unnest(i.indkey::int2[]) WITH "
                       "ORDINALITY AS k(attnum, ord) "
                       "          WHERE i.indrelid = c.oid AND i.indisprimary AND k.attnum = a.attnum), 0), "
                       // Only an index's first column serves a range on that column.
                       "EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid AND "
                       "        i.indkey[0] = a.attnum) "
                       "FROM pg_catalog.pg_attribute a "
                       "JOIN pg_catalog.pg_class c ON c.oid = a.attrelid "
                       "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                       "JOIN pg_catalog.pg_type t ON t.oid = a.atttypid "
                       "LEFT JOIN pg_catalog.pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype "
                       "WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') "
                       "AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"),
        {table.schema, table.name});
    if (rows.isEmpty())
        throw Error(QStringLiteral("%1: table %2 does not exist").arg(describe(), table.display()));
    TableSchema schema;
    schema.table = table;
    for (const QStringList &row : rows) {
        ColumnInfo column;
        column.origin = QStringLiteral("postgres");
        column.name = row.value(0);
        column.nativeType = row.value(1);
        column.logical = logicalFromTypname(row.value(2));
        column.notNull = row.value(3) == QLatin1String("t");
        column.primaryKeyOrdinal = row.value(4).toInt();
        column.indexed = row.value(5) == QLatin1String("t");
        schema.columns << column;
        m_typeCache.insert(table.schema + QChar(0) + table.name + QChar(0) + column.name, row.value(2));
    }
    return schema;
}

QString PostgresConnector::columnTypeName(const TableRef &table, const QString &column) {
    const QString key = table.schema + QChar(0) + table.name + QChar(0) + column;
    auto it = m_typeCache.constFind(key);
    if (it == m_typeCache.constEnd()) {
        describeTable(table);
        it = m_typeCache.constFind(key);
        if (it == m_typeCache.constEnd())
            throw Error(
                QStringLiteral("%1: table %2 has no column \"%3\"").arg(describe(), table.display(), column));
    }
    return *it;
}

// The cast a bound watermark gets so the comparison runs on the column's own type.
QString PostgresConnector::watermarkCast(const TableRef &table, const QString &column) {
    const QString type = columnTypeName(table, column);
    if (type == QLatin1String("timestamptz"))
        return QStringLiteral("timestamptz");
    if (type == QLatin1String("timestamp") || type == QLatin1String("date"))
        return QStringLiteral("timestamp"); // date compares with timestamp in the server
    if (type == QLatin1String("int2") || type == QLatin1String("int4") || type == QLatin1String("int8"))
        return QStringLiteral("int8");
    throw Error(QStringLiteral("%1: column \"%2\" of %3 (type %4) cannot be a watermark: use a timestamp, "
                               "timestamptz, date or integer column")
                    .arg(describe(), column, table.display(), type));
}

QString PostgresConnector::boundWatermark(const Watermark &value, const QString &cast) const {
    if (value.type() == WatermarkType::Integer) {
        if (cast != QLatin1String("int8"))
            throw Error(
                QStringLiteral("%1: an integer watermark cannot bound a %2 column").arg(describe(), cast));
        return value.nativeText();
    }
    if (cast == QLatin1String("int8"))
        throw Error(
            QStringLiteral("%1: a timestamp watermark cannot bound an integer column").arg(describe()));
    QString text = canonicalTimestamp(value.micros());
    if (cast == QLatin1String("timestamp"))
        text.chop(1); // UTC wall time for a column without zone
    return text;
}

WatermarkType PostgresConnector::detectWatermarkType(const TableRef &table, const ColumnInfo &column) {
    QString type;
    try {
        type = columnTypeName(table, column.name);
    } catch (const Error &) {
        return WatermarkType::None;
    }
    if (type == QLatin1String("timestamp") || type == QLatin1String("timestamptz") ||
        type == QLatin1String("date"))
        return WatermarkType::Timestamp;
    if (type == QLatin1String("int2") || type == QLatin1String("int4") || type == QLatin1String("int8"))
        return WatermarkType::Integer;
    return WatermarkType::None;
}

namespace {

// The select expression that spells a watermark column the way Tidemark keeps it.
QString watermarkText(const QString &quotedColumn, const QString &typname) {
    if (typname == QLatin1String("timestamptz"))
        return QStringLiteral("to_char(%1 AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")
            .arg(quotedColumn);
    if (typname == QLatin1String("timestamp"))
        return QStringLiteral("to_char(%1, 'YYYY-MM-DD\"T\"HH24:MI:SS.US')").arg(quotedColumn);
    if (typname == QLatin1String("date"))
        return QStringLiteral("to_char(%1, 'YYYY-MM-DD')").arg(quotedColumn);
    return quotedColumn + QStringLiteral("::int8::text");
}

Watermark watermarkFromText(const QString &text, WatermarkType type, const QString &what) {
    if (text.isNull())
        return Watermark();
    if (type == WatermarkType::Integer) {
        bool ok = false;
        const qint64 value = text.toLongLong(&ok);
        if (!ok)
            throw Error(QStringLiteral("%1: '%2' is not an integer").arg(what, text));
        return Watermark::integer(value);
    }
    if (auto watermark = Watermark::timestamp(text))
        return *watermark;
    throw Error(QStringLiteral("%1: '%2' is not a timestamp Tidemark can keep (infinity or BC dates)")
                    .arg(what, text));
}

} // namespace

WatermarkProbe PostgresConnector::probeWatermark(const TableRef &table, const QString &column,
                                                 WatermarkType type, const std::optional<Watermark> &) {
    const QString typname = columnTypeName(table, column);
    const BoundSql probeSql =
        ContractSql(SqlDialect::Postgres,
                    watermarkCast(table, column)) // refuses types that cannot be a watermark
            .probeWatermark(table, column, type, watermarkText(QStringLiteral("%1"), typname));
    const QStringList row = query(probeSql.sql, boundParams(probeSql.bindings)).value(0);
    WatermarkProbe probe;
    const QString what =
        QStringLiteral("%1: maximum of \"%2\" in %3").arg(describe(), column, table.display());
    probe.maximum = watermarkFromText(row.value(0), type, what);
    probe.nullCount = row.value(1).toLongLong();
    probe.unorderableCount = row.value(2).toLongLong();
    probe.unorderableLowest = row.value(3);
    probe.unorderableHighest = row.value(4);
    return probe;
}

Watermark PostgresConnector::sampleWatermark(const TableRef &table, const QString &column,
                                             WatermarkType type) {
    const QString typname = columnTypeName(table, column);
    const QString quoted = quoteIdentifier(column);
    const auto rows =
        query(QStringLiteral("SELECT %1 FROM %2 WHERE %3 IS NOT NULL LIMIT 1")
                  .arg(watermarkText(quoted, typname), quoteQualified(table.schema, table.name), quoted));
    if (rows.isEmpty())
        return Watermark();
    return watermarkFromText(
        rows.value(0).value(0), type,
        QStringLiteral("%1: a value of \"%2\" in %3").arg(describe(), column, table.display()));
}

// The window's statements compare a bound watermark on the column's own type.
ContractSql PostgresConnector::windowContract(const WindowQuery &query) {
    return ContractSql(SqlDialect::Postgres, query.watermarkColumn.isEmpty()
                                                 ? QString()
                                                 : watermarkCast(query.table, query.watermarkColumn));
}

// A contract statement's values as text parameters: each watermark spelled for its cast, a
// tiebreak as stored (the parameter takes the column's type from the comparison).
QStringList PostgresConnector::boundParams(const SqlBindings &bindings) const {
    QStringList params;
    for (const SqlBinding &binding : bindings)
        params << (binding.isTiebreak ? tiebreakStoredText(binding.tiebreak).toString()
                                      : boundWatermark(binding.watermark, binding.cast));
    return params;
}

qint64 PostgresConnector::countWindow(const WindowQuery &query) {
    const BoundSql count = windowContract(query).countWindow(query);
    return this->query(count.sql, boundParams(count.bindings)).value(0).value(0).toLongLong();
}

bool PostgresConnector::windowHasRows(const WindowQuery &query) {
    const BoundSql any = windowContract(query).anyInWindow(query);
    return !this->query(any.sql, boundParams(any.bindings)).isEmpty();
}

std::unique_ptr<SourceCursor> PostgresConnector::openCursor(const QString &select, const QStringList &params,
                                                            const QString &what) {
    if (!m_inTransaction && !m_cursorTransaction) {
        execute(QStringLiteral("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"));
        m_cursorTransaction = true;
    }
    const QString name = QStringLiteral("tidemark_cursor_%1").arg(++m_cursorCounter);
    try {
        execute(QStringLiteral("DECLARE %1 NO SCROLL CURSOR FOR %2").arg(quoteIdentifier(name), select),
                params);
    } catch (const Error &error) {
        if (m_cursorTransaction && m_openCursors == 0) {
            m_cursorTransaction = false;
            runQuietly(m_conn, "ROLLBACK");
        }
        throw Error(QStringLiteral("%1 (%2)").arg(error.message(), what));
    }
    ++m_openCursors;
    return std::make_unique<PostgresCursor>(*this, name, what);
}

std::unique_ptr<SourceCursor> PostgresConnector::openWindow(const WindowQuery &query) {
    const BoundSql select = windowContract(query).selectWindow(query);
    return openCursor(select.sql, boundParams(select.bindings),
                      QStringLiteral("reading window of %1").arg(query.table.display()));
}

std::unique_ptr<SourceCursor> PostgresConnector::openScan(const TableRef &table, const QStringList &columns,
                                                          const QStringList &orderBy) {
    QString select = QStringLiteral("SELECT %1 FROM %2")
                         .arg(quoteIdentifierList(columns), quoteQualified(table.schema, table.name));
    if (!orderBy.isEmpty())
        select += QStringLiteral(" ORDER BY ") + quoteIdentifierList(orderBy);
    return openCursor(select, {}, QStringLiteral("scanning %1").arg(table.display()));
}

std::unique_ptr<SourceCursor> PostgresConnector::openChecksums(const ChecksumQuery &query) {
    const QString select =
        postgresBucketSumsQuery(query, quoteQualified(query.table.schema, query.table.name));
    return openCursor(select, {}, QStringLiteral("summing %1").arg(query.table.display()));
}

std::unique_ptr<SourceCursor> PostgresConnector::openBucketScan(const ChecksumQuery &query,
                                                                const QList<int> &buckets) {
    QStringList names;
    for (const ColumnInfo &column : query.columns)
        names << column.name;
    QStringList numbers;
    for (int bucket : buckets)
        numbers << QString::number(bucket);
    const QString select =
        QStringLiteral("SELECT %1 FROM %2 WHERE %3 = ANY($1::int[])")
            .arg(quoteIdentifierList(names), quoteQualified(query.table.schema, query.table.name),
                 postgresChecksumExpression(query.keyColumns(), query.keyCompare(), true));
    return openCursor(select, {QLatin1Char('{') + numbers.join(QLatin1Char(',')) + QLatin1Char('}')},
                      QStringLiteral("reading buckets of %1").arg(query.table.display()));
}

void PostgresConnector::begin() {
    if (m_cursorTransaction)
        throw Error(
            QStringLiteral("%1: cannot begin a write transaction while a read cursor is open on the same "
                           "connection")
                .arg(describe()));
    if (m_inTransaction)
        throw Error(QStringLiteral("%1: a transaction is already open").arg(describe()));
    // One snapshot for the whole transaction: a push-down's INSERT ... SELECT and the query for the
    // position it reached must see the same source rows, or a row committed in between could be
    // counted as copied without being copied.
    execute(QStringLiteral("BEGIN ISOLATION LEVEL REPEATABLE READ"));
    m_inTransaction = true;
    ++m_generation;
}

void PostgresConnector::commit() {
    if (!m_inTransaction)
        return;
    m_inTransaction = false;
    Result result(PQexec(m_conn, "COMMIT"));
    releaseStateLock();
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK)
        fail(QStringLiteral("commit"), resultError(m_conn, result.get()));
    // An aborted transaction "commits" as a rollback without an error.
    if (qstrcmp(PQcmdStatus(result.get()), "COMMIT") != 0)
        fail(QStringLiteral("commit"), QStringLiteral("the transaction was rolled back by the server"));
}

void PostgresConnector::rollback() {
    if (m_inTransaction) {
        m_inTransaction = false;
        if (PQstatus(m_conn) == CONNECTION_OK)
            runQuietly(m_conn, "ROLLBACK");
    }
    releaseStateLock(); // also when begin() itself failed after beginStateWrite() took it
}

QString PostgresConnector::mappedType(const ColumnInfo &column) {
    // A PostgreSQL source keeps its declared type where it is unambiguous; "integer" and
    // "real" are not (a SQLite column may be declared so and hold 64-bit / double values).
    const QString native = column.nativeType;
    switch (column.logical) {
    case LogicalType::Integer:
        return native == QLatin1String("smallint") || native == QLatin1String("bigint")
                   ? native
                   : QStringLiteral("bigint");
    case LogicalType::Real:
        return QStringLiteral("double precision");
    case LogicalType::Numeric: {
        // "numeric(p,s)" from PostgreSQL, "NUMERIC_TEXT(p,s)" from a SQLite column Tidemark made.
        static const QRegularExpression pgNumeric(
            QStringLiteral("^numeric(?:_text)?(\\(\\d+(,-?\\d+)?\\))?$"),
            QRegularExpression::CaseInsensitiveOption);
        const auto match = pgNumeric.match(native);
        return QStringLiteral("numeric") + (match.hasMatch() ? match.captured(1) : QString());
    }
    case LogicalType::Text: {
        static const QRegularExpression pgText(
            QStringLiteral("^(character varying|character)(\\(\\d+\\))?$"));
        return pgText.match(native).hasMatch() ? native : QStringLiteral("text");
    }
    case LogicalType::Blob:
        return QStringLiteral("bytea");
    case LogicalType::Boolean:
        return QStringLiteral("boolean");
    case LogicalType::Date:
        return QStringLiteral("date");
    case LogicalType::Timestamp:
        return QStringLiteral("timestamp");
    case LogicalType::TimestampTz:
        return QStringLiteral("timestamptz");
    case LogicalType::Uuid:
        return QStringLiteral("uuid");
    case LogicalType::Json:
        return native == QLatin1String("json") ? native : QStringLiteral("jsonb");
    case LogicalType::Unknown:
        break;
    }
    return QStringLiteral("text");
}

void PostgresConnector::createTable(const TableRef &table, const QList<ColumnInfo> &columns,
                                    const QStringList &primaryKey) {
    QStringList definitions;
    for (const ColumnInfo &column : columns) {
        QString definition = quoteIdentifier(column.name) + QLatin1Char(' ') + mappedType(column);
        if (column.notNull || primaryKey.contains(column.name))
            definition += QStringLiteral(" NOT NULL");
        definitions << definition;
    }
    if (!primaryKey.isEmpty())
        definitions << QStringLiteral("PRIMARY KEY (%1)").arg(quoteIdentifierList(primaryKey));
    const QString qualified = quoteQualified(table.schema, table.name);
    // Two first runs creating one table (or schema) would collide on the catalog ("duplicate key
    // value violates unique constraint pg_type_typname_nsp_index"). A transaction-level advisory
    // lock per name makes the second creator wait for the first one's commit or rollback; IF NOT
    // EXISTS then sees the winner's table through the catalog, as the state table's creation does.
    const bool local = !m_inTransaction;
    if (local)
        begin();
    try {
        if (query(QStringLiteral("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1"), {table.schema})
                .isEmpty()) {
            lockName(QStringLiteral("schema"), table.schema);
            execute(QStringLiteral("CREATE SCHEMA IF NOT EXISTS %1").arg(quoteIdentifier(table.schema)));
        }
        lockName(QStringLiteral("table"), qualified);
        execute(QStringLiteral("CREATE TABLE IF NOT EXISTS %1 (%2)")
                    .arg(qualified, definitions.join(QStringLiteral(", "))));
        // This transaction's snapshot shows the table only when this statement made it.
        if (!tableExists(table))
            throw Error(QStringLiteral("%1: another writer created target table %2 at the same time; "
                                       "nothing written")
                            .arg(describe(), table.display()));
        if (local)
            commit();
    } catch (const Error &error) {
        if (local)
            rollback();
        throw Error(QStringLiteral("%1 (creating table %2)").arg(error.message(), table.display()));
    }
    m_typeCache.clear();
}

// Held until the transaction ends: the next creator of the same name waits for this one's outcome.
void PostgresConnector::lockName(const QString &kind, const QString &name) {
    query(QStringLiteral("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))"),
          {QStringLiteral("tidemark create ") + kind, name});
}

void PostgresConnector::addColumn(const TableRef &table, const ColumnInfo &column) {
    // IF NOT EXISTS: another run may have added it since this one read the target's columns.
    execute(
        QStringLiteral("ALTER TABLE %1 ADD COLUMN IF NOT EXISTS %2 %3")
            .arg(quoteQualified(table.schema, table.name), quoteIdentifier(column.name), mappedType(column)));
    m_typeCache.clear();
}

std::unique_ptr<RowWriter> PostgresConnector::openWriter(const WriteSpec &spec) {
    // The target's own column types decide what a value turns into (fresh: it may have changed).
    m_typeCache.clear();
    QStringList types;
    for (const ColumnInfo &column : spec.columns) {
        try {
            types << columnTypeName(spec.table, column.name);
        } catch (const Error &) {
            types << QString(); // missing: COPY names it
        }
    }
    return std::make_unique<PostgresWriter>(*this, spec, types);
}

void PostgresConnector::deleteAll(const TableRef &table) {
    // DELETE, not TRUNCATE: readers keep seeing the old contents until the commit.
    execute(QStringLiteral("DELETE FROM %1").arg(quoteQualified(table.schema, table.name)));
}

qint64 PostgresConnector::removeKeys(const TableRef &table, const QStringList &keyColumns,
                                     const QList<QVariantList> &keys, const QString &markColumn,
                                     const QDateTime &markedAt) {
    const QString sql = ContractSql(SqlDialect::Postgres).removeKey(table, keyColumns, markColumn);
    qint64 changed = 0;
    for (const QVariantList &key : keys) {
        QStringList params;
        for (const QVariant &value : key)
            params << (value.typeId() == QMetaType::QByteArray
                           ? QStringLiteral("\\x") + QString::fromLatin1(value.toByteArray().toHex())
                       : value.isNull() ? QString()
                                        : value.toString());
        if (!markColumn.isEmpty())
            params << canonicalTimestamp(markedAt.toMSecsSinceEpoch() * 1000);
        changed += execute(sql, params);
    }
    return changed;
}

qint64 PostgresConnector::deleteNewerThan(const TableRef &table, const QString &watermarkColumn,
                                          const Watermark &position) {
    const QString type = columnTypeName(table, watermarkColumn);
    const bool text = isTextType(type);
    if (!text && type != QLatin1String("numeric")) {
        const BoundSql sql = ContractSql(SqlDialect::Postgres, watermarkCast(table, watermarkColumn))
                                 .deleteNewer(table, watermarkColumn, position);
        return execute(sql.sql, boundParams(sql.bindings));
    }
    // What an older Tidemark created for a SQLite column declared TEXT, NUMERIC or nothing: text
    // holds the source's spellings, so it compares as what it spells; numeric compares as a number.
    const bool integer = position.type() == WatermarkType::Integer;
    const QString cast = integer ? QStringLiteral("int8") : QStringLiteral("timestamptz");
    const QString column = quoteIdentifier(watermarkColumn);
    QString sql = QStringLiteral("DELETE FROM %1 WHERE %2 IS NOT NULL")
                      .arg(quoteQualified(table.schema, table.name), column);
    QStringList params;
    if (!position.isNull()) {
        sql += QStringLiteral(" AND %1%2 > $1::%3")
                   .arg(column, text ? QStringLiteral("::") + cast : QString(), cast);
        params << boundWatermark(position, cast);
    }
    try {
        return execute(sql, params);
    } catch (const Error &error) {
        throw Error(QStringLiteral("%1 (target column \"%2\" of %3 is %4, not %5: a value in it is no %6; "
                                   "convert the column with ALTER TABLE %7 ALTER COLUMN %8 TYPE %5 USING "
                                   "%8::%5, or reload the table with backfill --truncate)")
                        .arg(error.message(), watermarkColumn, table.display(), type, cast,
                             integer ? QStringLiteral("integer") : QStringLiteral("timestamp"),
                             quoteQualified(table.schema, table.name), column));
    }
}

namespace {

QStringList textParams(const QVariantList &values) {
    QStringList params;
    for (const QVariant &value : values)
        params << (value.isValid() && !value.isNull() ? value.toString() : QString());
    return params;
}

} // namespace

// --- the state row: StateRows over this port ---

QString PostgresConnector::stateContext() const {
    return QStringLiteral("%1, table 'tidemark_state'").arg(describe());
}

// Empty when the table does not exist.
QStringList PostgresConnector::stateColumns() {
    QStringList present;
    for (const QStringList &row : query(QStringLiteral(
             "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass('public.tidemark_state') "
             "AND attnum > 0 AND NOT attisdropped")))
        present << row.value(0);
    return present;
}

QList<QVariantList> PostgresConnector::stateQuery(const QString &sql, const QVariantList &values) {
    QList<QVariantList> rows;
    for (const QStringList &row : query(sql, textParams(values))) {
        QVariantList converted;
        for (const QString &value : row)
            converted << (value.isNull() ? QVariant() : QVariant(value));
        rows << converted;
    }
    return rows;
}

qint64 PostgresConnector::stateExec(const QString &sql, const QVariantList &values) {
    return execute(sql, textParams(values));
}

qint64 PostgresConnector::stateTrySet(const QString &sql, const QVariantList &values) {
    bool conflict = false;
    const qint64 changed = execute(sql, textParams(values), &conflict);
    return conflict ? -1 : changed;
}

// Creating or migrating is serialized by an advisory lock: two first writers racing on
// CREATE TABLE IF NOT EXISTS would otherwise collide on the catalog ("duplicate key value
// violates unique constraint pg_type_typname_nsp_index"). IF NOT EXISTS then sees the winner's
// table through the catalog, which (unlike a REPEATABLE READ snapshot) is always current.
bool PostgresConnector::runStateDdl(const QStringList &statements, const QStringList &) {
    const QString key = QStringLiteral("hashtext('tidemark_state')");
    if (m_inTransaction) {
        // Held until this transaction ends, so the next creator sees a committed table.
        execute(QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(key));
        for (const QString &statement : statements)
            execute(statement);
        return false;
    }
    execute(QStringLiteral("SELECT pg_advisory_lock(%1)").arg(key));
    try {
        for (const QString &statement : statements)
            execute(statement);
    } catch (const Error &) {
        query(QStringLiteral("SELECT pg_advisory_unlock(%1)").arg(key));
        throw;
    }
    query(QStringLiteral("SELECT pg_advisory_unlock(%1)").arg(key));
    return true;
}

// Taken before the transaction's snapshot: a second writer of this table waits here and its
// snapshot then holds the first one's commit, so the early check sees the moved position.
void PostgresConnector::beginStateTransaction(const QString &workspaceId, qint64 tableId) {
    if (m_inTransaction || m_cursorTransaction)
        throw Error(QStringLiteral("%1: a transaction is already open").arg(describe()));
    const QStringList lockParams{workspaceId, QString::number(tableId)};
    query(QStringLiteral("SELECT pg_advisory_lock(hashtext($1), hashtext($2))"), lockParams);
    m_stateLock = lockParams;
    begin();
}

void PostgresConnector::releaseStateLock() {
    if (m_stateLock.isEmpty())
        return;
    const QStringList params = m_stateLock;
    m_stateLock.clear();
    if (PQstatus(m_conn) != CONNECTION_OK)
        return; // the server released it with the session
    try {
        query(QStringLiteral("SELECT pg_advisory_unlock(hashtext($1), hashtext($2))"), params);
    } catch (const Error &) {
    }
}

std::optional<TargetState> PostgresConnector::readState(const QString &workspaceId, qint64 tableId) {
    return m_stateRows.read(workspaceId, tableId);
}

std::optional<TargetState> PostgresConnector::beginStateWrite(const QString &workspaceId, qint64 tableId) {
    return m_stateRows.beginWrite(workspaceId, tableId);
}

bool PostgresConnector::compareAndSetState(const std::optional<Position> &expected, const TargetState &next) {
    return m_stateRows.compareAndSet(expected, next);
}

void PostgresConnector::writeState(const TargetState &state) {
    m_stateRows.write(state);
}

void PostgresConnector::clearState(const QString &workspaceId, qint64 tableId) {
    m_stateRows.clear(workspaceId, tableId);
}

bool PostgresConnector::raiseFence(const QString &workspaceId, qint64 tableId, qint64 token,
                                   const std::optional<Position> &expected, qint64 generation) {
    const bool raised = m_stateRows.raiseFence(workspaceId, tableId, token, expected, generation);
    commit();
    return raised;
}

std::optional<StateOwner> PostgresConnector::readTargetOwner(const QString &targetKey) {
    return m_stateRows.owner(targetKey);
}

void PostgresConnector::interrupt() {
    // PQcancel is meant to be called from another thread (or a signal handler); a request that
    // arrives while the session is idle is ignored by the server.
    if (m_cancel) {
        char error[256];
        PQcancel(m_cancel, error, int(sizeof error));
    }
}

PushDownOrigin PostgresConnector::pushDownOrigin() {
    return {QStringLiteral("postgres"), databaseIdentity()};
}

std::optional<PushDownResult> PostgresConnector::pushDown(SourceReader &source, const WindowQuery &window,
                                                          const WriteSpec &write) {
    // A refused row would fail the whole statement; rows that may be skipped stream, one by one.
    if (write.tolerateRejects)
        return std::nullopt;
    if (!m_inTransaction || window.watermarkColumn.isEmpty())
        return std::nullopt;
    QStringList columns;
    for (const ColumnInfo &column : write.columns)
        columns << column.name;
    if (columns != window.columns)
        return std::nullopt;
    const PushDownOrigin origin = source.pushDownOrigin();
    if (origin.engine != QLatin1String("postgres") || origin.database != databaseIdentity())
        return std::nullopt;
    const ContractSql contract = windowContract(window);
    const BoundSql where = contract.windowPredicate(window);
    const QStringList params = boundParams(where.bindings);
    const QString from = quoteQualified(window.table.schema, window.table.name);
    const QString target = quoteQualified(write.table.schema, write.table.name);
    const QString context = QStringLiteral("copying %1 into %2 inside the server")
                                .arg(window.table.display(), write.table.display());
    PushDownResult result;
    try {
        if (write.mode == WriteMode::Merge) {
            if (write.keyColumns.isEmpty())
                throw Error(QStringLiteral("%1: merge into %2 needs key columns")
                                .arg(describe(), write.table.display()));
            execute(mergeStatement(target, columns, write, from, where.sql, QString()), params);
            const BoundSql count = contract.countWindow(window);
            result.rowsRead = query(count.sql, boundParams(count.bindings)).value(0).value(0).toLongLong();
        } else {
            const QString list = quoteIdentifierList(columns);
            result.rowsRead = execute(QStringLiteral("INSERT INTO %1 (%2) SELECT %2 FROM %3 WHERE %4")
                                          .arg(target, list, from, where.sql),
                                      params);
        }
        result.rowsWritten = result.rowsRead;
        if (result.rowsRead > 0) {
            QStringList selected{watermarkText(quoteIdentifier(window.watermarkColumn),
                                               columnTypeName(window.table, window.watermarkColumn))};
            QString tiebreakType;
            if (!window.tiebreakColumn.isEmpty()) {
                const QString tb = quoteIdentifier(window.tiebreakColumn);
                tiebreakType = columnTypeName(window.table, window.tiebreakColumn);
                const bool timestamp = tiebreakType == QLatin1String("timestamptz") ||
                                       tiebreakType == QLatin1String("timestamp") ||
                                       tiebreakType == QLatin1String("date");
                selected << (timestamp ? watermarkText(tb, tiebreakType) : tb + QStringLiteral("::text"));
            }
            const BoundSql reached = contract.positionReached(window, selected);
            const auto rows = query(reached.sql, boundParams(reached.bindings));
            const WatermarkType type =
                window.upper.isNull() ? window.lower.watermark().type() : window.upper.type();
            ColumnInfo watermarkColumn;
            watermarkColumn.name = window.watermarkColumn;
            QVariant tiebreak;
            if (!window.tiebreakColumn.isEmpty() && !rows.value(0).value(1).isNull()) {
                const QString text = rows.value(0).value(1);
                const bool integer = tiebreakType == QLatin1String("int2") ||
                                     tiebreakType == QLatin1String("int4") ||
                                     tiebreakType == QLatin1String("int8");
                tiebreak = integer ? QVariant(text.toLongLong()) : QVariant(text);
            }
            result.reached = Position(
                watermarkFromText(
                    rows.value(0).value(0),
                    type == WatermarkType::None ? detectWatermarkType(window.table, watermarkColumn) : type,
                    context),
                tiebreak);
        }
    } catch (const Error &error) {
        throw Error(QStringLiteral("%1 (%2)").arg(error.message(), context));
    }
    logger("core.connectors")->info("{}: {} rows pushed down", str(context), result.rowsRead);
    return result;
}

} // namespace tidemark
