// SPDX-License-Identifier: MIT
#include "model/domain/workspacerole.h"

#include <array>

namespace tidemark {
namespace {

constexpr std::array kRoles = {WorkspaceRole::Viewer, WorkspaceRole::Operator, WorkspaceRole::Analyst,
                               WorkspaceRole::Admin};

} // namespace

QString workspaceRoleName(WorkspaceRole role) {
    switch (role) {
    case WorkspaceRole::Viewer:
        return QStringLiteral("viewer");
    case WorkspaceRole::Operator:
        return QStringLiteral("operator");
    case WorkspaceRole::Analyst:
        return QStringLiteral("analyst");
    case WorkspaceRole::Admin:
        return QStringLiteral("admin");
    }
    return {};
}

QString workspaceRoleWithArticle(WorkspaceRole role) {
    return (role == WorkspaceRole::Viewer ? QStringLiteral("a ") : QStringLiteral("an ")) +
           workspaceRoleName(role);
}

QString roleRefusal(const QString &user, WorkspaceRole role, const QString &what, WorkspaceRole needed) {
    return QStringLiteral("%1 is %2: %3 needs %4")
        .arg(user, workspaceRoleWithArticle(role), what, workspaceRoleName(needed));
}

std::optional<WorkspaceRole> workspaceRoleFromName(const QString &name) {
    for (const WorkspaceRole role : kRoles)
        if (workspaceRoleName(role) == name)
            return role;
    return std::nullopt;
}

} // namespace tidemark
