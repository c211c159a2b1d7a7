// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark {

// Where a workspace lives: a file (*.tidemark, SQLite), or a schema of a PostgreSQL database
// named by a libpq URI (postgresql://… or postgres://…). The one place that tells them apart:
// the CLI's -w/--workspace and TIDEMARK_WORKSPACE, the window and every worker thread name a
// workspace by text() and Workspace::open() reads it back here.
class WorkspaceLocation {
public:
    enum class Kind { File, Server };
    static constexpr const char *kDefaultSchema = "tidemark";

    // `text` as a user gives it. A URI may carry the schema as its `schema` query parameter;
    // `schema`, when not empty, wins over it (--workspace-schema), else TIDEMARK_WORKSPACE_SCHEMA,
    // else "tidemark". A file path is made absolute. Refuses (ValidationError, naming the option
    // or the URI) an empty text, a URI libpq cannot parse, and a URI holding a password: the
    // password comes from libpq's own sources (PGPASSWORD, ~/.pgpass, a service file), never
    // from the workspace's name, which lands in logs, recent files and `ps`.
    static WorkspaceLocation resolve(const QString &text, const QString &schema = QString());
    // Whether `text` names a server workspace (a postgresql:// or postgres:// URI).
    static bool isServer(const QString &text);
    // The log file of the workspace named `text`: "<file>.log" beside a workspace file. A server
    // workspace has no folder of its own: each machine logs its processes' work on it under its
    // state directory, $XDG_STATE_HOME/tidemark/<user@host_port_database_schema>.log.
    static QString logFileFor(const QString &text);

    Kind kind() const { return m_kind; }
    bool isServer() const { return m_kind == Kind::Server; }
    // File: the absolute path. Server: the URI without the schema parameter, as libpq takes it.
    const QString &target() const { return m_target; }
    const QString &schema() const { return m_schema; } // empty for a file
    // The whole location in one text that resolve() reads back the same: the path, or the URI
    // with `schema=NAME` (what a worker thread, a recent file, a systemd unit or a message is
    // given).
    QString text() const;

private:
    Kind m_kind = Kind::File;
    QString m_target;
    QString m_schema;
};

} // namespace tidemark
