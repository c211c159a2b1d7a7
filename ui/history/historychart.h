// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

#include <QWidget>
#include <atomic>
#include <memory>

class QChart;
class QChartView;
class QComboBox;
class QTimer;

namespace tidemark {

class WorkspaceGateway;

// A table's trend across runs over a chosen period: rows written and duration per run, failed
// runs marked, backfills drawn as events. Its figures come from one aggregate query on the
// workspace (Workspace::trend), read through the gateway off the GUI thread, so the chart costs
// the same whatever the history's size. Times follow the TimeConvention. GUI thread only.
class HistoryChart : public QWidget {
    Q_OBJECT
public:
    explicit HistoryChart(QWidget *parent = nullptr);

    void setGateway(WorkspaceGateway *gateway);
    // Charts `tableId` (0: every table, each run's totals) under the title `name`, read anew.
    // A reply to an earlier request is dropped, and a request overtaken before its turn on the
    // worker is not computed at all.
    void showTable(qint64 tableId, const QString &name);

    // The chart's runs may have changed (a run went on, another process ran one): read again,
    // coalesced — asked any number of times within kQuietMs, one query; never two in flight
    // (asked while one is, one more after it, with whatever was asked last).
    void refresh();
    static constexpr int kQuietMs = 300;
    // How many trend queries this chart has sent to the workspace (tests, bench).
    int trendRequests() const { return m_requests; }

    qint64 tableId() const { return m_tableId; }
    int pointCount() const { return int(m_trend.points.size()); }
    int backfillCount() const { return int(m_trend.backfills.size()); }
    QChart *chart() const;
    // What hovering the point (or backfill marker) nearest `msecsSinceEpoch` shows.
    QString pointToolTip(qreal msecsSinceEpoch) const;
    QString backfillToolTip(qreal msecsSinceEpoch) const;

signals:
    void trendShown(); // a reply was drawn (tests wait on it)

private:
    void request();
    void replied();
    void render();

    QComboBox *m_period;
    QChartView *m_view;
    WorkspaceGateway *m_gateway = nullptr;
    qint64 m_tableId = 0;
    QString m_name;
    Trend m_trend;
    QTimer *m_quiet;
    int m_inFlight = 0;
    bool m_refreshAfter = false; // refresh() asked while a query was in flight
    int m_requests = 0;
    // The newest request; a job that finds a newer one queued after it skips its query.
    std::shared_ptr<std::atomic<quint64>> m_latest = std::make_shared<std::atomic<quint64>>(0);
};

} // namespace tidemark
