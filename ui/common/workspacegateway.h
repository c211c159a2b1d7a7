// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"
#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"

#include <QHash>
#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QThreadPool>
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
    ~WorkspaceGateway() override; // waits for the job in progress

    QString path() const { return m_path; }

    // Runs `job(workspace)` on the worker; then `done(result)` on the GUI thread, or `failed`
    // with the error's message (or, without `failed`, the errorOccurred signal). Replies are
    // dropped when `context` has been destroyed meanwhile.
    template <typename Job, typename Done>
    void submit(QObject *context, Job job, Done done, std::function<void(const QString &)> failed = {});

    // Reads the control table (with each table's last status) and emits tablesLoaded. Replies
    // to an older request than the latest are dropped.
    void reloadTables();
    // A control-table write was queued: a read that started before it is out of date, so its
    // reply is dropped (the write's own reload follows).
    void markTablesStale() { ++m_tablesGeneration; }
    void reloadConnections();
    void reloadHistory(int limit = 200);
    // Reads these runs (with their iterations) and emits runsLoaded: what a watcher saw change.
    // Ids asked for while a read is still queued join that read, so a watcher that reports
    // faster than a run of 10,000 iterations is read never piles up reads of the same run.
    void reloadRuns(const QList<qint64> &runIds);
    // Blocks until queued jobs are done (tests only).
    void waitForIdle();

signals:
    void tablesLoaded(const QList<tidemark::TableSpec> &tables, const QHash<qint64, QString> &lastStatuses);
    void connectionsLoaded(const QList<tidemark::ConnectionSpec> &connections);
    void historyLoaded(const QList<tidemark::RunRecord> &runs);
    void runsLoaded(const QList<tidemark::RunRecord> &runs);
    // Opening the workspace closed these runs of dead processes as interrupted (their alerts are
    // the window's to send: each closed run has one closer).
    void interruptedRunsClosed(const QList<qint64> &runIds);
    void errorOccurred(const QString &message);

private:
    // Runs `body` on the worker with the workspace; returns the error text or empty.
    void post(std::function<void()> body);
    Workspace &workspace(); // worker thread only
    QString describeCurrentException() const;

    QString m_path;
    QThreadPool m_pool;
    std::unique_ptr<Workspace> m_workspace; // touched by the worker only (one thread, serial)
    quint64 m_tablesGeneration = 0;
    quint64 m_historyGeneration = 0;
    quint64 m_connectionsGeneration = 0;
    // The runs the queued reloadRuns job will read; empty when none is queued. The GUI thread
    // adds, the worker takes them all when the job starts.
    QMutex m_runsMutex;
    QSet<qint64> m_runsToRead;
};

template <typename Job, typename Done>
void WorkspaceGateway::submit(QObject *context, Job job, Done done,
                              std::function<void(const QString &)> failed) {
    using Result = std::invoke_result_t<Job, Workspace &>;
    QPointer<QObject> guard(context ? context : this);
    post([this, guard, job = std::move(job), done = std::move(done), failed = std::move(failed)]() mutable {
        QString error;
        if constexpr (std::is_void_v<Result>) {
            try {
                job(workspace());
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
                result = job(workspace());
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

} // namespace tidemark
