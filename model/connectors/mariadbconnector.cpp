// SPDX-License-Identifier: MIT
#include "model/connectors/mariadbconnector.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/sqlquote.h"
#include "model/common/timestamp.h"
#include "model/connectors/exactvalue.h"
#include "model/connectors/statetable.h"
#include "model/credentials/credentialstore.h"

#include <mariadb/errmsg.h>
#include <mariadb/mysql.h>

#include <QRegularExpression>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tidemark {
namespace {

// Server error codes (include/mysqld_error.h) that are one row's fault: the value or the key,
// not the connection or the statement. InnoDB rolls back only the failed statement for these.
bool isRowFault(unsigned code) {
    switch (code) {
    case 1048: // ER_BAD_NULL_ERROR
    case 1062: // ER_DUP_ENTRY
    case 1264: // ER_WARN_DATA_OUT_OF_RANGE
    case 1265: // WARN_DATA_TRUNCATED
    case 1292: // ER_TRUNCATED_WRONG_VALUE
    case 1366: // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
    case 1367: // ER_ILLEGAL_VALUE_FOR_TYPE
    case 1406: // ER_DATA_TOO_LONG
    case 1451: // ER_ROW_IS_REFERENCED_2
    case 1452: // ER_NO_REFERENCED_ROW_2
    case 1690: // ER_DATA_OUT_OF_RANGE
    case 3140: // ER_INVALID_JSON_TEXT (MySQL)
    case 4025: // ER_CONSTRAINT_FAILED (MariaDB CHECK, JSON)
        return true;
    default:
        return false;
    }
}

// LOAD DATA LOCAL refused by the server (local_infile=OFF) or by the client library.
bool isLocalInfileRefusal(unsigned code) {
    switch (code) {
    case 1148: // ER_NOT_ALLOWED_COMMAND
    case 4166: // ER_LOAD_INFILE_CAPABILITY_DISABLED
    case CR_UNKNOWN_ERROR:
        return true;
    default:
        return false;
    }
}

constexpr unsigned kDuplicateKey = 1062;
constexpr unsigned kDeadlock = 1213;
constexpr unsigned kLockWaitTimeout = 1205;

QString utf8(const char *text) {
    return text ? QString::fromUtf8(text) : QString();
}

// A value of the stored text ('…' quoted, \' and \\ escaped, as libpq's syntax).
QString unquote(const QString &value) {
    if (value.size() < 2 || !value.startsWith(QLatin1Char('\'')) || !value.endsWith(QLatin1Char('\'')))
        return value;
    QString out;
    const QString inner = value.mid(1, value.size() - 2);
    for (qsizetype i = 0; i < inner.size(); ++i) {
        if (inner[i] == QLatin1Char('\\') && i + 1 < inner.size())
            ++i;
        out += inner[i];
    }
    return out;
}

// "YYYY-MM-DD HH:MM:SS.ffffff": how a watermark or a timestamp value is bound (CAST AS DATETIME(6)).
QString serverTimestamp(qint64 micros) {
    QString text = canonicalTimestamp(micros);
    text.chop(1);                // the session's zone is UTC
    text[10] = QLatin1Char(' '); // MariaDB does not take the T
    return text;
}

bool isIntegerType(const QString &type) {
    static const QStringList types{QStringLiteral("tinyint"),   QStringLiteral("smallint"),
                                   QStringLiteral("mediumint"), QStringLiteral("int"),
                                   QStringLiteral("integer"),   QStringLiteral("bigint")};
    return types.contains(type);
}

bool isTimestampType(const QString &type) {
    return type == QLatin1String("datetime") || type == QLatin1String("timestamp") ||
           type == QLatin1String("date");
}

bool isBinaryType(const QString &type) {
    return type.endsWith(QLatin1String("blob")) || type == QLatin1String("binary") ||
           type == QLatin1String("varbinary");
}

bool isTextType(const QString &type) {
    return type.endsWith(QLatin1String("text")) || type == QLatin1String("char") ||
           type == QLatin1String("varchar") || type == QLatin1String("enum") || type == QLatin1String("set");
}

LogicalType logicalFromType(const QString &dataType, const QString &columnType) {
    if (isIntegerType(dataType))
        // An unsigned bigint holds values past int64: exact only as a decimal.
        return dataType == QLatin1String("bigint") && columnType.contains(QLatin1String("unsigned"))
                   ? LogicalType::Numeric
                   : LogicalType::Integer;
    if (dataType == QLatin1String("year") || dataType == QLatin1String("bit"))
        return LogicalType::Integer;
    if (dataType == QLatin1String("decimal") || dataType == QLatin1String("numeric"))
        return LogicalType::Numeric;
    if (dataType == QLatin1String("float") || dataType == QLatin1String("double") ||
        dataType == QLatin1String("real"))
        return LogicalType::Real;
    if (isBinaryType(dataType))
        return LogicalType::Blob;
    if (dataType == QLatin1String("date"))
        return LogicalType::Date;
    if (dataType == QLatin1String("datetime"))
        return LogicalType::Timestamp;
    if (dataType == QLatin1String("timestamp"))
        return LogicalType::TimestampTz;
    if (dataType == QLatin1String("json"))
        return LogicalType::Json;
    if (dataType == QLatin1String("uuid"))
        return LogicalType::Uuid;
    if (isTextType(dataType) || dataType == QLatin1String("time"))
        return LogicalType::Text;
    return LogicalType::Unknown;
}

// The parameters of one prepared statement, alive until it executed.
class ParamBinder {
public:
    explicit ParamBinder(const QVariantList &values) {
        const auto count = std::size_t(values.size());
        m_binds.resize(count);
        m_integers.resize(count);
        m_doubles.resize(count);
        m_bytes.resize(count);
        m_lengths.resize(count);
        for (std::size_t i = 0; i < count; ++i) {
            const QVariant &value = values[qsizetype(i)];
            MYSQL_BIND &bind = m_binds[i];
            if (!value.isValid() || value.isNull()) {
                bind.buffer_type = MYSQL_TYPE_NULL;
                continue;
            }
            switch (value.typeId()) {
            case QMetaType::LongLong:
            case QMetaType::Int:
            case QMetaType::UInt:
            case QMetaType::Bool:
                m_integers[i] = value.toLongLong();
                bind.buffer_type = MYSQL_TYPE_LONGLONG;
                bind.buffer = &m_integers[i];
                break;
            case QMetaType::Double:
            case QMetaType::Float:
                m_doubles[i] = value.toDouble();
                bind.buffer_type = MYSQL_TYPE_DOUBLE;
                bind.buffer = &m_doubles[i];
                break;
            case QMetaType::QByteArray:
                m_bytes[i] = value.toByteArray();
                bind.buffer_type = MYSQL_TYPE_BLOB;
                break;
            default:
                m_bytes[i] = value.toString().toUtf8();
                bind.buffer_type = MYSQL_TYPE_STRING;
                break;
            }
            if (bind.buffer_type == MYSQL_TYPE_BLOB || bind.buffer_type == MYSQL_TYPE_STRING) {
                bind.buffer = m_bytes[i].data();
                m_lengths[i] = static_cast<unsigned long>(m_bytes[i].size());
                bind.buffer_length = m_lengths[i];
                bind.length = &m_lengths[i];
            }
        }
    }
    MYSQL_BIND *binds() { return m_binds.empty() ? nullptr : m_binds.data(); }

private:
    std::vector<MYSQL_BIND> m_binds;
    std::vector<long long> m_integers;
    std::vector<double> m_doubles;
    std::vector<QByteArray> m_bytes;
    std::vector<unsigned long> m_lengths;
};

struct StmtDeleter {
    void operator()(MYSQL_STMT *stmt) const { mysql_stmt_close(stmt); }
};
using Stmt = std::unique_ptr<MYSQL_STMT, StmtDeleter>;

struct ResultDeleter {
    void operator()(MYSQL_RES *result) const { mysql_free_result(result); }
};
using Result = std::unique_ptr<MYSQL_RES, ResultDeleter>;

// The result columns of a prepared statement, each fetched into a growing buffer as the
// connector asks for it (text, or the server's binary form where that is exact: integers,
// doubles, dates and times).
class ResultBinder {
public:
    explicit ResultBinder(MYSQL_STMT *stmt, bool typed)
        : m_stmt(stmt) {
        Result meta(mysql_stmt_result_metadata(stmt));
        const unsigned count = meta ? mysql_num_fields(meta.get()) : 0;
        m_binds.resize(count);
        m_buffers.resize(count);
        m_lengths.resize(count);
        m_nulls.resize(count);
        m_errors.resize(count);
        m_fields.resize(count);
        for (unsigned i = 0; i < count; ++i) {
            const MYSQL_FIELD *field = mysql_fetch_field_direct(meta.get(), i);
            // Numbers and dates report the binary character set too: only strings can be bytes.
            const bool strings = field->type == MYSQL_TYPE_STRING || field->type == MYSQL_TYPE_VAR_STRING ||
                                 field->type == MYSQL_TYPE_VARCHAR || field->type == MYSQL_TYPE_BLOB ||
                                 field->type == MYSQL_TYPE_TINY_BLOB ||
                                 field->type == MYSQL_TYPE_MEDIUM_BLOB ||
                                 field->type == MYSQL_TYPE_LONG_BLOB || field->type == MYSQL_TYPE_BIT;
            m_fields[i] = {field->type, (field->flags & UNSIGNED_FLAG) != 0,
                           strings && field->charsetnr == 63, utf8(field->name)};
            MYSQL_BIND &bind = m_binds[i];
            bind.buffer_type = typed ? bufferType(m_fields[i]) : MYSQL_TYPE_STRING;
            bind.is_unsigned = m_fields[i].isUnsigned;
            const std::size_t size =
                bind.buffer_type == MYSQL_TYPE_STRING || bind.buffer_type == MYSQL_TYPE_BLOB
                    ? 256
                    : sizeof(MYSQL_TIME);
            m_buffers[i].resize(size);
            bind.buffer = m_buffers[i].data();
            bind.buffer_length = static_cast<unsigned long>(size);
            bind.length = &m_lengths[i];
            bind.is_null = &m_nulls[i];
            bind.error = &m_errors[i];
        }
        if (count > 0 && mysql_stmt_bind_result(stmt, m_binds.data()))
            throw Error(QStringLiteral("binding the result: %1").arg(utf8(mysql_stmt_error(stmt))));
    }

