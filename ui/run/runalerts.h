// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QObject>
#include <QPointer>

namespace tidemark {

class AlertDispatcher;
class WorkspaceGateway;

// The window's runs send the same alerts as the CLI's and the runner's (AlertDispatcher: the
// workspace's hook and webhook, and the firing schedule's, on failed / warning / interrupted as
// set): the finished runs of the window's coordinator, and the runs of dead processes that the
// window's gateway closes as interrupted when it opens the workspace. Which alerts apply is read
// through the gateway (off the GUI thread); the hook and the webhook run asynchronously here.
class RunAlerts : public QObject {
    Q_OBJECT
public:
    RunAlerts(WorkspaceGateway *gateway, QObject *parent = nullptr);

    AlertDispatcher *dispatcher() const { return m_dispatcher; }
    // Another workspace was opened: deletes itself once the alerts under way are delivered.
    void retire();

public slots:
    void runFinished(const tidemark::RunRecord &run);
    void runsInterrupted(const QList<qint64> &runIds);

private:
    QPointer<WorkspaceGateway> m_gateway;
    AlertDispatcher *m_dispatcher;
};

} // namespace tidemark
