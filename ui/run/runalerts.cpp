// SPDX-License-Identifier: MIT
#include "ui/run/runalerts.h"

#include "model/alerts/alertdispatcher.h"
#include "model/storage/workspace.h"
#include "ui/common/workspacegateway.h"

namespace tidemark {

namespace {

struct RunAlert {
    RunRecord run;
    QList<AlertSettings> alerts;
};

} // namespace

RunAlerts::RunAlerts(WorkspaceGateway *gateway, QObject *parent)
    : QObject(parent)
    , m_gateway(gateway)
    , m_dispatcher(new AlertDispatcher(gateway->path(), this)) {
    connect(gateway, &WorkspaceGateway::interruptedRunsClosed, this, &RunAlerts::runsInterrupted);
}

void RunAlerts::retire() {
    m_gateway = nullptr;
    if (m_dispatcher->isIdle())
        deleteLater();
    else
        connect(m_dispatcher, &AlertDispatcher::idle, this, &QObject::deleteLater);
}

void RunAlerts::runFinished(const RunRecord &run) {
    if (!m_gateway || run.dryRun)
        return;
    m_gateway->submit(
        this, [run](Workspace &ws) { return AlertDispatcher::alertsFor(ws, run); },
        [this, run](const QList<AlertSettings> &alerts) {
            for (const AlertSettings &settings : alerts)
                m_dispatcher->send(run, settings);
        });
}

void RunAlerts::runsInterrupted(const QList<qint64> &runIds) {
    if (!m_gateway)
        return;
    m_gateway->submit(
        this,
        [runIds](Workspace &ws) {
            QList<RunAlert> alerts;
            for (const qint64 id : runIds)
                for (const RunRecord &run : ws.runs(1, id))
                    alerts.append({run, AlertDispatcher::alertsFor(ws, run)});
            return alerts;
        },
        [this](const QList<RunAlert> &alerts) {
            for (const RunAlert &alert : alerts)
                for (const AlertSettings &settings : alert.alerts)
                    m_dispatcher->send(alert.run, settings);
        });
}

} // namespace tidemark
