// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/storedb.h"

#include <memory>

namespace tidemark {

// The StoreDb a workspace location (WorkspaceLocation::text()) names: a SQLite file's, or a
// server schema's. Refusals and errors as Workspace::create and Workspace::open state them.
std::unique_ptr<StoreDb> createStoreDb(const QString &location);
std::unique_ptr<StoreDb> openStoreDb(const QString &location);
// Removes a workspace createStoreDb() made moments ago, when filling it failed: its file, or its
// schema with everything in it. Never for one that was there before. Logs what it cannot remove.
void removeCreatedStore(std::unique_ptr<StoreDb> created, const QString &location);

} // namespace tidemark
