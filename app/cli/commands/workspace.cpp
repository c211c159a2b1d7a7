// SPDX-License-Identifier: MIT
// init, and the workspace as one document.
#include "model/storage/workspace.h"
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/credentials/credentialstore.h"
#include "model/engine/workspacecopy.h"
#include "model/engine/workspacedocument.h"
#include "model/storage/workspacelocation.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <optional>

namespace tidemark::cli {

namespace {

int init(CliSession &session, const SubcommandParser &parser) {
    const QString path = session.workspacePath();
    if (!WorkspaceLocation::isServer(path) && QFileInfo::exists(path))
        throw ValidationError(
            QStringLiteral("workspace %1 already exists; refusing to overwrite it").arg(path));
    try {
        withKeychainPassword([&] { return Workspace::create(path); });
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

int workspaceExport(CliSession &session, const SubcommandParser &parser) {
    const QByteArray document = WorkspaceDocument::exportFrom(*session.openWorkspace());
    const QString file = parser.positional().value(0);
    if (file.isEmpty() || file == QLatin1String("-")) {
        writeOut(document);
        return 0;
    }
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(document) != document.size() || !out.commit())
        throw Error(QStringLiteral("workspace export: cannot write %1: %2").arg(file, out.errorString()));
    writeOut(QStringLiteral("exported workspace %1 to %2\n").arg(session.workspacePath(), file));
    return 0;
}

int workspaceApply(CliSession &session, const SubcommandParser &parser) {
    const QString file = parser.positional().first();
    const QString command = QStringLiteral("workspace apply %1").arg(file);
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        throw ValidationError(QStringLiteral("%1: cannot read it: %2").arg(command, in.errorString()));
    WorkspaceDocument document;
    try {
        document = WorkspaceDocument::parse(in.readAll());
    } catch (const ValidationError &error) {
        throw ValidationError(QStringLiteral("%1: %2").arg(command, error.message()));
    }
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    std::optional<WorkspaceApply> apply;
    try {
        apply.emplace(*workspace, document, parser.isSet(QStringLiteral("prune")));
    } catch (const ValidationError &error) {
        throw ValidationError(QStringLiteral("%1: %2").arg(command, error.message()));
    }
    qsizetype changes = 0;
    QString plan;
    for (const WorkspaceApply::Step &step : apply->plan()) {
        plan += step.text + QLatin1Char('\n');
        changes += step.run ? 1 : 0;
    }
    if (changes == 0) {
        writeOut(plan + QStringLiteral("nothing to change: the workspace matches %1\n").arg(file));
        return 0;
    }
    if (parser.isSet(QStringLiteral("dry-run"))) {
        writeOut(plan + QStringLiteral("dry run: %1 change(s) planned, nothing changed\n").arg(changes));
        return 0;
    }
    writeOut(plan);
    try {
        apply->apply();
    } catch (const ValidationError &error) {
        throw ValidationError(QStringLiteral("%1: %2 (the changes listed before it are done; apply the file "
                                             "again once it is fixed)")
                                  .arg(command, error.message()));
    }
    writeOut(QStringLiteral("applied %1 change(s)\n").arg(changes));
    return 0;
}

// The whole workspace into a new one, of either kind; its targets go with it.
int workspaceCopy(CliSession &session, const SubcommandParser &parser) {
    const QString destination = WorkspaceLocation::resolve(parser.positional().first()).text();
    if (!WorkspaceLocation::isServer(destination) && QFileInfo::exists(destination))
        throw ValidationError(
            QStringLiteral("workspace copy: %1 already exists; refusing to overwrite it").arg(destination));
    std::unique_ptr<Workspace> source = session.openWorkspace();
    const WorkspaceCopyReport report =
        copyWorkspace(*source, destination, [](const QString &line) { writeOut(line + QLatin1Char('\n')); });
    qint64 rows = 0;
    for (const CopiedRows &copied : report.rows)
        rows += copied.rows;
    logger("cli")->info("copied workspace {} to {}", str(session.workspacePath()), str(destination));
    writeOut(QStringLiteral("copied workspace %1 to %2: %3 row(s); %4 target(s) taken over\n")
                 .arg(session.workspacePath(), destination)
                 .arg(rows)
                 .arg(report.takenOver.size()));
    if (report.notTakenOver.isEmpty()) {
        writeOut(
            QStringLiteral("runs go on from %1; this workspace runs nothing any more\n").arg(destination));
        return 0;
    }
    for (const QString &table : report.notTakenOver)
        writeOut(QStringLiteral("not taken over: %1\n").arg(table));
    writeOut(QStringLiteral("runs go on from %1, where `run --adopt --table ID` takes over the targets above "
                            "once they are in reach; this workspace runs nothing any more\n")
                 .arg(destination));
    return 1;
}

// Roles of a server workspace: who may read, run, configure, grant.
int workspaceGrant(CliSession &session, const SubcommandParser &parser) {
    const QString user = parser.positional().at(0);
    const std::optional<WorkspaceRole> role = workspaceRoleFromName(parser.positional().at(1));
    if (!role)
        throw ValidationError(
            QStringLiteral("workspace grant: '%1' is not viewer, operator, analyst or admin")
                .arg(parser.positional().at(1)));
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    workspace->grantRole(user, *role);
    writeOut(
        QStringLiteral("%1 is %2 of %3 now\n").arg(user, workspaceRoleWithArticle(*role), session.workspacePath()));
    return 0;
}

int workspaceRevoke(CliSession &session, const SubcommandParser &parser) {
    const QString user = parser.positional().first();
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    writeOut(
        workspace->revokeRoles(user)
            ? QStringLiteral("%1 has no role in %2 now\n").arg(user, session.workspacePath())
            : QStringLiteral("%1 had no role in %2: nothing to revoke\n").arg(user, session.workspacePath()));
    return 0;
}

int workspaceRoles(CliSession &session, const SubcommandParser &parser) {
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const QList<RoleMember> members = workspace->roleMembers();
    if (parser.isSet(QStringLiteral("json"))) {
        QJsonArray array;
        for (const RoleMember &member : members)
            array.append(QJsonObject{{QStringLiteral("user"), member.user},
                                     {QStringLiteral("role"), workspaceRoleName(member.role)}});
        writeOut(QJsonDocument(array).toJson(QJsonDocument::Indented));
        return 0;
    }
    if (members.isEmpty())
        writeOut(QStringLiteral("no roles granted: the schema's owner and superusers may do everything\n"));
    for (const RoleMember &member : members)
        writeOut(QStringLiteral("%1\t%2\n").arg(member.user, workspaceRoleName(member.role)));
    return 0;
}

// The workspace's caps: set what is given, then print them (all of them, whatever was given).
int workspaceSet(CliSession &session, const SubcommandParser &parser) {
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    if (parser.isSet(QStringLiteral("max-concurrency")))
        workspace->setMaxConcurrency(optionCap(parser, QStringLiteral("max-concurrency")));
    const int cap = workspace->maxConcurrency();
    if (parser.isSet(QStringLiteral("json"))) {
        writeOut(toJsonLine(QJsonObject{
            {QStringLiteral("max_concurrency"), cap > 0 ? QJsonValue(cap) : QJsonValue(QJsonValue::Null)}}));
        return 0;
    }
    writeOut(cap > 0
                 ? QStringLiteral("max concurrency: %1 iteration(s) at once across the workspace\n").arg(cap)
                 : QStringLiteral("max concurrency: none\n"));
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
        {.name = QStringLiteral("workspace export"),
         .usage = QStringLiteral(
             R"(  workspace export [FILE]                the workspace as one JSON document (stdout without FILE):
                                         connections (no secrets), tables with their settings and
                                         positions, schedules and alerts; keys in a stable order)"),
         .options = {},
         .minPositional = 0,
         .maxPositional = 1,
         .positionalName = QStringLiteral("FILE"),
         .handler = workspaceExport},
        {.name = QStringLiteral("workspace copy"),
         .usage = QStringLiteral(
             R"(  workspace copy DEST                    the whole workspace into a new one at DEST (a file, or a
                                         postgresql:// URI with ?schema=NAME): connections, tables
                                         with their ids and positions, schedules, alerts, history
                                         and the audit trail; takes the targets over, so runs go on
                                         from DEST where they stopped, and this one runs nothing
                                         more; refuses a DEST that exists and while a run is going)"),
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = QStringLiteral("DEST"),
         .handler = workspaceCopy},
        {.name = QStringLiteral("workspace grant"),
         .usage = QStringLiteral(
             R"(  workspace grant USER ROLE              a server workspace: USER (a login role of the server)
                                         becomes viewer, operator, analyst or admin, enforced by the
                                         server's grants (the first grant makes the group roles
                                         SCHEMA_viewer... and needs CREATEROLE); admin only)"),
         .options = {},
         .minPositional = 2,
         .maxPositional = 2,
         .positionalName = QStringLiteral("USER ROLE"),
         .handler = workspaceGrant},
        {.name = QStringLiteral("workspace revoke"),
         .usage = QStringLiteral(
             R"(  workspace revoke USER                  USER's role in a server workspace is taken back; admin only)"),
         .options = {},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = QStringLiteral("USER"),
         .handler = workspaceRevoke},
        {.name = QStringLiteral("workspace roles"),
         .usage = QStringLiteral(
             R"(  workspace roles [--json]               who holds which role in a server workspace)"),
         .options = {kJsonOption},
         .handler = workspaceRoles},
        {.name = QStringLiteral("workspace set"),
         .usage = QStringLiteral(
             R"(  workspace set [--max-concurrency N|none] [--json]
                                         iterations running at once across every run, process and
                                         machine of the workspace (the others wait queued, saying
                                         so); prints the settings (alone: changes nothing))"),
         .options = {{QStringLiteral("max-concurrency"), QStringLiteral("N"),
                      QStringLiteral("iterations running at once across the workspace (none: no cap)")},
                     kJsonOption},
         .handler = workspaceSet},
        {.name = QStringLiteral("workspace apply"),
         .usage = QStringLiteral(R"(  workspace apply FILE [--dry-run] [--prune]
                                         makes the workspace match the document: prints the plan
                                         (added, changed, moved, paused), then does it; --prune
                                         removes what the document lacks; a running table's
                                         position is not changed (refused, nothing done))"),
         .options = {{QStringLiteral("dry-run"), {}, QStringLiteral("prints the plan and changes nothing")},
                     {QStringLiteral("prune"),
                      {},
                      QStringLiteral("removes the tables, schedules and connections the document lacks")}},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = QStringLiteral("FILE"),
         .handler = workspaceApply},
    };
}

} // namespace tidemark::cli
