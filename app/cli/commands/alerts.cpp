// SPDX-License-Identifier: MIT
// alert set / show / test / clear: the workspace's alerts.
#include "app/cli/alertoptions.h"
#include "app/cli/arguments.h"
#include "app/cli/clisession.h"
#include "app/cli/commands/commandgroups.h"
#include "app/cli/jsonformat.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "model/alerts/alertdispatcher.h"
#include "model/common/duration.h"
#include "model/common/error.h"
#include "model/storage/workspace.h"

#include <QCoreApplication>
#include <QSysInfo>

namespace tidemark::cli {

namespace {

int alertSet(CliSession &session, const SubcommandParser &parser) {
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    AlertSettings settings = workspace->alertSettings();
    if (!applyAlertOptions(parser, settings, QStringLiteral("alert set")))
        throw ValidationError(QStringLiteral(
            "alert set: give at least one of --hook, --webhook, --on, --hook-timeout, --hook-env, "
            "--webhook-timeout"));
    refuseSecretHookEnv(*workspace, settings, parser.command());
    workspace->setAlertSettings(settings);
    return 0;
}

int alertShow(CliSession &session, const SubcommandParser &parser) {
    const AlertSettings settings = session.openWorkspace()->alertSettings();
    if (parser.isSet(QStringLiteral("json"))) {
        writeOut(toJsonLine(alertSettingsJson(settings)));
        return 0;
    }
    if (settings.isEmpty()) {
        writeOut(
            QStringLiteral("no alerts (set them with: tidemark-cli alert set --hook CMD | --webhook URL)\n"));
        return 0;
    }
    QString text;
    if (!settings.hookCommand.isEmpty())
        text += QStringLiteral("hook:    %1   (time limit %2)\n")
                    .arg(settings.hookCommand, durationText(settings.hookTimeoutMs));
    if (!settings.hookCommand.isEmpty() && !settings.hookEnv.isEmpty())
        text += QStringLiteral("hook env: %1\n").arg(settings.hookEnv.join(QStringLiteral(", ")));
    if (!settings.webhookUrl.isEmpty())
        text += QStringLiteral("webhook: %1   (retried for up to %2)\n")
                    .arg(settings.webhookUrl, durationText(settings.webhookTimeoutMs));
    text += QStringLiteral("on:      %1\n").arg(settings.on.join(QStringLiteral(", ")));
    writeOut(text);
    return 0;
}

int alertTest(CliSession &session, const SubcommandParser &parser) {
    std::unique_ptr<Workspace> workspace = session.openWorkspace();
    AlertSettings settings = workspace->alertSettings();
    settings.withheldEnv = AlertDispatcher::secretVariables(*workspace);
    if (settings.isEmpty())
        throw ValidationError(QStringLiteral("alert test: no alerts set in workspace %1 (see alert set)")
                                  .arg(workspace->path()));
    RunRecord run;
    if (parser.isSet(QStringLiteral("run"))) {
        const qint64 runId = optionInteger(parser, QStringLiteral("run"), 1);
        const QList<RunRecord> runs = workspace->runs(1, runId);
        if (runs.isEmpty())
            throw ValidationError(
                QStringLiteral("--run: no run %1 in workspace %2").arg(runId).arg(workspace->path()));
        run = runs.first();
    } else {
        // A sample: run id 0 tells a receiver it is a test.
        run.trigger = QStringLiteral("cli");
        run.host = QSysInfo::machineHostName();
        run.pid = QCoreApplication::applicationPid();
        run.startedAt = run.finishedAt = QDateTime::currentDateTimeUtc();
        run.status = QStringLiteral("failed");
    }
    workspace.reset();

    AlertDispatcher alerts(session.workspacePath());
    int exitCode = 0;
    QObject::connect(&alerts, &AlertDispatcher::delivered, [&](const AlertDelivery &delivery) {
        writeOut(QStringLiteral("%1: %2 (%3)\n")
                     .arg(delivery.channel, delivery.ok ? QStringLiteral("ok") : QStringLiteral("FAILED"),
                          delivery.detail));
        if (!delivery.ok)
            exitCode = 1;
    });
    alerts.send(run, settings);
    alerts.waitUntilIdle();
    return exitCode;
}

int alertClear(CliSession &session, const SubcommandParser &parser) {
    session.openWorkspace()->setAlertSettings(AlertSettings());
    return 0;
}
} // namespace

QList<CommandSpec> alertCommands() {
    return {
        {.name = QStringLiteral("alert set"),
         .usage = QStringLiteral(
             R"(  alert set [--hook CMD] [--hook-timeout DURATION] [--hook-env VAR[,VAR...]] [--webhook URL]
            [--webhook-timeout DURATION] [--on STATUS[,STATUS...]]
                                         what a failed, warning or interrupted run notifies, and
                                         a table stalled past its --stale-after (--on ...,stalled:
                                         once per stall); only the options given change, ""
                                         removes the hook or webhook
                                         --hook-timeout, --webhook-timeout: 1ms to 10m
                                         a hook gets PATH, HOME, LANG, LC_*, TZ, the TIDEMARK_*
                                         variables of the run and the variables --hook-env names,
                                         never a connection's --password-env or a webhook's ${NAME})"),
         .options = alertOptions(),
         .handler = alertSet},
        {.name = QStringLiteral("alert show"),
         .usage = QStringLiteral(R"(  alert show [--json] | alert test [--run RUN_ID] | alert clear)"),
         .options = {kJsonOption},
         .handler = alertShow},
        {.name = QStringLiteral("alert test"),
         .usage = {},
         .options = {{QStringLiteral("run"), QStringLiteral("RUN_ID"),
                      QStringLiteral("sends that run's alert (default: a sample)")}},
         .handler = alertTest},
        {.name = QStringLiteral("alert clear"), .usage = {}, .options = {}, .handler = alertClear},
    };
}

} // namespace tidemark::cli
