// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

class QThreadPool;

namespace tidemark {

class Connector;

// One piece of remote work as its job sees it: whether it was cancelled, and the connectors a
// cancel interrupts. Shared by the job (a remote-work thread) and the queue (its owner's thread).
class RemoteTask {
public:
    bool isCancelled() const { return m_cancelled.load(); }
    const std::atomic_bool *cancelFlag() const { return &m_cancelled; }
    // Throws Error("cancelled") once cancel() was called: a job checks between steps.
    void throwIfCancelled() const;
    // Any thread: sets the flag and interrupts the statement each open connector is running.
    // A connect in progress (PostgreSQL's connect timeout) cannot be interrupted: the job's
    // reply is dropped and open() throws once it returns.
    void cancel();
    // Opens a connector for this job (openConnector()); cancel() interrupts it until it is
    // destroyed. Throws Error naming the connection, or "cancelled".
    std::shared_ptr<Connector> open(const ConnectionSpec &spec);

private:
    std::atomic_bool m_cancelled{false};
    std::mutex m_mutex;
    QList<Connector *> m_open; // guarded by m_mutex
};

// Remote work (a source's catalog, a connection test, checking a table against its source, a
// backfill) on threads of its own: apart from the WorkspaceGateway's workspace thread, so a
// slow PostgreSQL connect or a long column scan never holds up table edits and history.
// Every job gets a RemoteTask; its result comes back on the queue's thread (normally the GUI
// thread), or the error's message. A job submitted on a named lane supersedes the lane's
// previous job: that one is cancelled (its statement interrupted) and its reply dropped, so a
// user who picks another table never waits for, or sees, the columns of the one before.
// Destroying the queue cancels its jobs and never waits for them (a job still connecting
// finishes on its own and finds nobody to tell). The threads are the process's remote-work
// pool, shared by every queue.
class RemoteWorkQueue : public QObject {
    Q_OBJECT
public:
    explicit RemoteWorkQueue(QObject *parent = nullptr);
    ~RemoteWorkQueue() override;

    // Runs `job(task)` on a remote-work thread; then `done(result)` on this queue's thread, or
    // `failed(message)`. Neither runs when the job was cancelled or superseded.
    template <typename Job, typename Done>
    void submit(const QString &lane, Job job, Done done, std::function<void(const QString &)> failed = {});

    // Cancels the lane's job (if any): its statement is interrupted and its reply dropped.
    void cancel(const QString &lane);
    void cancelAll();
    bool isPending(const QString &lane) const { return m_lanes.contains(lane); }
    int pendingCount() const { return int(m_tasks.size()); }

    static QThreadPool &pool();

signals:
    // A job finished, failed or was cancelled (emitted before its reply is handled).
    void settled();

private:
    // Where a job posts its reply: cleared when the queue goes, under the lock the job takes to
    // post, so no reply is posted to a queue being destroyed.
    struct Mailbox {
        std::mutex mutex;
        RemoteWorkQueue *queue = nullptr;
    };
    quint64 enqueue(const QString &lane, const std::shared_ptr<RemoteTask> &task);
    // On the queue's thread: true (and forgets the job) when its reply is still wanted.
    bool settle(quint64 id);
    void start(std::function<void()> body);
    static QString currentExceptionText();

    std::shared_ptr<Mailbox> m_mailbox;
    quint64 m_nextId = 0;
    QHash<quint64, std::shared_ptr<RemoteTask>> m_tasks; // in flight, by id
    QHash<QString, quint64> m_lanes;                     // lane -> its current job's id
};

template <typename Job, typename Done>
void RemoteWorkQueue::submit(const QString &lane, Job job, Done done,
                             std::function<void(const QString &)> failed) {
    using Result = std::invoke_result_t<Job, RemoteTask &>;
    using Stored = std::conditional_t<std::is_void_v<Result>, bool, Result>;
    auto task = std::make_shared<RemoteTask>();
    const quint64 id = enqueue(lane, task);
    start([mailbox = m_mailbox, task, id, job = std::move(job), done = std::move(done),
           failed = std::move(failed)]() mutable {
        if (task->isCancelled())
            return;
        std::optional<Stored> result;
        QString error;
        try {
            if constexpr (std::is_void_v<Result>) {
                job(*task);
                result = true;
            } else {
                result = job(*task);
            }
        } catch (...) {
            error = currentExceptionText();
        }
        const std::lock_guard lock(mailbox->mutex);
        RemoteWorkQueue *queue = mailbox->queue;
        if (!queue || task->isCancelled())
            return;
        QMetaObject::invokeMethod(
            queue,
            [queue, id, result = std::move(result), error, done = std::move(done), failed]() mutable {
                if (!queue->settle(id))
                    return; // `done` may destroy the queue: nothing touches it after
                if (!result) {
                    if (failed)
                        failed(error);
                } else if constexpr (std::is_void_v<Result>) {
                    done();
                } else {
                    done(std::move(*result));
                }
            },
            Qt::QueuedConnection);
    });
}

} // namespace tidemark
