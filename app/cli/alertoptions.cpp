// SPDX-License-Identifier: MIT
#include "app/cli/alertoptions.h"

#include "app/cli/subcommandparser.h"
#include "model/alerts/alertdispatcher.h"
#include "model/common/duration.h"
#include "model/common/error.h"
#include "model/domain/secretreference.h"
#include "model/storage/workspace.h"

namespace tidemark::cli {

namespace {

// "500ms", "30s", "2m" -> milliseconds; a ValidationError naming the command and the option
// otherwise. At most AlertSettings::kMaxTimeoutMs: `run` waits for its alerts before it exits, so a webhook
// that never answers must not keep a cron job (or the next one) waiting for a day.

int alertTimeoutMs(const QString &text, const QString &what) {
    const qint64 ms = parseDurationMs(text, what);
    if (ms > AlertSettings::kMaxTimeoutMs)
        throw ValidationError(QStringLiteral("%1: '%2' is longer than %3 (from 1ms to %3)")
                                  .arg(what, text, durationText(AlertSettings::kMaxTimeoutMs)));
    return int(ms);
}

} // namespace

// Applies the alert options given (only those; "" removes the hook or webhook) to `settings`.
// Returns whether any was given. Refuses --on or a time limit with neither a hook nor a webhook
// to apply it to. A webhook secret in clear is refused when stored (checkWebhookUrl).
bool applyAlertOptions(const SubcommandParser &parser, AlertSettings &settings, const QString &command) {
    bool changed = false;
    if (parser.isSet(QStringLiteral("hook"))) {
        settings.hookCommand = parser.value(QStringLiteral("hook")).trimmed();
        changed = true;
    }
    if (parser.isSet(QStringLiteral("webhook"))) {
        settings.webhookUrl = parser.value(QStringLiteral("webhook")).trimmed();
        changed = true;
    }
    if (parser.isSet(QStringLiteral("hook-timeout"))) {
        settings.hookTimeoutMs = alertTimeoutMs(parser.value(QStringLiteral("hook-timeout")),
                                                command + QStringLiteral(": --hook-timeout"));
        changed = true;
    }
    if (parser.isSet(QStringLiteral("webhook-timeout"))) {
        settings.webhookTimeoutMs = alertTimeoutMs(parser.value(QStringLiteral("webhook-timeout")),
                                                   command + QStringLiteral(": --webhook-timeout"));
        changed = true;
    }
    if (parser.isSet(QStringLiteral("on"))) {
        settings.on = parseAlertStatuses(parser.value(QStringLiteral("on")));
        changed = true;
    }
    if (parser.isSet(QStringLiteral("hook-env"))) {
        settings.hookEnv =
            parseHookEnv(parser.value(QStringLiteral("hook-env")), command + QStringLiteral(": --hook-env"));
        changed = true;
    }
    if (changed && settings.isEmpty() && !parser.isSet(QStringLiteral("hook")) &&
        !parser.isSet(QStringLiteral("webhook")))
        throw ValidationError(QStringLiteral("%1: no hook or webhook to apply this to; give --hook CMD "
                                             "or --webhook URL")
                                  .arg(command));
    return changed;
}

// A hook never gets the variables holding the workspace's secrets (the dispatcher withholds
// them); asking for one is refused here, so nobody counts on a variable that never arrives.
void refuseSecretHookEnv(Workspace &workspace, const AlertSettings &settings, const QString &command) {
    const QStringList secrets =
        AlertDispatcher::secretVariables(workspace) + secretReferences(settings.webhookUrl);
    for (const QString &name : settings.hookEnv) {
        if (secrets.contains(name))
            throw ValidationError(QStringLiteral("%1: --hook-env: %2 holds a secret of this workspace (a "
                                                 "connection's --password-env or a webhook's ${%2}); a "
                                                 "hook never gets it")
                                      .arg(command, name));
    }
}

QList<OptionSpec> alertOptions() {
    return {
        {QStringLiteral("hook"), QStringLiteral("CMD"),
         QStringLiteral("a command run for each alert (\"\" removes it)")},
        {QStringLiteral("hook-timeout"), QStringLiteral("DURATION"), QStringLiteral("the hook's time limit")},
        {QStringLiteral("hook-env"), QStringLiteral("VAR[,VAR...]"),
         QStringLiteral("variables the hook also gets")},
        {QStringLiteral("webhook"), QStringLiteral("URL"),
         QStringLiteral("a URL posted each alert (\"\" removes it); secrets as ${NAME}")},
        {QStringLiteral("webhook-timeout"), QStringLiteral("DURATION"),
         QStringLiteral("how long the webhook is retried")},
        {QStringLiteral("on"), QStringLiteral("STATUS[,STATUS...]"),
         QStringLiteral("the run statuses that alert")},
    };
}

} // namespace tidemark::cli
