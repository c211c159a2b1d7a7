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
    // A -w/--workspace given on the command line; the last one given wins.
    void setWorkspaceOption(const QString &location) { m_workspace = location; }
    // The same, among a command's options (every command takes -w/--workspace).
    void takeOptions(const SubcommandParser &parser);
    // The workspace file, absolute; a ValidationError when none is given.
    QString workspacePath() const;
    // Opens the workspace; a missing or foreign file is a ValidationError (exit 2). Runs of dead
    // processes it closes as interrupted get their alerts sent before it returns. Installs the
    // log file beside it on first use.
    std::unique_ptr<Workspace> openWorkspace();
    // The log file beside the workspace `path` (a file that cannot be written only warns).
    void installLogging(const QString &path);

private:
    QString m_workspace;
    bool m_loggingInstalled = false;
};

// --workspace-schema NAME: what TIDEMARK_WORKSPACE_SCHEMA says, for this process and the ones it
// starts (model/storage/workspacelocation.h reads it).
void setWorkspaceSchema(const QString &name);

} // namespace tidemark::cli
