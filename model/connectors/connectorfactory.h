// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/domain/connectionspec.h"

#include <memory>

namespace tidemark {

// Opens a new connection for the calling thread. Throws Error naming the connection.
std::unique_ptr<Connector> openConnector(const ConnectionSpec &spec);

// The permission bits a SQLite target file gets when Tidemark creates it for rows read from
// `source`: a SQLite source file's own (read and write bits only), so the copy is never more
// open than where its rows come from; 0600 for a server (PostgreSQL) or a source that cannot be
// stat()ed: rows from a database behind a password must not land in a world-readable file.
int targetFileMode(const ConnectionSpec &source);

} // namespace tidemark
