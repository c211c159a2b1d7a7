// SPDX-License-Identifier: MIT
#include "ui/history/historypanel.h"

#include "model/models/controltablemodel.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/runhistorymodel.h"
#include "model/models/timeconvention.h"
#include "model/storage/workspace.h"
#include "ui/common/columnfitter.h"
#include "ui/common/columnmenu.h"
#include "ui/common/statusdelegate.h"
#include "ui/common/tablenaming.h"
#include "ui/common/workspacegateway.h"
#include "ui/history/historychart.h"
#include "ui/history/historyexport.h"
#include "ui/history/tablechoicemodel.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>

namespace tidemark {

HistoryPanel::HistoryPanel(ControlTableModel *tables, QWidget *parent)
    : QWidget(parent)
    , m_tables(tables)
    , m_model(new RunHistoryModel(this))
    , m_tableChoices(new TableChoiceModel(tables, this))
    , m_view(new QTableView(this))
    , m_tableFilter(new QComboBox(this))
    , m_statusFilter(new QComboBox(this))
    , m_count(new QLabel(this))
    , m_chart(new HistoryChart(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this))
    , m_chartTimer(new QTimer(this))
    , m_exportButton(new QPushButton(tr("Export CSV…"), this))
    , m_exportProgress(new QProgressBar(this))
    , m_exportCancel(new QPushButton(tr("Cancel export"), this)) {
    m_chartTimer->setSingleShot(true);
    m_chartTimer->setInterval(0);
    connect(m_chartTimer, &QTimer::timeout, this, &HistoryPanel::loadChart);
    // Sorting and filters are the workspace's (SQL): a header click orders every run, so the view
    // does not sort (it could only sort the pages read so far).
    m_view->setObjectName(QStringLiteral("historyView"));
    m_view->setModel(m_model);
    m_view->horizontalHeader()->setSectionsClickable(true);
    m_view->horizontalHeader()->setSortIndicatorShown(true);
    showSort(m_model->sortColumn(), m_model->sortOrder());
    connect(m_view->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, &HistoryPanel::sortClicked);
    connect(m_model, &RunHistoryModel::sortChanged, this, [this](int column, Qt::SortOrder order) {
        showSort(column, order);
        emit statusMessage(tr("The history is newest first again: one table's figures sort only "
                              "while filtered to it"));
    });
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->setTabKeyNavigation(false); // Tab leaves for the next panel; arrows move in the table
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setItemDelegateForColumn(RunHistoryModel::Status, new StatusDelegate(m_view));
    // Times, counts and statuses are never cut, and the figures up to the problems stay on
    // screen beside the chart: at 1024 pixels the trigger, the table count and the duration (the
    // chart draws it) make room.
    m_view->setColumnWidth(RunHistoryModel::Id,
                           widthForSamples(m_view, RunHistoryModel::Id, {QStringLiteral("99999")}));
    m_view->setColumnWidth(RunHistoryModel::Started,
                           widthForSamples(m_view, RunHistoryModel::Started, {widestTime()}));
    m_view->setColumnWidth(RunHistoryModel::Trigger, 60);
    m_view->setColumnWidth(RunHistoryModel::Status, statusColumnWidth(m_view, RunHistoryModel::Status));
    m_view->setColumnWidth(RunHistoryModel::Duration,
                           widthForSamples(m_view, RunHistoryModel::Duration, {widestDuration()}));
    m_view->setColumnWidth(RunHistoryModel::Tables,
                           widthForSamples(m_view, RunHistoryModel::Tables, {QStringLiteral("9999")}));
    for (int column : {RunHistoryModel::RowsRead, RunHistoryModel::RowsWritten, RunHistoryModel::RowsSkipped})
        m_view->setColumnWidth(column, widthForSamples(m_view, column, {widestCount()}));
    const int problems = widthForSamples(m_view, RunHistoryModel::Problems, {});
    new ColumnFitter(m_view, RunHistoryModel::Problems, problems, problems,
                     {RunHistoryModel::Trigger, RunHistoryModel::Tables, RunHistoryModel::Duration});
    installColumnMenu(m_view, RunHistoryModel::Status);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    showRun(current.data(RunIdRole).toLongLong());
            });
    connect(m_model, &QAbstractItemModel::modelReset, this, &HistoryPanel::updateCount);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &HistoryPanel::updateCount);

    m_tableFilter->setObjectName(QStringLiteral("historyTableFilter"));
    m_tableFilter->setModel(m_tableChoices);
    // Sized by a length, not by its entries: a combo box sizing to its contents measures every
    // entry when first shown (130-150 ms for 10,000 names, for a history dock shown after the
    // tables came in), and one long table name would widen the whole filter row.
    m_tableFilter->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tableFilter->setMinimumContentsLength(16);
    m_tableFilter->setCurrentIndex(0);
    m_statusFilter->setObjectName(QStringLiteral("historyStatusFilter"));
    m_statusFilter->addItem(tr("Any status"), QString());
    for (IterationStatus status :
         {IterationStatus::Succeeded, IterationStatus::NoNewRows, IterationStatus::Warning,
          IterationStatus::Failed, IterationStatus::Cancelled, IterationStatus::Skipped,
          IterationStatus::DryRun, IterationStatus::Interrupted})
        m_statusFilter->addItem(statusIcon(iterationStatusName(status)), statusLabel(status),
                                iterationStatusName(status));
    // The filter keeps its table through a control-table reset, and a removed table's filter
    // falls back to all tables, not to whichever neighbour the combo box would pick.
    connect(m_tableChoices, &QAbstractItemModel::modelAboutToBeReset, this, &HistoryPanel::holdTableFilter);
    connect(m_tableChoices, &QAbstractItemModel::modelReset, this, &HistoryPanel::restoreTableFilter);
    connect(m_tableChoices, &QAbstractItemModel::rowsAboutToBeRemoved, this,
            [this](const QModelIndex &, int first, int last) {
                const int current = m_tableFilter->currentIndex();
                if (current >= first && current <= last)
                    holdTableFilter();
            });
    connect(m_tableChoices, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (m_tableFilter->signalsBlocked())
            restoreTableFilter();
    });
    connect(m_tableFilter, &QComboBox::currentIndexChanged, this, &HistoryPanel::applyFilters);
    // The chart's fallback table (the first) may only now be known.
    connect(m_tableChoices, &QAbstractItemModel::rowsInserted, this, &HistoryPanel::updateChart);
    connect(m_tableChoices, &QAbstractItemModel::modelReset, this, &HistoryPanel::updateChart);
    connect(m_statusFilter, &QComboBox::currentIndexChanged, this, &HistoryPanel::applyFilters);

    m_exportButton->setObjectName(QStringLiteral("exportCsv"));
    connect(m_exportButton, &QPushButton::clicked, this, &HistoryPanel::exportCsv);
    m_exportProgress->setObjectName(QStringLiteral("historyExportProgress"));
    m_exportProgress->setMaximumWidth(120);
    m_exportProgress->hide();
    m_exportCancel->setObjectName(QStringLiteral("historyExportCancel"));
    m_exportCancel->hide();
    connect(m_exportCancel, &QPushButton::clicked, this, &HistoryPanel::cancelExport);
    auto *refresh = new QPushButton(tr("Refresh"), this);
    connect(refresh, &QPushButton::clicked, this, &HistoryPanel::reload);

    // The count names the table: long names must not widen the dock past a 1024-pixel screen,
    // so it gives way (whole in its tooltip) before the chart does.
    m_count->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto *filters = new QHBoxLayout;
    filters->addWidget(new QLabel(tr("Table:"), this));
    filters->addWidget(m_tableFilter, 1);
    filters->addWidget(new QLabel(tr("Status:"), this));
    filters->addWidget(m_statusFilter);
    filters->addWidget(m_count);
    filters->addStretch();
    filters->addWidget(refresh);
    filters->addWidget(m_exportProgress);
    filters->addWidget(m_exportCancel);
    filters->addWidget(m_exportButton);

    auto *listBox = new QWidget(this);
    auto *listLayout = new QVBoxLayout(listBox);
    listLayout->setContentsMargins(0, 0, 0, 0);
    listLayout->addLayout(filters);
    listLayout->addWidget(m_view);
    m_splitter->setObjectName(QStringLiteral("historySplitter"));
    m_splitter->addWidget(listBox);
    m_splitter->addWidget(m_chart);
    m_splitter->setChildrenCollapsible(false); // the chart keeps its usable minimum
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    m_splitter->setSizes({820, 500});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);
    // Tab follows the layout, left to right along the filter row (the chart's period ends it),
    // then the list, then the chart (by creation order it ran from the export button leftwards).
    const QList<QWidget *> tabOrder{
        m_tableFilter,  m_statusFilter, refresh,
        m_exportCancel, m_exportButton, m_chart->findChild<QComboBox *>(QStringLiteral("chartPeriod")),
        m_view};
    for (qsizetype i = 1; i < tabOrder.size(); ++i)
        QWidget::setTabOrder(tabOrder.at(i - 1), tabOrder.at(i));
    updateCount();
}

