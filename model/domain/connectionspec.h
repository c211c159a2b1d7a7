// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

namespace tidemark {

enum class ConnectionKind { Sqlite, Postgres, Mysql };

QString connectionKindName(ConnectionKind kind); // "sqlite" | "postgres" | "mysql"
// The kind a stored name stands for (anything unknown reads as sqlite, as before there were three).
ConnectionKind connectionKindFromName(const QString &name);

// A named endpoint. Never holds a password: PostgreSQL secrets come from the environment
// variable named in passwordEnv, from the system keychain entry named by keychainKey, or from
// libpq's ~/.pgpass or service file (model/credentials/credentialstore.h, in that order).
// The largest cap a workspace takes (its max concurrency, a connection's max connections).
inline constexpr int kMaxCap = 10'000;

struct ConnectionSpec {
    qint64 id = 0;
    QString name;
    ConnectionKind kind = ConnectionKind::Sqlite;
    QString path;        // sqlite: the database file
    QString conninfo;    // postgres, mysql: "host=… port=… dbname=… user=…" without password
    QString passwordEnv; // postgres, mysql: name of the environment variable holding the password
    // Iterations using the connection (as source or target) at once, across every process and
    // machine of the workspace; 0 = no cap.
    int maxConnections = 0;
    // Set by Workspace when it reads the connection (not a column): the key of its password in
    // the system keychain, connectionKeychainKey(workspace id, connection id). Empty = no
    // keychain lookup (a connection not saved yet).
    QString keychainKey;
    // Never stored, never a column: a password typed on a form and not saved yet, which a test of
    // the form's settings logs in with first (Connections › Test).
    QString typedPassword;

    // "sqlite /path/file.db" or "postgres host=… dbname=…", for lists and errors.
    QString describe() const;
};

// "<workspace id>/connection/<connection id>": the workspace id (a UUID kept in the workspace's
// meta table) and the connection id are what every process opening the same workspace file
// sees, whatever path it was opened by, and they survive a rename of the connection.
QString connectionKeychainKey(const QString &workspaceId, qint64 connectionId);

// libpq's sslmode values, its default (prefer) first: what a dialog offers for a PostgreSQL
// connection or a server workspace.
QStringList postgresSslModes();

// True when both name one database (the same connection, SQLite file or conninfo).
bool sameDatabase(const ConnectionSpec &a, const ConnectionSpec &b);

// A table of a `kind` database as that database knows it: PostgreSQL defaults the schema to
// public, SQLite ignores case. Two tables of one database are one table when these are equal.
QString tableIdentity(ConnectionKind kind, const QString &table);

} // namespace tidemark
