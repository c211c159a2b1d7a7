// SPDX-License-Identifier: MIT
#include "model/storage/postgres/pgroles.h"

#include "model/common/error.h"
#include "model/common/sqlquote.h"
#include "model/storage/postgres/pgstoredb.h"

#include <QStringList>

#include <array>

namespace tidemark {
namespace {

constexpr std::array kRoles = {WorkspaceRole::Viewer, WorkspaceRole::Operator, WorkspaceRole::Analyst,
                               WorkspaceRole::Admin};

// What a run, a runner and the repair of dead runs write: an operator's.
const QStringList kOperatorTables = {
    QStringLiteral("runs"),        QStringLiteral("iterations"),    QStringLiteral("iteration_logs"),
    QStringLiteral("rejects"),     QStringLiteral("leases"),        QStringLiteral("watermark_changes"),
    QStringLiteral("runner"),      QStringLiteral("fleet_runners"), QStringLiteral("schedule_firings"),
    QStringLiteral("table_alarms")};
// What only an analyst changes as a whole.
const QStringList kAnalystTables = {QStringLiteral("tables"), QStringLiteral("connections"),
                                    QStringLiteral("schedules"), QStringLiteral("alert_settings")};
// An operator changes these columns only: a table's pause and position, a schedule's pause and
// what its firings record.
const QStringList kOperatorTableColumns = {QStringLiteral("active"), QStringLiteral("watermark_type"),
                                           QStringLiteral("last_watermark"), QStringLiteral("last_tiebreak"),
                                           QStringLiteral("last_generation")};
const QStringList kOperatorScheduleColumns = {QStringLiteral("active"), QStringLiteral("updated_at"),
                                              QStringLiteral("last_fired_at"), QStringLiteral("last_run_id")};

} // namespace

PgRoles::PgRoles(PgStoreDb &db)
    : m_db(db) {}

QString PgRoles::group(WorkspaceRole role) const {
    return m_db.schema() + QLatin1Char('_') + workspaceRoleName(role);
}

QString PgRoles::currentUser() {
    Statement select(m_db, QStringLiteral("SELECT current_user"));
    return select.step() ? select.columnText(0) : QString();
}

bool PgRoles::groupsExist() {
    Statement select(m_db, QStringLiteral("SELECT count(*) FROM pg_roles WHERE rolname IN (?1, ?2, ?3, ?4)"));
    for (int i = 0; i < int(kRoles.size()); ++i)
        select.bind(i + 1, group(kRoles[i]));
    return select.step() && select.columnInt64(0) > 0;
}

std::optional<WorkspaceRole> PgRoles::currentRole() {
    Statement owner(m_db,
                    QStringLiteral("SELECT r.rolsuper OR n.nspowner = r.oid FROM pg_roles r, pg_namespace n "
                                   "WHERE r.rolname = current_user AND n.nspname = ?1"));
    owner.bind(1, m_db.schema());
    if (owner.step() && owner.columnInt64(0) != 0)
        return WorkspaceRole::Admin;
    owner.reset();
    if (!groupsExist())
        return std::nullopt;
    for (auto role = kRoles.rbegin(); role != kRoles.rend(); ++role) {
        Statement member(m_db, QStringLiteral("SELECT pg_has_role(current_user, oid, 'MEMBER') FROM pg_roles "
                                              "WHERE rolname = ?1"));
        member.bind(1, group(*role));
        if (member.step() && member.columnInt64(0) != 0)
            return *role;
    }
    throw ValidationError(QStringLiteral("%1 has no role in workspace %2: an admin grants one "
                                         "(tidemark-cli workspace grant %1 viewer)")
                              .arg(currentUser(), m_db.location()));
}

void PgRoles::requireAdmin(const QString &what) {
    const std::optional<WorkspaceRole> role = currentRole();
    if (role && *role != WorkspaceRole::Admin)
        throw ValidationError(roleRefusal(currentUser(), *role, what, WorkspaceRole::Admin));
}

// The groups, each a member of the one before, and their rights. Run by the schema's owner (or a
// superuser) at the first grant: CREATE ROLE needs CREATEROLE, a GRANT on a table its owner.
void PgRoles::makeGroups() {
    const QString schema = quoteIdentifier(m_db.schema());
    const auto qualified = [&](const QString &table) {
        return schema + QLatin1Char('.') + quoteIdentifier(table);
    };
    for (const WorkspaceRole role : kRoles)
        m_db.exec(QStringLiteral("CREATE ROLE %1 NOLOGIN").arg(quoteIdentifier(group(role))));
    const QString viewer = quoteIdentifier(group(WorkspaceRole::Viewer));
    const QString operatorGroup = quoteIdentifier(group(WorkspaceRole::Operator));
    const QString analyst = quoteIdentifier(group(WorkspaceRole::Analyst));
    const QString admin = quoteIdentifier(group(WorkspaceRole::Admin));
    m_db.exec(QStringLiteral("GRANT USAGE ON SCHEMA %1 TO %2").arg(schema, viewer));
    m_db.exec(QStringLiteral("GRANT SELECT ON ALL TABLES IN SCHEMA %1 TO %2").arg(schema, viewer));
    m_db.exec(QStringLiteral("GRANT %1 TO %2").arg(viewer, operatorGroup));
    for (const QString &table : kOperatorTables)
        m_db.exec(
            QStringLiteral("GRANT INSERT, UPDATE, DELETE ON %1 TO %2").arg(qualified(table), operatorGroup));
    m_db.exec(QStringLiteral("GRANT INSERT, UPDATE ON %1 TO %2")
                  .arg(qualified(QStringLiteral("meta")), operatorGroup));
    // The ids of new rows (and lastval(), which reads them back).
    m_db.exec(
        QStringLiteral("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %1 TO %2").arg(schema, operatorGroup));
    m_db.exec(QStringLiteral("GRANT UPDATE (%1) ON %2 TO %3")
                  .arg(quoteIdentifierList(kOperatorTableColumns), qualified(QStringLiteral("tables")),
                       operatorGroup));
    m_db.exec(QStringLiteral("GRANT UPDATE (%1) ON %2 TO %3")
                  .arg(quoteIdentifierList(kOperatorScheduleColumns), qualified(QStringLiteral("schedules")),
                       operatorGroup));
    m_db.exec(QStringLiteral("GRANT %1 TO %2").arg(operatorGroup, analyst));
    for (const QString &table : kAnalystTables)
        m_db.exec(QStringLiteral("GRANT INSERT, UPDATE, DELETE ON %1 TO %2").arg(qualified(table), analyst));
    m_db.exec(QStringLiteral("GRANT %1 TO %2").arg(analyst, admin));
    m_db.exec(QStringLiteral("GRANT ALL ON ALL TABLES IN SCHEMA %1 TO %2").arg(schema, admin));
    // An admin grants the roles in turn.
    m_db.exec(QStringLiteral("GRANT %1, %2, %3 TO %4 WITH ADMIN OPTION")
                  .arg(viewer, operatorGroup, analyst, admin));
}

void PgRoles::grant(const QString &user, WorkspaceRole role) {
    requireAdmin(QStringLiteral("granting roles"));
    Statement exists(m_db, QStringLiteral("SELECT 1 FROM pg_roles WHERE rolname = ?1"));
    exists.bind(1, user);
    if (!exists.step())
        throw ValidationError(QStringLiteral("workspace grant: the server has no role %1 (create it first: "
                                             "CREATE ROLE %1 LOGIN)")
                                  .arg(user));
    exists.reset();
    Transaction transaction(m_db);
    if (!groupsExist())
        makeGroups();
    for (const WorkspaceRole other : kRoles)
        if (other != role)
            m_db.exec(QStringLiteral("REVOKE %1 FROM %2")
                          .arg(quoteIdentifier(group(other)), quoteIdentifier(user)));
    m_db.exec(QStringLiteral("GRANT %1 TO %2").arg(quoteIdentifier(group(role)), quoteIdentifier(user)));
    transaction.commit();
}

bool PgRoles::revoke(const QString &user) {
    requireAdmin(QStringLiteral("revoking roles"));
    bool any = false;
    for (const RoleMember &member : members()) {
        if (member.user != user)
            continue;
        m_db.exec(QStringLiteral("REVOKE %1 FROM %2")
                      .arg(quoteIdentifier(group(member.role)), quoteIdentifier(user)));
        any = true;
    }
    return any;
}

QList<RoleMember> PgRoles::members() {
    Statement select(
        m_db, QStringLiteral("SELECT m.rolname, g.rolname FROM pg_auth_members a "
                             "JOIN pg_roles g ON g.oid = a.roleid JOIN pg_roles m ON m.oid = a.member "
                             "WHERE g.rolname IN (?1, ?2, ?3, ?4) AND m.rolname NOT IN (?1, ?2, ?3, ?4) "
                             "ORDER BY m.rolname, g.rolname"));
    for (int i = 0; i < int(kRoles.size()); ++i)
        select.bind(i + 1, group(kRoles[i]));
    QList<RoleMember> found;
    while (select.step()) {
        const QString groupName = select.columnText(1);
        for (const WorkspaceRole role : kRoles)
            if (group(role) == groupName)
                found << RoleMember{select.columnText(0), role};
    }
    return found;
}

} // namespace tidemark
