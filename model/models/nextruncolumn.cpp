// SPDX-License-Identifier: MIT
#include "model/models/nextruncolumn.h"

#include "model/models/controltablemodel.h"
#include "model/schedule/firetimes.h"
#include "model/schedule/tablenextruns.h"

#include <QFutureWatcher>
#include <QtConcurrent>
#include <algorithm>

namespace tidemark {

namespace {

// Looked at again at least this often: the clock may jump (suspend, a zone change).
constexpr qint64 kMaxWaitMs = 5 * 60 * 1000;

} // namespace

NextRunColumn::NextRunColumn(ControlTableModel *model)
    : QObject(model)
    , m_model(model) {
    m_timer.setSingleShot(true);
    // A coarse timer may fire up to 5% late: a minute's wait would show a past firing for 3 s.
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &NextRunColumn::refresh);
    connect(model, &QAbstractItemModel::modelReset, this, &NextRunColumn::refreshSoon);
    connect(model, &QAbstractItemModel::rowsInserted, this, &NextRunColumn::refreshSoon);
    connect(model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                // Its own updates touch the next-run column only; the active flag matters.
                if (topLeft.column() <= ControlTableModel::Active &&
                    bottomRight.column() >= ControlTableModel::Active)
                    refreshSoon();
            });
}

void NextRunColumn::setSchedules(const QList<ScheduleSpec> &schedules) {
    m_schedules = schedules;
    m_activeIds.reset(); // computed again even when the tables are the same
    refreshSoon();
}

void NextRunColumn::refreshSoon() {
    if (m_pending)
        return;
    m_pending = true;
    QMetaObject::invokeMethod(this, &NextRunColumn::refreshIfTablesChanged, Qt::QueuedConnection);
}

QList<qint64> NextRunColumn::activeIds() const {
    QList<qint64> ids;
    ids.reserve(m_model->rowCount());
    for (int row = 0; row < m_model->rowCount(); ++row)
        if (m_model->tableAt(row).active)
            ids.append(m_model->tableAt(row).id);
    return ids;
}

void NextRunColumn::refreshIfTablesChanged() {
    // During a run the control table is read again twice a second and its rows change (status,
    // watermark) while which tables are active does not: 10,000 next runs are computed again
    // only when that set or the schedules changed.
    if (m_activeIds && *m_activeIds == activeIds()) {
        m_pending = false;
        return;
    }
    refresh();
}

void NextRunColumn::refresh() {
    m_pending = false;
    m_activeIds = activeIds();
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const quint64 generation = ++m_latest;
    auto *watcher = new QFutureWatcher<TableNextRuns>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, now] {
        watcher->deleteLater();
        if (generation == m_latest)
            show(watcher->result(), now);
    });
    watcher->setFuture(QtConcurrent::run([schedules = m_schedules, tables = m_model->tables(), now] {
        return nextRunsByTable(schedules, tables, now, CronFireTimes());
    }));
}

void NextRunColumn::show(const TableNextRuns &nextRuns, const QDateTime &now) {
    m_model->setNextRuns(nextRuns.byTable);
    if (!nextRuns.lookAgainAt.isValid()) {
        m_timer.stop();
        return;
    }
    // Just past the firing: nextAfter is strictly after `now`, so the next one shows.
    m_timer.start(int(std::clamp<qint64>(now.msecsTo(nextRuns.lookAgainAt) + 1, 1, kMaxWaitMs)));
}

} // namespace tidemark
