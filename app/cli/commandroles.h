// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/workspacerole.h"

#include <QString>

namespace tidemark::cli {

// The least role a command needs in a server workspace whose roles are in use (docs/team.md,
// "Roles"); the server's grants hold the same line for psql.
WorkspaceRole roleNeeded(const QString &command);

} // namespace tidemark::cli
