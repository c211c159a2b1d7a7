// SPDX-License-Identifier: MIT
// history.
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "app/cli/textformat.h"
#include "model/common/error.h"
#include "model/storage/workspace.h"

#include <algorithm>
#include <optional>

namespace tidemark::cli {

namespace {

// `history` prints this many runs unless --limit says otherwise (0: all).
constexpr int kDefaultHistoryLimit = 100;
// It reads them this many at a time and writes each page before reading the next: memory
// stays flat however long the history is, and small however wide the runs (a run of a thousand
// tables is a thousand iterations); a keyset page costs the same however deep it starts.
constexpr int kHistoryPageSize = 20;

int history(CliSession &session, const SubcommandParser &parser) {
    RunPageQuery query;
    if (parser.isSet(QStringLiteral("run")))
        query.runId = optionInteger(parser, QStringLiteral("run"), 1);
    if (parser.isSet(QStringLiteral("table")))
        query.tableId = optionInteger(parser, QStringLiteral("table"), 1);
    int limit = kDefaultHistoryLimit;
    if (parser.isSet(QStringLiteral("limit")))
        limit = int(optionInteger(parser, QStringLiteral("limit"), 0, kMaxHistoryLimit));

    const std::unique_ptr<Workspace> workspace = session.openWorkspace();
    // A removed table keeps its history.
    if (query.tableId > 0 && !workspace->table(query.tableId) && !workspace->archivedTable(query.tableId))
        throwNoSuchTable(*workspace, query.tableId);
    const bool json = parser.isSet(QStringLiteral("json"));
    std::optional<JsonArrayStream> array;
    qint64 written = 0;
    for (;;) {
        query.limit = limit > 0 ? int(std::min<qint64>(kHistoryPageSize, limit - written)) : kHistoryPageSize;
        const QList<RunRecord> page = workspace->runPage(query);
        if (query.runId > 0 && page.isEmpty())
            throw ValidationError(QStringLiteral("--run: no run %1 in workspace %2")
                                      .arg(query.runId)
                                      .arg(session.workspacePath()));
        if (json && !array)
            array.emplace([](const QByteArray &bytes) { writeOut(bytes); });
        for (const RunRecord &run : page) {
            if (json)
                array->append(runJson(run, true));
            else
                writeOut(historyText({run}));
        }
        written += page.size();
        if (page.size() < query.limit || (limit > 0 && written >= limit))
            break;
        query.before = RunCursor{page.last().startedAt, page.last().id};
    }
    if (array)
        array->finish();
    return 0;
}
} // namespace

QList<CommandSpec> historyCommands() {
    return {
        {.name = QStringLiteral("history"),
         .usage = QStringLiteral(R"(  history [--run RUN_ID] [--table ID] [--limit N] [--json]
                                      the newest 100 runs unless --limit N (0: all of them; at
                                      most 2147483647);
                                      --table: the runs that copied that table, with its
                                      iteration only)"),
         .options = {{QStringLiteral("run"), QStringLiteral("RUN_ID"), QStringLiteral("that run only")},
                     {QStringLiteral("table"), QStringLiteral("ID"),
                      QStringLiteral("the runs that copied that table")},
                     {QStringLiteral("limit"), QStringLiteral("N"),
                      QStringLiteral("the newest N runs (0: all)")},
                     kJsonOption},
         .handler = history},
    };
}

} // namespace tidemark::cli
