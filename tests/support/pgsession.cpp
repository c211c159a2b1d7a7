// SPDX-License-Identifier: MIT
#include "tests/support/pgsession.h"

#include "tests/support/testsupport.h"

#include <libpq-fe.h>
#include <stdexcept>
#include <vector>

namespace tidemark::test {

QString pgPort() {
    return QString::fromLocal8Bit(qgetenv("TIDEMARK_PG_PORT"));
}

QString pgConninfo() {
    return QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark user=tidemark").arg(pgPort());
}

QString pgUnavailableReason() {
    if (!pgPort().isEmpty())
        return {};
    return QStringLiteral("TIDEMARK_PG_PORT is not set: run scripts/pgcluster.sh start and export the port "
                          "it prints (scripts/test.sh does this)");
}

bool pgMissingIsFailure() {
    return runningUnderCi();
}

PgSession::PgSession(const QString &conninfo) {
    m_conn = PQconnectdb(conninfo.toUtf8().constData());
    if (PQstatus(m_conn) != CONNECTION_OK) {
        const std::string message = PQerrorMessage(m_conn);
        PQfinish(m_conn);
        m_conn = nullptr;
        throw std::runtime_error("connecting to PostgreSQL (" + conninfo.toStdString() + "): " + message);
    }
    // Notices ("drop cascades to ...") are not test output.
    PQsetNoticeProcessor(
        m_conn, [](void *, const char *) {}, nullptr);
}

PgSession::~PgSession() {
    if (m_conn)
        PQfinish(m_conn);
}

void PgSession::exec(const QString &sql, const QVariantList &params) {
    query(sql, params);
}

QList<QStringList> PgSession::query(const QString &sql, const QVariantList &params) {
    std::vector<QByteArray> texts;
    std::vector<const char *> values;
    texts.reserve(params.size());
    for (const QVariant &param : params) {
        const bool isNull = !param.isValid() || param.isNull();
        texts.push_back(isNull ? QByteArray() : param.toString().toUtf8());
        values.push_back(isNull ? nullptr : texts.back().constData());
    }
    PGresult *result = PQexecParams(m_conn, sql.toUtf8().constData(), int(values.size()), nullptr,
                                    values.data(), nullptr, nullptr, 0);
    const ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        const std::string message = PQresultErrorMessage(result);
        PQclear(result);
        throw std::runtime_error(sql.toStdString() + ": " + message);
    }
    QList<QStringList> rows;
    for (int row = 0; row < PQntuples(result); ++row) {
        QStringList cells;
        for (int column = 0; column < PQnfields(result); ++column)
            cells << (PQgetisnull(result, row, column) ? QString()
                                                       : QString::fromUtf8(PQgetvalue(result, row, column)));
        rows << cells;
    }
    PQclear(result);
    return rows;
}

QString PgSession::value(const QString &sql, const QVariantList &params) {
    return query(sql, params).value(0).value(0);
}

} // namespace tidemark::test
