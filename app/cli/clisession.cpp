// SPDX-License-Identifier: MIT
#include "app/cli/clisession.h"

#include "app/cli/commandroles.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "model/alerts/alertdispatcher.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/credentials/credentialstore.h"
#include "model/storage/workspace.h"
#include "model/storage/workspacelocation.h"

#include <QFileInfo>

namespace tidemark::cli {

void CliSession::takeOptions(const SubcommandParser &parser) {
    if (parser.isSet(QStringLiteral("workspace")))
        setWorkspaceOption(parser.value(QStringLiteral("workspace")));
}

QString CliSession::workspacePath() const {
    QString path = m_workspace;
    if (path.isEmpty())
        path = qEnvironmentVariable("TIDEMARK_WORKSPACE");
    if (path.isEmpty())
        throw ValidationError(QStringLiteral("no workspace: pass -w FILE or set TIDEMARK_WORKSPACE"));
    return WorkspaceLocation::resolve(path).text();
}

void CliSession::installLogging(const QString &path) {
    if (m_loggingInstalled)
        return;
    m_loggingInstalled = true;
    try {
        installLogSinks(WorkspaceLocation::logFileFor(path), true);
    } catch (const std::exception &error) {
        // A log file we cannot write must not stop an operator's command.
        writeError(QStringLiteral("warning: no log file beside %1: %2")
                       .arg(path, QString::fromLocal8Bit(error.what())));
    }
}

std::unique_ptr<Workspace> CliSession::openWorkspace() {
    const QString path = workspacePath();
    if (!WorkspaceLocation::isServer(path) && !QFileInfo::exists(path))
        throw ValidationError(
            QStringLiteral("workspace %1 does not exist (create it with: tidemark-cli -w %1 init)")
                .arg(path));
    try {
        std::unique_ptr<Workspace> workspace = withKeychainPassword([&] { return Workspace::open(path); });
        // Only now: a file that is not a workspace gets no `<file>.log` beside it.
        installLogging(path);
        const std::optional<WorkspaceRole> role = workspace->myRole();
        if (role && *role < roleNeeded(m_command))
            throw ValidationError(
                roleRefusal(workspace->databaseUser(), *role, m_command, roleNeeded(m_command)));
        if (!role || *role >= WorkspaceRole::Operator) {
            AlertDispatcher alerts(path);
            alerts.closeInterruptedRuns(*workspace);
            alerts.waitUntilIdle();
        }
        return workspace;
    } catch (const ValidationError &) {
        throw;
    } catch (const Error &error) {
        // A workspace that cannot be opened is a bad argument: nothing ran.
        throw ValidationError(error.message());
    }
}

void setWorkspaceSchema(const QString &name) {
    qputenv("TIDEMARK_WORKSPACE_SCHEMA", name.toUtf8());
}

} // namespace tidemark::cli
