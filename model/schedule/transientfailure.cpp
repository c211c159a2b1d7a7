// SPDX-License-Identifier: MIT
#include "model/schedule/transientfailure.h"

#include <QStringList>

namespace tidemark {

bool isTransientFailure(const QString &error) {
    // The messages libpq, PostgreSQL (SQLSTATE 08*, 40001, 40P01, 55P03, 57P01) and SQLite give
    // for these; the connectors pass them through in the iteration's error.
    static const QStringList transient = {
        QStringLiteral("connection refused"),
        QStringLiteral("could not connect"),
        QStringLiteral("server closed the connection"),
        QStringLiteral("no connection to the server"),
        QStringLiteral("terminating connection"),
        QStringLiteral("connection lost"),
        QStringLiteral("connection reset"),
        QStringLiteral("broken pipe"),
        QStringLiteral("could not receive data from server"),
        QStringLiteral("could not send data to server"),
        QStringLiteral("could not serialize access"),
        QStringLiteral("deadlock detected"),
        QStringLiteral("lock timeout"),
        QStringLiteral("could not obtain lock"),
        QStringLiteral("database is locked"),
        QStringLiteral("database table is locked"),
    };
    for (const QString &pattern : transient) {
        if (error.contains(pattern, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace tidemark
