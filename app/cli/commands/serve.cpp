// SPDX-License-Identifier: MIT
// serve (the runner) and runners.
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/jsonlogsink.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "app/cli/terminationsignals.h"
#include "app/cli/textformat.h"
#include "model/alerts/alertdispatcher.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/timestamp.h"
#include "model/schedule/clock.h"
#include "model/schedule/firetimes.h"
#include "model/schedule/runner.h"
#include "model/schedule/runnerstatus.h"
#include "model/storage/workspace.h"
#include "model/storage/workspacelocation.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QTimer>

#include <cstdlib>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace tidemark::cli {

namespace {

// `serve`'s exit status when its workspace file was replaced under it.
constexpr int kExitWorkspaceReplaced = 3;
constexpr qint64 kMaxSlots = 256;

// The workspace's runner as its heartbeat row says: alive or not, and how its last firing went.
int runners(CliSession &session, const SubcommandParser &parser) {
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    const std::optional<RunnerHeartbeat> heartbeat = workspace->runner();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QJsonArray array;
    QList<QStringList> rows{{QStringLiteral("RUNNER"), QStringLiteral("VERSION"), QStringLiteral("STATE"),
                             QStringLiteral("STARTED"), QStringLiteral("LAST BEAT"),
                             QStringLiteral("LAST FIRING")}};
    if (heartbeat) {
        const RunnerStatus status = RunnerStatus::of(heartbeat, now);
        const bool alive = status.state == RunnerStatus::State::Running;
        const FiringOutcome &firing = heartbeat->lastFiring;
        const QString runner = QStringLiteral("%1:%2").arg(heartbeat->host).arg(heartbeat->pid);
        QJsonObject lastFiring;
        if (firing.at.isValid()) {
            lastFiring.insert(QStringLiteral("at"), isoUtc(firing.at));
            lastFiring.insert(QStringLiteral("schedule"), firing.schedule);
            lastFiring.insert(QStringLiteral("failed"), firing.failed());
            lastFiring.insert(QStringLiteral("error"),
                              firing.failed() ? QJsonValue(firing.error) : QJsonValue(QJsonValue::Null));
        }
        array.append(QJsonObject{
            {QStringLiteral("runner"), runner},
            {QStringLiteral("host"), heartbeat->host},
            {QStringLiteral("pid"), heartbeat->pid},
            {QStringLiteral("version"), heartbeat->version},
            {QStringLiteral("alive"), alive},
            {QStringLiteral("started_at"), isoUtc(heartbeat->startedAt)},
            {QStringLiteral("last_beat_at"), isoUtc(heartbeat->lastBeatAt)},
            {QStringLiteral("last_firing"),
             firing.at.isValid() ? QJsonValue(lastFiring) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("role"), QStringLiteral("scheduler")},
        });
        rows.append(
            {runner, heartbeat->version, alive ? QStringLiteral("alive") : QStringLiteral("stopped"),
             isoUtc(heartbeat->startedAt), isoUtc(heartbeat->lastBeatAt),
             !firing.at.isValid() ? QStringLiteral("-")
             : firing.failed()
                 ? QStringLiteral("FAILED %1 '%2': %3").arg(isoUtc(firing.at), firing.schedule, firing.error)
                 : QStringLiteral("ok %1 '%2'").arg(isoUtc(firing.at), firing.schedule)});
    }
    // The fleet (docs/design.md, "The runner fleet"): every runner that takes work from the queue.
    for (const FleetRunner &runner : workspace->fleetRunners()) {
        array.append(QJsonObject{
            {QStringLiteral("runner"), runner.id},
            {QStringLiteral("host"), runner.host},
            {QStringLiteral("pid"), runner.pid},
            {QStringLiteral("version"), runner.version},
            {QStringLiteral("alive"), runner.alive},
            {QStringLiteral("started_at"), isoUtc(runner.startedAt)},
            {QStringLiteral("last_beat_at"), isoUtc(runner.lastBeatAt)},
            {QStringLiteral("role"), QStringLiteral("worker")},
            {QStringLiteral("slots"), runner.slotCount},
            {QStringLiteral("running"), runner.running},
        });
        rows.append(
            {runner.id, runner.version,
             runner.alive
                 ? QStringLiteral("alive, %1 of %2 slots busy").arg(runner.running).arg(runner.slotCount)
                 : QStringLiteral("stopped"),
             isoUtc(runner.startedAt), isoUtc(runner.lastBeatAt), QStringLiteral("(takes queued work)")});
    }
    writeOut(parser.isSet(QStringLiteral("json")) ? toJsonLine(array) : alignColumns(rows).toUtf8());
    return 0;
}

int serve(CliSession &session, const SubcommandParser &parser) {
    const QString path = session.workspacePath();
    session.openWorkspace(); // refuses a missing or foreign file (exit 2); installs the log file
    spdlog::sink_ptr console;
    if (parser.isSet(QStringLiteral("json-log")))
        console = std::make_shared<JsonLogSink>();
    else
        console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    console->set_level(spdlog::level::info);
    replaceStderrSink(console);
    // A runner lives for days and may be killed: every line reaches the workspace log at once.
    spdlog::flush_on(spdlog::level::info);

    const SystemClock clock;
    const CronFireTimes fireTimes;
    Runner runner(path, clock, fireTimes);
    if (parser.isSet(QStringLiteral("slots")))
        runner.setSlotLimit(int(optionInteger(parser, QStringLiteral("slots"), 1, kMaxSlots)));
    // On a server workspace every runner takes work; a file's runners share its one machine, and
    // one acts unless asked to share.
    runner.setFleet(parser.isSet(QStringLiteral("fleet")) || WorkspaceLocation::isServer(path));
    // Alerts of finished runs, and of dead processes' runs this runner closes as interrupted
    // (each closed run is alerted once, by whoever closed it). On SIGTERM, deliveries still in
    // flight are abandoned: the stop must take under 10 s.
    AlertDispatcher alerts(path);
    QObject::connect(&runner, &Runner::runFinished, &alerts,
                     [&alerts](const RunRecord &run) { alerts.notify(run); });
    QObject::connect(&runner, &Runner::firingFailed, &alerts,
                     [&alerts](const RunRecord &firing) { alerts.notify(firing); });
    // And once a minute: dead processes' runs, and tables that became stalled (once per stall,
    // however many runners and CLIs look).
    const auto lookAfter = [&] {
        try {
            std::unique_ptr<Workspace> workspace = Workspace::open(path);
            alerts.closeInterruptedRuns(*workspace);
            alerts.raiseStalledAlarms(*workspace, QDateTime::currentDateTimeUtc());
        } catch (const Error &error) {
            logger("cli")->warn("looking after the workspace: {}", str(error.message()));
        }
    };
    QTimer lookAfterTimer;
    lookAfterTimer.setInterval(60'000);
    QObject::connect(&lookAfterTimer, &QTimer::timeout, lookAfter);
    lookAfterTimer.start();
    QTimer::singleShot(0, lookAfter);
    QObject::connect(&runner, &Runner::stopped, [] { QCoreApplication::exit(0); });
    // Exits at once, closing nothing (see Runner::workspaceReplaced): running iterations end with
    // the process, which the target's compare-and-set makes harmless; a fresh start (the unit's
    // Restart=on-failure) opens the new file.
    QObject::connect(&runner, &Runner::workspaceReplaced, [] {
        logger("cli")->error("exiting {}: a fresh start opens the new workspace file",
                             kExitWorkspaceReplaced);
        spdlog::apply_all([](const std::shared_ptr<spdlog::logger> &each) { each->flush(); });
        std::_Exit(kExitWorkspaceReplaced);
    });

    catchTerminationSignals();
    QTimer signalPoll;
    signalPoll.setInterval(100);
    QObject::connect(&signalPoll, &QTimer::timeout, [&] {
        const int signal = takePendingSignal();
        if (signal == 0)
            return;
        logger("cli")->info("signal {}: stopping the runner; running iterations roll back", signal);
        runner.stop();
    });
    signalPoll.start();
    runner.start();
    QCoreApplication::exec();
    signalPoll.stop();
    restoreTerminationSignals();
    return 0;
}
} // namespace

QList<CommandSpec> serveCommands() {
    return {
        {.name = QStringLiteral("serve"),
         .usage = QStringLiteral(
             R"(  serve [--json-log] [--slots N] [--fleet]
                                      runs due schedules until SIGTERM/SIGINT (exit 0); exits 3
                                      at once when its workspace file is replaced under it, so a
                                      restart (the unit's Restart=on-failure) opens the new file;
                                      --slots N (1 to 256): iterations this runner runs at once,
                                      whatever its schedules' concurrency, beside the workspace's caps;
                                      the active runner takes queued work (run --queue); --fleet:
                                      every runner does, and schedules' runs are queued for all of
                                      them (always on a server workspace; 4 slots unless --slots))"),
         .options =
             {{QStringLiteral("json-log"), {}, QStringLiteral("logs one JSON object a line on stderr")},
              {QStringLiteral("slots"), QStringLiteral("N"),
               QStringLiteral("iterations this runner runs at once")},
              {QStringLiteral("fleet"), {}, QStringLiteral("takes queued work beside the other runners")}},
         .handler = serve},
        {.name = QStringLiteral("runners"),
         .usage = QStringLiteral(
             R"(  runners [--json]                    the workspace's runners: the one that fires schedules (alive
                                      or stopped, last beat, whether its last firing failed and
                                      why), then each that takes queued work (slots, iterations
                                      running, last beat))"),
         .options = {kJsonOption},
         .handler = runners},
    };
}

} // namespace tidemark::cli
