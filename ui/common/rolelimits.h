// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/workspacerole.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <optional>

class QAction;

namespace tidemark {

// What the window's user may do in a server workspace (docs/team.md, "Roles"). An action the
// role does not allow is greyed out, its tooltip saying why; the server refuses it anyway, this
// only spares the user the refusal after the fact. A file, or a server workspace where no role
// was ever granted, limits nothing.
class RoleLimits : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // `action` needs `needed`; `what` names it in the tooltip ("adding a table"). Its tooltip as
    // it is now is the one shown whenever the role allows it.
    void limit(QAction *action, WorkspaceRole needed, const QString &what);
    // The role read when the workspace opened (nullopt: nothing is limited).
    void setRole(std::optional<WorkspaceRole> role, const QString &user);
    std::optional<WorkspaceRole> role() const { return m_role; }
    const QString &user() const { return m_user; }
    bool allows(WorkspaceRole needed) const { return !m_role || *m_role >= needed; }
    // "bob is a viewer: editing a table needs analyst"
    QString refusal(WorkspaceRole needed, const QString &what) const;
    // Called once each action's owner has set whether it is enabled for every other reason:
    // greys out those the role does not allow and gives them the refusal as their tooltip.
    void apply();

signals:
    void changed();

private:
    struct Limited {
        QPointer<QAction> action;
        WorkspaceRole needed;
        QString what;
        QString toolTip;
    };
    QList<Limited> m_limited;
    std::optional<WorkspaceRole> m_role;
    QString m_user;
};

} // namespace tidemark
