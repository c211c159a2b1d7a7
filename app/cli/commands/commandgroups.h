// SPDX-License-Identifier: MIT
#pragma once

#include "app/cli/commandspec.h"

#include <QList>

namespace tidemark::cli {

// Options several commands take, said the same way everywhere.
inline const OptionSpec kJsonOption{QStringLiteral("json"), {}, QStringLiteral("prints JSON, one line")};
inline const OptionSpec kYesOption{
    QStringLiteral("yes"), {}, QStringLiteral("confirms what the command warns about")};

// The commands of each group, declared in app/cli/commands/<group>.cpp, in usage order.
QList<CommandSpec> workspaceCommands();  // init, workspace export / apply
QList<CommandSpec> connectionCommands(); // connection ...
QList<CommandSpec> tableCommands();      // table ...
QList<CommandSpec> runCommands();        // run, backfill
QList<CommandSpec> historyCommands();    // history
QList<CommandSpec> verifyCommands();     // verify
QList<CommandSpec> alertCommands();      // alert ...
QList<CommandSpec> scheduleCommands();   // schedule ...
QList<CommandSpec> serveCommands();      // serve, runners

} // namespace tidemark::cli
