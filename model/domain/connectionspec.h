// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark {

enum class ConnectionKind { Sqlite, Postgres };

QString connectionKindName(ConnectionKind kind); // "sqlite" | "postgres"

// A named endpoint. Never holds a password: PostgreSQL secrets come from the environment
// variable named in passwordEnv, from libpq's ~/.pgpass or service file.
struct ConnectionSpec {
    qint64 id = 0;
    QString name;
    ConnectionKind kind = ConnectionKind::Sqlite;
    QString path;        // sqlite: the database file
    QString conninfo;    // postgres: "host=… port=… dbname=… user=…" without password
    QString passwordEnv; // postgres: name of the environment variable holding the password

    // "sqlite /path/file.db" or "postgres host=… dbname=…", for lists and errors.
    QString describe() const;
};

} // namespace tidemark
