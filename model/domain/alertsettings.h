// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace tidemark {

// A workspace's alerts (`tidemark-cli alert set`): which run statuses notify, and how. Stored in
// the workspace (Workspace::alertSettings); the webhook URL is stored as typed, with secrets as
// `${NAME}` references (model/domain/secretreference.h), never their values.
struct AlertSettings {
    // The longest a hook or a webhook may take (10 minutes): `run` waits for its alerts before it
    // exits, so one that never answers must not hold an unattended job for hours. Settings
    // stored before this limit are held to it when sent.
    static constexpr int kMaxTimeoutMs = 600'000;

    QString hookCommand; // run by /bin/sh -c, the run's JSON on stdin; empty = no hook
    int hookTimeoutMs = 30000;
    // The variables of Tidemark's environment the hook gets besides the few every hook gets
    // (hookEnvironment(), model/alerts/hookrunner.h): a hook sees nothing it did not ask for.
    QStringList hookEnv;
    QString webhookUrl;           // http(s) URL, may hold `${NAME}` references; empty = no webhook
    int webhookTimeoutMs = 60000; // every attempt and retry of one alert together
    QStringList on = defaultStatuses();
    // Not stored: the variables that hold secrets where these settings are sent from (the
    // workspace's connections' --password-env, every webhook's `${NAME}`), never passed to the
    // hook even when hookEnv names them. Filled by AlertDispatcher::alertsFor() and
    // secretVariables().
    QStringList withheldEnv;

    bool isEmpty() const { return hookCommand.isEmpty() && webhookUrl.isEmpty(); }
    // True when a run that ended with `runStatus` notifies.
    bool firesOn(const QString &runStatus) const { return !isEmpty() && on.contains(runStatus); }

    static QStringList defaultStatuses(); // failed, warning, interrupted
    static QStringList runStatuses();     // those and cancelled: what a schedule's alerts take
    // Those and "stalled": a table's alarm, sent through the workspace's alerts only
    // (AlertDispatcher::raiseStalledAlarms).
    static QStringList allowedStatuses();
    // The workspace's, before any were set: the defaults and "stalled".
    static AlertSettings workspaceDefaults();
};

// As `alert show --json` and `schedule list --json` print them, and as a schedule stores its own:
// {"hook", "hook_timeout_ms", "hook_env", "webhook", "webhook_timeout_ms", "on"} (null
// hook/webhook = none, hook_env an array of names).
QJsonObject alertSettingsToJson(const AlertSettings &settings);
AlertSettings alertSettingsFromJson(const QJsonObject &object);

// "failed,warning" -> the list; ValidationError naming `--on` for an unknown or missing status.
QStringList parseAlertStatuses(const QString &text);
// "SLACK_CHANNEL,HTTPS_PROXY" -> the names, without repeats; "" -> none. ValidationError naming
// `what` (the command and option) for a name that is not an environment variable's.
QStringList parseHookEnv(const QString &text, const QString &what);

// Refuses (ValidationError) a webhook URL that is not http(s) with a host, or that carries a
// secret in clear: credentials before the host, or a query value or path segment that looks
// like a token. The message says how to pass it instead: an environment variable referenced as
// `${NAME}` in the URL.
void checkWebhookUrl(const QString &url);

} // namespace tidemark
