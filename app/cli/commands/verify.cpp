// SPDX-License-Identifier: MIT
// verify.
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "app/cli/textformat.h"
#include "model/common/error.h"
#include "model/engine/verifier.h"
#include "model/storage/workspace.h"

#include <QHash>
#include <QJsonArray>

namespace tidemark::cli {

namespace {

int verify(CliSession &session, const SubcommandParser &parser) {
    const bool json = parser.isSet(QStringLiteral("json"));
    const VerifyMethod method =
        parser.isSet(QStringLiteral("every-row")) ? VerifyMethod::EveryRow : VerifyMethod::Ranges;

    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    QList<qint64> ids = parseTableIds(parser.values(QStringLiteral("table")), parser.command());
    QHash<qint64, TableSpec> specs;
    if (ids.isEmpty()) {
        for (const TableSpec &spec : workspace->tables()) {
            ids.append(spec.id);
            specs.insert(spec.id, spec);
        }
    } else {
        for (qint64 id : ids)
            specs.insert(id, requireTable(*workspace, id));
    }

    int exitCode = 0;
    QJsonArray array;
    for (qint64 id : ids) {
        QJsonObject object;
        try {
            const VerifyResult result = verifyTable(*workspace, id, nullptr, method);
            object = verifyJson(result);
            if (!json)
                writeOut(verifyText(result));
            if (!result.matches) {
                exitCode = 1;
                // The core's difference usually names the table already; don't say it twice.
                const QString difference = result.difference.isEmpty()
                                               ? QStringLiteral("target differs from source")
                                               : result.difference;
                writeError(difference.contains(result.source)
                               ? difference
                               : QStringLiteral("table %1 (%2 -> %3) differs: %4")
                                     .arg(id)
                                     .arg(result.source, result.target, difference));
            }
        } catch (const Error &error) {
            // One unreadable table must not hide the others' results.
            exitCode = 1;
            const TableSpec &spec = specs[id];
            VerifyResult failed;
            failed.tableId = id;
            failed.source = spec.sourceDisplay();
            failed.target = spec.targetDisplay();
            failed.difference = error.message();
            object = verifyJson(failed);
            object.insert(QStringLiteral("error"), error.message());
            if (!json)
                writeOut(QStringLiteral("table %1 %2 -> %3: ERROR: %4\n")
                             .arg(id)
                             .arg(failed.source, failed.target, oneLine(error.message())));
            writeError(QStringLiteral("table %1 (%2 -> %3) cannot be verified: %4")
                           .arg(id)
                           .arg(failed.source, failed.target, error.message()));
        }
        array.append(object);
    }
    if (json)
        writeOut(toJsonLine(array));
    return exitCode;
}
} // namespace

QList<CommandSpec> verifyCommands() {
    return {
        {.name = QStringLiteral("verify"),
         .usage = QStringLiteral(R"(  verify [--table ID]... [--every-row] [--json])"),
         .options = {{QStringLiteral("table"), QStringLiteral("ID"),
                      QStringLiteral("verifies this table (repeatable; default: every table)")},
                     {QStringLiteral("every-row"), QString(),
                      QStringLiteral("reads every row of both sides instead of summing each range of keys in "
                                     "the databases and reading only the ranges that differ (same result)")},
                     kJsonOption},
         .handler = verify},
    };
}

} // namespace tidemark::cli
