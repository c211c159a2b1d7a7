// SPDX-License-Identifier: MIT
#include "model/storage/storeopen.h"

#include "model/storage/postgres/pgstoredb.h"
#include "model/storage/sqlite/sqlitestoredb.h"
#include "model/storage/workspacelocation.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/sqlquote.h"

#include <QFile>

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

void removeCreatedStore(std::unique_ptr<StoreDb> created, const QString &location) {
    try {
        if (WorkspaceLocation::isServer(location)) {
            created->exec(QStringLiteral("DROP SCHEMA %1 CASCADE")
                              .arg(quoteIdentifier(WorkspaceLocation::resolve(location).schema())));
            return;
        }
        created.reset();
        for (const char *suffix : {"", "-wal", "-shm", "-journal"})
            QFile::remove(location + QLatin1String(suffix));
    } catch (const Error &error) {
        logger("core.storage")
            ->warn("cannot remove the workspace {} just created: {}", str(location), str(error.message()));
    }
}

} // namespace tidemark
