// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"

#include <QList>
#include <optional>

namespace tidemark {

class StoreDb;

// The workspace's named connections (Workspace's "connections" part states the contract).
class ConnectionStore {
public:
    // `workspaceId` names each connection's keychain entry.
    ConnectionStore(StoreDb &db, const QString &workspaceId)
        : m_db(db)
        , m_workspaceId(workspaceId) {}
    QList<ConnectionSpec> connections();
    std::optional<ConnectionSpec> connection(const QString &name);
    qint64 add(const ConnectionSpec &spec);
    void update(const ConnectionSpec &spec);
    void remove(const QString &name);

private:
    StoreDb &m_db;
    QString m_workspaceId;
};

} // namespace tidemark
