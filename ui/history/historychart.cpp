// SPDX-License-Identifier: MIT
#include "ui/history/historychart.h"

#include <QChart>
#include <QChartView>
#include <QDateTimeAxis>
#include <QLineSeries>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

namespace tidemark {

namespace {

// QChartView takes ownership of the new chart but only releases the previous one (its own
// default chart, the first time): deleting it is the caller's job.
void replaceChart(QChartView *view, QChart *chart) {
    QChart *previous = view->chart();
    view->setChart(chart);
    delete previous;
}

} // namespace

HistoryChart::HistoryChart(QWidget *parent)
    : QWidget(parent)
    , m_view(new QChartView(this)) {
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumHeight(180);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    setTrend({}, {});
}

void HistoryChart::setTrend(const QString &tableName, const QList<TableTrendPoint> &points) {
    m_pointCount = int(points.size());
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    if (points.isEmpty()) {
        chart->setTitle(tableName.isEmpty() ? tr("Choose a table to see its rows and duration per run")
                                            : tr("%1: no runs yet").arg(tableName));
        replaceChart(m_view, chart);
        return;
    }
    chart->setTitle(tr("%1 — rows written and duration per run").arg(tableName));

    auto *rows = new QLineSeries;
    rows->setName(tr("Rows written"));
    rows->setPointsVisible(true);
    auto *duration = new QLineSeries;
    duration->setName(tr("Duration (s)"));
    duration->setPointsVisible(true);
    auto *failed = new QScatterSeries;
    failed->setName(tr("Failed / warning"));
    failed->setColor(QColor(220, 50, 47));
    failed->setMarkerSize(10);
    qint64 maxRows = 1;
    double maxSeconds = 1;
    for (const TableTrendPoint &p : points) {
        const qreal x = qreal(p.startedAt.toMSecsSinceEpoch());
        rows->append(x, qreal(p.rowsWritten));
        duration->append(x, qreal(p.durationMs) / 1000.0);
        if (p.status == IterationStatus::Failed || p.status == IterationStatus::Warning ||
            p.status == IterationStatus::Cancelled || p.status == IterationStatus::Interrupted)
            failed->append(x, qreal(p.rowsWritten));
        maxRows = qMax(maxRows, p.rowsWritten);
        maxSeconds = qMax(maxSeconds, double(p.durationMs) / 1000.0);
    }
    chart->addSeries(rows);
    chart->addSeries(duration);
    chart->addSeries(failed);

    auto *time = new QDateTimeAxis;
    time->setFormat(QStringLiteral("MM-dd HH:mm"));
    time->setTitleText(tr("Run started"));
    const QDateTime first = points.first().startedAt.toLocalTime();
    const QDateTime last = points.last().startedAt.toLocalTime();
    time->setRange(first.addSecs(-60), last.addSecs(60));
    time->setTickCount(qBound(2, int(points.size()), 6));
    auto *rowAxis = new QValueAxis;
    rowAxis->setTitleText(tr("Rows"));
    rowAxis->setLabelFormat(QStringLiteral("%.0f"));
    rowAxis->setRange(0, double(maxRows) * 1.1);
    auto *secondsAxis = new QValueAxis;
    secondsAxis->setTitleText(tr("Seconds"));
    secondsAxis->setRange(0, maxSeconds * 1.1);
    chart->addAxis(time, Qt::AlignBottom);
    chart->addAxis(rowAxis, Qt::AlignLeft);
    chart->addAxis(secondsAxis, Qt::AlignRight);
    for (QAbstractSeries *series :
         {static_cast<QAbstractSeries *>(rows), static_cast<QAbstractSeries *>(failed)}) {
        series->attachAxis(time);
        series->attachAxis(rowAxis);
    }
    duration->attachAxis(time);
    duration->attachAxis(secondsAxis);
    replaceChart(m_view, chart);
}

} // namespace tidemark
