// SPDX-License-Identifier: MIT
#include "ui/common/workspacegateway.h"

#include "model/common/error.h"
#include "model/common/exceptionmessage.h"
#include "model/common/logging.h"
#include "model/domain/runpage.h"
#include "model/storage/workspace.h"

#include <algorithm>
#include <utility>

namespace tidemark {

WorkspaceGateway::WorkspaceGateway(const QString &path, QObject *parent)
    : QObject(parent)
    , m_path(path) {
    // One thread, kept alive: jobs are serial and the connection stays open between them.
    m_pool.setMaxThreadCount(1);
    m_pool.setExpiryTimeout(-1);
}

WorkspaceGateway::~WorkspaceGateway() {
    // Queued jobs stay queued: each checks m_closing when its turn comes (see post()). Their
    // replies are not delivered: they were posted to this object, which is going.
    m_flushDeadline = QDeadlineTimer(kFlushBudgetMs);
    m_closing.store(true, std::memory_order_release);
    m_pool.waitForDone();
    m_workspace.reset();
    if (const int dropped = m_droppedWrites.load())
        logger("ui")->warn("closing {}: {} queued workspace writes took longer than {} ms and were dropped",
                           str(m_path), dropped, kFlushBudgetMs);
}

void WorkspaceGateway::post(JobKind kind, std::function<void()> body) {
    m_pool.start([this, kind, body = std::move(body)] {
        if (m_closing.load(std::memory_order_acquire)) {
            if (kind == JobKind::Read)
                return; // nobody waits for it any more
            if (m_flushDeadline.hasExpired()) {
                ++m_droppedWrites;
                return;
            }
        }
        body();
    });
}

Workspace &WorkspaceGateway::workspace(JobKind kind) {
    if (!m_workspace) {
        m_workspace = Workspace::open(m_path);
        // The window is one of the openers that close the runs of dead processes, unless a viewer
        // opened it (a server workspace's role), who may not write.
        QList<qint64> closed;
        const std::optional<WorkspaceRole> role = m_workspace->myRole();
        if (!role || *role >= WorkspaceRole::Operator)
            m_workspace->repairInterruptedRuns(&closed);
        if (!closed.isEmpty())
            QMetaObject::invokeMethod(
                this, [this, closed] { emit interruptedRunsClosed(closed); }, Qt::QueuedConnection);
    }
    m_workspace->stopStatementsWhile(kind == JobKind::Read ? &m_closing : nullptr);
    return *m_workspace;
}

QString WorkspaceGateway::describeCurrentException() const {
    return currentExceptionMessage(tr("Unknown error in %1").arg(m_path));
}

void WorkspaceGateway::reloadTables() {
    if (m_queuedTablesRead && !m_queuedTablesRead->load()) {
        ++m_tablesReadsJoined;
        return;
    }
    auto begun = std::make_shared<std::atomic_bool>(false);
    m_queuedTablesRead = begun;
    const quint64 generation = m_tablesGeneration;
    submitRead(
        this,
        [this, begun](Workspace &ws) {
            begun->store(true);
            QList<TableSpec> tables = ws.tables();
            QHash<qint64, QString> statuses = m_lastStatuses.read(ws, tables);
            return m_tablesReads.next(std::move(tables), std::move(statuses));
        },
        [this, generation](TablesRead read) {
            if (generation == m_tablesGeneration)
                emit tablesLoaded(m_missedTablesReads.fold(read));
            else
                m_missedTablesReads.miss(read);
            dispose(std::move(read));
        });
}

void WorkspaceGateway::markTablesStale() {
    ++m_tablesGeneration;
    m_queuedTablesRead.reset();
}

void WorkspaceGateway::reloadConnections() {
    const quint64 generation = ++m_connectionsGeneration;
    submitRead(
        this, [](Workspace &ws) { return ws.connections(); },
        [this, generation](QList<ConnectionSpec> connections) {
            if (generation == m_connectionsGeneration)
                emit connectionsLoaded(connections);
        });
}

void WorkspaceGateway::reloadRuns(const QList<qint64> &runIds) {
    {
        const QMutexLocker lock(&m_runsMutex);
        const bool readQueued = !m_runsToRead.isEmpty();
        for (qint64 id : runIds)
            m_runsToRead.insert(id);
        if (readQueued || m_runsToRead.isEmpty())
            return;
    }
    submitRead(
        this,
        [this](Workspace &ws) {
            QList<qint64> ids;
            {
                const QMutexLocker lock(&m_runsMutex);
                ids = std::exchange(m_runsToRead, {}).values();
            }
            std::sort(ids.begin(), ids.end());
            // Without log lines, as a history page: a run of 10,000 iterations has as many
            // lines, and only the iteration opened shows them (read then, iterationLog()).
            QList<RunRecord> runs;
            RunPageQuery query;
            query.limit = 1;
            for (qint64 id : std::as_const(ids)) {
                query.runId = id;
                runs << ws.runPage(query);
            }
            return runs;
        },
        [this](QList<RunRecord> runs) {
            emit runsLoaded(runs);
            dispose(std::move(runs));
        });
}

void WorkspaceGateway::waitForIdle() {
    m_pool.waitForDone();
}

} // namespace tidemark
