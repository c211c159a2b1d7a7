// SPDX-License-Identifier: MIT
// verify, reconcile.
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "app/cli/textformat.h"
#include "model/common/error.h"
#include "model/engine/reconciler.h"
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

int reconcile(CliSession &session, const SubcommandParser &parser) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    const bool apply = parser.isSet(QStringLiteral("apply"));
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    requireTable(*workspace, id);
    ReconcileResult result;
    try {
        result = reconcileTable(*workspace, id, apply, QDateTime::currentDateTimeUtc());
    } catch (const ValidationError &error) {
        throw ValidationError(QStringLiteral("reconcile: %1").arg(error.message()));
    }
    if (parser.isSet(QStringLiteral("json"))) {
        writeOut(toJsonLine(reconcileJson(result)));
    } else {
        writeOut(reconcileText(result) + QLatin1Char('\n'));
        for (const QString &key : std::as_const(result.sampleKeys))
            writeOut(QStringLiteral("  %1\n").arg(key));
    }
    if (!result.refusedBy.isEmpty()) {
        writeError(result.refusal);
        return 1;
    }
    return 0;
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
        {.name = QStringLiteral("reconcile"),
         .usage = QStringLiteral(
             R"(  reconcile ID [--apply] [--json]
                                  the target rows (at or below the position) whose key the source
                                  no longer has; a dry report unless --apply removes or marks them
                                  as the table's --deletes says, in one transaction with the state
                                  row; refused (exit 1, nothing changed) when the source has no
                                  rows or more than --max-delete-ratio of the target would go)"),
         .options = {{QStringLiteral("apply"), QString(),
                      QStringLiteral("removes or marks them (table add/edit --deletes)")},
                     kJsonOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = QStringLiteral("table ID"),
         .handler = reconcile},
    };
}

} // namespace tidemark::cli
