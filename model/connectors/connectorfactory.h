// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/domain/connectionspec.h"

#include <memory>

namespace tidemark {

// Opens a new connection for the calling thread. Throws Error naming the connection.
std::unique_ptr<Connector> openConnector(const ConnectionSpec &spec);

} // namespace tidemark
