// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"
#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"
#include "model/models/tablesread.h"
#include "model/storage/laststatusreader.h"

#include <QDeadlineTimer>
#include <QHash>
#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>

namespace tidemark {

class Workspace;

// The window's one way into the workspace file. Every job runs on a single worker thread, in
// the order submitted, with that thread's own Workspace connection; its result comes back on
// the GUI thread. So the GUI thread never waits on SQLite, edits apply in the order the user
// made them, and a run writing the same file only ever meets another connection (WAL).
class WorkspaceGateway : public QObject {
    Q_OBJECT
public:
    explicit WorkspaceGateway(const QString &path, QObject *parent = nullptr);
    // Flushes: the queued writes still run (in order, within kFlushBudgetMs) before the
    // workspace closes, so an edit made just before the window closed is kept; queued reads are
    // dropped. A write in progress is waited for; a read in progress is stopped (an aggregate
    // over 100,000 runs may have seconds to go, for a reply nobody will see).
    ~WorkspaceGateway() override;

    // How long closing may spend on queued writes; later ones are dropped (and logged).
    static constexpr int kFlushBudgetMs = 1000;

    QString path() const { return m_path; }

    // Runs `job(workspace)` on the worker; then `done(result)` on the GUI thread, or `failed`
    // with the error's message (or, without `failed`, the errorOccurred signal). Replies are
    // dropped when `context` has been destroyed meanwhile.
    template <typename Job, typename Done>
    void submit(QObject *context, Job job, Done done, std::function<void(const QString &)> failed = {});
    // submit() for a job that only reads: dropped instead of run when the gateway closes.
    template <typename Job, typename Done>
    void submitRead(QObject *context, Job job, Done done, std::function<void(const QString &)> failed = {});
    // As submitRead(), for reads a newer request can overtake (a history page, a run to show, an
    // iteration's log): when `superseded` is set by the time the worker gets to it, `job` is not
    // run at all (a queue of outdated reloads costs nothing), and a reply that comes back after
    // it was set is dropped. Either way `done` is not called.
    template <typename Job, typename Done>
    void submitLatest(QObject *context, std::shared_ptr<const std::atomic_bool> superseded, Job job,
                      Done done, std::function<void(const QString &)> failed = {});
    // How many submitLatest() jobs were skipped because they were superseded (tests, bench).
    int supersededSkipped() const { return m_supersededSkipped.load(); }

    // Reads the control table (with each table's last status) and emits tablesLoaded, the reads
    // numbered in one sequence (TablesRead) and compared on the worker. A request made while a
    // read is queued and not yet begun joins it (the read, begun after the request, answers it):
    // however often a run, a watcher and the user ask, at most one read runs and one waits.
    void reloadTables();
    // A control-table write was queued: a read queued before it is out of date, so its reply is
    // dropped (its changes folded into the next reply: MissedTablesReads) and no later request
    // joins it (the write's own reload follows).
    void markTablesStale();
    // How many reloadTables() requests joined a read already queued (tests, bench).
    int tablesReadsJoined() const { return m_tablesReadsJoined; }
    void reloadConnections();
    // Reads these runs (with their iterations, without log lines) and emits runsLoaded: what a
    // watcher saw change.
    // Ids asked for while a read is still queued join that read, so a watcher that reports
    // faster than a run of 10,000 iterations is read never piles up reads of the same run.
    void reloadRuns(const QList<qint64> &runIds);
    // Blocks until queued jobs are done (tests only).
    void waitForIdle();

    // Lets `value` go on the worker: a reply of 10,000 tables or iterations is some 200,000
    // strings, tens of milliseconds of frees the GUI thread need not spend. Whoever still shares
    // it (a model's rows) keeps it. Ahead of the queued jobs (it orders nothing): behind a queue
    // of reads, replies would pile up in memory.
    template <typename T> void dispose(T value) {
        m_pool.start([value = std::move(value)]() mutable { value = T(); }, 1);
    }

signals:
    void tablesLoaded(const tidemark::TablesRead &read);
    void connectionsLoaded(const QList<tidemark::ConnectionSpec> &connections);
    void runsLoaded(const QList<tidemark::RunRecord> &runs);
    // Opening the workspace closed these runs of dead processes as interrupted (their alerts are
    // the window's to send: each closed run has one closer).
    void interruptedRunsClosed(const QList<qint64> &runIds);
    void errorOccurred(const QString &message);

private:
    enum class JobKind { Write, Read };
    template <typename Job, typename Done>
    void enqueue(JobKind kind, QObject *context, Job job, Done done,
                 std::function<void(const QString &)> failed);
    // Runs `body` on the worker with the workspace; returns the error text or empty.
    void post(JobKind kind, std::function<void()> body);
    // The worker's connection (worker thread only); a read's statements stop when closing.
    Workspace &workspace(JobKind kind);
    QString describeCurrentException() const;

