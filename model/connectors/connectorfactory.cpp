// SPDX-License-Identifier: MIT
#include "model/connectors/connectorfactory.h"

#include "model/common/error.h"
#include "model/connectors/mariadbconnector.h"
#include "model/connectors/postgresconnector.h"
#include "model/connectors/sqliteconnector.h"

#include <QFile>

#include <sys/stat.h>

namespace tidemark {

std::unique_ptr<Connector> openConnector(const ConnectionSpec &spec) {
    switch (spec.kind) {
    case ConnectionKind::Sqlite:
        return std::make_unique<SqliteConnector>(spec);
    case ConnectionKind::Postgres:
        return openPostgresConnector(spec);
    case ConnectionKind::Mysql:
        return std::make_unique<MariadbConnector>(spec);
    }
    throw Error(QStringLiteral("connection '%1': unknown connection kind").arg(spec.name));
}

int targetFileMode(const ConnectionSpec &source) {
    if (source.kind != ConnectionKind::Sqlite)
        return 0600;
    struct stat info {};
    if (::stat(QFile::encodeName(source.path).constData(), &info) != 0 || !S_ISREG(info.st_mode))
        return 0600;
    return int(info.st_mode & 0666);
}

} // namespace tidemark
