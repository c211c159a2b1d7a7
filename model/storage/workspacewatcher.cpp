// SPDX-License-Identifier: MIT
#include "model/storage/workspacewatcher.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/storage/storedb.h"
#include "model/storage/storeopen.h"

#include <QPointer>
#include <QSet>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace tidemark {

// The polling thread and its connection. Lives as long as the watcher.
class WorkspaceWatcher::Poller {
public:
    Poller(WorkspaceWatcher *watcher, const QString &path, std::chrono::milliseconds interval)
        : m_watcher(watcher)
        , m_path(path)
        , m_interval(interval)
        , m_stopFd(::eventfd(0, EFD_CLOEXEC)) {
        m_thread = std::thread([this] { loop(); });
    }
    ~Poller() {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        const std::uint64_t one = 1;
        [[maybe_unused]] const auto written = ::write(m_stopFd, &one, sizeof one);
        m_thread.join();
        ::close(m_stopFd);
    }
    Poller(const Poller &) = delete;
    Poller &operator=(const Poller &) = delete;

private:
    // Everything that moves when the control table changes in a way the window shows.
    struct TablesPrint {
        qint64 count = -1, maxId = 0, active = 0, archived = 0, lastWatermarkChange = 0;
        qint64 maxRun = 0, runsEnded = 0; // a run began or ended (last-run statuses)
        qint64 iterationsEnded = 0;       // iterations of the running runs that have ended
        bool operator==(const TablesPrint &) const = default;
    };

    static QString text(StoreDb &db, const QString &sql) {
        Statement statement(db, sql);
        return statement.step() ? statement.columnText(0) : QString();
    }

    void loop() {
        std::unique_ptr<StoreDb> db;
        int changeSocket = -1;
        std::unique_lock lock(m_mutex);
        while (!m_stop) {
            lock.unlock();
            try {
                if (!db) {
                    db = openStoreDb(m_path);
                    changeSocket = db->listenForChanges(); // before the first read: nothing missed
                }
                if (changeSocket >= 0)
                    db->takeChangeNotifications(); // what they announce, the read below sees
                poll(*db);
                if (changeSocket >= 0)
                    changeSocket = db->listenForChanges(); // a reconnect in poll() has a socket of its own
            } catch (const Error &error) {
                db.reset(); // a fresh connection next time, polled until it opens
                changeSocket = -1;
                logger("core.storage")->debug("watching {}: {}", str(m_path), str(error.message()));
            }
            if (changeSocket >= 0)
                waitForNotification(changeSocket);
            lock.lock();
            // A burst of commits (a run's progress) is one read per interval.
            m_wake.wait_for(lock, m_interval, [this] { return m_stop; });
        }
    }

    // A server announces each change: nothing is read until one comes, or now and then anyway
    // (a connection that died quietly is found by that read), or the watcher stops.
    void waitForNotification(int changeSocket) const {
        constexpr int kReadAnywayMs = 10000;
        std::array<pollfd, 2> fds{pollfd{changeSocket, POLLIN, 0}, pollfd{m_stopFd, POLLIN, 0}};
        while (::poll(fds.data(), fds.size(), kReadAnywayMs) < 0 && errno == EINTR) {
        }
    }

    static qint64 single(StoreDb &db, const QString &sql) {
        Statement statement(db, sql);
        return statement.step() ? statement.columnInt64(0) : 0;
    }

    void poll(StoreDb &db) {
        // A server has no such number: its notifications (or the slow read) brought us here.
        const std::optional<qint64> version = db.dataVersion();
        if (m_started && version && *version == m_dataVersion)
            return; // nobody else committed: nothing to read
        m_dataVersion = version.value_or(0);

        // One read transaction: the aggregates agree with each other.
        db.begin(StoreDb::TransactionKind::Read);
        TablesPrint tables;
        QSet<qint64> running;
        qint64 maxRun = 0;
        QString schedules; // prints of the schedules and of the runner row
        QString runner;
        try {
            Statement print(db,
                            QStringLiteral("SELECT count(*), coalesce(max(id), 0), coalesce(sum(active), 0), "
                                           "count(archived_at) FROM tables"));
            if (print.step()) {
                tables.count = print.columnInt64(0);
                tables.maxId = print.columnInt64(1);
                tables.active = print.columnInt64(2);
                tables.archived = print.columnInt64(3);
            }
            tables.lastWatermarkChange =
                single(db, QStringLiteral("SELECT coalesce(max(id), 0) FROM watermark_changes"));
            maxRun = single(db, QStringLiteral("SELECT coalesce(max(id), 0) FROM runs"));
            Statement runs(db, QStringLiteral("SELECT id FROM runs WHERE status = 'running'"));
            while (runs.step())
                running.insert(runs.columnInt64(0));
            tables.maxRun = maxRun;
            tables.runsEnded = maxRun - running.size();
            Statement ended(db, QStringLiteral("SELECT count(*) FROM iterations WHERE run_id IN "
                                               "(SELECT id FROM runs WHERE status = 'running') AND "
                                               "status NOT IN ('queued', 'running')"));
            tables.iterationsEnded = ended.step() ? ended.columnInt64(0) : 0;
            schedules =
                text(db, QStringLiteral("SELECT count(*) || '/' || coalesce(max(updated_at), '') || '/' || "
                                        "coalesce(max(last_fired_at), '') || '/' || "
                                        "coalesce(sum(last_run_id), 0) || '/' || coalesce(max(id), 0) "
                                        "FROM schedules"));
            runner = text(db, QStringLiteral("SELECT host || '/' || pid || '/' || started_at || '/' || "
                                             "last_beat_at FROM runner"));
            db.exec(QStringLiteral("COMMIT"));
        } catch (const Error &) {
            db.exec(QStringLiteral("ROLLBACK"));
            throw;
        }

        WorkspaceChanges changes;
        if (m_started) {
            QSet<qint64> runs = running;
            runs.unite(m_running);
            for (qint64 id = m_maxRun + 1; id <= maxRun; ++id)
                runs.insert(id);
            changes.runs = runs.values();
            std::sort(changes.runs.begin(), changes.runs.end());
            changes.tables = !(tables == m_tables);
            changes.schedules = schedules != m_schedules;
            changes.runner = runner != m_runner;
        }
        m_started = true;
        m_tables = tables;
        m_running = running;
        m_maxRun = maxRun;
        m_schedules = schedules;
        m_runner = runner;
        if (changes.isEmpty())
            return;
        QPointer<WorkspaceWatcher> watcher = m_watcher;
        QMetaObject::invokeMethod(
            m_watcher,
            [watcher, changes] {
                if (watcher)
                    emit watcher->changed(changes);
            },
            Qt::QueuedConnection);
    }

    WorkspaceWatcher *const m_watcher;
    const QString m_path;
    const std::chrono::milliseconds m_interval;
    const int m_stopFd; // readable once the watcher stops: wakes a wait on the server's socket
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread;

    // Touched by the polling thread only.
    bool m_started = false;
    qint64 m_dataVersion = 0;
    TablesPrint m_tables;
    QSet<qint64> m_running;
    qint64 m_maxRun = 0;
    QString m_schedules;
    QString m_runner;
};

WorkspaceWatcher::WorkspaceWatcher(const QString &path, std::chrono::milliseconds interval, QObject *parent)
    : QObject(parent) {
    qRegisterMetaType<tidemark::WorkspaceChanges>();
    m_poller = std::make_unique<Poller>(this, path, interval);
}

WorkspaceWatcher::~WorkspaceWatcher() {
    m_poller.reset();
}

} // namespace tidemark
