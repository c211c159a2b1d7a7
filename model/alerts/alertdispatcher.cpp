// SPDX-License-Identifier: MIT
#include "model/alerts/alertdispatcher.h"

#include "model/alerts/hookrunner.h"
#include "model/common/logging.h"
#include "model/domain/runjson.h"
#include "model/storage/workspace.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QProcessEnvironment>

#include <algorithm>

namespace tidemark {
namespace {

auto alertLog() {
    return logger("core.alerts");
}

// The alerts that fire for `run` (AlertDispatcher::alertsFor), without their withheld variables.
QList<AlertSettings> alertsOf(Workspace &workspace, const RunRecord &run) {
    QList<AlertSettings> alerts;
    const AlertSettings own = workspace.alertSettings();
    if (own.firesOn(run.status))
        alerts.append(own);
    if (run.schedule.isEmpty())
        return alerts;
    const std::optional<ScheduleSpec> schedule = workspace.schedule(run.schedule);
    if (!schedule || !schedule->alerts.firesOn(run.status))
        return alerts;
    AlertSettings scheduleAlerts = schedule->alerts;
    if (own.firesOn(run.status)) {
        if (scheduleAlerts.hookCommand == own.hookCommand)
            scheduleAlerts.hookCommand.clear();
        if (scheduleAlerts.webhookUrl == own.webhookUrl)
            scheduleAlerts.webhookUrl.clear();
    }
    if (!scheduleAlerts.isEmpty())
        alerts.append(scheduleAlerts);
    return alerts;
}

} // namespace

AlertDispatcher::AlertDispatcher(const QString &workspacePath, QObject *parent)
    : QObject(parent)
    , m_workspacePath(workspacePath)
    , m_secrets(std::make_shared<EnvironmentSecretSource>()) {
    qRegisterMetaType<tidemark::AlertDelivery>("tidemark::AlertDelivery");
}

AlertDispatcher::~AlertDispatcher() = default;

QByteArray AlertDispatcher::payload(const RunRecord &run) const {
    QJsonObject object = runJson(run, true);
    object.insert(QStringLiteral("workspace"), m_workspacePath);
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

QStringList AlertDispatcher::secretVariables(Workspace &workspace) {
    QStringList names;
    for (const ConnectionSpec &connection : workspace.connections()) {
        if (!connection.passwordEnv.isEmpty())
            names.append(connection.passwordEnv);
    }
    names += secretReferences(workspace.alertSettings().webhookUrl);
    for (const ScheduleSpec &schedule : workspace.schedules())
        names += secretReferences(schedule.alerts.webhookUrl);
    names.removeDuplicates();
    return names;
}

QList<AlertSettings> AlertDispatcher::alertsFor(Workspace &workspace, const RunRecord &run) {
    QList<AlertSettings> alerts = alertsOf(workspace, run);
    if (alerts.isEmpty())
        return alerts;
    const QStringList withheld = secretVariables(workspace);
    for (AlertSettings &settings : alerts)
        settings.withheldEnv = withheld;
    return alerts;
}

int AlertDispatcher::notify(const RunRecord &run) {
    QList<AlertSettings> alerts;
    try {
        alerts = alertsFor(*Workspace::open(m_workspacePath), run);
    } catch (const std::exception &error) {
        alertLog()->error("run {}: alerts not sent, their settings cannot be read: {}", run.id, error.what());
        return 0;
    }
    int started = 0;
    for (const AlertSettings &settings : std::as_const(alerts))
        started += send(run, settings);
    return started;
}

int AlertDispatcher::send(const RunRecord &run, const AlertSettings &settings) {
    const QByteArray body = payload(run);
    int started = 0;
    if (!settings.hookCommand.isEmpty()) {
        // The webhook's own references are withheld even when the caller did not fill
        // withheldEnv (a settings object read without alertsFor()).
        const QStringList withheld = settings.withheldEnv + secretReferences(settings.webhookUrl);
        for (const QString &name : settings.hookEnv) {
            if (withheld.contains(name))
                alertLog()->warn("run {}: hook '{}': ${} holds a secret of the workspace (a password "
                                 "or a webhook token); not passed to the hook",
                                 run.id, str(settings.hookCommand), str(name));
        }
        QProcessEnvironment environment =
            hookEnvironment(QProcessEnvironment::systemEnvironment(), settings.hookEnv, withheld);
        environment.insert(QStringLiteral("TIDEMARK_WORKSPACE"), m_workspacePath);
        environment.insert(QStringLiteral("TIDEMARK_RUN_ID"), QString::number(run.id));
        environment.insert(QStringLiteral("TIDEMARK_RUN_STATUS"), run.status);
        auto *hook = new HookRunner(settings.hookCommand,
                                    std::min(settings.hookTimeoutMs, AlertSettings::kMaxTimeoutMs), this);
        const QString command = settings.hookCommand;
        connect(hook, &HookRunner::finished, this, [this, hook, command](const AlertDelivery &delivery) {
            hook->deleteLater();
            QString extra = QStringLiteral("'%1'").arg(command);
            if (!hook->output().isEmpty())
                extra += QStringLiteral("; output: %1").arg(hook->output());
            onDelivered(delivery, extra);
        });
        ++m_pending;
        ++started;
        hook->start(run.id, body, environment);
    }
    if (!settings.webhookUrl.isEmpty()) {
        auto *webhook = new WebhookSender(m_policy, this);
        const QString url = settings.webhookUrl;
        const qint64 runId = run.id;
        // In the log file only: stderr (the CLI's, the runner's journal) gets the outcome once.
        connect(webhook, &WebhookSender::attemptFailed, this, [runId, url](const QString &detail) {
            alertLog()->info("run {}: webhook {}: {}", runId, str(url), str(detail));
        });
        connect(webhook, &WebhookSender::finished, this, [this, webhook, url](const AlertDelivery &delivery) {
            webhook->deleteLater();
            onDelivered(delivery, url);
        });
        ++m_pending;
        ++started;
        webhook->start(run.id, settings.webhookUrl, body,
                       std::min(settings.webhookTimeoutMs, AlertSettings::kMaxTimeoutMs), *m_secrets);
    }
    return started;
}

int AlertDispatcher::closeInterruptedRuns(Workspace &workspace) {
    QList<qint64> closed;
    workspace.repairInterruptedRuns(&closed);
    for (const qint64 runId : std::as_const(closed)) {
        for (const RunRecord &run : workspace.runs(1, runId))
            notify(run);
    }
    return int(closed.size());
}

void AlertDispatcher::onDelivered(const AlertDelivery &delivery, const QString &extra) {
    auto log = alertLog();
    log->log(delivery.ok ? spdlog::level::info : spdlog::level::warn, "run {}: {} {}: {}", delivery.runId,
             str(delivery.channel), str(extra), str(delivery.detail));
    // Alerts are rare and read by people after something went wrong: on disk at once.
    log->flush();
    --m_pending;
    emit delivered(delivery);
    if (m_pending == 0)
        emit idle();
}

void AlertDispatcher::waitUntilIdle() {
    if (isIdle())
        return;
    QEventLoop loop;
    connect(this, &AlertDispatcher::idle, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace tidemark
