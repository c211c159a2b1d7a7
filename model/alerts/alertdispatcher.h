// SPDX-License-Identifier: MIT
#pragma once

#include "model/alerts/alertdelivery.h"
#include "model/alerts/webhooksender.h"
#include "model/domain/alertsettings.h"
#include "model/domain/runrecord.h"
#include "model/domain/secretreference.h"

#include <QDateTime>
#include <QObject>
#include <memory>

namespace tidemark {

class Workspace;

// Sends a finished run's alerts: the workspace's hook and webhook (AlertSettings), each fed the
// run's JSON (runJson with the run's details, as `history --json` prints it, plus "workspace").
// Every delivery is logged to the workspace log ("core.alerts": channel, exit code or HTTP
// status, time taken), secrets redacted. Never throws: an alert that cannot be sent is a log
// line, not a failed run.
//
// Asynchronous and owned by one thread with an event loop (the CLI's main thread, the runner's):
// notify() starts the deliveries and returns; delivered() reports each, idle() when none is left.
// The runner calls notify() with each run it finished and closeInterruptedRuns() as it looks
// after the workspace; the CLI does the same and calls waitUntilIdle() before it exits.
class AlertDispatcher : public QObject {
    Q_OBJECT
public:
    explicit AlertDispatcher(const QString &workspacePath, QObject *parent = nullptr);
    ~AlertDispatcher() override;

    // Reads the alerts of the run (alertsFor) and sends those that fire on its status (a run
    // still running, succeeded or dry-run never fires). Returns the number started.
    int notify(const RunRecord &run);
    // The alerts `run` sends, read from `workspace`: the workspace's, and besides them those of
    // the schedule that fired it (ScheduleSpec::alerts), each only if it fires on the run's
    // status. A schedule's hook or webhook that is the workspace's too is sent once. For a
    // caller that reads the workspace on another thread (the window), then calls send().
    // Each comes with its withheldEnv filled (secretVariables()).
    static QList<AlertSettings> alertsFor(Workspace &workspace, const RunRecord &run);
    // The environment variables that hold `workspace`'s secrets: every connection's
    // --password-env, and every `${NAME}` of the workspace's and its schedules' webhooks. A hook
    // never gets them, even when it asks (AlertSettings::withheldEnv).
    static QStringList secretVariables(Workspace &workspace);
    // The same with settings given, status not checked (`alert test`, a caller that has read
    // the settings already).
    int send(const RunRecord &run, const AlertSettings &settings);
    // Closes the runs of dead processes as interrupted (Workspace::repairInterruptedRuns) and
    // sends their alerts: exactly one closer sees each run, so each is alerted once. For whoever
    // opens a workspace for a user or looks after it (the CLI, the runner at each tick).
    int closeInterruptedRuns(Workspace &workspace);
    // Sends the alarm of each table that has become stalled (stalledTables at `now`) through the
    // workspace's alerts, if their --on has "stalled": once per stall, whichever process looks
    // first (Workspace::raiseStalledAlarms). A table that moves again is forgotten, so its next
    // stall is alarmed too. Returns the number of deliveries started. For whoever looks after the
    // workspace unattended: the runner at each tick, `run` when it ends.
    int raiseStalledAlarms(Workspace &workspace, const QDateTime &now);

    // The alert's JSON body for `run`.
    QByteArray payload(const RunRecord &run) const;

    void setWebhookPolicy(const WebhookPolicy &policy) { m_policy = policy; }
    // Where `${NAME}` references resolve; the environment by default.
    void setSecretSource(std::shared_ptr<const SecretSource> source) { m_secrets = std::move(source); }

    bool isIdle() const { return m_pending == 0; }
    // Runs a local event loop until every started delivery has finished. Each is bounded (the
    // hook's time limit, the webhook's total time), so this is too. For the CLI, not a window.
    void waitUntilIdle();

signals:
    void delivered(const tidemark::AlertDelivery &delivery);
    void idle();

private:
    // What one alert says, whatever it is about, and the TIDEMARK_* variables its hook gets
    // besides TIDEMARK_WORKSPACE.
    struct Message {
        QString subject; // AlertDelivery::subject
        QByteArray body;
        QList<std::pair<QString, QString>> hookVariables;
    };
    int deliver(const Message &message, const AlertSettings &settings);
    void onDelivered(const AlertDelivery &delivery, const QString &extra);

    QString m_workspacePath;
    WebhookPolicy m_policy;
    std::shared_ptr<const SecretSource> m_secrets;
    int m_pending = 0;
};

} // namespace tidemark
