// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/workspacerole.h"

#include <QList>
#include <QString>
#include <optional>

namespace tidemark {

class PgStoreDb;

// A server workspace's roles as the server holds them: group roles "<schema>_viewer",
// "_operator", "_analyst" and "_admin", each a member of the one before (so it has its rights),
// with GRANTs on the workspace's tables (column grants where a role may change only part of a
// row), so psql refuses what Tidemark refuses. Made by the first grant; until then nothing is
// enforced beyond what the server's own grants say (one person's workspace needs no roles).
class PgRoles {
public:
    explicit PgRoles(PgStoreDb &db);

    // The database user this connection is.
    QString currentUser();
    // nullopt while no group role exists (roles not in use). Admin for a superuser and for the
    // schema's owner. Throws ValidationError for a user with none of the roles, naming who grants.
    std::optional<WorkspaceRole> currentRole();
    // Makes `user` (an existing login role) a member of exactly that role's group, making the
    // groups and their grants first when missing (that needs CREATEROLE). Only an admin.
    void grant(const QString &user, WorkspaceRole role);
    // Removes `user` from every group; false when it was in none.
    bool revoke(const QString &user);
    // Who holds which role (groups' members that are not groups themselves), by user.
    QList<RoleMember> members();

private:
    QString group(WorkspaceRole role) const;
    bool groupsExist();
    void makeGroups();
    void requireAdmin(const QString &what);

    PgStoreDb &m_db;
};

} // namespace tidemark
