// SPDX-License-Identifier: MIT
#include "ui/common/workspacegateway.h"

#include "model/common/error.h"
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
    m_pool.clear();
    m_pool.waitForDone();
    m_workspace.reset();
}

void WorkspaceGateway::post(std::function<void()> body) {
    m_pool.start(std::move(body));
}

Workspace &WorkspaceGateway::workspace() {
    if (!m_workspace) {
        m_workspace = Workspace::open(m_path);
        // The window is one of the openers that close the runs of dead processes.
        QList<qint64> closed;
        m_workspace->repairInterruptedRuns(&closed);
        if (!closed.isEmpty())
            QMetaObject::invokeMethod(
                this, [this, closed] { emit interruptedRunsClosed(closed); }, Qt::QueuedConnection);
    }
    return *m_workspace;
}

QString WorkspaceGateway::describeCurrentException() const {
    try {
        throw;
    } catch (const Error &e) {
        return e.message();
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    } catch (...) {
        return tr("Unknown error in %1").arg(m_path);
    }
}

void WorkspaceGateway::reloadTables() {
    const quint64 generation = ++m_tablesGeneration;
    struct Snapshot {
        QList<TableSpec> tables;
        QHash<qint64, QString> statuses;
    };
    submit(
        this,
        [](Workspace &ws) {
            return Snapshot{ws.tables(), ws.lastIterationStatuses()};
        },
        [this, generation](Snapshot snapshot) {
            if (generation == m_tablesGeneration)
                emit tablesLoaded(snapshot.tables, snapshot.statuses);
        });
}

void WorkspaceGateway::reloadConnections() {
    const quint64 generation = ++m_connectionsGeneration;
    submit(
        this, [](Workspace &ws) { return ws.connections(); },
        [this, generation](QList<ConnectionSpec> connections) {
            if (generation == m_connectionsGeneration)
                emit connectionsLoaded(connections);
        });
}

void WorkspaceGateway::reloadHistory(int limit) {
    const quint64 generation = ++m_historyGeneration;
    submit(
        this, [limit](Workspace &ws) { return ws.runs(limit); },
        [this, generation](QList<RunRecord> runs) {
            if (generation == m_historyGeneration)
                emit historyLoaded(runs);
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
    submit(
        this,
        [this](Workspace &ws) {
            QList<qint64> ids;
            {
                const QMutexLocker lock(&m_runsMutex);
                ids = std::exchange(m_runsToRead, {}).values();
            }
            std::sort(ids.begin(), ids.end());
            QList<RunRecord> runs;
            for (qint64 id : std::as_const(ids))
                runs << ws.runs(1, id);
            return runs;
        },
        [this](QList<RunRecord> runs) { emit runsLoaded(runs); });
}

void WorkspaceGateway::waitForIdle() {
    m_pool.waitForDone();
}

} // namespace tidemark
