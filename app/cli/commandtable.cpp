// SPDX-License-Identifier: MIT
#include "app/cli/commandtable.h"

#include "app/cli/commands/commandgroups.h"

namespace tidemark::cli {

namespace {

const char *const kUsageHead =
    "Usage: tidemark-cli [-w FILE | --workspace FILE] COMMAND ...   (env TIDEMARK_WORKSPACE as fallback)\n"
    "A postgresql:// URI instead of FILE names a team's workspace on a server (docs/team.md): schema\n"
    "tidemark, or --workspace-schema NAME (env TIDEMARK_WORKSPACE_SCHEMA); no password in the URI.\n"
    "\n"
    "Commands:\n";

const char *const kUsageTail =
    R"(
Durations: 500ms, 30s, 15m, 2h, 1d (a bare number is seconds). IDs (table, run) are 1 or more.
A number outside its range is refused, naming the command and the option (exit code 2).

A PostgreSQL password is taken from --password-env VAR if given, else from the system keychain
(service "Tidemark"), else libpq reads ~/.pgpass or a service file. TIDEMARK_NO_KEYCHAIN=1 skips
the keychain.

Exit codes: 0 fine; 1 an iteration failed or was cancelled, verify found a difference, or
connection test could not open the connection; 2 usage or validation error (nothing was run).

Help on one command: tidemark-cli COMMAND --help, or tidemark-cli help COMMAND.
)";

QList<CommandSpec> buildTable() {
    QList<CommandSpec> table;
    for (const QList<CommandSpec> &group :
         {workspaceCommands(), connectionCommands(), tableCommands(), runCommands(), historyCommands(),
          verifyCommands(), alertCommands(), scheduleCommands(), serveCommands()})
        table += group;
    return table;
}

// Whether the usage entry starting with `line` is headed by `command` ("table edit") or a group
// ("table"): an entry's first line may list several commands ("table pause ID | table resume ID").
bool heads(const QString &line, const QString &command) {
    // The entry's own words, before the column of explanations.
    const QString text = line.trimmed().section(QStringLiteral("   "), 0, 0);
    for (const QString &part : text.split(QStringLiteral(" | "))) {
        const QString alternative = part.trimmed();
        if (alternative == command || alternative.startsWith(command + QLatin1Char(' ')))
            return true;
    }
    return false;
}

// The entries of the usage text that `command` heads, each with its continuation lines.
QStringList usageEntries(const QString &command) {
    QStringList picked;
    for (const CommandSpec &spec : commandTable()) {
        bool taking = false;
        for (const QString &line : spec.usage.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            if (line.startsWith(QLatin1String("  ")) && !line.at(2).isSpace())
                taking = heads(line, command);
            if (taking)
                picked << line;
        }
    }
    return picked;
}

} // namespace

const QList<CommandSpec> &commandTable() {
    static const QList<CommandSpec> table = buildTable();
    return table;
}

const CommandSpec *findCommand(const QString &name) {
    for (const CommandSpec &spec : commandTable()) {
        if (spec.name == name)
            return &spec;
    }
    return nullptr;
}

bool isCommandGroup(const QString &name) {
    for (const CommandSpec &spec : commandTable()) {
        if (spec.group() == name)
            return true;
    }
    return false;
}

QStringList topLevelCommands() {
    QStringList names;
    for (const CommandSpec &spec : commandTable()) {
        const QString top = spec.group().isEmpty() ? spec.name : spec.group();
        if (!names.contains(top))
            names << top;
    }
    return names;
}

QString usageText() {
    QStringList entries;
    for (const CommandSpec &spec : commandTable()) {
        if (!spec.usage.isEmpty())
            entries << spec.usage;
    }
    return QString::fromUtf8(kUsageHead) + entries.join(QLatin1Char('\n')) + QLatin1Char('\n') +
           QString::fromUtf8(kUsageTail);
}

QString commandUsage(const QString &command) {
    QStringList entries = usageEntries(command);
    if (entries.isEmpty())
        return QString();
    if (const CommandSpec *spec = findCommand(command); spec && !spec->alsoShow.isEmpty())
        entries += usageEntries(spec->alsoShow);
    return QStringLiteral("Usage: tidemark-cli [-w FILE | --workspace FILE] ...\n\n") +
           entries.join(QLatin1Char('\n')) +
           QStringLiteral("\n\nDurations: 500ms, 30s, 15m, 2h, 1d. Exit codes: 0 fine, 1 failed, 2 usage or "
                          "validation error (tidemark-cli --help says more).\n");
}

} // namespace tidemark::cli