    QString m_path;
    QThreadPool m_pool;
    std::unique_ptr<Workspace> m_workspace; // touched by the worker only (one thread, serial)
    TablesReadSequence m_tablesReads;       // the worker's too
    LastStatusReader m_lastStatuses;        // the worker's too
    // Set by the destructor before it waits (the deadline first, then the flag, released).
    QDeadlineTimer m_flushDeadline;
    std::atomic_bool m_closing{false};
    std::atomic_int m_droppedWrites{0};
    quint64 m_tablesGeneration = 0;
    // Set by the worker when the queued tables read begins; null when none is queued. GUI thread.
    std::shared_ptr<std::atomic_bool> m_queuedTablesRead;
    MissedTablesReads m_missedTablesReads;
    int m_tablesReadsJoined = 0;
    std::atomic_int m_supersededSkipped{0};
    quint64 m_connectionsGeneration = 0;
    // The runs the queued reloadRuns job will read; empty when none is queued. The GUI thread
    // adds, the worker takes them all when the job starts.
    QMutex m_runsMutex;
    QSet<qint64> m_runsToRead;
};

template <typename Job, typename Done>
void WorkspaceGateway::submit(QObject *context, Job job, Done done,
                              std::function<void(const QString &)> failed) {
    enqueue(JobKind::Write, context, std::move(job), std::move(done), std::move(failed));
}

template <typename Job, typename Done>
void WorkspaceGateway::submitRead(QObject *context, Job job, Done done,
                                  std::function<void(const QString &)> failed) {
    enqueue(JobKind::Read, context, std::move(job), std::move(done), std::move(failed));
}

template <typename Job, typename Done>
void WorkspaceGateway::enqueue(JobKind kind, QObject *context, Job job, Done done,
                               std::function<void(const QString &)> failed) {
    using Result = std::invoke_result_t<Job, Workspace &>;
    QPointer<QObject> guard(context ? context : this);
    post(kind, [this, kind, guard, job = std::move(job), done = std::move(done),
                failed = std::move(failed)]() mutable {
        QString error;
        if constexpr (std::is_void_v<Result>) {
            try {
                job(workspace(kind));
            } catch (...) {
                error = describeCurrentException();
            }
            QMetaObject::invokeMethod(
                this,
                [guard, error, done = std::move(done), failed, this]() mutable {
                    if (!guard)
                        return;
                    if (!error.isEmpty())
                        failed ? failed(error) : emit errorOccurred(error);
                    else
                        done();
                },
                Qt::QueuedConnection);
        } else {
            std::optional<Result> result;
            try {
                result = job(workspace(kind));
            } catch (...) {
                error = describeCurrentException();
            }
            QMetaObject::invokeMethod(
                this,
                [guard, error, result = std::move(result), done = std::move(done), failed, this]() mutable {
                    if (!guard)
                        return;
                    if (!result)
                        failed ? failed(error) : emit errorOccurred(error);
                    else
                        done(std::move(*result));
                },
                Qt::QueuedConnection);
        }
    });
}

// Sets the "superseded" flag of the read `flag` stands for (if any) and makes a fresh one, for
// the read that replaces it: submitLatest(context, supersede(m_flag), ...).
inline std::shared_ptr<std::atomic_bool> supersede(std::shared_ptr<std::atomic_bool> &flag) {
    if (flag)
        flag->store(true);
    flag = std::make_shared<std::atomic_bool>(false);
    return flag;
}

template <typename Job, typename Done>
void WorkspaceGateway::submitLatest(QObject *context, std::shared_ptr<const std::atomic_bool> superseded,
                                    Job job, Done done, std::function<void(const QString &)> failed) {
    using Result = std::invoke_result_t<Job, Workspace &>;
    submitRead(
        context,
        [this, superseded, job = std::move(job)](Workspace &ws) mutable -> std::optional<Result> {
            if (superseded->load()) {
                ++m_supersededSkipped;
                return std::nullopt;
            }
            return job(ws);
        },
        [superseded, done = std::move(done)](std::optional<Result> result) mutable {
            if (result && !superseded->load())
                done(std::move(*result));
        },
        std::move(failed));
}

} // namespace tidemark
