// SPDX-License-Identifier: MIT
#include "model/engine/iterationwatchdog.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/connectors/connector.h"
#include "model/storage/workspace.h"

namespace tidemark {
namespace {

// How soon a cancel reaches a running statement.
constexpr std::chrono::milliseconds kTick{50};

} // namespace

IterationWatchdog::IterationWatchdog(const std::atomic_bool *cancel, std::vector<Connector *> connectors)
    : m_cancel(cancel)
    , m_connectors(std::move(connectors))
    , m_thread([this] { loop(); }) {}

IterationWatchdog::~IterationWatchdog() {
    stop();
}

void IterationWatchdog::keepLease(const QString &workspacePath, qint64 tableId, qint64 token,
                                  std::chrono::milliseconds ttl) {
    const std::lock_guard lock(m_mutex);
    m_workspacePath = workspacePath;
    m_tableId = tableId;
    m_token = token;
    m_ttl = ttl;
}

void IterationWatchdog::stop() {
    {
        const std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void IterationWatchdog::loop() {
    std::unique_ptr<Workspace> workspace; // opened on this thread, used only here
    auto nextRenewal = std::chrono::steady_clock::time_point::max();
    bool leaseLost = false;
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
        m_wake.wait_for(lock, kTick);
        if (m_stop)
            break;
        if (m_slotLost) {
            for (Connector *connector : m_connectors)
                connector->interrupt();
        } else if (m_cancel && m_cancel->load()) {
            for (Connector *connector : m_connectors)
                connector->interrupt();
            m_interrupted = true;
        }
        if (m_workspacePath.isEmpty())
            continue;
        const auto now = std::chrono::steady_clock::now();
        if (nextRenewal == std::chrono::steady_clock::time_point::max())
            nextRenewal = now + m_ttl / 3;
        if (now < nextRenewal)
            continue;
        nextRenewal = now + m_ttl / 3;
        const QString path = m_workspacePath;
        const qint64 tableId = m_tableId;
        const qint64 token = m_token;
        const auto ttl = m_ttl;
        lock.unlock();
        try {
            if (!workspace)
                workspace = Workspace::open(path);
            switch (workspace->renewLease(tableId, token, ttl)) {
            case LeaseRenewal::Renewed:
                break;
            case LeaseRenewal::TakenOver:
                // The target's fence says whether the claim that took it copies now (each next
                // transaction of this one finds the fence above its token and stops) or yielded
                // to the batches this one committed (this one finishes the window).
                logger("core.engine")
                    ->warn("table {}: the lease (token {}) was taken over by another claim", tableId, token);
                leaseLost = true;
                break;
            case LeaseRenewal::SlotLost:
                logger("core.engine")
                    ->warn(
                        "table {}: the lease (token {}) expired while this process was stopped and its slot "
                        "went to another iteration; stopping",
                        tableId, token);
                leaseLost = true;
                m_slotLost = true;
                break;
            }
        } catch (const Error &error) {
            // The workspace out of reach: the fence at commit still keeps the copy exact.
            logger("core.engine")
                ->warn("table {}: could not renew the lease: {}", tableId, str(error.message()));
        }
        lock.lock();
        if (leaseLost)
            m_workspacePath.clear(); // nothing left to renew
    }
}

} // namespace tidemark
