// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <chrono>
#include <memory>

namespace tidemark {

// What another connection (any process, or another thread of this one) changed in a workspace
// since the watcher last looked.
struct WorkspaceChanges {
    // The control table: rows added, paused, resumed, removed or restored, a watermark moved,
    // or an iteration ended (each table's last-run status).
    bool tables = false;
    // Runs that started, progressed or ended: every run running now or at the last look, and
    // every run begun since.
    QList<qint64> runs;
    // A schedule was added, edited, paused, resumed, removed or fired.
    bool schedules = false;
    // The runner's heartbeat row: a runner claimed, beat, released or was replaced.
    bool runner = false;

    bool isEmpty() const { return !tables && runs.isEmpty() && !schedules && !runner; }
};

// Watches a workspace for commits made through other connections, cheaply, on its own thread
// and connection. A file: it polls PRAGMA data_version, which moves only when someone else
// committed. A server: it waits for the workspace's notifications (LISTEN), reads every 10 s
// all the same, and polls while it connects again. Only then does it read a few aggregates to
// tell what changed, at most once per interval. Reports come back on the watcher's thread (the
// GUI thread) as changed(); nothing is reported while nothing changed. Reading in WAL mode never
// waits for a writer, and the watcher never writes, so it neither blocks other processes nor is
// blocked by them. Errors (the file is busy or gone, the server out of reach) are logged and
// retried at the next poll. The destructor wakes the thread and waits only for a read in
// progress.
class WorkspaceWatcher : public QObject {
    Q_OBJECT
public:
    explicit WorkspaceWatcher(const QString &path,
                              std::chrono::milliseconds interval = std::chrono::milliseconds(500),
                              QObject *parent = nullptr);
    ~WorkspaceWatcher() override;

signals:
    void changed(const tidemark::WorkspaceChanges &changes);

private:
    class Poller;
    std::unique_ptr<Poller> m_poller;
};

} // namespace tidemark

Q_DECLARE_METATYPE(tidemark::WorkspaceChanges)