void HistoryPanel::setGateway(WorkspaceGateway *gateway) {
    m_gateway = gateway;
    m_chart->setGateway(gateway);
    if (!m_gateway) {
        m_model->setPageSource({});
        m_runCount = 0;
        updateCount();
        return;
    }
    m_model->setPageSource([this](const RunPageRequest &request) { requestPage(request); });
    updateChart();
}

void HistoryPanel::requestPage(const RunPageRequest &request) {
    if (!m_gateway)
        return;
    const RunPageQuery query = request.query;
    m_gateway->submitLatest(
        this, request.superseded, [query](Workspace &ws) { return ws.runOverviews(query); },
        [this, id = request.id](const QList<RunOverview> &page) { m_model->pageLoaded(id, page); },
        [this, id = request.id](const QString &error) {
            m_model->pageFailed(id);
            emit statusMessage(tr("Could not read the run history: %1").arg(error));
        });
    if (!request.query.before) // a first page (a filter, a refresh): count again
        recount(query, request.query.tableId != m_countedTable || request.query.status != m_countedStatus);
}

void HistoryPanel::recount(RunPageQuery query, bool filterChanged) {
    query.before.reset();
    m_countedTable = query.tableId;
    m_countedStatus = query.status;
    if (filterChanged) {
        m_runCount = -1; // not another filter's number meanwhile
        updateCount();
    }
    m_gateway->submitLatest(
        this, supersede(m_countSuperseded), [query](Workspace &ws) { return ws.runCount(query); },
        [this](qint64 count) {
            m_runCount = count;
            updateCount();
        });
}

