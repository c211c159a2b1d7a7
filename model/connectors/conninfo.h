// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

namespace tidemark {

// Checks a libpq CONNINFO string ("host=… port=… dbname=… user=…" or a postgresql:// URI) as
// `connection add --postgres` takes it: it must parse, and must not contain a password (secrets
// never live in the workspace). Throws ValidationError naming the connection.
void checkConninfo(const QString &connectionName, const QString &conninfo);

// The conninfo with any password removed, for messages and logs.
QString redactConninfo(const QString &conninfo);

} // namespace tidemark