    struct Field {
        enum_field_types type;
        bool isUnsigned;
        bool binary;
        QString name;
    };

    int columnCount() const { return int(m_binds.size()); }
    const Field &field(int column) const { return m_fields[std::size_t(column)]; }
    const MYSQL_BIND &bind(int column) const { return m_binds[std::size_t(column)]; }
    bool isNull(int column) const { return m_nulls[std::size_t(column)]; }
    std::string_view bytes(int column) const {
        return {m_buffers[std::size_t(column)].data(), m_lengths[std::size_t(column)]};
    }
    const MYSQL_TIME &time(int column) const {
        return *reinterpret_cast<const MYSQL_TIME *>(m_buffers[std::size_t(column)].data());
    }
    long long integer(int column) const {
        long long value = 0;
        std::memcpy(&value, m_buffers[std::size_t(column)].data(), sizeof value);
        return value;
    }
    double real(int column) const {
        if (m_binds[std::size_t(column)].buffer_type == MYSQL_TYPE_FLOAT) {
            float value = 0;
            std::memcpy(&value, m_buffers[std::size_t(column)].data(), sizeof value);
            return double(value);
        }
        double value = 0;
        std::memcpy(&value, m_buffers[std::size_t(column)].data(), sizeof value);
        return value;
    }

    // mysql_stmt_fetch: 0 a row, MYSQL_NO_DATA the end, 1 an error. Values cut by a buffer too
    // small are fetched again whole into a buffer grown to fit, which later rows keep.
    int fetch() {
        const int status = mysql_stmt_fetch(m_stmt);
        if (status != MYSQL_DATA_TRUNCATED)
            return status;
        bool rebind = false;
        for (std::size_t i = 0; i < m_binds.size(); ++i) {
            if (!m_errors[i] || m_nulls[i])
                continue;
            if (m_binds[i].buffer_type != MYSQL_TYPE_STRING && m_binds[i].buffer_type != MYSQL_TYPE_BLOB)
                return 1; // a typed value that does not fit its type: not a length matter
            m_buffers[i].resize(std::max<std::size_t>(m_lengths[i], m_buffers[i].size() * 2));
            m_binds[i].buffer = m_buffers[i].data();
            m_binds[i].buffer_length = static_cast<unsigned long>(m_buffers[i].size());
            if (mysql_stmt_fetch_column(m_stmt, &m_binds[i], unsigned(i), 0))
                return 1;
            rebind = true;
        }
        if (rebind && mysql_stmt_bind_result(m_stmt, m_binds.data()))
            return 1;
        return 0;
    }

private:
    static enum_field_types bufferType(const Field &field) {
        switch (field.type) {
        case MYSQL_TYPE_TINY:
        case MYSQL_TYPE_SHORT:
        case MYSQL_TYPE_INT24:
        case MYSQL_TYPE_LONG:
        case MYSQL_TYPE_LONGLONG:
        case MYSQL_TYPE_YEAR:
            return MYSQL_TYPE_LONGLONG;
        case MYSQL_TYPE_FLOAT:
            return MYSQL_TYPE_FLOAT;
        case MYSQL_TYPE_DOUBLE:
            return MYSQL_TYPE_DOUBLE;
        case MYSQL_TYPE_DATE:
        case MYSQL_TYPE_NEWDATE:
            return MYSQL_TYPE_DATE;
        case MYSQL_TYPE_DATETIME:
        case MYSQL_TYPE_DATETIME2:
            return MYSQL_TYPE_DATETIME;
        case MYSQL_TYPE_TIMESTAMP:
        case MYSQL_TYPE_TIMESTAMP2:
            return MYSQL_TYPE_TIMESTAMP;
        default:
            return field.binary ? MYSQL_TYPE_BLOB : MYSQL_TYPE_STRING;
        }
    }

