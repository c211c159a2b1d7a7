// SPDX-License-Identifier: MIT
#include "ui/run/runpanel.h"

#include "model/engine/runcoordinator.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/iterationgridmodel.h"
#include "model/storage/workspace.h"
#include "ui/common/columnfitter.h"
#include "ui/common/columnmenu.h"
#include "ui/common/statusdelegate.h"
#include "ui/common/workspacegateway.h"
#include "ui/run/iterationdetails.h"
#include "ui/run/progressdelegate.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tidemark {

RunPanel::RunPanel(QWidget *parent)
    : QWidget(parent)
    , m_live(new IterationGridModel(this))
    , m_past(new IterationGridModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_details(new IterationDetails(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this))
    , m_title(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_backToLive(new QPushButton(tr("Show current run"), this))
    , m_summaryTimer(new QTimer(this))
    , m_liveTick(new QTimer(this)) {
    m_proxy->setSortRole(RawRole);
    m_view->setObjectName(QStringLiteral("iterationGrid"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // run order until the user sorts
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->setTabKeyNavigation(false); // Tab leaves for the next panel; arrows move in the table
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setItemDelegate(new StatusRowDelegate(m_view));
    m_view->setItemDelegateForColumn(IterationGridModel::Status, new StatusDelegate(m_view));
    m_view->setItemDelegateForColumn(IterationGridModel::Progress, new ProgressDelegate(m_view));
    m_view->setItemDelegateForColumn(IterationGridModel::RowsWritten, new FigureDelegate(m_view));
    m_view->setWordWrap(false);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);

    m_summary->setObjectName(QStringLiteral("runSummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_backToLive->setObjectName(QStringLiteral("showCurrentRun"));
    m_backToLive->hide();
    connect(m_backToLive, &QPushButton::clicked, this, &RunPanel::showLive);

    // A live run changes its summary with every iteration's report, hundreds a second at 10,000
    // tables; each new text lays the window out again. While it runs the line is redrawn a few
    // times a second; its end (and anything not live) shows at once.
    m_summaryTimer->setSingleShot(true);
    m_summaryTimer->setInterval(kLiveSummaryMs);
    // The grid's rows, the summary above them and the history's row of the run change in one
    // turn of the event loop, from the same reports: a row saying 381,000 read under a summary
    // saying 496,000 and a history saying 467,000 was three counts of one run at one moment.
    m_liveTick->setSingleShot(true);
    m_liveTick->setInterval(kLiveSummaryMs);
    connect(m_liveTick, &QTimer::timeout, this, &RunPanel::applyLiveReports);
    connect(m_summaryTimer, &QTimer::timeout, this, &RunPanel::updateSummary);
    for (IterationGridModel *model : {m_live, m_past}) {
        connect(model, &IterationGridModel::summaryChanged, this, [this, model] {
            if (shownModel() != model)
                return;
            if (!model->isLive())
                updateSummary();
            else if (!m_summaryTimer->isActive())
                m_summaryTimer->start();
        });
        connect(model, &QAbstractItemModel::dataChanged, this, [this, model](const QModelIndex &topLeft) {
            // Refresh the details when their row changed (not on every tick of the duration).
            const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex());
            if (shownModel() == model && current.isValid() && current.row() == topLeft.row() &&
                topLeft.column() == 0)
                updateDetails();
        });
        connect(model, &IterationGridModel::logAppended, this, [this, model](int row, const LogLine &line) {
            const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex());
            if (shownModel() == model && current.isValid() && current.row() == row)
                m_details->appendLog(line);
        });
        connect(model, &QAbstractItemModel::modelReset, this, [this, model] {
            if (shownModel() == model)
                updateDetails();
        });
    }

    auto *gridBox = new QWidget(this);
    auto *header = new QHBoxLayout;
    header->addWidget(m_title);
    header->addWidget(m_summary, 1);
    header->addWidget(m_backToLive);
    auto *gridLayout = new QVBoxLayout(gridBox);
    gridLayout->setContentsMargins(0, 0, 0, 0);
    gridLayout->addLayout(header);
    gridLayout->addWidget(m_view);
    m_splitter->setObjectName(QStringLiteral("runSplitter"));
    m_splitter->addWidget(gridBox);
    m_splitter->addWidget(m_details);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({1000, 340});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);

    setShown(m_live);
    // Long names and watermarks elide in the middle (whole in the details pane); times, counts
    // and statuses are never cut. The status, the figures and the progress stay on screen: the
    // target and then the duration (both in the details pane) make room for them when the grid
    // is narrow (at 1440 pixels the target, at 1024 both).
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setColumnWidth(IterationGridModel::Source, 100);
    m_view->setColumnWidth(IterationGridModel::Target, 120);
    m_view->setColumnWidth(IterationGridModel::Status, statusColumnWidth(m_view, IterationGridModel::Status));
    m_view->setColumnWidth(IterationGridModel::Started,
                           widthForSamples(m_view, IterationGridModel::Started, {widestTime()}));
    m_view->setColumnWidth(IterationGridModel::Duration,
                           widthForSamples(m_view, IterationGridModel::Duration, {widestDuration()}));
    for (int column :
         {IterationGridModel::RowsRead, IterationGridModel::RowsWritten, IterationGridModel::RowsSkipped})
        m_view->setColumnWidth(column, widthForSamples(m_view, column, {widestCount()}));
    // Written keeps the figures of a whole-window table's open transaction ("0 (+123,456 pe…").
    m_view->setColumnWidth(IterationGridModel::RowsWritten,
                           widthForSamples(m_view, IterationGridModel::RowsWritten,
                                           {QStringLiteral("0 (+%1 …").arg(formatCount(999'999))}));
    m_view->setColumnWidth(IterationGridModel::WatermarkBefore, 150);
    // The progress wants room for a million-row window's rate and time left.
    const QString fraction = QStringLiteral("%1 / %1").arg(widestCount());
    const QString running = tr("%1 · %2 rows/s · about %3 left")
                                .arg(QStringLiteral("%1 / %1").arg(formatCount(1'000'000)),
                                     formatCount(99'999), formatDuration(59'000));
    auto *fitter = new ColumnFitter(m_view, IterationGridModel::Progress,
                                    widthForSamples(m_view, IterationGridModel::Progress, {fraction}),
                                    widthForSamples(m_view, IterationGridModel::Progress, {running}),
                                    {IterationGridModel::Target, IterationGridModel::Duration});
    fitter->setGrowing(
        {IterationGridModel::Source, IterationGridModel::Target, IterationGridModel::WatermarkBefore});
    installColumnMenu(m_view, IterationGridModel::Status);

    auto *rejects = new QAction(tr("Rejected &Rows…"), this);
    rejects->setObjectName(QStringLiteral("actionRejectedRows"));
    connect(rejects, &QAction::triggered, this, [this] {
        IterationGridModel *model = shownModel();
        const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex());
        if (model && current.isValid() && current.row() < model->rowCount())
            emit rejectedRowsRequested(model->iterationAt(current.row()));
    });
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_view->addAction(rejects);
    connect(m_details, &IterationDetails::rejectedRowsRequested, this, &RunPanel::rejectedRowsRequested);
}

QSize RunPanel::sizeHint() const {
    const int summary = std::max(
        {m_title->sizeHint().height(), m_summary->sizeHint().height(), m_backToLive->sizeHint().height()});
    const int grid = m_view->horizontalHeader()->sizeHint().height() +
                     kRowsShown * m_view->verticalHeader()->defaultSectionSize() +
                     m_view->horizontalScrollBar()->sizeHint().height() + 2 * m_view->frameWidth();
    return {QWidget::sizeHint().width(), summary + m_view->parentWidget()->layout()->spacing() + grid};
}

void RunPanel::setCoordinator(RunCoordinator *coordinator) {
    if (m_coordinator) {
        disconnect(m_coordinator, nullptr, m_live, nullptr);
        disconnect(m_coordinator, nullptr, this, nullptr);
    }
    m_liveTick->stop();
    m_liveReports.clear();
    m_coordinator = coordinator;
    m_live->clear();
    m_past->clear();
    setShown(m_live);
    if (!coordinator)
        return;
    connect(coordinator, &RunCoordinator::runStarted, m_live, &IterationGridModel::beginRun);
    connect(coordinator, &RunCoordinator::iterationChanged, this, [this](const IterationRecord &record) {
        m_liveReports.append(record);
        if (!m_liveTick->isActive())
            m_liveTick->start();
    });
    connect(coordinator, &RunCoordinator::iterationLogged, m_live, &IterationGridModel::appendLog);
    connect(coordinator, &RunCoordinator::runFinished, this, [this](const RunRecord &run) {
        applyLiveReports();
        m_live->finishRun(run);
    });
    connect(coordinator, &RunCoordinator::runStarted, this, &RunPanel::showLive);
}

IterationGridModel *RunPanel::shownModel() const {
    return qobject_cast<IterationGridModel *>(m_proxy->sourceModel());
}

bool RunPanel::isShowingLive() const {
    return shownModel() == m_live;
}

void RunPanel::showLive() {
    setShown(m_live);
}

void RunPanel::showPastRun(const RunRecord &run) {
    if (run.id == m_live->runId() && m_live->runId() != 0) {
        setShown(m_live);
        return;
    }
    m_followed = 0;
    m_past->showRun(run);
    setShown(m_past);
}

void RunPanel::followRuns(const QList<RunRecord> &runs) {
    for (const RunRecord &run : runs) {
        if (run.id == m_live->runId())
            continue; // this window's own run: the coordinator feeds it
        if (m_past->runId() == run.id) {
            m_past->followRun(run);
            updateSummary();
            continue;
        }
        const bool readingOtherRun = shownModel() == m_past && m_past->runId() != m_followed;
        if (run.status == QLatin1String("running") && !m_live->isLive() && !readingOtherRun) {
            m_followed = run.id;
            m_past->showRun(run);
            setShown(m_past);
        }
    }
}

void RunPanel::clear() {
    m_live->clear();
    m_past->clear();
    setShown(m_live);
}

void RunPanel::setShown(IterationGridModel *model) {
    if (m_proxy->sourceModel() != model) {
        // Both models have the same columns: keep the widths the user gave them.
        const QByteArray header = m_view->horizontalHeader()->saveState();
        m_proxy->setSourceModel(model);
        m_view->horizontalHeader()->restoreState(header);
        connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
                &RunPanel::updateDetails, Qt::UniqueConnection);
    }
    m_backToLive->setVisible(model != m_live && m_live->runId() != 0);
    updateSummary();
    updateDetails();
}

void RunPanel::applyLiveReports() {
    m_liveTick->stop();
    if (m_liveReports.isEmpty())
        return;
    const QList<IterationRecord> reports = std::exchange(m_liveReports, {});
    for (const IterationRecord &record : reports)
        m_live->updateIteration(record);
    if (shownModel() == m_live)
        updateSummary();
    emit liveFiguresShown(m_live->runId(), m_live->iterations());
}

void RunPanel::updateSummary() {
    m_summaryTimer->stop();
    IterationGridModel *model = shownModel();
    if (!model || model->runId() == 0) {
        m_title->setText(tr("<b>Run</b>"));
        m_summary->setText(tr("No run yet — F5 runs every active table."));
        return;
    }
    const bool live = model == m_live;
    const RunSummary summary = model->summary();
    const bool runningElsewhere =
        !live && (summary.count(IterationStatus::Running) > 0 || summary.count(IterationStatus::Queued) > 0);
    m_title->setText(live && model->isLive() ? tr("<b>Run %1 (running)</b>").arg(model->runId())
                     : live                  ? tr("<b>Run %1</b>").arg(model->runId())
                     : runningElsewhere ? tr("<b>Run %1 (running in another process)</b>").arg(model->runId())
                                        : tr("<b>Run %1 (history)</b>").arg(model->runId()));
    m_summary->setText(summary.text());
    const bool bad = summary.count(IterationStatus::Failed) > 0;
    m_summary->setStyleSheet(bad ? QStringLiteral("color: #b00020;") : QString());
}

void RunPanel::updateDetails() {
    IterationGridModel *model = shownModel();
    const QModelIndex current = m_proxy->mapToSource(m_view->currentIndex());
    if (!model || !current.isValid() || current.row() >= model->rowCount()) {
        m_details->clear();
        return;
    }
    const IterationRecord &record = model->iterationAt(current.row());
    m_details->showIteration(record);
    // A run picked in the history comes without log lines: they are read now.
    if (model == m_past && record.log.isEmpty() && record.id > 0)
        loadLog(record.id);
}

void RunPanel::loadLog(qint64 iterationId) {
    if (!m_gateway)
        return;
    m_gateway->submitLatest(
        this, supersede(m_logSuperseded),
        [iterationId](Workspace &ws) { return ws.iterationLog(iterationId); },
        [this, iterationId](const QList<LogLine> &lines) { m_past->setIterationLog(iterationId, lines); });
}

} // namespace tidemark
