// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/storedb.h"

#include <memory>

namespace tidemark {

// The StoreDb a workspace location (WorkspaceLocation::text()) names: a SQLite file's, or a
// server schema's. Refusals and errors as Workspace::create and Workspace::open state them.
std::unique_ptr<StoreDb> createStoreDb(const QString &location);
std::unique_ptr<StoreDb> openStoreDb(const QString &location);

} // namespace tidemark
