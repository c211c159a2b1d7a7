// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"
#include "model/schedule/tablenextruns.h"

#include <QList>
#include <QObject>
#include <QTimer>
#include <optional>

namespace tidemark {

class ControlTableModel;

// Keeps the control table's "Next run" column current: recomputes each table's next scheduled
// run and its missed firings (nextRunsByTable, one cron evaluation per schedule) when the
// schedules or the tables change, and again when one of them changes (a firing comes due or
// becomes missed: a timer armed for it, never per paint). Changes that come in bursts (a reload's row
// updates) are folded into one recomputation, skipped when the active tables are the ones already computed
// for. The computation runs on a pooled thread (10,000 tables: 10-25 ms, which held up the window as it
// opened) and only its newest result is shown. GUI thread; the schedules come from the
// window's own reads of the workspace.
class NextRunColumn : public QObject {
    Q_OBJECT
public:
    explicit NextRunColumn(ControlTableModel *model);

    void setSchedules(const QList<ScheduleSpec> &schedules);
    // Recomputes now (normally queued by the changes above, or run by the timer); the column
    // follows once the pooled thread has answered.
    void refresh();
    // When the timer fires next (tests); inactive when nothing is scheduled.
    const QTimer &timer() const { return m_timer; }

private:
    void refreshSoon();
    void refreshIfTablesChanged();
    void show(const TableNextRuns &nextRuns, const QDateTime &now);
    QList<qint64> activeIds() const; // in row order

    ControlTableModel *m_model;
    QList<ScheduleSpec> m_schedules;
    QTimer m_timer;
    bool m_pending = false;
    quint64 m_latest = 0;                     // the newest computation asked for; older answers are dropped
    std::optional<QList<qint64>> m_activeIds; // what the shown next runs were computed for
};

} // namespace tidemark
