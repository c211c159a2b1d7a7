// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <memory>

namespace tidemark {
class Workspace;
}

namespace tidemark::cli {

class SubcommandParser;

// The workspace a command works on, found and opened in this one place: -w/--workspace
// (before the command or among its options), else $TIDEMARK_WORKSPACE.
class CliSession {
public:
    // The command being run ("table add"): what openWorkspace() checks the user's role against.
    void setCommand(const QString &name) { m_command = name; }
    // A -w/--workspace given on the command line; the last one given wins.
    void setWorkspaceOption(const QString &location) { m_workspace = location; }
    // The same, among a command's options (every command takes -w/--workspace).
    void takeOptions(const SubcommandParser &parser);
    // The workspace file, absolute; a ValidationError when none is given.
    QString workspacePath() const;
    // Opens the workspace; a missing or foreign file is a ValidationError (exit 2), and so is a
    // server workspace where the user's role is below what the command needs. Runs of dead
    // processes it closes as interrupted (not as a viewer, who may not) get their alerts sent
    // before it returns. Installs the log file beside it on first use.
    std::unique_ptr<Workspace> openWorkspace();
    // The log file beside the workspace `path` (a file that cannot be written only warns).
    void installLogging(const QString &path);

private:
    QString m_workspace;
    QString m_command;
    bool m_loggingInstalled = false;
};

// --workspace-schema NAME: what TIDEMARK_WORKSPACE_SCHEMA says, for this process and the ones it
// starts (model/storage/workspacelocation.h reads it).
void setWorkspaceSchema(const QString &name);

} // namespace tidemark::cli
