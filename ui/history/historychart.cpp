// SPDX-License-Identifier: MIT
#include "ui/history/historychart.h"

#include "model/models/displayformat.h"
#include "model/models/timeconvention.h"
#include "ui/common/workspacegateway.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

namespace tidemark {

namespace {

constexpr int kMaxPoints = 200;    // more runs than this in the period: one point per slice
constexpr int kMaxTicks = 6;       // labels per axis, so they never overlap
constexpr int kMaxEventLines = 50; // backfill markers drawn as lines; beyond, only their points

// QChartView takes ownership of the new chart but only releases the previous one (its own
// default chart, the first time): deleting it is the caller's job.
void replaceChart(QChartView *view, QChart *chart) {
    QChart *previous = view->chart();
    view->setChart(chart);
    delete previous;
}

// The smallest step of 1, 2 or 5 times a power of ten (at least `floor`) that covers `max`
// in at most kMaxTicks - 1 steps.
double niceStep(double max, double floor) {
    const double rough = max / (kMaxTicks - 1);
    double magnitude = std::pow(10.0, std::floor(std::log10(rough > 0 ? rough : 1.0)));
    for (;;) {
        for (double factor : {1.0, 2.0, 5.0}) {
            const double step = std::max(floor, factor * magnitude);
            if (step * (kMaxTicks - 1) >= max)
                return step;
        }
        magnitude *= 10;
    }
}

// A value axis whose ticks fall on round values, labelled by `label`; from 0 to the first tick
// above `max`.
QCategoryAxis *roundAxis(double max, double floorStep, const std::function<QString(double)> &label) {
    auto *axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    // A few short figures: QtCharts cuts them to "..." in a plot some 60 pixels high, where they fit.
    axis->setTruncateLabels(false);
    const double step = niceStep(std::max(max, floorStep), floorStep);
    axis->setStartValue(0);
    axis->append(label(0), 0);
    double top = 0;
    for (int i = 1; top <= max; ++i) { // up to the first tick above the highest value: headroom
        top = step * i;
        axis->append(label(top), top);
    }
    axis->setRange(0, top);
    return axis;
}

// The time axis: ticks on round instants in the zone shown, labelled so that no two read
// alike — clock time within a day, month and day within a year, year and month beyond.
QCategoryAxis *timeAxis(const QDateTime &from, const QDateTime &to) {
    const QTimeZone zone = TimeConvention::current().zone();
    // A margin of 3% each side, so the first and last runs' markers are not cut in half.
    const qint64 margin = std::max<qint64>(30, from.secsTo(to) * 3 / 100);
    const QDateTime start = from.toTimeZone(zone).addSecs(-margin);
    const QDateTime end = to.toTimeZone(zone).addSecs(margin);
    const qint64 spanSecs = start.secsTo(end);
    QList<QDateTime> ticks;
    QString format;
    // A day and its margins (the "Last 24 hours" period) in hours; across midnight each label
    // names its day, so no two read alike and the last one is not taken for the first.
    if (spanSecs <= 36 * 3600) {
        format = start.date() == end.date() ? QStringLiteral("HH:mm") : QStringLiteral("ddd HH:mm");
        qint64 stepMins = 1;
        for (qint64 candidate : {1, 2, 5, 10, 15, 30, 60, 120, 180, 240, 360, 720})
            if ((stepMins = candidate) * 60 * kMaxTicks >= spanSecs)
                break;
        const int startMins = start.time().hour() * 60 + start.time().minute();
        QDateTime tick(start.date(), QTime(0, 0).addSecs(startMins / stepMins * stepMins * 60), zone);
        for (; tick <= end; tick = tick.addSecs(stepMins * 60))
            if (tick >= start)
                ticks << tick;
    } else if (spanSecs <= 365 * 24 * 3600) {
        format = QStringLiteral("MMM d");
        const qint64 days = spanSecs / (24 * 3600) + 1;
        qint64 stepDays = 1;
        for (qint64 candidate : {1, 2, 3, 7, 14, 21, 30, 61, 91})
            if ((stepDays = candidate) * kMaxTicks >= days)
                break;
        for (QDateTime tick(start.date(), QTime(0, 0), zone); tick <= end; tick = tick.addDays(stepDays))
            if (tick >= start)
                ticks << tick;
    } else {
        format = QStringLiteral("yyyy-MM");
        const int months = int(spanSecs / (30 * 24 * 3600)) + 1;
        int stepMonths = 1;
        for (int candidate : {1, 2, 3, 6, 12, 24, 60, 120})
            if ((stepMonths = candidate) * kMaxTicks >= months)
                break;
        const QDate first(start.date().year(), 1, 1);
        for (QDateTime tick(first, QTime(0, 0), zone); tick <= end; tick = tick.addMonths(stepMonths))
            if (tick >= start)
                ticks << tick;
    }
    auto *axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    // A few short figures: QtCharts cuts them to "..." in a plot some 60 pixels high, where they fit.
    axis->setTruncateLabels(false);
    axis->setStartValue(qreal(start.toMSecsSinceEpoch()));
    for (const QDateTime &tick : ticks) {
        const QString label = tick.toString(format);
        if (!axis->categoriesLabels().contains(label)) // a category's label is its key
            axis->append(label, qreal(tick.toMSecsSinceEpoch()));
    }
    axis->setRange(qreal(start.toMSecsSinceEpoch()), qreal(end.toMSecsSinceEpoch()));
    axis->setTitleText(zonedLabel(QObject::tr("Run started")));
    return axis;
}

} // namespace

HistoryChart::HistoryChart(QWidget *parent)
    : QWidget(parent)
    , m_period(new QComboBox(this))
    , m_view(new QChartView(this))
    , m_quiet(new QTimer(this)) {
    m_quiet->setSingleShot(true);
    m_quiet->setInterval(kQuietMs);
    connect(m_quiet, &QTimer::timeout, this, [this] {
        if (m_inFlight > 0)
            m_refreshAfter = true;
        else
            request();
    });
    m_period->setObjectName(QStringLiteral("chartPeriod"));
    m_period->addItem(tr("All time"), 0);
    m_period->addItem(tr("Last 24 hours"), 24 * 3600);
    m_period->addItem(tr("Last 7 days"), 7 * 24 * 3600);
    m_period->addItem(tr("Last 30 days"), 30 * 24 * 3600);
    m_period->addItem(tr("Last year"), 365 * 24 * 3600);
    // The last 30 days by default: what an operator asks first, and a query whose cost follows
    // the period, not the size of years of history (all time over 2 million iterations: ~1 s).
    m_period->setCurrentIndex(m_period->findData(30 * 24 * 3600));
    connect(m_period, &QComboBox::currentIndexChanged, this, &HistoryChart::request);
    m_view->setRenderHint(QPainter::Antialiasing);
    // Below this a plot has no room for its axes' labels (the history filtered to one table at
    // 1024×768 squeezed it to a strip): the splitter and the dock stop here. Narrow enough that
    // the history's list and the chart side by side still fit a 1024-pixel screen.
    m_view->setMinimumSize(260, 200);
    auto *periodRow = new QHBoxLayout;
    periodRow->addWidget(new QLabel(tr("Period:"), this));
    periodRow->addWidget(m_period);
    periodRow->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(periodRow);
    layout->addWidget(m_view, 1);
    connect(&TimeConvention::current(), &TimeConvention::changed, this, &HistoryChart::render);
    render();
}

QChart *HistoryChart::chart() const {
    return m_view->chart();
}

void HistoryChart::setGateway(WorkspaceGateway *gateway) {
    m_gateway = gateway;
    ++*m_latest; // the old workspace's replies are not this one's
    m_quiet->stop();
    m_inFlight = 0;
    m_refreshAfter = false;
    m_trend = Trend();
    render();
}

void HistoryChart::showTable(qint64 tableId, const QString &name) {
    m_tableId = tableId;
    m_name = name;
    request();
}

void HistoryChart::refresh() {
    if (m_gateway && !m_quiet->isActive())
        m_quiet->start(); // not restarted: a steady stream of changes still redraws every kQuietMs
}

void HistoryChart::request() {
    if (!m_gateway)
        return;
    ++m_inFlight;
    ++m_requests;
    const quint64 generation = ++*m_latest;
    TrendQuery query;
    query.tableId = m_tableId;
    query.maxPoints = kMaxPoints;
    if (const int seconds = m_period->currentData().toInt(); seconds > 0) {
        query.to = QDateTime::currentDateTimeUtc();
        query.from = query.to.addSecs(-seconds);
    }
    m_gateway->submit(
        this,
        [query, generation, latest = m_latest](Workspace &workspace) -> std::optional<Trend> {
            if (latest->load() != generation)
                return std::nullopt; // overtaken while queued: not worth computing
            return workspace.trend(query);
        },
        [this, generation](std::optional<Trend> trend) {
            replied();
            if (!trend || m_latest->load() != generation)
                return;
            m_trend = std::move(*trend);
            render();
            emit trendShown();
        },
        [this](const QString &error) {
            replied();
            emit m_gateway->errorOccurred(error); // as a job without its own handler reports it
        });
}

void HistoryChart::replied() {
    m_inFlight = std::max(0, m_inFlight - 1);
    if (m_inFlight > 0 || !m_refreshAfter)
        return;
    m_refreshAfter = false;
    request();
}

void HistoryChart::render() {
    auto *chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    const QList<TrendPoint> &points = m_trend.points;
    if (points.isEmpty() && m_trend.backfills.isEmpty()) {
        chart->setTitle(m_name.isEmpty() ? tr("Choose a table to see its rows and duration per run")
                                         : tr("%1: no runs in this period").arg(m_name));
        replaceChart(m_view, chart);
        return;
    }
    const bool sliced =
        std::any_of(points.cbegin(), points.cend(), [](const TrendPoint &p) { return p.runs > 1; });
    chart->setTitle(sliced ? tr("%1 — rows written and longest duration, runs grouped by time").arg(m_name)
                           : tr("%1 — rows written and duration per run").arg(m_name));

    auto *rows = new QLineSeries;
    rows->setName(tr("Rows written"));
    rows->setPointsVisible(true);
    auto *duration = new QLineSeries;
    duration->setName(tr("Duration (s)"));
    duration->setPointsVisible(true);
    auto *failed = new QScatterSeries;
    // The history's word for failed, cancelled, interrupted and warning: whole in the legend at 1024×768.
    failed->setName(tr("Problems"));
    failed->setColor(QColor(220, 50, 47));
    failed->setMarkerSize(10);
    qint64 maxRows = 0;
    double maxSeconds = 0;
    for (const TrendPoint &p : points) {
        const qreal x = qreal(p.at.toMSecsSinceEpoch());
        rows->append(x, qreal(p.rowsWritten));
        duration->append(x, double(p.durationMs) / 1000.0);
        if (isProblem(p.status))
            failed->append(x, qreal(p.rowsWritten));
        maxRows = std::max(maxRows, p.rowsWritten);
        maxSeconds = std::max(maxSeconds, double(p.durationMs) / 1000.0);
    }
    QCategoryAxis *time = timeAxis(m_trend.from, m_trend.to);
    QCategoryAxis *rowAxis = roundAxis(double(maxRows), 1, [](double v) { return formatCount(qint64(v)); });
    // At 1024×768 the plot is some 60 pixels high: the axes' titles say the unit in a word (the
    // legend names the series), so they read whole there.
    rowAxis->setTitleText(tr("Rows"));
    QCategoryAxis *secondsAxis = roundAxis(
        maxSeconds, 0.1, [](double v) { return QString::number(v, 'f', v == std::floor(v) ? 0 : 1); });
    secondsAxis->setTitleText(tr("Seconds"));
    chart->addAxis(time, Qt::AlignBottom);
    chart->addAxis(rowAxis, Qt::AlignLeft);
    chart->addAxis(secondsAxis, Qt::AlignRight);
    const auto add = [&](QAbstractSeries *series, QCategoryAxis *valueAxis) {
        chart->addSeries(series);
        series->attachAxis(time);
        series->attachAxis(valueAxis);
    };
    add(rows, rowAxis);
    add(duration, secondsAxis);
    add(failed, rowAxis);
    // Hovering a point says what it stands for.
    for (QXYSeries *series : std::initializer_list<QXYSeries *>{rows, duration, failed})
        connect(series, &QXYSeries::hovered, this, [this](const QPointF &point, bool state) {
            if (state)
                QToolTip::showText(QCursor::pos(), pointToolTip(point.x()), m_view);
            else
                QToolTip::hideText();
        });

    // Backfills: a marker at the top of the chart and a dashed line down to the axis.
    if (!m_trend.backfills.isEmpty()) {
        auto *backfills = new QScatterSeries;
        backfills->setName(tr("Backfill"));
        backfills->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
        backfills->setColor(QColor(108, 113, 196));
        backfills->setMarkerSize(9);
        // Just under the axis' end, so the marker is drawn whole.
        const qreal top = rowAxis->max() * 0.96;
        int lines = 0;
        for (const WatermarkChange &change : m_trend.backfills) {
            const qreal x = qreal(change.at.toMSecsSinceEpoch());
            backfills->append(x, top);
            if (++lines > kMaxEventLines)
                continue;
            auto *line = new QLineSeries;
            line->setPen(QPen(backfills->color(), 1, Qt::DashLine));
            line->append(x, 0);
            line->append(x, top);
            add(line, rowAxis);
            chart->legend()->markers(line).constFirst()->setVisible(false);
        }
        add(backfills, rowAxis);
        connect(backfills, &QXYSeries::hovered, this, [this](const QPointF &point, bool state) {
            if (state)
                QToolTip::showText(QCursor::pos(), backfillToolTip(point.x()), m_view);
            else
                QToolTip::hideText();
        });
    }
    replaceChart(m_view, chart);
}

namespace {

// The element of `items` whose time (`at`) is nearest `x` (ms since the epoch); null when none.
template <typename T> const T *nearest(const QList<T> &items, qreal x) {
    const T *best = nullptr;
    qreal bestDistance = 0;
    for (const T &item : items) {
        const qreal distance = std::abs(qreal(item.at.toMSecsSinceEpoch()) - x);
        if (!best || distance < bestDistance) {
            best = &item;
            bestDistance = distance;
        }
    }
    return best;
}

} // namespace

QString HistoryChart::pointToolTip(qreal msecsSinceEpoch) const {
    const TrendPoint *point = nearest(m_trend.points, msecsSinceEpoch);
    if (!point)
        return QString();
    const QString status = statusLabel(point->status);
    if (point->runs > 1)
        return tr("Runs %1 to %2 (%3 runs), from %4: %5 rows written, the longest %6; the worst: %7")
            .arg(point->firstRunId)
            .arg(point->lastRunId)
            .arg(point->runs)
            .arg(formatTimeWithZone(point->at), formatCount(point->rowsWritten),
                 formatDuration(point->durationMs), status);
    return tr("Run %1, %2: %3 rows written in %4, %5")
        .arg(point->firstRunId)
        .arg(formatTimeWithZone(point->at), formatCount(point->rowsWritten),
             formatDuration(point->durationMs), status.toLower());
}

QString HistoryChart::backfillToolTip(qreal msecsSinceEpoch) const {
    const WatermarkChange *change = nearest(m_trend.backfills, msecsSinceEpoch);
    if (!change)
        return QString();
    return tr("Backfill of table %1, %2: watermark %3 → %4")
        .arg(change->tableId)
        .arg(formatTimeWithZone(change->at), change->oldValue.isEmpty() ? tr("(none)") : change->oldValue,
             change->newValue.isEmpty() ? tr("(the beginning)") : change->newValue);
}

} // namespace tidemark
