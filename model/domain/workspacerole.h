// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <optional>

namespace tidemark {

// What a user may do in a server workspace, each role everything the one before may do, and more
// (docs/team.md, "Roles"). The server enforces them with GRANTs on group roles named
// "<schema>_<role>"; a workspace file has none.
enum class WorkspaceRole {
    Viewer,   // reads everything
    Operator, // runs, cancels, pauses and resumes, backfills, moves positions, pauses schedules
    Analyst,  // adds, edits and removes tables, connections, schedules and alerts
    Admin,    // everything, and grants roles
};

QString workspaceRoleName(WorkspaceRole role);        // "viewer", "operator", ...
QString workspaceRoleWithArticle(WorkspaceRole role); // "a viewer", "an operator", ...
std::optional<WorkspaceRole> workspaceRoleFromName(const QString &name);
// Why `user`, who has `role`, may not do `what`: "bob is an operator: adding a table needs
// analyst". The CLI's refusal and the window's tooltip say it alike.
QString roleRefusal(const QString &user, WorkspaceRole role, const QString &what, WorkspaceRole needed);

// A user's role in a server workspace, as `workspace roles` lists them.
struct RoleMember {
    QString user;
    WorkspaceRole role = WorkspaceRole::Viewer;
};

} // namespace tidemark
