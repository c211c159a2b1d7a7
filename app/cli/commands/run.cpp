// SPDX-License-Identifier: MIT
// run and backfill.
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "app/cli/terminationsignals.h"
#include "app/cli/textformat.h"
#include "model/alerts/alertdispatcher.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/engine/backfill.h"
#include "model/engine/faultpoint.h"
#include "model/engine/runcoordinator.h"
#include "model/storage/workspace.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QMetaType>
#include <QThread>
#include <QTimer>

#include <algorithm>

namespace tidemark::cli {

namespace {
// What an interrupt did, said once the run has ended: a signal that came after every iteration
// had committed cancelled nothing.
QString interruptOutcome(int signal, const RunRecord &run) {
    qsizetype cancelled = 0;
    for (const IterationRecord &record : run.iterations)
        cancelled += record.status == IterationStatus::Cancelled ? 1 : 0;
    if (cancelled > 0)
        return QStringLiteral("interrupted (signal %1): run %2 %3; %4 iteration(s) cancelled, rolled back to "
                              "their last commit")
            .arg(signal)
            .arg(run.id)
            .arg(run.status)
            .arg(cancelled);
    return QStringLiteral("interrupted (signal %1) too late to cancel anything: every iteration had ended; "
                          "run %2 %3")
        .arg(signal)
        .arg(run.id)
        .arg(run.status);
}

int exitCodeOf(const RunRecord &run) {
    for (const IterationRecord &record : run.iterations) {
        if (isFailure(record.status))
            return 1;
    }
    return run.status == QLatin1String("failed") || run.status == QLatin1String("cancelled") ? 1 : 0;
}

// Runs `request` to its end, prints it as `run` does (text or JSON), sends its alerts and looks
// for stalled tables; the exit code of `run`. The caller has installed TerminationSignals.
int runAndReport(CliSession &session, const RunRequest &request, bool json) {
    const QString path = session.workspacePath();
    if (const int signal = pendingSignal()) {
        writeError(QStringLiteral("interrupted (signal %1) before the run started: nothing ran").arg(signal));
        return 1;
    }

    qRegisterMetaType<tidemark::IterationRecord>("tidemark::IterationRecord");
    qRegisterMetaType<QList<tidemark::IterationRecord>>("QList<tidemark::IterationRecord>");
    qRegisterMetaType<tidemark::RunRecord>("tidemark::RunRecord");
    qRegisterMetaType<tidemark::LogLine>("tidemark::LogLine");

    RunCoordinator coordinator(path);
    bool done = false;
    int exitCode = 1;
    RunRecord finishedRun;
    // The last state of each iteration, in case the finished record comes without them.
    QList<IterationRecord> latest;

    QObject::connect(&coordinator, &RunCoordinator::iterationChanged, [&](const IterationRecord &record) {
        for (IterationRecord &known : latest) {
            if (known.id == record.id && known.tableId == record.tableId) {
                known = record;
                return;
            }
        }
        latest.append(record);
    });
    QObject::connect(&coordinator, &RunCoordinator::runFinished, [&](const RunRecord &finished) {
        if (done)
            return;
        RunRecord run = finished;
        if (run.iterations.isEmpty() && !latest.isEmpty())
            run.iterations = latest;
        // No extra stderr line per failed iteration: the core logs each failure once to stderr
        // (installLogSinks), and every error is to be one line.
        if (json)
            writeOut(toJsonLine(runJson(run, false)));
        else
            writeOut(runText(run));
        if (const int signal = pendingSignal())
            writeError(interruptOutcome(signal, run));
        exitCode = exitCodeOf(run);
        finishedRun = run;
        done = true;
        QCoreApplication::exit(exitCode);
    });
    QObject::connect(&coordinator, &RunCoordinator::runFailedToStart, [&](const QString &error) {
        if (done)
            return;
        writeError(error);
        exitCode = 1;
        done = true;
        QCoreApplication::exit(exitCode);
    });

    bool cancelRequested = false;
    QTimer signalPoll;
    signalPoll.setInterval(100);
    QObject::connect(&signalPoll, &QTimer::timeout, [&] {
        const int signal = pendingSignal();
        if (signal == 0 || cancelRequested)
            return;
        cancelRequested = true;
        // Whether anything rolls back is only known at the end: an iteration may have committed.
        writeError(QStringLiteral("interrupted (signal %1): cancelling the run").arg(signal));
        coordinator.cancel();
    });
    signalPoll.start();

    if (coordinator.start(request) && !done)
        QCoreApplication::exec();
    signalPoll.stop();
    if (!done) {
        writeError(QStringLiteral("run did not start in workspace %1").arg(path));
        return 1;
    }
    AlertDispatcher alerts(path);
    if (finishedRun.id > 0)
        alerts.notify(finishedRun);
    // A table this run left alone may be the one whose schedule stopped firing: cron's `run` is
    // the only process that looks after a workspace without a runner.
    if (!request.dryRun) {
        try {
            alerts.raiseStalledAlarms(*Workspace::open(path), QDateTime::currentDateTimeUtc());
        } catch (const Error &error) {
            logger("cli")->warn("looking for stalled tables: {}", str(error.message()));
        }
    }
    alerts.waitUntilIdle();
    return exitCode;
}

// `--queue` (run, backfill --range): handed to the runners; refused without it.
void takeQueueOptions(RunRequest &request, const SubcommandParser &parser, const QString &command) {
    request.queued = parser.isSet(QStringLiteral("queue"));
    if (parser.isSet(QStringLiteral("no-wait")) && !request.queued)
        throw ValidationError(QStringLiteral("%1 --no-wait: only a run queued for the runners can be left to "
                                             "them (%1 --queue --no-wait)")
                                  .arg(command));
}

// Runs the request here, or queued for the runners: then with --no-wait prints its id at once,
// else waits for them and prints the run as `run` does.
int startRun(CliSession &session, const RunRequest &request, const SubcommandParser &parser) {
    const bool json = parser.isSet(QStringLiteral("json"));
    if (request.queued) {
        const QList<FleetRunner> runners = session.openWorkspace()->fleetRunners();
        if (std::none_of(runners.cbegin(), runners.cend(), [](const FleetRunner &r) { return r.alive; }))
            writeError(
                QStringLiteral("no runner of this workspace is alive: the run waits in the queue until "
                               "one starts (tidemark-cli serve; tidemark-cli runners lists them)"));
    }
    if (!parser.isSet(QStringLiteral("no-wait")))
        return runAndReport(session, request, json);
    const qint64 runId = RunCoordinator::enqueue(session.workspacePath(), request);
    if (json)
        writeOut(toJsonLine(QJsonObject{{QStringLiteral("run_id"), runId},
                                        {QStringLiteral("status"), QStringLiteral("running")},
                                        {QStringLiteral("queued"), true}}));
    else
        writeOut(QStringLiteral("run %1 queued for the runners\n").arg(runId));
    return 0;
}

int run(CliSession &session, const SubcommandParser &parser) {
    const TerminationSignals interrupts;
    faultPoint("cli_run_setup"); // lets a test interrupt the set-up

    RunRequest request;
    request.trigger = QStringLiteral("cli");
    request.dryRun = parser.isSet(QStringLiteral("dry-run"));
    request.tableIds = parseTableIds(parser.values(QStringLiteral("table")), parser.command());
    request.adopt = parser.isSet(QStringLiteral("adopt"));
    // Taking a target over from its owner is explicit: one named table at a time, never implied.
    if (request.adopt && request.tableIds.isEmpty())
        throw ValidationError(QStringLiteral("run --adopt: name the tables that take their targets over with "
                                             "--table ID"));
    if (request.adopt && request.dryRun)
        throw ValidationError(QStringLiteral("run --adopt: a dry run writes nothing, so it cannot take a "
                                             "target over"));
    if (parser.isSet(QStringLiteral("concurrency")))
        request.concurrency = int(optionInteger(parser, QStringLiteral("concurrency"), 1, kMaxConcurrency));
    takeQueueOptions(request, parser, QStringLiteral("run"));
    if (request.queued && request.dryRun)
        throw ValidationError(QStringLiteral("run --queue: a dry run shows the windows here; run --dry-run "
                                             "without --queue"));
    if (request.queued && request.adopt)
        throw ValidationError(QStringLiteral("run --queue: --adopt takes targets over here; run --adopt "
                                             "without --queue"));
    if (parser.isSet(QStringLiteral("trigger"))) {
        request.trigger = parser.value(QStringLiteral("trigger"));
        if (request.trigger != QLatin1String("cli") && request.trigger != QLatin1String("schedule"))
            throw ValidationError(
                QStringLiteral("--trigger: '%1' is not cli or schedule").arg(request.trigger));
    }
    {
        // Refuse unknown tables before anything runs.
        std::unique_ptr<Workspace> workspace = session.openWorkspace();
        workspace->requireNotCopied();
        for (qint64 id : request.tableIds)
            requireTable(*workspace, id);
    }
    return startRun(session, request, parser);
}

// Asks every open iteration of the run to stop, wherever it runs; waits (up to --wait seconds,
// 10 by default) until the run has ended and prints how.
int runCancel(CliSession &session, const SubcommandParser &parser) {
    const qint64 runId = parseInteger(parser.positional().first(), QStringLiteral("run cancel: run ID"), 1);
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const CancelRequest request = workspace->requestCancel(runId);
    const bool json = parser.isSet(QStringLiteral("json"));
    if (request.runStatus != QLatin1String("running")) {
        const QString text = QStringLiteral("run %1 had ended already (%2): nothing to cancel")
                                 .arg(runId)
                                 .arg(request.runStatus);
        if (json)
            writeOut(toJsonLine(QJsonObject{{QStringLiteral("run_id"), runId},
                                            {QStringLiteral("status"), request.runStatus},
                                            {QStringLiteral("cancelled"), false},
                                            {QStringLiteral("message"), text}}));
        else
            writeOut(text + QLatin1Char('\n'));
        return 0;
    }
    const qint64 waitMs = parser.isSet(QStringLiteral("wait"))
                              ? optionInteger(parser, QStringLiteral("wait"), 0, 3600) * 1000
                              : qint64(10000);
    QElapsedTimer waited;
    waited.start();
    QString status = workspace->runStatus(runId);
    while (status == QLatin1String("running") && !waited.hasExpired(waitMs)) {
        QThread::msleep(200);
        workspace->repairInterruptedRuns(); // a run whose process is gone ends interrupted
        status = workspace->runStatus(runId);
    }
    const bool ended = status != QLatin1String("running");
    if (json) {
        writeOut(toJsonLine(QJsonObject{{QStringLiteral("run_id"), runId},
                                        {QStringLiteral("status"), status},
                                        {QStringLiteral("cancelled"), true},
                                        {QStringLiteral("iterations_asked"), request.iterations},
                                        {QStringLiteral("iterations_closed"), request.closed},
                                        {QStringLiteral("ended"), ended}}));
    } else if (ended) {
        writeOut(QStringLiteral("run %1 cancelled: it ended %2\n").arg(runId).arg(status));
    } else {
        writeOut(QStringLiteral("run %1: cancel asked of %2 iteration(s); the run has not ended within %3 s "
                                "(tidemark-cli history --run %1 shows it)\n")
                     .arg(runId)
                     .arg(request.iterations)
                     .arg(waitMs / 1000));
    }
    return ended ? 0 : 1;
}

// Refuses the first of `options` given, saying `why` (with %1 the table's id, %2 the option).
void refuseOptions(const SubcommandParser &parser, std::initializer_list<const char *> options, qint64 id,
                   const QString &why) {
    for (const char *option : options) {
        if (parser.isSet(QLatin1String(option)))
            throw ValidationError(why.arg(id).arg(QLatin1String(option)));
    }
}

// `backfill ID --range FROM..TO`: a run of its own kind, printed as `run` prints a run.
int rangeBackfill(CliSession &session, const SubcommandParser &parser, qint64 id) {
    const TerminationSignals interrupts;
    refuseOptions(
        parser, {"from", "keep", "delete-newer", "truncate", "yes"}, id,
        QStringLiteral("backfill %1: --range re-copies FROM..TO and leaves the position alone, so it "
                       "takes no --%2 (an option of the backfills that move the position: "
                       "'backfill %1 --from VALUE')"));
    RunRequest request;
    request.trigger = QStringLiteral("cli");
    request.tableIds = {id};
    request.concurrency = 1;
    request.range = WatermarkRangeText::parse(parser.value(QStringLiteral("range")));
    takeQueueOptions(request, parser, QStringLiteral("backfill %1 --range").arg(id));
    {
        std::unique_ptr<Workspace> workspace = session.openWorkspace();
        workspace->requireNotCopied();
        requireTable(*workspace, id);
        rangeBackfillableTable(*workspace, id);
    }
    return startRun(session, request, parser);
}

int backfill(CliSession &session, const SubcommandParser &parser) {
    const qint64 id = parseTableId(parser.positional().first(), parser.command());
    if (parser.isSet(QStringLiteral("range")))
        return rangeBackfill(session, parser, id);

    refuseOptions(
        parser, {"queue", "no-wait"}, id,
        QStringLiteral("backfill %1 --%2: only a range backfill copies rows, which the runners can do "
                       "(backfill %1 --range FROM..TO --queue); --from and --truncate move the "
                       "position here and now, and `run --queue` then copies from it"));
    BackfillRequest request;
    request.tableId = id;
    int actions = 0;
    if (parser.isSet(QStringLiteral("keep"))) {
        request.action = BackfillTargetAction::Keep;
        ++actions;
    }
    if (parser.isSet(QStringLiteral("delete-newer"))) {
        request.action = BackfillTargetAction::DeleteNewer;
        ++actions;
    }
    if (parser.isSet(QStringLiteral("truncate"))) {
        request.action = BackfillTargetAction::Truncate;
        ++actions;
    }
    if (actions != 1)
        throw ValidationError(
            QStringLiteral("backfill %1: choose exactly one of --keep, --delete-newer or --truncate (or "
                           "--range FROM..TO)")
                .arg(id));
    // A truncate is a full reload: it starts from the initial watermark, never from a --from.
    if (request.action == BackfillTargetAction::Truncate) {
        if (parser.isSet(QStringLiteral("from")))
            throw ValidationError(
                QStringLiteral("backfill %1: --truncate reloads from the initial watermark; "
                               "--from cannot go with it (use --delete-newer to reload "
                               "only the rows after a value)")
                    .arg(id));
    } else {
        request.fromText = parser.required(QStringLiteral("from"));
    }
    request.confirmDuplicates = parser.isSet(QStringLiteral("yes"));

    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    workspace->requireNotCopied();
    requireTable(*workspace, id);
    const BackfillResult result = runBackfill(*workspace, request);
    if (parser.isSet(QStringLiteral("json"))) {
        writeOut(toJsonLine(backfillJson(id, result)));
    } else {
        QString line = QStringLiteral("table %1: watermark %2 -> %3")
                           .arg(id)
                           .arg(result.before.isNull() ? QStringLiteral("(none)") : result.before.display(),
                                result.after.isNull() ? QStringLiteral("(none)") : result.after.display());
        if (request.action == BackfillTargetAction::DeleteNewer)
            line += QStringLiteral("; %1 target row(s) deleted").arg(result.rowsDeleted);
        else if (request.action == BackfillTargetAction::Truncate)
            line += QStringLiteral("; target truncated");
        writeOut(line + QLatin1Char('\n'));
    }
    return 0;
}
} // namespace

QList<CommandSpec> runCommands() {
    return {
        {.name = QStringLiteral("run"),
         .usage = QStringLiteral(
             R"(  run [--table ID]... [--concurrency N] [--dry-run] [--json] [--trigger cli|schedule]
                                      --concurrency N: 1 to 256
  run --adopt --table ID...           takes the tables' targets over from the workspace or table
                                      that owns them (after a migration), then runs them
  run --queue [--no-wait] [--table ID]... [--json]
                                      hands the run to the workspace's runners (serve): any of
                                      them copies its tables; waits and prints it as run does,
                                      or with --no-wait prints its id at once)"),
         .options =
             {{QStringLiteral("table"), QStringLiteral("ID"),
               QStringLiteral("runs this table (repeatable; default: every active table)")},
              {QStringLiteral("concurrency"), QStringLiteral("N"), QStringLiteral("tables copied at once")},
              {QStringLiteral("trigger"), QStringLiteral("TRIGGER"),
               QStringLiteral("cli or schedule, as history records it")},
              {QStringLiteral("dry-run"), {}, QStringLiteral("shows each window without writing")},
              kJsonOption,
              {QStringLiteral("adopt"),
               {},
               QStringLiteral("takes the tables' targets over from their owner")},
              {QStringLiteral("queue"), {}, QStringLiteral("hands the run to the workspace's runners")},
              {QStringLiteral("no-wait"), {}, QStringLiteral("with --queue: prints the run id at once")}},
         .handler = run},
        {.name = QStringLiteral("run cancel"),
         .usage = QStringLiteral(
             R"(  run cancel RUN_ID [--wait SECONDS] [--json]
                                      stops the run's iterations wherever they run (a window, a
                                      run, a runner): each rolls back to its last commit; waits
                                      up to SECONDS (10) for the run to end; exit 1 if it did not)"),
         .options = {{QStringLiteral("wait"), QStringLiteral("SECONDS"),
                      QStringLiteral("how long to wait for the run to end")},
                     kJsonOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = QStringLiteral("run ID"),
         .handler = runCancel},
        {.name = QStringLiteral("backfill"),
         .usage = QStringLiteral(R"(  backfill ID --from VALUE (--keep | --delete-newer) [--yes] [--json]
  backfill ID --truncate [--json]     empties the target; the next run reloads from the start
  backfill ID --range FROM..TO [--queue [--no-wait]] [--json]
                                      re-copies the rows with a watermark from FROM to TO (both
                                      included, up to the position) into a merge table, beside
                                      its runs; the position stays; printed as a run; --queue
                                      hands it to the workspace's runners as run --queue does)"),
         .options =
             {{QStringLiteral("from"), QStringLiteral("VALUE"), QStringLiteral("the new watermark")},
              {QStringLiteral("range"), QStringLiteral("FROM..TO"),
               QStringLiteral("re-copies this range; the position stays")},
              {QStringLiteral("keep"), {}, QStringLiteral("keeps the target's rows")},
              {QStringLiteral("delete-newer"), {}, QStringLiteral("deletes the target's rows after --from")},
              {QStringLiteral("truncate"), {}, QStringLiteral("empties the target; the next run reloads it")},
              {QStringLiteral("queue"),
               {},
               QStringLiteral("with --range: hands it to the workspace's runners")},
              {QStringLiteral("no-wait"), {}, QStringLiteral("with --queue: prints the run id at once")},
              kYesOption,
              kJsonOption},
         .minPositional = 1,
         .maxPositional = 1,
         .positionalName = QStringLiteral("table ID"),
         .handler = backfill},
    };
}

} // namespace tidemark::cli
