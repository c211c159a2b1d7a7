// SPDX-License-Identifier: MIT
// init, and the workspace as one document.
#include "model/storage/workspace.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "model/common/error.h"
#include "model/common/logging.h"

#include <QFileInfo>

namespace tidemark::cli {

namespace {

int init(CliSession &session, const SubcommandParser &parser) {
    const QString path = session.workspacePath();
    if (QFileInfo::exists(path))
        throw ValidationError(
            QStringLiteral("workspace %1 already exists; refusing to overwrite it").arg(path));
    try {
        Workspace::create(path);
    } catch (const ValidationError &) {
        throw;
    } catch (const Error &error) {
        throw ValidationError(error.message());
    }
    session.installLogging(path);
    logger("cli")->info("created workspace {}", str(path));
    writeOut(QStringLiteral("created workspace %1\n").arg(path));
    return 0;
}

} // namespace

QList<CommandSpec> workspaceCommands() {
    return {
        {.name = QStringLiteral("init"),
         .usage = QStringLiteral("  init                                   create an empty workspace; "
                                 "refuses to overwrite a file"),
         .options = {},
         .handler = init},
    };
}

} // namespace tidemark::cli
