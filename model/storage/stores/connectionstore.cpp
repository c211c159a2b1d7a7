// SPDX-License-Identifier: MIT
#include "model/storage/stores/connectionstore.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/timestamp.h"
#include "model/storage/stores/storerows.h"

namespace tidemark {

QList<ConnectionSpec> ConnectionStore::connections() {
    Statement stmt(m_db, QStringLiteral("SELECT %1 FROM connections ORDER BY name").arg(kConnectionColumns));
    QList<ConnectionSpec> result;
    while (stmt.step()) {
        result.append(readConnection(stmt));
        result.last().keychainKey = connectionKeychainKey(m_workspaceId, result.last().id);
    }
    return result;
}

std::optional<ConnectionSpec> ConnectionStore::connection(const QString &name) {
    Statement stmt(m_db,
                   QStringLiteral("SELECT %1 FROM connections WHERE name = ?1").arg(kConnectionColumns));
    stmt.bind(1, name);
    if (!stmt.step())
        return std::nullopt;
    ConnectionSpec spec = readConnection(stmt);
    spec.keychainKey = connectionKeychainKey(m_workspaceId, spec.id);
    return spec;
}

qint64 ConnectionStore::add(const ConnectionSpec &spec) {
    if (spec.name.isEmpty())
        throw ValidationError(QStringLiteral("a connection needs a name"));
    Transaction transaction(m_db);
    if (connection(spec.name))
        throw ValidationError(QStringLiteral("connection '%1' already exists").arg(spec.name));
    Statement insert(m_db,
                     QStringLiteral("INSERT INTO connections (name, kind, path, conninfo, "
                                    "password_env, created_at, max_connections) VALUES (?1, ?2, ?3, ?4, "
                                    "?5, ?6, ?7)"));
    insert.bind(1, spec.name)
        .bind(2, connectionKindName(spec.kind))
        .bind(3, textOrNull(spec.path))
        .bind(4, textOrNull(spec.conninfo))
        .bind(5, textOrNull(spec.passwordEnv))
        .bind(6, nowText())
        .bind(7, qint64(spec.maxConnections))
        .run();
    const qint64 id = m_db.lastInsertId();
    transaction.commit();
    return id;
}

void ConnectionStore::update(const ConnectionSpec &spec) {
    Transaction transaction(m_db);
    QString oldName = spec.name;
    qint64 id = spec.id;
    if (id > 0) {
        Statement select(m_db, QStringLiteral("SELECT name FROM connections WHERE id = ?1"));
        select.bind(1, id);
        if (!select.step())
            throw ValidationError(QStringLiteral("connection id %1 does not exist").arg(id));
        oldName = select.columnText(0);
    } else {
        const auto existing = connection(spec.name);
        if (!existing)
            throw ValidationError(QStringLiteral("connection '%1' does not exist").arg(spec.name));
        id = existing->id;
    }
    if (spec.name != oldName && connection(spec.name))
        throw ValidationError(QStringLiteral("connection '%1' already exists").arg(spec.name));
    Statement update(m_db, QStringLiteral("UPDATE connections SET name = ?1, kind = ?2, path = ?3, "
                                          "conninfo = ?4, password_env = ?5, max_connections = ?7 "
                                          "WHERE id = ?6"));
    update.bind(1, spec.name)
        .bind(2, connectionKindName(spec.kind))
        .bind(3, textOrNull(spec.path))
        .bind(4, textOrNull(spec.conninfo))
        .bind(5, textOrNull(spec.passwordEnv))
        .bind(6, id)
        .bind(7, qint64(spec.maxConnections))
        .run();
    if (spec.name != oldName) {
        // Tables refer to connections by name; a rename must not orphan them.
        for (const QString &column :
             {QStringLiteral("source_connection"), QStringLiteral("target_connection")}) {
            Statement rename(m_db, QStringLiteral("UPDATE tables SET %1 = ?1 WHERE %1 = ?2").arg(column));
            rename.bind(1, spec.name).bind(2, oldName).run();
        }
    }
    transaction.commit();
}

void ConnectionStore::remove(const QString &name) {
    Transaction transaction(m_db);
    // Against a table added meanwhile that uses it.
    m_db.lock(StoreLock::ControlTable);
    if (!connection(name))
        throw ValidationError(QStringLiteral("connection '%1' does not exist").arg(name));
    Statement users(m_db, QStringLiteral("SELECT id FROM tables WHERE (source_connection = ?1 OR "
                                         "target_connection = ?1) AND archived_at IS NULL ORDER BY id"));
    users.bind(1, name);
    QStringList ids;
    while (users.step())
        ids.append(QString::number(users.columnInt64(0)));
    if (!ids.isEmpty())
        throw ValidationError(QStringLiteral("connection '%1' is used by table %2; remove those tables first")
                                  .arg(name, ids.join(QStringLiteral(", "))));
    Statement remove(m_db, QStringLiteral("DELETE FROM connections WHERE name = ?1"));
    remove.bind(1, name).run();
    transaction.commit();
}
} // namespace tidemark