    MYSQL_STMT *m_stmt;
    std::vector<MYSQL_BIND> m_binds;
    std::vector<std::vector<char>> m_buffers;
    std::vector<unsigned long> m_lengths;
    std::vector<my_bool> m_nulls;
    std::vector<my_bool> m_errors;
    std::vector<Field> m_fields;
};

QString sessionSetup() {
    return QStringLiteral("SET SESSION time_zone = '+00:00', "
                          "sql_mode = 'STRICT_ALL_TABLES,ANSI_QUOTES,NO_AUTO_VALUE_ON_ZERO,"
                          "NO_ENGINE_SUBSTITUTION,ERROR_FOR_DIVISION_BY_ZERO', "
                          "net_write_timeout = 3600, net_read_timeout = 3600, autocommit = 1");
}

// The session's local-infile handler: serves MariadbSession::LocalInfile's bytes while a
// loadLocal() is running, and refuses any file the server asks for at another time.
int infileInit(void **state, const char *, void *userdata) {
    auto *infile = static_cast<MariadbSession::LocalInfile *>(userdata);
    *state = infile;
    if (!infile->armed)
        return 1;
    infile->offset = 0;
    return 0;
}

int infileRead(void *state, char *buffer, unsigned int length) {
    auto *infile = static_cast<MariadbSession::LocalInfile *>(state);
    const std::size_t count = std::min<std::size_t>(length, infile->data.size() - infile->offset);
    std::memcpy(buffer, infile->data.data() + infile->offset, count);
    infile->offset += count;
    return int(count);
}

void infileEnd(void *) {}

int infileError(void *, char *message, unsigned int length) {
    std::snprintf(message, length, "%s",
                  "Tidemark sends no file to the server but the rows of a batch it is loading");
    return CR_UNKNOWN_ERROR;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Connection settings.

MysqlParams parseMysqlConninfo(const QString &connectionName, const QString &text) {
    const auto refuse = [&](const QString &why) {
        throw ValidationError(QStringLiteral("connection '%1': --mysql: %2").arg(connectionName, why));
    };
    if (text.trimmed().isEmpty())
        refuse(QStringLiteral("the settings are empty; give at least host=… user=… dbname=…"));
    static const QRegularExpression pair(QStringLiteral(R"(\s*([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|\S*))"));
    MysqlParams params;
    qsizetype offset = 0;
    const QString trimmed = text.trimmed();
    while (offset < trimmed.size()) {
        const auto match = pair.match(trimmed, offset, QRegularExpression::NormalMatch,
                                      QRegularExpression::AnchorAtOffsetMatchOption);
        if (!match.hasMatch())
            refuse(QStringLiteral("cannot read '%1' (write keyword=value pairs)").arg(trimmed.mid(offset)));
        offset = match.capturedEnd();
        const QString key = match.captured(1).toLower();
        const QString value = unquote(match.captured(2));
        bool ok = true;
        if (key == QLatin1String("host")) {
            params.host = value;
        } else if (key == QLatin1String("port")) {
            params.port = value.toUInt(&ok);
            ok = ok && params.port > 0 && params.port < 65536;
        } else if (key == QLatin1String("user")) {
            params.user = value;
        } else if (key == QLatin1String("dbname") || key == QLatin1String("database")) {
            params.database = value;
        } else if (key == QLatin1String("socket")) {
            params.socket = value;
        } else if (key == QLatin1String("sslmode")) {
            params.sslMode = value;
            static const QStringList modes{QStringLiteral("disable"),   QStringLiteral("allow"),
                                           QStringLiteral("prefer"),    QStringLiteral("require"),
                                           QStringLiteral("verify-ca"), QStringLiteral("verify-full")};
            ok = modes.contains(value);
        } else if (key == QLatin1String("sslca")) {
            params.sslCa = value;
        } else if (key == QLatin1String("sslcert")) {
            params.sslCert = value;
        } else if (key == QLatin1String("sslkey")) {
            params.sslKey = value;
        } else if (key == QLatin1String("connect_timeout")) {
            params.connectTimeout = value.toUInt(&ok);
        } else if (key == QLatin1String("password")) {
            refuse(QStringLiteral("a password inside the settings is refused; use --password-env VAR, "
                                  "--password-prompt, --password-stdin or ~/.my.cnf"));
        } else {
            refuse(QStringLiteral("unknown keyword '%1' (known: host, port, user, dbname, socket, sslmode, "
                                  "sslca, sslcert, sslkey, connect_timeout)")
                       .arg(key));
        }
        if (!ok)
            refuse(QStringLiteral("invalid value '%1' for %2").arg(value, key));
    }
    if (params.database.isEmpty())
        refuse(QStringLiteral("dbname=… is required (the database that holds tidemark_state)"));
    return params;
}

// ---------------------------------------------------------------------------------------------
// The session.

MariadbSession::MariadbSession(const ConnectionSpec &spec, const MysqlParams &params,
                               const QByteArray &password)
    : m_spec(spec)
    , m_params(params) {
    m_mysql = mysql_init(nullptr);
    if (!m_mysql)
        throw Error(QStringLiteral("connection '%1': out of memory").arg(spec.name));
    mysql_options(m_mysql, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    // LOAD DATA LOCAL for the writer's batches, only ever through the handler set below.
    const unsigned int localInfile = 1;
    mysql_options(m_mysql, MYSQL_OPT_LOCAL_INFILE, &localInfile);
    mysql_options(m_mysql, MYSQL_OPT_CONNECT_TIMEOUT, &m_params.connectTimeout);
    // ~/.my.cnf's [client] group: a password kept there works like libpq's ~/.pgpass.
    if (password.isEmpty())
        mysql_options(m_mysql, MYSQL_READ_DEFAULT_GROUP, "client");
    const QByteArray ca = params.sslCa.toUtf8(), cert = params.sslCert.toUtf8(), key = params.sslKey.toUtf8();
    if (params.sslMode != QLatin1String("disable") && !params.sslMode.isEmpty()) {
        mysql_ssl_set(m_mysql, key.isEmpty() ? nullptr : key.constData(),
                      cert.isEmpty() ? nullptr : cert.constData(), ca.isEmpty() ? nullptr : ca.constData(),
                      nullptr, nullptr);
        my_bool enforce =
            params.sslMode != QLatin1String("prefer") && params.sslMode != QLatin1String("allow");
        mysql_options(m_mysql, MYSQL_OPT_SSL_ENFORCE, &enforce);
        my_bool verify = params.sslMode.startsWith(QLatin1String("verify"));
        mysql_options(m_mysql, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
    }
    const QByteArray host = params.host.toUtf8(), user = params.user.toUtf8(), db = params.database.toUtf8(),
                     socket = params.socket.toUtf8();
    if (!mysql_real_connect(m_mysql, host.isEmpty() ? nullptr : host.constData(),
                            user.isEmpty() ? nullptr : user.constData(),
                            password.isEmpty() ? nullptr : password.constData(), db.constData(), params.port,
                            socket.isEmpty() ? nullptr : socket.constData(), CLIENT_FOUND_ROWS)) {
        const QString message = utf8(mysql_error(m_mysql));
        mysql_close(m_mysql);
        m_mysql = nullptr;
        fail(QString(), message);
    }
    mysql_set_local_infile_handler(m_mysql, infileInit, infileRead, infileEnd, infileError, &m_infile);
    execute(sessionSetup());
    execute(QStringLiteral("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ"));
}

qint64 MariadbSession::loadLocal(const QString &sql, std::string_view data, unsigned *errorCode,
                                 unsigned *warnings) {
    m_infile = {data, 0, true};
    const qint64 loaded = execute(sql, {}, errorCode);
    m_infile = {};
    *warnings = loaded < 0 ? 0 : mysql_warning_count(m_mysql);
    return loaded;
}

MariadbSession::~MariadbSession() {
    if (m_mysql)
        mysql_close(m_mysql);
}

unsigned long MariadbSession::threadId() const {
    return m_mysql ? mysql_thread_id(m_mysql) : 0;
}

QString MariadbSession::describe() const {
    const QString where =
        m_params.socket.isEmpty()
            ? QStringLiteral("host=%1 port=%2")
                  .arg(m_params.host.isEmpty() ? QStringLiteral("localhost") : m_params.host)
                  .arg(m_params.port ? m_params.port : 3306)
            : QStringLiteral("socket=%1").arg(m_params.socket);
    return QStringLiteral("connection '%1' (%2 dbname=%3)").arg(m_spec.name, where, m_params.database);
}

void MariadbSession::fail(const QString &context, const QString &message) const {
    throw Error(context.isEmpty() ? QStringLiteral("%1: %2").arg(describe(), message)
                                  : QStringLiteral("%1: %2: %3").arg(describe(), context, message));
}

void MariadbSession::failLast(const QString &context) const {
    fail(context, QStringLiteral("%1 (error %2)").arg(utf8(mysql_error(m_mysql))).arg(mysql_errno(m_mysql)));
}

QList<QStringList> MariadbSession::query(const QString &sql, const QVariantList &params) {
    const PositionalSql positional = mysqlPositional(sql);
    const QVariantList ordered = positional.ordered(params);
    const QByteArray text = positional.sql.toUtf8();
    Stmt stmt(mysql_stmt_init(m_mysql));
    if (!stmt)
        failLast(QString());
    const auto stmtError = [&](const QString &context) {
        fail(context, QStringLiteral("%1 (error %2)")
                          .arg(utf8(mysql_stmt_error(stmt.get())))
                          .arg(mysql_stmt_errno(stmt.get())));
    };
    if (mysql_stmt_prepare(stmt.get(), text.constData(), text.size()))
        stmtError(QString());
    ParamBinder binder(ordered);
    if (!ordered.isEmpty() && mysql_stmt_bind_param(stmt.get(), binder.binds()))
        stmtError(QString());
    if (mysql_stmt_execute(stmt.get()))
        stmtError(QString());
    QList<QStringList> rows;
    ResultBinder result(stmt.get(), false);
    if (result.columnCount() == 0)
        return rows;
    int status = 0;
    while ((status = result.fetch()) == 0) {
        QStringList row;
        for (int column = 0; column < result.columnCount(); ++column) {
            const std::string_view bytes = result.bytes(column);
            row << (result.isNull(column) ? QString()
                                          : QString::fromUtf8(bytes.data(), qsizetype(bytes.size())));
        }
        rows << row;
    }
    if (status != MYSQL_NO_DATA || mysql_stmt_errno(stmt.get()) != 0)
        stmtError(QStringLiteral("reading the result"));
    return rows;
}

qint64 MariadbSession::execute(const QString &sql, const QVariantList &params, unsigned *errorCode) {
    if (params.isEmpty()) {
        const QByteArray text = sql.toUtf8();
        if (mysql_real_query(m_mysql, text.constData(), static_cast<unsigned long>(text.size()))) {
            if (errorCode) {
                *errorCode = mysql_errno(m_mysql);
                return -1;
            }
            failLast(QString());
        }
        // Drain a result a statement may have produced, so the connection is ready for the next.
        if (MYSQL_RES *result = mysql_store_result(m_mysql))
            mysql_free_result(result);
        return qint64(mysql_affected_rows(m_mysql));
    }
    const PositionalSql positional = mysqlPositional(sql);
    const QVariantList ordered = positional.ordered(params);
    const QByteArray text = positional.sql.toUtf8();
    Stmt stmt(mysql_stmt_init(m_mysql));
    if (!stmt)
        failLast(QString());
    ParamBinder binder(ordered);
    if (mysql_stmt_prepare(stmt.get(), text.constData(), text.size()) ||
        mysql_stmt_bind_param(stmt.get(), binder.binds()) || mysql_stmt_execute(stmt.get())) {
        if (errorCode) {
            *errorCode = mysql_stmt_errno(stmt.get());
            return -1;
        }
        fail(QString(), QStringLiteral("%1 (error %2)")
                            .arg(utf8(mysql_stmt_error(stmt.get())))
                            .arg(mysql_stmt_errno(stmt.get())));
    }
    return qint64(mysql_stmt_affected_rows(stmt.get()));
}

// ---------------------------------------------------------------------------------------------
// Reading: an unbuffered prepared statement on a session of its own, in a consistent snapshot.

class MariadbCursor : public SourceCursor {
public:
    // `keyColumns` name the row in an error (a zero date); `zeroDates`: TableSpec::zeroDates.
    MariadbCursor(std::unique_ptr<MariadbSession> session, const QString &sql, const QVariantList &params,
                  QString what, const QStringList &keyColumns, ZeroDates zeroDates)
        : m_session(std::move(session))
        , m_what(std::move(what))
        , m_zeroDates(zeroDates) {
        m_session->execute(QStringLiteral("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"));
        const PositionalSql positional = mysqlPositional(sql);
        const QVariantList ordered = positional.ordered(params);
        const QByteArray text = positional.sql.toUtf8();
        m_stmt.reset(mysql_stmt_init(m_session->handle()));
        if (!m_stmt)
            m_session->failLast(m_what);
        ParamBinder binder(ordered);
        if (mysql_stmt_prepare(m_stmt.get(), text.constData(), text.size()) ||
            (!ordered.isEmpty() && mysql_stmt_bind_param(m_stmt.get(), binder.binds())) ||
            mysql_stmt_execute(m_stmt.get()))
            failStatement();
        // No mysql_stmt_store_result: rows come off the network as they are fetched.
        m_result = std::make_unique<ResultBinder>(m_stmt.get(), true);
        for (const QString &key : keyColumns) {
            for (int column = 0; column < m_result->columnCount(); ++column) {
                if (m_result->field(column).name.compare(key, Qt::CaseInsensitive) == 0)
                    m_keyIndexes << column;
            }
        }
    }

    ~MariadbCursor() override {
        // Closing a statement with rows still unread would first read them all off the network:
        // a cancelled read of a large window would only end when the window does.
        if (!m_done)
            mariadb_cancel(m_session->handle());
    }

    bool fetch(RowBatch &batch, int maxRows) override {
        batch.reset(m_result->columnCount());
        if (m_done)
            return false;
        int rows = 0;
        while (rows < maxRows) {
            const int status = m_result->fetch();
            if (status == MYSQL_NO_DATA) {
                // A stream the server or the network dropped can end like a finished one: only the
                // error state tells them apart.
                if (mysql_stmt_errno(m_stmt.get()) != 0 || mysql_errno(m_session->handle()) != 0)
                    failStatement();
                m_done = true;
                break;
            }
            if (status != 0)
                failStatement();
            for (int column = 0; column < m_result->columnCount(); ++column)
                appendValue(batch, column);
            ++rows;
        }
        return rows > 0;
    }

private:
    [[noreturn]] void failStatement() {
        const unsigned code = mysql_stmt_errno(m_stmt.get()) ? mysql_stmt_errno(m_stmt.get())
                                                             : mysql_errno(m_session->handle());
        const QString message = mysql_stmt_errno(m_stmt.get()) ? utf8(mysql_stmt_error(m_stmt.get()))
                                                               : utf8(mysql_error(m_session->handle()));
        m_session->fail(m_what, QStringLiteral("%1 (error %2; the read ended before the last row)")
                                    .arg(message.isEmpty() ? QStringLiteral("the stream ended") : message)
                                    .arg(code));
    }

    void appendValue(RowBatch &batch, int column) {
        if (m_result->isNull(column)) {
            batch.appendNull();
            return;
        }
        const auto &field = m_result->field(column);
        switch (m_result->bind(column).buffer_type) {
        case MYSQL_TYPE_LONGLONG: {
            const long long value = m_result->integer(column);
            if (field.isUnsigned && value < 0) {
                // Past int64: the digits, exact, as a decimal.
                const std::string digits = std::to_string(static_cast<unsigned long long>(value));
                batch.appendText(digits.data(), digits.size());
            } else {
                batch.appendInteger(value);
            }
            return;
        }
        case MYSQL_TYPE_FLOAT:
        case MYSQL_TYPE_DOUBLE:
            batch.appendReal(m_result->real(column));
            return;
        case MYSQL_TYPE_DATE:
        case MYSQL_TYPE_DATETIME:
        case MYSQL_TYPE_TIMESTAMP:
            appendTime(batch, column);
            return;
        default:
            break;
        }
        const std::string_view bytes = m_result->bytes(column);
        if (field.type == MYSQL_TYPE_BIT) {
            // BIT(n) arrives as n bits, big-endian: an integer.
            unsigned long long value = 0;
            for (const char byte : bytes)
                value = (value << 8) | static_cast<unsigned char>(byte);
            if (value > static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
                const std::string digits = std::to_string(value);
                batch.appendText(digits.data(), digits.size());
            } else {
                batch.appendInteger(static_cast<long long>(value));
            }
            return;
        }
        if (m_result->bind(column).buffer_type == MYSQL_TYPE_BLOB)
            batch.appendBlob(bytes.data(), bytes.size());
        else
            batch.appendText(bytes.data(), bytes.size());
    }

    // Tidemark's spelling: "YYYY-MM-DD" for a date, "YYYY-MM-DDTHH:MM:SS.ffffff" for a DATETIME
    // (no zone, like PostgreSQL's timestamp), with "Z" for a TIMESTAMP (read in UTC).
    void appendTime(RowBatch &batch, int column) {
        const MYSQL_TIME &t = m_result->time(column);
        if (t.year == 0 || t.month == 0 || t.day == 0) {
            if (m_zeroDates == ZeroDates::Null) {
                batch.appendNull();
                return;
            }
            m_session->fail(m_what,
                            QStringLiteral("column '%1' holds the zero date %2-%3-%4%5, which no other "
                                           "engine can store: fix the row (UPDATE … SET %1 = NULL), "
                                           "copy zero dates as NULL (table edit ID --zero-dates null) "
                                           "or leave the column out")
                                .arg(m_result->field(column).name)
                                .arg(t.year, 4, 10, QLatin1Char('0'))
                                .arg(t.month, 2, 10, QLatin1Char('0'))
                                .arg(t.day, 2, 10, QLatin1Char('0'))
                                .arg(rowKey()));
        }
        char buffer[40];
        batch.appendText(buffer, formatTime(column, buffer));
    }

    // Tidemark's spelling of a DATE, DATETIME or TIMESTAMP value (appendTime()), in `buffer` (40
    // bytes); returns its length.
    std::size_t formatTime(int column, char *buffer) const {
        const MYSQL_TIME &t = m_result->time(column);
        int size = 0;
        if (m_result->bind(column).buffer_type == MYSQL_TYPE_DATE)
            size = std::snprintf(buffer, 40, "%04u-%02u-%02u", t.year, t.month, t.day);
        else
            size = std::snprintf(buffer, 40, "%04u-%02u-%02uT%02u:%02u:%02u.%06lu%s", t.year, t.month, t.day,
                                 t.hour, t.minute, t.second, t.second_part,
                                 m_result->bind(column).buffer_type == MYSQL_TYPE_TIMESTAMP ? "Z" : "");
        return std::size_t(size);
    }

    // " in the row with id = 7": the fetched row's key, as far as the read names one.
    QString rowKey() const {
        QStringList parts;
        for (const int column : m_keyIndexes) {
            QString value;
            if (m_result->isNull(column))
                value = QStringLiteral("NULL");
            else if (m_result->bind(column).buffer_type == MYSQL_TYPE_LONGLONG)
                value = m_result->field(column).isUnsigned
                            ? QString::number(static_cast<unsigned long long>(m_result->integer(column)))
                            : QString::number(m_result->integer(column));
            else if (const auto type = m_result->bind(column).buffer_type;
                     type == MYSQL_TYPE_DATE || type == MYSQL_TYPE_DATETIME || type == MYSQL_TYPE_TIMESTAMP) {
                char buffer[40];
                value = QString::fromLatin1(buffer, qsizetype(formatTime(column, buffer)));
            } else
                value = QLatin1Char('\'') +
                        QString::fromUtf8(m_result->bytes(column).data(),
                                          qsizetype(m_result->bytes(column).size())) +
                        QLatin1Char('\'');
            parts << QStringLiteral("%1 = %2").arg(m_result->field(column).name, value);
        }
        return parts.isEmpty() ? QString()
                               : QStringLiteral(" in the row with ") + parts.join(QStringLiteral(", "));
    }

    std::unique_ptr<MariadbSession> m_session;
    QString m_what;
    const ZeroDates m_zeroDates;
    Stmt m_stmt;
    std::unique_ptr<ResultBinder> m_result;
    QList<int> m_keyIndexes;
    bool m_done = false;
};

// ---------------------------------------------------------------------------------------------
// Writing. Append and overwrite batches go in as one LOAD DATA LOCAL INFILE each, the rows streamed
// from memory (MariadbSession::loadLocal), the faster way in. LOCAL makes the server turn
// a refused row into a warning (a duplicate key skipped, a value cut), so a batch that comes back
// with fewer rows or any warning is undone to its savepoint and written again as INSERTs, which
// name each refused row. Merges, BIT columns and servers that refuse LOCAL get the INSERTs:
// multi-row prepared statements, each below the server's max_allowed_packet. A statement the
// server refuses for one row's sake is redone row by row (InnoDB undid just that statement) to
// find and report exactly the refused rows.

namespace {

// LOAD DATA's escapes (ESCAPED BY '\\'): the field and line separators, the escape itself, NUL.
void appendEscaped(std::string &out, std::string_view bytes) {
    for (const char c : bytes) {
        switch (c) {
        case '\\':
            out += "\\\\";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\0':
            out += "\\0";
            break;
        default:
            out += c;
        }
    }
}

template <typename Number> void appendNumber(std::string &out, Number value) {
    char buffer[32];
    // The shortest text that reads back as the same double: nothing is rounded on the way in.
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    out.append(buffer, end);
}

// ISO-8601 in any zone as the server spells it in UTC (the session's zone); nullopt when the text
// is not a timestamp (the server's to take or refuse).
std::optional<std::string> serverTimeText(std::string_view bytes, const QString &type) {
    const auto parsed = parseTimestamp(QString::fromUtf8(bytes.data(), qsizetype(bytes.size())));
    if (!parsed)
        return std::nullopt;
    QString text = serverTimestamp(parsed->micros);
    if (type == QLatin1String("date"))
        text.truncate(10);
    return text.toStdString();
}

bool loadDataChosen() {
    // LOAD DATA LOCAL is the default: measured faster in one sitting (bench/mariadb_bench.sh, 1M rows
    // SQLite → MariaDB: 6.0-6.3 s against 6.8-7.1 s, 32 MB against 53 MB; docs/mariadb.md).
    // TIDEMARK_MARIADB_LOAD=0 writes INSERTs.
    return qEnvironmentVariable("TIDEMARK_MARIADB_LOAD") != QLatin1String("0");
}

} // namespace

class MariadbWriter : public RowWriter {
public:
    MariadbWriter(MariadbConnector &connector, WriteSpec spec, QStringList targetTypes)
        : m_connector(connector)
        , m_spec(std::move(spec))
        , m_targetTypes(std::move(targetTypes)) {
        for (const ColumnInfo &column : m_spec.columns)
            m_columnNames << column.name;
        if (m_spec.mode == WriteMode::Merge && m_spec.keyColumns.isEmpty())
            throw Error(QStringLiteral("%1: merge into %2 needs key columns")
                            .arg(m_connector.describe(), m_spec.table.display()));
        m_what = QStringLiteral("writing %1").arg(m_spec.table.display());
        m_head = QStringLiteral("INSERT INTO %1 (%2) VALUES ")
                     .arg(quoteQualified(m_spec.table.schema, m_spec.table.name),
                          quoteIdentifierList(m_columnNames));
        if (m_spec.mode == WriteMode::Merge) {
            const bool textTiebreak =
                !m_spec.tiebreakColumn.isEmpty() && m_columnNames.indexOf(m_spec.tiebreakColumn) >= 0 &&
                isTextType(m_targetTypes.value(m_columnNames.indexOf(m_spec.tiebreakColumn)));
            m_tail = ContractSql(SqlDialect::Mysql, QString(), textTiebreak)
                         .mergeConflict(m_spec, m_columnNames,
                                        quoteQualified(m_spec.table.schema, m_spec.table.name));
        }
        m_loadData = m_spec.mode != WriteMode::Merge && !m_targetTypes.contains(QStringLiteral("bit")) &&
                     loadDataChosen();
        m_loadSql =
            QStringLiteral(R"(LOAD DATA LOCAL INFILE 'tidemark-batch' INTO TABLE %1 CHARACTER SET binary )"
                           R"(FIELDS TERMINATED BY '\t' ESCAPED BY '\\' LINES TERMINATED BY '\n' (%2))")
                .arg(quoteQualified(m_spec.table.schema, m_spec.table.name),
                     quoteIdentifierList(m_columnNames));
        const QString packet =
            m_connector.query(QStringLiteral("SELECT @@max_allowed_packet")).value(0).value(0);
        // The margin covers the statement's text and the packet's own framing.
        m_maxPacket = std::max<qint64>(packet.toLongLong() - 64 * 1024, 64 * 1024);
        m_maxRows = std::max(1, 65535 / std::max<int>(1, int(m_columnNames.size())));
    }

    void writeBatch(const RowBatch &batch, std::vector<RowRejection> &rejected) override {
        if (batch.rowCount() == 0)
            return;
        if (batch.columnCount() != m_columnNames.size())
            throw Error(QStringLiteral("%1: %2: batch has %3 columns, expected %4")
                            .arg(m_connector.describe(), m_what)
                            .arg(batch.columnCount())
                            .arg(m_columnNames.size()));
        std::vector<int> accepted;
        std::vector<qint64> sizes;
        for (int row = 0; row < batch.rowCount(); ++row) {
            QString problem;
            const qint64 size = rowSize(batch, row, problem);
            if (!problem.isEmpty()) {
                rejected.push_back(
                    {row, QStringLiteral("%1: %2: %3").arg(m_connector.describe(), m_what, problem)});
                continue;
            }
            accepted.push_back(row);
            sizes.push_back(size);
        }
        if (accepted.empty() || (m_loadData && loadRows(batch, accepted)))
            return;
        std::vector<int> rows;
        qint64 bytes = 0;
        for (std::size_t i = 0; i < accepted.size(); ++i) {
            if (!rows.empty() && (bytes + sizes[i] > m_maxPacket || int(rows.size()) >= m_maxRows)) {
                insertRows(batch, rows, rejected);
                rows.clear();
                bytes = 0;
            }
            rows.push_back(accepted[i]);
            bytes += sizes[i];
        }
        if (!rows.empty())
            insertRows(batch, rows, rejected);
    }

private:
    // True when the server took every row of `rows` as it was sent; otherwise nothing of them is
    // written (undone to the savepoint) and the INSERTs are to write them.
    bool loadRows(const RowBatch &batch, const std::vector<int> &rows) {
        m_rowsText.clear();
        for (const int row : rows) {
            for (int column = 0; column < batch.columnCount(); ++column) {
                if (column > 0)
                    m_rowsText += '\t';
                appendField(batch, batch.cell(row, column), column);
            }
            m_rowsText += '\n';
        }
        MariadbSession &session = m_connector.session();
        session.execute(QStringLiteral("SAVEPOINT tidemark_load"));
        unsigned code = 0, warnings = 0;
        const qint64 loaded = session.loadLocal(m_loadSql, m_rowsText, &code, &warnings);
        if (code == 0 && loaded == qint64(rows.size()) && warnings == 0)
            return true;
        if (code != 0 && !isRowFault(code) && !isLocalInfileRefusal(code))
            session.failLast(m_what); // a deadlock, a lost connection: the iteration fails
        session.execute(QStringLiteral("ROLLBACK TO SAVEPOINT tidemark_load"));
        if (isLocalInfileRefusal(code)) {
            m_loadData = false;
            logger("core.connectors")
                ->info("{}: {}: LOAD DATA LOCAL refused (error {}); writing with INSERT",
                       str(m_connector.describe()), str(m_what), code);
        }
        return false;
    }

    void appendField(const RowBatch &batch, const Cell &cell, int column) {
        switch (cell.type) {
        case CellType::Null:
            m_rowsText += "\\N";
            return;
        case CellType::Integer:
            appendNumber(m_rowsText, cell.integer);
            return;
        case CellType::Real:
            appendNumber(m_rowsText, cell.real);
            return;
        case CellType::Text:
            if (const QString &type = m_targetTypes.value(column); isTimestampType(type)) {
                if (const auto text = serverTimeText(batch.bytes(cell), type)) {
                    appendEscaped(m_rowsText, *text);
                    return;
                }
            }
            break;
        case CellType::Blob:
            break;
        }
        appendEscaped(m_rowsText, batch.bytes(cell));
    }

    // The bytes a row takes in the execute packet; a reason when it cannot go (too big, inexact).
    qint64 rowSize(const RowBatch &batch, int row, QString &problem) const {
        qint64 size = 0;
        for (int column = 0; column < batch.columnCount(); ++column) {
            const Cell &cell = batch.cell(row, column);
            const QString inexact = inexactCell(batch, cell, column);
            if (!inexact.isEmpty()) {
                problem = inexactValue(m_columnNames[column], batch, cell, inexact);
                return 0;
            }
            const qint64 value = cell.type == CellType::Text || cell.type == CellType::Blob ? cell.length : 8;
            if (value > m_maxPacket) {
                problem = QStringLiteral("column '%1': a value of %2 bytes is larger than the server's "
                                         "max_allowed_packet allows (%3 bytes with Tidemark's margin); raise "
                                         "max_allowed_packet on the server")
                              .arg(m_columnNames[column])
                              .arg(value)
                              .arg(m_maxPacket);
                return 0;
            }
            size += value + 11; // type and length prefix
        }
        return size;
    }

    QString inexactCell(const RowBatch &batch, const Cell &cell, int column) const {
        const QString type = m_targetTypes.value(column);
        switch (cell.type) {
        case CellType::Blob:
            if (!isBinaryType(type) && type != QLatin1String("bit") && !type.isEmpty())
                return QStringLiteral(
                           "cannot be stored exactly in a %1 column (only binary, varbinary and blob "
                           "keep bytes)")
                    .arg(type);
            return QString();
        case CellType::Integer:
            if ((type == QLatin1String("double") && !integerFitsDouble(cell.integer)) ||
                (type == QLatin1String("float") && double(float(cell.integer)) != double(cell.integer)))
                return QStringLiteral("would be rounded by the %1 column").arg(type);
            return QString();
        case CellType::Real:
            if (!std::isfinite(cell.real))
                return QStringLiteral("is not a number MySQL can store (NaN or infinity)");
            if (type == QLatin1String("float") && double(float(cell.real)) != cell.real)
                return QStringLiteral("would be rounded by the %1 column").arg(type);
            return QString();
        case CellType::Text:
            if (isTimestampType(type)) {
                const std::string_view text = batch.bytes(cell);
                const auto parsed = parseTimestamp(QString::fromUtf8(text.data(), qsizetype(text.size())));
                if (!parsed)
                    return QString(); // the server's to take or refuse
                if (parsed->subMicros != 0)
                    return QStringLiteral(
                               "has more than six fraction digits, which the %1 column would round")
                        .arg(type);
                constexpr qint64 kDay = 86400LL * 1000 * 1000;
                if (type == QLatin1String("date") && ((parsed->micros % kDay) + kDay) % kDay != 0)
                    return QStringLiteral("has a time of day, which the date column would drop");
            }
            return QString();
        case CellType::Null:
            break;
        }
        return QString();
    }

    void bindCell(const RowBatch &batch, const Cell &cell, int column, MYSQL_BIND &bind, std::size_t slot) {
        switch (cell.type) {
        case CellType::Null:
            bind.buffer_type = MYSQL_TYPE_NULL;
            return;
        case CellType::Integer:
            bind.buffer_type = MYSQL_TYPE_LONGLONG;
            bind.buffer = const_cast<std::int64_t *>(&cell.integer);
            return;
        case CellType::Real:
            bind.buffer_type = MYSQL_TYPE_DOUBLE;
            bind.buffer = const_cast<double *>(&cell.real);
            return;
        case CellType::Blob:
        case CellType::Text:
            break;
        }
        std::string_view bytes = batch.bytes(cell);
        const QString type = m_targetTypes.value(column);
        if (cell.type == CellType::Text && isTimestampType(type)) {
            if (auto text = serverTimeText(bytes, type)) {
                m_scratch[slot] = std::move(*text);
                bytes = m_scratch[slot];
            }
        }
        bind.buffer_type = cell.type == CellType::Blob ? MYSQL_TYPE_BLOB : MYSQL_TYPE_STRING;
        bind.buffer = const_cast<char *>(bytes.data());
        bind.buffer_length = static_cast<unsigned long>(bytes.size());
        m_lengths[slot] = bind.buffer_length;
        bind.length = &m_lengths[slot];
    }

    // The prepared INSERT for `rows` rows (kept for the batch sizes that recur).
    MYSQL_STMT *statement(int rows) {
        auto it = m_statements.find(rows);
        if (it != m_statements.end())
            return it->second.get();
        if (m_statements.size() > 8)
            m_statements.clear();
        const QString one = QLatin1Char('(') +
                            QStringList(m_columnNames.size(), QStringLiteral("?")).join(QLatin1Char(',')) +
                            QLatin1Char(')');
        QString sql = m_head;
        for (int row = 0; row < rows; ++row) {
            if (row > 0)
                sql += QLatin1Char(',');
            sql += one;
        }
        sql += m_tail;
        const QByteArray text = sql.toUtf8();
        Stmt stmt(mysql_stmt_init(m_connector.session().handle()));
        if (!stmt || mysql_stmt_prepare(stmt.get(), text.constData(), text.size()))
            m_connector.session().fail(m_what, utf8(stmt ? mysql_stmt_error(stmt.get()) : "out of memory"));
        return m_statements.emplace(rows, std::move(stmt)).first->second.get();
    }

    // 0, or the server's error code for a refused statement (only a row fault returns).
    unsigned run(const RowBatch &batch, const std::vector<int> &rows, QString *message) {
        MYSQL_STMT *stmt = statement(int(rows.size()));
        const int columns = batch.columnCount();
        const std::size_t cellCount = rows.size() * std::size_t(columns);
        m_binds.assign(cellCount, MYSQL_BIND{});
        m_lengths.assign(cellCount, 0);
        m_scratch.resize(std::max(m_scratch.size(), cellCount));
        std::size_t slot = 0;
        for (const int row : rows) {
            for (int column = 0; column < columns; ++column, ++slot)
                bindCell(batch, batch.cell(row, column), column, m_binds[slot], slot);
        }
        if (mysql_stmt_bind_param(stmt, m_binds.data()) || mysql_stmt_execute(stmt)) {
            const unsigned code = mysql_stmt_errno(stmt);
            const QString error = QStringLiteral("%1 (error %2)").arg(utf8(mysql_stmt_error(stmt))).arg(code);
            if (!isRowFault(code))
                m_connector.session().fail(m_what, error);
            if (message)
                *message = error;
            return code;
        }
        return 0;
    }

    void insertRows(const RowBatch &batch, const std::vector<int> &rows,
                    std::vector<RowRejection> &rejected) {
        if (run(batch, rows, nullptr) == 0)
            return;
        for (const int row : rows) {
            QString message;
            if (run(batch, {row}, &message) != 0)
                rejected.push_back(
                    {row, QStringLiteral("%1: %2: %3").arg(m_connector.describe(), m_what, message)});
        }
    }

    MariadbConnector &m_connector;
    WriteSpec m_spec;
    QStringList m_targetTypes; // DATA_TYPE of each target column, in batch order
    QStringList m_columnNames;
    QString m_what;
    QString m_head;
    QString m_tail;
    qint64 m_maxPacket = 0;
    int m_maxRows = 1;
    bool m_loadData = false;
    QString m_loadSql;
    std::string m_rowsText; // a batch in LOAD DATA's text form, reused
    std::map<int, Stmt> m_statements;
    std::vector<MYSQL_BIND> m_binds;
    std::vector<unsigned long> m_lengths;
    std::vector<std::string> m_scratch;
};

// ---------------------------------------------------------------------------------------------
// The connector.

MariadbConnector::MariadbConnector(const ConnectionSpec &spec)
    : m_spec(spec)
    , m_params(parseMysqlConninfo(spec.name, spec.conninfo)) {
    m_password = resolvePostgresPassword(spec);
    m_session = std::make_unique<MariadbSession>(spec, m_params, m_password);
    m_threadId = m_session->threadId();
    logger("core.connectors")->debug("connected to {}", str(describe()));
}

MariadbConnector::~MariadbConnector() = default;

QString MariadbConnector::connectionName() const {
    return m_spec.name;
}

QList<QStringList> MariadbConnector::query(const QString &sql, const QVariantList &params) {
    return m_session->query(sql, params);
}

qint64 MariadbConnector::execute(const QString &sql, const QVariantList &params) {
    return m_session->execute(sql, params);
}

TableRef MariadbConnector::parseTableName(const QString &text) const {
    const qsizetype dot = text.indexOf(QLatin1Char('.'));
    if (dot < 0)
        return {m_params.database, text};
    return {text.left(dot), text.mid(dot + 1)};
}

QList<TableRef> MariadbConnector::listTables() {
    QList<TableRef> tables;
    for (const QStringList &row :
         query(QStringLiteral(
                   "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?1 "
                   "AND TABLE_NAME <> 'tidemark_state' ORDER BY 1, 2"),
               {m_params.database}))
        tables << TableRef{row.value(0), row.value(1)};
    return tables;
}

bool MariadbConnector::tableExists(const TableRef &table) {
    return !query(QStringLiteral("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?1 AND "
                                 "TABLE_NAME = ?2"),
                  {table.schema, table.name})
                .isEmpty();
}

TableSchema MariadbConnector::describeTable(const TableRef &table) {
    const auto rows = query(
        QStringLiteral(
            "SELECT c.COLUMN_NAME, c.COLUMN_TYPE, c.DATA_TYPE, c.IS_NULLABLE, "
            "COALESCE((SELECT k.ORDINAL_POSITION FROM information_schema.KEY_COLUMN_USAGE k WHERE "
            "k.TABLE_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME AND k.COLUMN_NAME = "
            "c.COLUMN_NAME "
            "AND k.CONSTRAINT_NAME = 'PRIMARY'), 0), "
            "EXISTS (SELECT 1 FROM information_schema.STATISTICS s WHERE s.TABLE_SCHEMA = c.TABLE_SCHEMA AND "
            "s.TABLE_NAME = c.TABLE_NAME AND s.COLUMN_NAME = c.COLUMN_NAME AND s.SEQ_IN_INDEX = 1) "
            "FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = ?1 AND c.TABLE_NAME = ?2 "
            "ORDER BY c.ORDINAL_POSITION"),
        {table.schema, table.name});
    if (rows.isEmpty())
        throw Error(QStringLiteral("%1: table %2 does not exist").arg(describe(), table.display()));
    TableSchema schema;
    schema.table = table;
    QHash<QString, QString> types;
    for (const QStringList &row : rows) {
        ColumnInfo column;
        column.origin = QStringLiteral("mysql");
        column.name = row.value(0);
        column.nativeType = row.value(1);
        const QString dataType = row.value(2).toLower();
        column.logical = logicalFromType(dataType, row.value(1).toLower());
        column.notNull = row.value(3) == QLatin1String("NO");
        column.primaryKeyOrdinal = row.value(4).toInt();
        column.indexed = row.value(5) == QLatin1String("1");
        schema.columns << column;
        types.insert(column.name.toLower(), dataType);
    }
    m_typeCache.insert(table.schema + QChar(0) + table.name, types);
    return schema;
}

QHash<QString, QString> MariadbConnector::columnTypes(const TableRef &table) {
    const QString key = table.schema + QChar(0) + table.name;
    if (!m_typeCache.contains(key))
        describeTable(table);
    return m_typeCache.value(key);
}

QString MariadbConnector::dataType(const TableRef &table, const QString &column) {
    const QHash<QString, QString> types = columnTypes(table);
    const auto it = types.constFind(column.toLower());
    if (it == types.constEnd())
        throw Error(
            QStringLiteral("%1: table %2 has no column \"%3\"").arg(describe(), table.display(), column));
    return *it;
}

QString MariadbConnector::watermarkCast(const TableRef &table, const QString &column) {
    const QString type = dataType(table, column);
    if (isTimestampType(type))
        return QStringLiteral("DATETIME(6)");
    if (isIntegerType(type))
        return QStringLiteral("SIGNED");
    throw Error(QStringLiteral("%1: column \"%2\" of %3 (type %4) cannot be a watermark: use a DATETIME, "
                               "TIMESTAMP, DATE or integer column")
                    .arg(describe(), column, table.display(), type));
}

WatermarkType MariadbConnector::detectWatermarkType(const TableRef &table, const ColumnInfo &column) {
    QString type;
    try {
        type = dataType(table, column.name);
    } catch (const Error &) {
        return WatermarkType::None;
    }
    if (isTimestampType(type))
        return WatermarkType::Timestamp;
    if (isIntegerType(type))
        return WatermarkType::Integer;
    return WatermarkType::None;
}

ContractSql MariadbConnector::contract(const TableRef &table, const QString &watermarkColumn,
                                       const QString &tiebreakColumn) {
    const bool binaryTiebreak = !tiebreakColumn.isEmpty() && isTextType(dataType(table, tiebreakColumn));
    return ContractSql(SqlDialect::Mysql,
                       watermarkColumn.isEmpty() ? QString() : watermarkCast(table, watermarkColumn),
                       binaryTiebreak);
}

// A watermark bound for CAST(? AS DATETIME(6)) or CAST(? AS SIGNED): all six fraction digits, never
// rounded; a tiebreak bound with its own type, so an integer compares as an integer.
QVariantList MariadbConnector::boundParams(const SqlBindings &bindings) const {
    QVariantList params;
    for (const SqlBinding &binding : bindings) {
        if (binding.isTiebreak)
            params << binding.tiebreak;
        else if (binding.watermark.type() == WatermarkType::Integer)
            params << binding.watermark.nativeText();
        else
            params << serverTimestamp(binding.watermark.micros());
    }
    return params;
}

// The select expression that spells a watermark column the way Tidemark keeps it.
QString MariadbConnector::spelledWatermark(const TableRef &table, const QString &column) {
    const QString type = dataType(table, column);
    if (type == QLatin1String("date"))
        return QStringLiteral("DATE_FORMAT(%1, '%Y-%m-%d')");
    if (type == QLatin1String("datetime"))
        return QStringLiteral("DATE_FORMAT(%1, '%Y-%m-%dT%H:%i:%s.%f')");
    if (type == QLatin1String("timestamp"))
        return QStringLiteral("DATE_FORMAT(%1, '%Y-%m-%dT%H:%i:%s.%fZ')");
    return QStringLiteral("%1");
}

namespace {

Watermark watermarkFromText(const QString &text, WatermarkType type, const QString &what) {
    if (text.isNull())
        return Watermark();
    if (type == WatermarkType::Integer) {
        bool ok = false;
        const qint64 value = text.toLongLong(&ok);
        if (!ok)
            throw Error(QStringLiteral("%1: '%2' is not an integer Tidemark can keep").arg(what, text));
        return Watermark::integer(value);
    }
    if (auto watermark = Watermark::timestamp(text))
        return *watermark;
    throw Error(QStringLiteral("%1: '%2' is not a timestamp Tidemark can keep").arg(what, text));
}

} // namespace

WatermarkProbe MariadbConnector::probeWatermark(const TableRef &table, const QString &column,
                                                WatermarkType type, const std::optional<Watermark> &) {
    const BoundSql probeSql = contract(table, column, QString())
                                  .probeWatermark(table, column, type, spelledWatermark(table, column));
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

Watermark MariadbConnector::sampleWatermark(const TableRef &table, const QString &column,
                                            WatermarkType type) {
    SqlBindings bindings;
    const QString quoted = quoteIdentifier(column);
    const auto rows =
        query(QStringLiteral("SELECT %1 FROM %2 WHERE %3 IS NOT NULL AND %3 >= CAST(?1 AS %4) LIMIT 1")
                  .arg(spelledWatermark(table, column).arg(quoted), quoteQualified(table.schema, table.name),
                       quoted, watermarkCast(table, column)),
              {type == WatermarkType::Integer ? QVariant(std::numeric_limits<qint64>::min())
                                              : QVariant(QStringLiteral("0001-01-01 00:00:00"))});
    if (rows.isEmpty())
        return Watermark();
    return watermarkFromText(
        rows.value(0).value(0), type,
        QStringLiteral("%1: a value of \"%2\" in %3").arg(describe(), column, table.display()));
}

qint64 MariadbConnector::countWindow(const WindowQuery &query) {
    const BoundSql count =
        contract(query.table, query.watermarkColumn, query.tiebreakColumn).countWindow(query);
    return this->query(count.sql, boundParams(count.bindings)).value(0).value(0).toLongLong();
}

bool MariadbConnector::windowHasRows(const WindowQuery &query) {
    const BoundSql any =
        contract(query.table, query.watermarkColumn, query.tiebreakColumn).anyInWindow(query);
    return !this->query(any.sql, boundParams(any.bindings)).isEmpty();
}

std::unique_ptr<SourceCursor> MariadbConnector::openCursor(const QString &sql, const QVariantList &params,
                                                           const QString &what,
                                                           const QStringList &keyColumns) {
    try {
        return std::make_unique<MariadbCursor>(std::make_unique<MariadbSession>(m_spec, m_params, m_password),
                                               sql, params, what, keyColumns, m_zeroDates);
    } catch (const Error &error) {
        throw Error(QStringLiteral("%1 (%2)").arg(error.message(), what));
    }
}

std::unique_ptr<SourceCursor> MariadbConnector::openWindow(const WindowQuery &query) {
    const BoundSql select =
        contract(query.table, query.watermarkColumn, query.tiebreakColumn).selectWindow(query);
    return openCursor(select.sql, boundParams(select.bindings),
                      QStringLiteral("reading window of %1").arg(query.table.display()), query.keyColumns);
}

std::unique_ptr<SourceCursor> MariadbConnector::openScan(const TableRef &table, const QStringList &columns,
                                                         const QStringList &orderBy) {
    QString select = QStringLiteral("SELECT %1 FROM %2")
                         .arg(quoteIdentifierList(columns), quoteQualified(table.schema, table.name));
    if (!orderBy.isEmpty()) {
        QStringList order;
        for (const QString &column : orderBy)
            order << (isTextType(dataType(table, column)) ? QStringLiteral("BINARY ") : QString()) +
                         quoteIdentifier(column);
        select += QStringLiteral(" ORDER BY ") + order.join(QStringLiteral(", "));
    }
    return openCursor(select, {}, QStringLiteral("scanning %1").arg(table.display()), orderBy);
}

void MariadbConnector::begin() {
    if (m_inTransaction)
        throw Error(QStringLiteral("%1: a transaction is already open").arg(describe()));
    execute(QStringLiteral("START TRANSACTION"));
    m_inTransaction = true;
}

void MariadbConnector::commit() {
    if (!m_inTransaction)
        return;
    m_inTransaction = false;
    m_stateLock.clear();
    execute(QStringLiteral("COMMIT"));
}

void MariadbConnector::rollback() {
    m_stateLock.clear();
    if (!m_inTransaction)
        return;
    m_inTransaction = false;
    unsigned code = 0;
    m_session->execute(QStringLiteral("ROLLBACK"), {}, &code); // the connection may be gone
}

void MariadbConnector::afterImplicitCommit() {
    if (!m_inTransaction)
        return;
    execute(QStringLiteral("START TRANSACTION"));
    if (!m_stateLock.isEmpty()) // the table exists: it was made before the transaction opened
        query(StateTableSql(StateDialect::Mysql).select(StateTableSql::columnNames(), true), m_stateLock);
}

QString MariadbConnector::mappedType(const ColumnInfo &column, bool key) {
    const bool mysql = column.origin == QLatin1String("mysql");
    const QString native = column.nativeType;
    switch (column.logical) {
    case LogicalType::Integer:
        return mysql ? native : QStringLiteral("BIGINT");
    case LogicalType::Real:
        return mysql ? native : QStringLiteral("DOUBLE");
    case LogicalType::Numeric: {
        if (mysql)
            return native;
        // numeric(p,s) of PostgreSQL, NUMERIC_TEXT(p,s) of a SQLite table Tidemark made: DECIMAL holds up
        // to 65 digits, 30 after the point; anything wider (or unbounded) keeps its digits as text.
        static const QRegularExpression bounded(QStringLiteral(R"(^numeric(?:_text)?\((\d+)(?:,(\d+))?\)$)"),
                                                QRegularExpression::CaseInsensitiveOption);
        const auto match = bounded.match(native);
        if (match.hasMatch() && match.captured(1).toInt() <= 65 && match.captured(2).toInt() <= 30)
            return QStringLiteral("DECIMAL(%1,%2)")
                .arg(match.captured(1).toInt())
                .arg(match.captured(2).toInt());
        return key ? QStringLiteral("VARCHAR(255)") : QStringLiteral("LONGTEXT");
    }
    case LogicalType::Text:
        if (mysql && !(key && native.contains(QLatin1String("text"), Qt::CaseInsensitive)))
            return native;
        return key ? QStringLiteral("VARCHAR(255)") : QStringLiteral("LONGTEXT");
    case LogicalType::Blob:
        if (mysql && !(key && native.contains(QLatin1String("blob"), Qt::CaseInsensitive)))
            return native;
        return key ? QStringLiteral("VARBINARY(255)") : QStringLiteral("LONGBLOB");
    case LogicalType::Boolean:
        return QStringLiteral("BOOLEAN");
    case LogicalType::Date:
        return QStringLiteral("DATE");
    case LogicalType::Timestamp:
        return mysql ? native : QStringLiteral("DATETIME(6)");
    case LogicalType::TimestampTz:
        // TIMESTAMP ends in 2038: a value from elsewhere goes into DATETIME(6), in UTC.
        return mysql ? native : QStringLiteral("DATETIME(6)");
    case LogicalType::Uuid:
        return QStringLiteral("CHAR(36)");
    case LogicalType::Json:
        return mysql ? native : QStringLiteral("JSON");
    case LogicalType::Unknown:
        break;
    }
    return key ? QStringLiteral("VARCHAR(255)") : QStringLiteral("LONGTEXT");
}

void MariadbConnector::createTable(const TableRef &table, const QList<ColumnInfo> &columns,
                                   const QStringList &primaryKey) {
    QStringList definitions;
    for (const ColumnInfo &column : columns) {
        const bool key = primaryKey.contains(column.name, Qt::CaseInsensitive);
        QString definition = quoteIdentifier(column.name) + QLatin1Char(' ') + mappedType(column, key);
        if (column.notNull || key)
            definition += QStringLiteral(" NOT NULL");
        else if (mappedType(column, key).startsWith(QLatin1String("timestamp"), Qt::CaseInsensitive))
            definition += QStringLiteral(" NULL"); // not the first TIMESTAMP's implicit default
        definitions << definition;
    }
    if (!primaryKey.isEmpty())
        definitions << QStringLiteral("PRIMARY KEY (%1)").arg(quoteIdentifierList(primaryKey));
    // Binary text: keys that differ only in case or trailing spaces stay two rows, as in the source.
    execute(QStringLiteral("CREATE TABLE IF NOT EXISTS %1 (%2) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 "
                           "COLLATE=utf8mb4_bin")
                .arg(quoteQualified(table.schema, table.name), definitions.join(QStringLiteral(", "))));
    m_typeCache.clear();
    afterImplicitCommit();
}

void MariadbConnector::addColumn(const TableRef &table, const ColumnInfo &column) {
    execute(
        QStringLiteral("ALTER TABLE %1 ADD COLUMN IF NOT EXISTS %2 %3")
            .arg(quoteQualified(table.schema, table.name), quoteIdentifier(column.name), mappedType(column)));
    m_typeCache.clear();
    afterImplicitCommit();
}

std::unique_ptr<RowWriter> MariadbConnector::openWriter(const WriteSpec &spec) {
    m_typeCache.clear();
    const QHash<QString, QString> types = columnTypes(spec.table);
    QStringList targetTypes;
    for (const ColumnInfo &column : spec.columns)
        targetTypes << types.value(column.name.toLower());
    return std::make_unique<MariadbWriter>(*this, spec, targetTypes);
}

void MariadbConnector::deleteAll(const TableRef &table) {
    // DELETE, not TRUNCATE: TRUNCATE would commit the transaction.
    execute(QStringLiteral("DELETE FROM %1").arg(quoteQualified(table.schema, table.name)));
}

qint64 MariadbConnector::removeKeys(const TableRef &table, const QStringList &keyColumns,
                                    const QList<QVariantList> &keys, const QString &markColumn,
                                    const QDateTime &markedAt) {
    // A DATETIME key reads back in Tidemark's spelling, which the server does not take.
    QStringList types;
    for (const QString &column : keyColumns)
        types << dataType(table, column);
    const QString sql = contract(table, QString(), QString()).removeKey(table, keyColumns, markColumn);
    qint64 changed = 0;
    for (const QVariantList &key : keys) {
        QVariantList params;
        for (int i = 0; i < int(key.size()); ++i) {
            const QVariant &value = key[i];
            if (value.typeId() == QMetaType::QString && isTimestampType(types[i])) {
                if (const auto text = serverTimeText(value.toString().toStdString(), types[i])) {
                    params << QString::fromStdString(*text);
                    continue;
                }
            }
            params << value;
        }
        if (!markColumn.isEmpty())
            params << serverTimestamp(markedAt.toMSecsSinceEpoch() * 1000);
        changed += execute(sql, params);
    }
    return changed;
}

qint64 MariadbConnector::deleteNewerThan(const TableRef &table, const QString &watermarkColumn,
                                         const Watermark &position) {
    const BoundSql sql =
        contract(table, watermarkColumn, QString()).deleteNewer(table, watermarkColumn, position);
    return execute(sql.sql, boundParams(sql.bindings));
}

// --- the state row ---

QString MariadbConnector::stateContext() const {
    return QStringLiteral("%1, table 'tidemark_state'").arg(describe());
}

// Empty when the table does not exist.
QStringList MariadbConnector::stateColumns() {
    QStringList present;
    for (const QStringList &row :
         query(QStringLiteral("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE "
                              "TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'tidemark_state'")))
        present << row.value(0);
    return present;
}

QList<QVariantList> MariadbConnector::stateQuery(const QString &sql, const QVariantList &values) {
    QList<QVariantList> rows;
    for (const QStringList &row : query(sql, values)) {
        QVariantList converted;
        for (const QString &value : row)
            converted << (value.isNull() ? QVariant() : QVariant(value));
        rows << converted;
    }
    return rows;
}

qint64 MariadbConnector::stateExec(const QString &sql, const QVariantList &values) {
    return execute(sql, values);
}

qint64 MariadbConnector::stateTrySet(const QString &sql, const QVariantList &values) {
    unsigned code = 0;
    const qint64 changed = m_session->execute(sql, values, &code);
    if (changed < 0) {
        // Another writer inserted the row first, or a deadlock chose this transaction (InnoDB then
        // rolled it back whole): either way this commit must not go through.
        if (code == kDuplicateKey || code == kDeadlock || code == kLockWaitTimeout)
            return -1;
        m_session->fail(QStringLiteral("writing the state row"), QStringLiteral("server error %1").arg(code));
    }
    return changed;
}

// DDL commits implicitly in MySQL, so the table is created or migrated before any transaction opens;
// IF NOT EXISTS lets two first writers race harmlessly.
bool MariadbConnector::runStateDdl(const QStringList &statements, const QStringList &) {
    if (m_inTransaction)
        throw Error(QStringLiteral("%1: tidemark_state must be created before the write transaction opens")
                        .arg(describe()));
    for (const QString &statement : statements)
        execute(statement);
    return true;
}

// The row (or, while there is none, the gap where it would go) is then locked FOR UPDATE: a second
// writer of the same table waits there until this one commits or rolls back, and then reads the
// moved position, as a locking read sees the latest commit.
void MariadbConnector::beginStateTransaction(const QString &workspaceId, qint64 tableId) {
    begin();
    m_stateLock = {workspaceId, QVariant(tableId)};
}

std::optional<TargetState> MariadbConnector::readState(const QString &workspaceId, qint64 tableId) {
    return m_stateRows.read(workspaceId, tableId);
}

std::optional<TargetState> MariadbConnector::beginStateWrite(const QString &workspaceId, qint64 tableId) {
    return m_stateRows.beginWrite(workspaceId, tableId);
}

bool MariadbConnector::compareAndSetState(const std::optional<Position> &expected, const TargetState &next) {
    return m_stateRows.compareAndSet(expected, next);
}

void MariadbConnector::writeState(const TargetState &state) {
    m_stateRows.write(state);
}

void MariadbConnector::clearState(const QString &workspaceId, qint64 tableId) {
    m_stateRows.clear(workspaceId, tableId);
}

bool MariadbConnector::raiseFence(const QString &workspaceId, qint64 tableId, qint64 token,
                                  const std::optional<Position> &expected, qint64 generation) {
    const bool raised = m_stateRows.raiseFence(workspaceId, tableId, token, expected, generation);
    commit();
    return raised;
}

std::optional<StateOwner> MariadbConnector::readTargetOwner(const QString &targetKey) {
    return m_stateRows.owner(targetKey);
}

// From any thread: a second, short session asks the server to stop this one's statement.
void MariadbConnector::interrupt() {
    const unsigned long id = m_threadId;
    if (id == 0)
        return;
    try {
        MariadbSession killer(m_spec, m_params, m_password);
        killer.execute(QStringLiteral("KILL QUERY ?1"), {QVariant(qint64(id))});
    } catch (const Error &error) {
        logger("core.connectors")->debug("interrupt: {}", str(error.message()));
    }
}

PushDownOrigin MariadbConnector::pushDownOrigin() {
    if (m_identity.isEmpty())
        m_identity =
            query(QStringLiteral("SELECT CONCAT(@@hostname, ':', @@port, ':', @@datadir)")).value(0).value(0);
    return {QStringLiteral("mysql"), m_identity};
}

// Same server: one INSERT … SELECT inside this transaction. Under REPEATABLE READ it takes shared
// next-key locks on the window's source rows, so nothing can enter or change the window until the
// commit, and the position read after it with a locking read sees exactly the rows copied.
std::optional<PushDownResult> MariadbConnector::pushDown(SourceReader &source, const WindowQuery &window,
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
    if (origin.engine != QLatin1String("mysql") || origin.database != pushDownOrigin().database)
        return std::nullopt;
    const QString context = QStringLiteral("copying %1 into %2 inside the server")
                                .arg(window.table.display(), write.table.display());
    PushDownResult result;
    try {
        const ContractSql contract =
            this->contract(window.table, window.watermarkColumn, window.tiebreakColumn);
        const BoundSql select = contract.selectWindow(window);
        const QString target = quoteQualified(write.table.schema, write.table.name);
        QString sql =
            QStringLiteral("INSERT INTO %1 (%2) ").arg(target, quoteIdentifierList(columns)) + select.sql;
        if (write.mode == WriteMode::Merge) {
            if (write.keyColumns.isEmpty())
                throw Error(QStringLiteral("%1: merge into %2 needs key columns")
                                .arg(describe(), write.table.display()));
            const bool textTiebreak =
                !write.tiebreakColumn.isEmpty() && isTextType(dataType(write.table, write.tiebreakColumn));
            sql +=
                ContractSql(SqlDialect::Mysql, QString(), textTiebreak).mergeConflict(write, columns, target);
        }
        result.rowsRead = execute(sql, boundParams(select.bindings));
        if (write.mode == WriteMode::Merge) {
            // An upsert counts an updated row twice and an unchanged one not at all: count the window.
            const BoundSql count = contract.countWindow(window);
            result.rowsRead =
                query(count.sql + QStringLiteral(" LOCK IN SHARE MODE"), boundParams(count.bindings))
                    .value(0)
                    .value(0)
                    .toLongLong();
        }
        result.rowsWritten = result.rowsRead;
        if (result.rowsRead > 0) {
            QStringList selected{spelledWatermark(window.table, window.watermarkColumn)
                                     .arg(quoteIdentifier(window.watermarkColumn))};
            if (!window.tiebreakColumn.isEmpty())
                selected << quoteIdentifier(window.tiebreakColumn);
            const BoundSql reached = contract.positionReached(window, selected);
            const QStringList row =
                query(reached.sql + QStringLiteral(" LOCK IN SHARE MODE"), boundParams(reached.bindings))
                    .value(0);
            const WatermarkType type =
                window.upper.isNull() ? window.lower.watermark().type() : window.upper.type();
            QVariant tiebreak;
            if (!window.tiebreakColumn.isEmpty() && !row.value(1).isNull()) {
                const QString tiebreakType = dataType(window.table, window.tiebreakColumn);
                tiebreak = isIntegerType(tiebreakType)  ? QVariant(row.value(1).toLongLong())
                           : isBinaryType(tiebreakType) ? QVariant(row.value(1).toUtf8())
                                                        : QVariant(row.value(1));
            }
            result.reached = Position(watermarkFromText(row.value(0), type, context), tiebreak);
        }
    } catch (const Error &error) {
        throw Error(QStringLiteral("%1 (%2)").arg(error.message(), context));
    }
    logger("core.connectors")->info("{}: {} rows pushed down", str(context), result.rowsRead);
    return result;
}

} // namespace tidemark