void HistoryPanel::showRun(qint64 runId) {
    if (!m_gateway || runId <= 0)
        return;
    RunPageQuery query;
    query.runId = runId;
    m_gateway->submitLatest(
        this, supersede(m_runSuperseded), [query](Workspace &ws) { return ws.runPage(query); },
        [this](const QList<RunRecord> &runs) {
            if (!runs.isEmpty())
                emit runSelected(runs.first());
        });
}

void HistoryPanel::selectNewest() {
    if (m_model->rowCount() > 0)
        m_view->setCurrentIndex(m_model->index(0, 0)); // the first row shown: in the run grid
}

QAbstractItemModel *HistoryPanel::sortModel() const {
    return m_model;
}

void HistoryPanel::sortClicked(int column, Qt::SortOrder order) {
    if (m_model->canSort(column)) {
        m_model->sort(column, order);
        return;
    }
    showSort(m_model->sortColumn(), m_model->sortOrder()); // the indicator stays where the rows are
    const QString name = m_model->headerData(column, Qt::Horizontal).toString().toLower();
    emit statusMessage(m_model->tableFilter() <= 0 && RunHistoryModel::canSort(column, 1)
                           ? tr("Sorting by %1 needs a table filter: a run's %1 sums its tables").arg(name)
                           : tr("The history cannot be sorted by %1: the workspace sorts every run, by "
                                "run, start, status, duration or rows read or written")
                                 .arg(name));
}

void HistoryPanel::showSort(int column, Qt::SortOrder order) {
    QHeaderView *header = m_view->horizontalHeader();
    const QSignalBlocker quiet(header);
    header->setSortIndicator(column, order);
}

void HistoryPanel::reload() {
    m_model->refresh();
    updateChart();
}

void HistoryPanel::mergeRuns(const QList<RunRecord> &runs) {
    const int before = m_model->rowCount();
    m_model->upsertRuns(runs);
    const qint64 charted = m_chart->tableId();
    const bool touchesChart = std::any_of(runs.cbegin(), runs.cend(), [charted](const RunRecord &run) {
        return charted <= 0 ||
               std::any_of(run.iterations.cbegin(), run.iterations.cend(),
                           [charted](const IterationRecord &it) { return it.tableId == charted; });
    });
    if (touchesChart)
        m_chart->refresh(); // coalesced: a watcher reports twice a second while a run goes on
    if (m_gateway && m_model->rowCount() != before) { // a new run: one more the filter takes
        RunPageQuery query;
        query.tableId = m_model->tableFilter();
        query.status = m_model->statusFilter();
        recount(query, false);
    }
}

