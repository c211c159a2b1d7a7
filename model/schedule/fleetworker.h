// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QTimer>
#include <atomic>
#include <memory>

namespace tidemark {

class WorkerConnections;
class Workspace;

// One runner's share of the workspace's queue (docs/design.md, "The runner fleet"): twice a
// second it renews its row among the fleet's runners, puts back the iterations of runners that
// died, passes on the cancels asked for its own, and claims as many queued iterations as it
// has free slots, which it runs on its own threads under the workspace's caps. Whoever ends a
// run's last iteration closes the run. A runner that cannot reach the workspace for longer than
// a heartbeat cancels what it holds; once it reaches it again, it puts back in the queue the
// iterations whose end it could not record, and carries on. Lives on the thread that created it (an event
// loop); the workspace is only touched on its pools.
class FleetWorker : public QObject {
    Q_OBJECT
public:
    FleetWorker(const QString &workspacePath, int slotCount, QObject *parent = nullptr);
    // Stops as stop() does and waits for its iterations to roll back.
    ~FleetWorker() override;

    void start();
    // Claims no more; its running iterations are cancelled, roll back to their last commit and
    // go back in the queue for the other runners (unless their cancel was asked for); its row
    // leaves the fleet; then emits stopped().
    void stop();
    int running() const { return int(m_running.size()); }
    int slotCount() const { return m_slots; }

signals:
    void stopped();

private:
    struct Looker;
    void look();
    struct Looked;
    void onLooked(const Looked &looked);
    void cancelEverything(const QString &why);
    void runClaimed(const IterationRecord &claimed);
    void onIterationDone(const tidemark::IterationRecord &record, const QString &closedRunStatus,
                         bool unrecorded);
    void stopIfIdle();

    const QString m_path;
    const int m_slots;
    const QDateTime m_startedAt;
    QThreadPool m_pool;        // the claimed iterations, m_slots at a time
    QThreadPool m_bookkeeping; // beats, takeovers, cancels and claims, one look at a time
    QTimer m_lookTimer;
    bool m_looking = false;
    bool m_stopping = false;
    bool m_stoppedEmitted = false;
    bool m_workspaceLost = false; // its iterations were cancelled for it; not reached since
    std::shared_ptr<Looker> m_looker;
    std::shared_ptr<WorkerConnections> m_connections;
    struct Running {
        std::shared_ptr<std::atomic_bool> cancel;
        std::shared_ptr<std::atomic_bool> handBack; // the runner stops: back in the queue
    };
    QHash<qint64, Running> m_running; // by iteration id
};

} // namespace tidemark
