// SPDX-License-Identifier: MIT
#include "model/storage/storeopen.h"

#include "model/storage/postgres/pgstoredb.h"
#include "model/storage/sqlite/sqlitestoredb.h"
#include "model/storage/workspacelocation.h"

namespace tidemark {

std::unique_ptr<StoreDb> createStoreDb(const QString &location) {
    if (WorkspaceLocation::isServer(location))
        return PgStoreDb::create(WorkspaceLocation::resolve(location));
    return SqliteStoreDb::create(location);
}

std::unique_ptr<StoreDb> openStoreDb(const QString &location) {
    if (WorkspaceLocation::isServer(location))
        return PgStoreDb::open(WorkspaceLocation::resolve(location));
    return SqliteStoreDb::open(location);
}

} // namespace tidemark