void HistoryPanel::updateRunFigures(qint64 runId, const QList<IterationRecord> &iterations) {
    m_model->updateRunFigures(runId, iterations);
}

qint64 HistoryPanel::tableFilter() const {
    return m_tableFilter->currentData(TableIdRole).toLongLong();
}

void HistoryPanel::holdTableFilter() {
    m_heldTable = tableFilter();
    m_tableFilter->blockSignals(true);
}

void HistoryPanel::restoreTableFilter() {
    const int row = m_tableChoices->rowOfTable(m_heldTable);
    m_tableFilter->setCurrentIndex(row < 0 ? 0 : row);
    m_tableFilter->blockSignals(false);
    if (tableFilter() != m_model->tableFilter())
        applyFilters();
}

void HistoryPanel::applyFilters() {
    m_model->setFilter(tableFilter(), m_statusFilter->currentData().toString());
    updateChart();
}

// "orders → orders_copy: 1,234 runs", or "1,234 runs, 200 shown" while scrolling loads more.
QString HistoryPanel::countText() const {
    QString text = m_runCount < 0    ? tr("counting runs…")
                   : m_runCount == 1 ? tr("1 run")
                                     : tr("%1 runs").arg(formatCount(m_runCount));
    if (m_runCount > m_model->rowCount())
        text += tr(", %1 shown").arg(formatCount(m_model->rowCount()));
    if (const qint64 table = m_model->tableFilter()) {
        const std::optional<TableSpec> spec = m_tables->table(table);
        const QString name = spec ? tableName(*spec) : tr("table %1").arg(table);
        text = tr("%1: %2").arg(name, text);
    }
    return text;
}

void HistoryPanel::updateCount() {
    m_count->setText(countText());
    m_count->setToolTip(m_count->text());
}

void HistoryPanel::updateChart() {
    m_chartTimer->start(); // once per turn of the event loop, however many changes asked
}

void HistoryPanel::loadChart() {
    // The chart follows the table filter; "All tables" charts each run's totals.
    const qint64 table = tableFilter();
    const std::optional<TableSpec> spec = table ? m_tables->table(table) : std::nullopt;
    m_chart->showTable(table, spec ? tableName(*spec) : tr("All tables"));
}

void HistoryPanel::exportCsv() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export run history"), QStringLiteral("tidemark-history.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsvTo(path);
}

bool HistoryPanel::exportCsvTo(const QString &path) {
    if (!m_gateway || m_export)
        return false;
    m_export = new HistoryExport(m_gateway, m_model->query(), path, m_model->csvHeader(),
                                 TimeConvention::current().zone(), this);
    connect(m_export, &HistoryExport::progress, this, [this](qint64 written, qint64 total) {
        m_exportProgress->setRange(0, total > 0 ? int(std::min<qint64>(total, INT_MAX)) : 0);
        m_exportProgress->setValue(int(std::min<qint64>(written, m_exportProgress->maximum())));
    });
    connect(m_export, &HistoryExport::finished, this, &HistoryPanel::exportDone);
    m_exportButton->setEnabled(false);
    m_exportProgress->setRange(0, 0); // busy until the count is in
    m_exportProgress->show();
    m_exportCancel->show();
    emit statusMessage(tr("Exporting the run history to %1…").arg(QDir::toNativeSeparators(path)));
    m_export->start();
    return true;
}

void HistoryPanel::cancelExport() {
    if (m_export)
        m_export->cancel();
}

void HistoryPanel::exportDone(bool ok, bool cancelled, qint64 written, const QString &error) {
    const QString path = QDir::toNativeSeparators(m_export->path());
    m_export->deleteLater();
    m_export = nullptr;
    m_exportButton->setEnabled(true);
    m_exportProgress->hide();
    m_exportCancel->hide();
    const QString message = ok          ? tr("Exported %1 run(s) to %2").arg(formatCount(written), path)
                            : cancelled ? tr("Export cancelled: %1 was not written").arg(path)
                                        : tr("Could not export the run history: %1").arg(error);
    emit statusMessage(message);
    emit exportFinished(ok, message);
}

} // namespace tidemark
