// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace tidemark {

// A workspace's alerts (`tidemark-cli alert set`): which run statuses notify, and how. Stored in
// the workspace (Workspace::alertSettings); the webhook URL is stored as typed, with secrets as
// `${NAME}` references (model/alerts/secretreference.h), never their values.
struct AlertSettings {
    QString hookCommand; // run by /bin/sh -c, the run's JSON on stdin; empty = no hook
    int hookTimeoutMs = 30000;
    QString webhookUrl;           // http(s) URL, may hold `${NAME}` references; empty = no webhook
    int webhookTimeoutMs = 60000; // every attempt and retry of one alert together
    QStringList on = defaultStatuses();

    bool isEmpty() const { return hookCommand.isEmpty() && webhookUrl.isEmpty(); }
    // True when a run that ended with `runStatus` notifies.
    bool firesOn(const QString &runStatus) const { return !isEmpty() && on.contains(runStatus); }

    static QStringList defaultStatuses(); // failed, warning, interrupted
    static QStringList allowedStatuses(); // those and cancelled
};

// As `alert show --json` and `schedule list --json` print them, and as a schedule stores its own:
// {"hook", "hook_timeout_ms", "webhook", "webhook_timeout_ms", "on"} (null hook/webhook = none).
QJsonObject alertSettingsToJson(const AlertSettings &settings);
AlertSettings alertSettingsFromJson(const QJsonObject &object);

// "failed,warning" -> the list; ValidationError naming `--on` for an unknown or missing status.
QStringList parseAlertStatuses(const QString &text);

// Refuses (ValidationError) a webhook URL that is not http(s) with a host, or that carries a
// secret in clear: credentials before the host, or a query value or path segment that looks
// like a token. The message says how to pass it instead: an environment variable referenced as
// `${NAME}` in the URL.
void checkWebhookUrl(const QString &url);

} // namespace tidemark
