// SPDX-License-Identifier: MIT
#include "model/connectors/connectorfactory.h"

#include "model/common/error.h"
#include "model/connectors/postgresconnector.h"
#include "model/connectors/sqliteconnector.h"

namespace tidemark {

std::unique_ptr<Connector> openConnector(const ConnectionSpec &spec) {
    switch (spec.kind) {
    case ConnectionKind::Sqlite:
        return std::make_unique<SqliteConnector>(spec);
    case ConnectionKind::Postgres:
        return openPostgresConnector(spec);
    }
    throw Error(QStringLiteral("connection '%1': unknown connection kind").arg(spec.name));
}

} // namespace tidemark
