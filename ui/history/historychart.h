// SPDX-License-Identifier: MIT
#pragma once

#include "model/models/runhistorymodel.h"

#include <QWidget>

class QChart;
class QChartView;

namespace tidemark {

// One table's trend across runs: rows written and duration per run over time, on two axes,
// with failed runs marked, so a sudden zero or a doubled duration stands out.
class HistoryChart : public QWidget {
    Q_OBJECT
public:
    explicit HistoryChart(QWidget *parent = nullptr);

    void setTrend(const QString &tableName, const QList<TableTrendPoint> &points);
    int pointCount() const { return m_pointCount; }

private:
    QChartView *m_view;
    int m_pointCount = 0;
};

} // namespace tidemark
