// SPDX-License-Identifier: MIT
#pragma once

// PostgreSQL for tests, through libpq directly (not through a Connector), so a test reads and
// writes the server the way an outside observer would.

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>

struct pg_conn;

namespace tidemark::test {

// TIDEMARK_PG_PORT (scripts/pgcluster.sh prints it); empty when no server is configured.
QString pgPort();
// The conninfo of the test server (database and user "tidemark" on 127.0.0.1).
QString pgConninfo();
// Why a PostgreSQL test cannot run ("" when it can), and whether that is a failure: under
// CI=true a missing server must fail the suite, not skip it.
QString pgUnavailableReason();
bool pgMissingIsFailure();

class PgSession {
public:
    explicit PgSession(const QString &conninfo = pgConninfo());
    ~PgSession();
    PgSession(const PgSession &) = delete;
    PgSession &operator=(const PgSession &) = delete;

    // Runs `sql` with $1, $2, ... bound to `params` (an invalid QVariant binds NULL); throws
    // std::runtime_error naming the statement when the server refuses it.
    void exec(const QString &sql, const QVariantList &params = {});
    // Every row as text (NULL as a null QString).
    QList<QStringList> query(const QString &sql, const QVariantList &params = {});
    // First column of the first row (null when no row).
    QString value(const QString &sql, const QVariantList &params = {});

private:
    pg_conn *m_conn = nullptr;
};

} // namespace tidemark::test
