// SPDX-License-Identifier: MIT
#include "app/cli/commandroles.h"

#include <QSet>

namespace tidemark::cli {

WorkspaceRole roleNeeded(const QString &command) {
    static const QSet<QString> viewer = {
        QStringLiteral("alert show"),      QStringLiteral("connection list"),
        QStringLiteral("connection test"), QStringLiteral("history"),
        QStringLiteral("schedule list"),   QStringLiteral("schedule next"),
        QStringLiteral("runners"),         QStringLiteral("table list"),
        QStringLiteral("table position"),  QStringLiteral("table changes"),
        QStringLiteral("verify"),          QStringLiteral("workspace export"),
        QStringLiteral("workspace roles")};
    static const QSet<QString> operatorCommands = {QStringLiteral("run"),
                                                   QStringLiteral("run cancel"),
                                                   QStringLiteral("backfill"),
                                                   QStringLiteral("reconcile"),
                                                   QStringLiteral("serve"),
                                                   QStringLiteral("alert test"),
                                                   QStringLiteral("schedule pause"),
                                                   QStringLiteral("schedule resume"),
                                                   QStringLiteral("table pause"),
                                                   QStringLiteral("table resume"),
                                                   QStringLiteral("table set-position")};
    static const QSet<QString> admin = {QStringLiteral("workspace copy"), QStringLiteral("workspace grant"),
                                        QStringLiteral("workspace revoke")};
    if (viewer.contains(command))
        return WorkspaceRole::Viewer;
    if (operatorCommands.contains(command))
        return WorkspaceRole::Operator;
    if (admin.contains(command))
        return WorkspaceRole::Admin;
    return WorkspaceRole::Analyst; // every other command changes the workspace's settings
}

} // namespace tidemark::cli
