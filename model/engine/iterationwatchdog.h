// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace tidemark {

class Connector;

// Watches one iteration from a thread of its own, independent of batches and statements:
// - renews the table's lease every ttl/3 through its own workspace connection (SQLite handles
//   are never shared across threads), so a long push-down, count or probe keeps the lease; once
//   a renewal is refused it stops renewing: taken over (its fencing token is no longer the
//   table's), the target's fence decides what the iteration may still commit; expired with its
//   slot given to another iteration (slotLost()), it interrupts the running statement as a
//   cancel would, and the iteration commits nothing more;
// - once the cancel flag is set, interrupts whatever statement the iteration's connectors run
//   (again on every tick, so a statement started just after a tick is stopped too).
// The connectors must outlive the watchdog; stop() (or the destructor) joins the thread.
class IterationWatchdog {
public:
    IterationWatchdog(const std::atomic_bool *cancel, std::vector<Connector *> connectors);
    ~IterationWatchdog();
    IterationWatchdog(const IterationWatchdog &) = delete;
    IterationWatchdog &operator=(const IterationWatchdog &) = delete;

    // From now on, keeps the lease of `tableId` acquired with fencing token `token` alive (only
    // that acquisition renews it: once taken over, it is lost for good).
    void keepLease(const QString &workspacePath, qint64 tableId, qint64 token, std::chrono::milliseconds ttl);
    void stop();
    // Whether a statement was interrupted because of the cancel flag.
    bool interrupted() const { return m_interrupted.load(); }
    bool slotLost() const { return m_slotLost.load(); }

private:
    void loop();

    const std::atomic_bool *m_cancel;
    std::vector<Connector *> m_connectors;
    std::atomic_bool m_interrupted{false};
    std::atomic_bool m_slotLost{false};

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    QString m_workspacePath; // empty: no lease to keep (none, or it was taken over)
    qint64 m_tableId = 0;
    qint64 m_token = 0;
    std::chrono::milliseconds m_ttl{0};
    std::thread m_thread;
};

} // namespace tidemark
