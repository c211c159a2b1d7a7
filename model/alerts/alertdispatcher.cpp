// SPDX-License-Identifier: MIT
#include "model/alerts/alertdispatcher.h"

#include "model/alerts/hookrunner.h"
#include "model/common/logging.h"
#include "model/domain/runjson.h"
#include "model/engine/stalledtables.h"
#include "model/storage/workspace.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
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
    return deliver({QStringLiteral("run %1").arg(run.id),
                    payload(run),
                    {{QStringLiteral("TIDEMARK_RUN_ID"), QString::number(run.id)},
                     {QStringLiteral("TIDEMARK_RUN_STATUS"), run.status}}},
                   settings);
}

int AlertDispatcher::deliver(const Message &message, const AlertSettings &settings) {
    int started = 0;
    if (!settings.hookCommand.isEmpty()) {
        // The webhook's own references are withheld even when the caller did not fill
        // withheldEnv (a settings object read without alertsFor()).
        const QStringList withheld = settings.withheldEnv + secretReferences(settings.webhookUrl);
        for (const QString &name : settings.hookEnv) {
            if (withheld.contains(name))
                alertLog()->warn("{}: hook '{}': ${} holds a secret of the workspace (a password "
                                 "or a webhook token); not passed to the hook",
                                 str(message.subject), str(settings.hookCommand), str(name));
        }
        QProcessEnvironment environment =
            hookEnvironment(QProcessEnvironment::systemEnvironment(), settings.hookEnv, withheld);
        environment.insert(QStringLiteral("TIDEMARK_WORKSPACE"), m_workspacePath);
        for (const auto &[name, value] : message.hookVariables)
            environment.insert(name, value);
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
        hook->start(message.subject, message.body, environment);
    }
    if (!settings.webhookUrl.isEmpty()) {
        auto *webhook = new WebhookSender(m_policy, this);
        const QString url = settings.webhookUrl;
        const QString subject = message.subject;
        // In the log file only: stderr (the CLI's, the runner's journal) gets the outcome once.
        connect(webhook, &WebhookSender::attemptFailed, this, [subject, url](const QString &detail) {
            alertLog()->info("{}: webhook {}: {}", str(subject), str(url), str(detail));
        });
        connect(webhook, &WebhookSender::finished, this, [this, webhook, url](const AlertDelivery &delivery) {
            webhook->deleteLater();
            onDelivered(delivery, url);
        });
        ++m_pending;
        ++started;
        webhook->start(message.subject, settings.webhookUrl, message.body,
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

int AlertDispatcher::raiseStalledAlarms(Workspace &workspace, const QDateTime &now) {
    AlertSettings settings = workspace.alertSettings();
    const QHash<qint64, QString> stalled = stalledTables(workspace, now);
    // Only a stall somebody hears of is recorded: alerts set later still raise the ones going on.
    QSet<qint64> alarmed;
    if (settings.firesOn(QStringLiteral("stalled"))) {
        for (auto it = stalled.cbegin(); it != stalled.cend(); ++it)
            alarmed.insert(it.key());
    }
    const QList<qint64> raised = workspace.raiseStalledAlarms(alarmed, now);
    if (raised.isEmpty())
        return 0;
    settings.withheldEnv = secretVariables(workspace);
    int started = 0;
    for (const qint64 id : raised) {
        const std::optional<TableSpec> spec = workspace.table(id);
        if (!spec)
            continue; // removed since
        QJsonObject object;
        object.insert(QStringLiteral("kind"), QStringLiteral("table_health"));
        object.insert(QStringLiteral("workspace"), m_workspacePath);
        object.insert(QStringLiteral("table_id"), id);
        object.insert(QStringLiteral("source"), spec->sourceDisplay());
        object.insert(QStringLiteral("target"), spec->targetDisplay());
        object.insert(QStringLiteral("health"), QStringLiteral("stalled"));
        object.insert(QStringLiteral("reason"), stalled.value(id));
        object.insert(QStringLiteral("stale_after"), spec->staleAfter);
        object.insert(QStringLiteral("watermark"), watermarkJson(spec->lastWatermark.display()));
        object.insert(QStringLiteral("raised_at"), isoUtc(now));
        alertLog()->warn("table {} ({}) is stalled: {}", id, str(spec->sourceDisplay()),
                         str(stalled.value(id)));
        started += deliver({QStringLiteral("table %1").arg(id),
                            QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n',
                            {{QStringLiteral("TIDEMARK_TABLE_ID"), QString::number(id)},
                             {QStringLiteral("TIDEMARK_TABLE_HEALTH"), QStringLiteral("stalled")}}},
                           settings);
    }
    return started;
}

void AlertDispatcher::onDelivered(const AlertDelivery &delivery, const QString &extra) {
    auto log = alertLog();
    log->log(delivery.ok ? spdlog::level::info : spdlog::level::warn, "{}: {} {}: {}", str(delivery.subject),
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
