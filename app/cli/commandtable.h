// SPDX-License-Identifier: MIT
#pragma once

#include "app/cli/commandspec.h"

#include <QList>
#include <QString>

namespace tidemark::cli {

// Every command of tidemark-cli, in the order the usage text lists them.
const QList<CommandSpec> &commandTable();
// The command named `name` ("table add"); null when there is none.
const CommandSpec *findCommand(const QString &name);
// Whether `name` is a group of subcommands ("table").
bool isCommandGroup(const QString &name);
// The names of the groups and of the commands without one, in usage order ("init", "connection", ...).
QStringList topLevelCommands();

// The whole usage text (tidemark-cli --help).
QString usageText();
// The usage of one command or group (`COMMAND --help`, `help COMMAND`): the entries of the
// usage text that it heads; empty when it heads none.
QString commandUsage(const QString &command);

} // namespace tidemark::cli
