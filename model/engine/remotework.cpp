// SPDX-License-Identifier: MIT
#include "model/engine/remotework.h"

#include "model/common/error.h"
#include "model/common/exceptionmessage.h"
#include "model/connectors/connectorfactory.h"

#include <QCoreApplication>
#include <QThreadPool>

namespace tidemark {

void RemoteTask::throwIfCancelled() const {
    if (isCancelled())
        throw Error(QStringLiteral("cancelled"));
}

void RemoteTask::cancel() {
    m_cancelled = true;
    const std::lock_guard lock(m_mutex);
    for (Connector *connector : std::as_const(m_open))
        connector->interrupt();
}

std::shared_ptr<Connector> RemoteTask::open(const ConnectionSpec &spec) {
    throwIfCancelled();
    std::unique_ptr<Connector> opened = openConnector(spec);
    Connector *raw = opened.get();
    {
        const std::lock_guard lock(m_mutex);
        m_open << raw;
    }
    std::shared_ptr<Connector> connector(opened.release(), [this](Connector *c) {
        {
            const std::lock_guard lock(m_mutex);
            m_open.removeOne(c);
        }
        delete c;
    });
    // Cancelled while connecting: nothing was there to interrupt yet.
    throwIfCancelled();
    return connector;
}

RemoteWorkQueue::RemoteWorkQueue(QObject *parent)
    : QObject(parent)
    , m_mailbox(std::make_shared<Mailbox>()) {
    m_mailbox->queue = this;
}

RemoteWorkQueue::~RemoteWorkQueue() {
    {
        const std::lock_guard lock(m_mailbox->mutex);
        m_mailbox->queue = nullptr;
    }
    for (const std::shared_ptr<RemoteTask> &task : std::as_const(m_tasks))
        task->cancel();
}

QThreadPool &RemoteWorkQueue::pool() {
    // A few threads: enough that one slow connect does not hold up a describe of another
    // connection; the connectors they open are each owned by one job.
    static QThreadPool remote;
    static const bool configured = [] {
        remote.setMaxThreadCount(4);
        // The threads end with the application object, not at static destruction: by then the
        // TLS libraries' own exit handlers (OpenSSL's cleanup, run by libpq and Connector/C) have
        // gone, and a thread ending after them cannot free its per-thread state.
        qAddPostRoutine([] { remote.waitForDone(); });
        return true;
    }();
    Q_UNUSED(configured);
    return remote;
}

void RemoteWorkQueue::start(std::function<void()> body) {
    pool().start(std::move(body));
}

quint64 RemoteWorkQueue::enqueue(const QString &lane, const std::shared_ptr<RemoteTask> &task) {
    if (!lane.isEmpty())
        cancel(lane);
    const quint64 id = ++m_nextId;
    m_tasks.insert(id, task);
    if (!lane.isEmpty())
        m_lanes.insert(lane, id);
    return id;
}

bool RemoteWorkQueue::settle(quint64 id) {
    if (!m_tasks.remove(id))
        return false;
    for (auto it = m_lanes.begin(); it != m_lanes.end(); ++it) {
        if (it.value() == id) {
            m_lanes.erase(it);
            break;
        }
    }
    emit settled();
    return true;
}

void RemoteWorkQueue::cancel(const QString &lane) {
    const auto it = m_lanes.constFind(lane);
    if (it == m_lanes.constEnd())
        return;
    const quint64 id = it.value();
    m_lanes.erase(it);
    if (const std::shared_ptr<RemoteTask> task = m_tasks.take(id)) {
        task->cancel();
        emit settled();
    }
}

void RemoteWorkQueue::cancelAll() {
    const QList<QString> lanes = m_lanes.keys();
    for (const QString &lane : lanes)
        cancel(lane);
    const auto tasks = std::exchange(m_tasks, {});
    for (const std::shared_ptr<RemoteTask> &task : tasks)
        task->cancel();
    if (!tasks.isEmpty())
        emit settled();
}

QString RemoteWorkQueue::currentExceptionText() {
    return currentExceptionMessage(QStringLiteral("unknown error"));
}

} // namespace tidemark
