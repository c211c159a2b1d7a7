// SPDX-License-Identifier: MIT
#pragma once

// One suite, both workspace backends: a suite registered twice by tests/CMakeLists.txt runs once
// on workspace files and once (TIDEMARK_TEST_WORKSPACE_BACKEND=postgres) on server workspaces,
// each in a fresh schema of the throwaway cluster (scripts/pgcluster.sh). The suite names its
// workspaces by testWorkspaceLocation() and pokes their rows by execWorkspaceSql(), never by
// the file's own means, so each check holds on both.

#include <QList>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QVariant>

#include <memory>

namespace tidemark {
class SqliteDb;
}

namespace tidemark::test {

class PgSession;

// Whether this run of the suite is the server one.
bool serverWorkspaces();
// A new workspace location: `dir`/`name`, or a schema of the test database named after `name`
// and unique to this process (the URI names no password: the cluster trusts 127.0.0.1).
QString testWorkspaceLocation(const QTemporaryDir &dir, const QString &name);
// Runs `sql` (?1, ?2, ... bound to `params`) on the workspace at `location` through the
// backend's own client, as another process would; returns the first column of the first row
// as text (null when none).
QString execWorkspaceSql(const QString &location, const QString &sql, const QVariantList &params = {});
// Whether `path` names a server workspace; then serverWorkspaceRows() runs `sql` there (?N bound
// to `params`), which is how testsupport's execSql(), queryValue() and queryRows() take a server
// workspace's URI as they take a workspace file's path.
bool isServerWorkspace(const QString &path);
QList<QStringList> serverWorkspaceRows(const QString &location, const QString &sql,
                                       const QVariantList &params);
// Whether any row of any table of the server workspace at `location` holds `text` (a secret that
// must never land there), as the files of a file workspace are scanned.
bool serverWorkspaceHolds(const QString &location, const QString &text);

// Holds the write lock of the workspace at `location` from a connection of its own, as a second
// process would: others still read, nobody else writes (their writes fail after
// TIDEMARK_TEST_WORKSPACE_BUSY_MS). A file: SQLite's write lock. A server: every table of the
// workspace's schema locked IN EXCLUSIVE MODE (which lets reads through), as a psql session left
// in a transaction would. Released (rolled back) by the destructor.
class WorkspaceWriteLock {
public:
    explicit WorkspaceWriteLock(const QString &location);
    ~WorkspaceWriteLock();
    WorkspaceWriteLock(const WorkspaceWriteLock &) = delete;
    WorkspaceWriteLock &operator=(const WorkspaceWriteLock &) = delete;

private:
    std::unique_ptr<SqliteDb> m_file;
    std::unique_ptr<PgSession> m_server;
};

} // namespace tidemark::test

// In a server run with no server: a failure under CI=true, else a skip saying why.
#define TIDEMARK_REQUIRE_WORKSPACE_BACKEND()                                                                 \
    do {                                                                                                     \
        if (tidemark::test::serverWorkspaces())                                                              \
            TIDEMARK_REQUIRE_POSTGRES();                                                                     \
    } while (false)
