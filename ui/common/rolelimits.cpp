// SPDX-License-Identifier: MIT
#include "ui/common/rolelimits.h"

#include <QAction>

namespace tidemark {

void RoleLimits::limit(QAction *action, WorkspaceRole needed, const QString &what) {
    m_limited.append({action, needed, what, action->toolTip()});
}

void RoleLimits::setRole(std::optional<WorkspaceRole> role, const QString &user) {
    if (role == m_role && user == m_user)
        return;
    m_role = role;
    m_user = user;
    emit changed();
}

QString RoleLimits::refusal(WorkspaceRole needed, const QString &what) const {
    return m_role ? roleRefusal(m_user, *m_role, what, needed) : QString();
}

void RoleLimits::apply() {
    for (const Limited &limited : std::as_const(m_limited)) {
        if (!limited.action)
            continue;
        const bool allowed = allows(limited.needed);
        if (!allowed)
            limited.action->setEnabled(false);
        const QString tip = allowed ? limited.toolTip : refusal(limited.needed, limited.what);
        limited.action->setToolTip(tip);
        limited.action->setStatusTip(allowed ? QString() : tip);
    }
}

} // namespace tidemark
