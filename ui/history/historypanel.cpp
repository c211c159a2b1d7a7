// SPDX-License-Identifier: MIT
#include "ui/history/historypanel.h"

#include "model/models/controltablemodel.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/runhistorymodel.h"
#include "model/storage/workspace.h"
#include "ui/common/columnfitter.h"
#include "ui/common/columnmenu.h"
#include "ui/common/statusdelegate.h"
#include "ui/common/workspacegateway.h"
#include "ui/history/historychart.h"
#include "ui/history/tablechoicemodel.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace tidemark {

HistoryPanel::HistoryPanel(ControlTableModel *tables, QWidget *parent)
    : QWidget(parent)
    , m_tables(tables)
    , m_model(new RunHistoryModel(this))
    , m_sort(new QSortFilterProxyModel(this))
    , m_tableChoices(new TableChoiceModel(tables, this))
    , m_view(new QTableView(this))
    , m_tableFilter(new QComboBox(this))
    , m_statusFilter(new QComboBox(this))
    , m_count(new QLabel(this))
    , m_chart(new HistoryChart(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this))
    , m_chartTimer(new QTimer(this)) {
    m_chartTimer->setSingleShot(true);
    m_chartTimer->setInterval(0);
    connect(m_chartTimer, &QTimer::timeout, this, &HistoryPanel::loadChart);
    // Sorting a column sorts the runs read so far; filters are the workspace's (SQL).
    m_sort->setSortRole(RawRole);
    m_sort->setSourceModel(m_model);
    m_view->setObjectName(QStringLiteral("historyView"));
    m_view->setModel(m_sort);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // newest first, as the model keeps it
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

    auto *exportButton = new QPushButton(tr("Export CSV…"), this);
    exportButton->setObjectName(QStringLiteral("exportCsv"));
    connect(exportButton, &QPushButton::clicked, this, &HistoryPanel::exportCsv);
    auto *refresh = new QPushButton(tr("Refresh"), this);
    connect(refresh, &QPushButton::clicked, this, &HistoryPanel::reload);

    auto *filters = new QHBoxLayout;
    filters->addWidget(new QLabel(tr("Table:"), this));
    filters->addWidget(m_tableFilter, 1);
    filters->addWidget(new QLabel(tr("Status:"), this));
    filters->addWidget(m_statusFilter);
    filters->addWidget(m_count);
    filters->addStretch();
    filters->addWidget(refresh);
    filters->addWidget(exportButton);

    auto *listBox = new QWidget(this);
    auto *listLayout = new QVBoxLayout(listBox);
    listLayout->setContentsMargins(0, 0, 0, 0);
    listLayout->addLayout(filters);
    listLayout->addWidget(m_view);
    m_splitter->setObjectName(QStringLiteral("historySplitter"));
    m_splitter->addWidget(listBox);
    m_splitter->addWidget(m_chart);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    m_splitter->setSizes({820, 500});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);
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
    if (m_sort->rowCount() > 0)
        m_view->setCurrentIndex(m_sort->index(0, 0)); // shows it in the run grid
}

void HistoryPanel::reload() {
    m_model->refresh();
    updateChart();
}

void HistoryPanel::mergeRuns(const QList<RunRecord> &runs) {
    const int before = m_model->rowCount();
    m_model->upsertRuns(runs);
    if (m_gateway && m_model->rowCount() != before) { // a new run: one more the filter takes
        RunPageQuery query;
        query.tableId = m_model->tableFilter();
        query.status = m_model->statusFilter();
        recount(query, false);
    }
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
        const QString name = spec
                                 ? QStringLiteral("%1 → %2").arg(spec->sourceDisplay(), spec->targetDisplay())
                                 : tr("table %1").arg(table);
        text = tr("%1: %2").arg(name, text);
    }
    return text;
}

void HistoryPanel::updateCount() {
    m_count->setText(countText());
}

void HistoryPanel::updateChart() {
    m_chartTimer->start(); // once per turn of the event loop, however many changes asked
}

void HistoryPanel::loadChart() {
    // The chart follows the table filter; "All tables" charts each run's totals.
    const qint64 table = tableFilter();
    const std::optional<TableSpec> spec = table ? m_tables->table(table) : std::nullopt;
    m_chart->showTable(table, spec ? spec->sourceDisplay() : tr("All tables"));
}

void HistoryPanel::exportCsv() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export run history"), QStringLiteral("tidemark-history.csv"), tr("CSV files (*.csv)"));
    if (!path.isEmpty())
        exportCsvTo(path);
}

bool HistoryPanel::exportCsvTo(const QString &path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(modelToCsv(*m_sort).toUtf8()) < 0 || !file.commit()) {
        emit statusMessage(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    emit statusMessage(tr("Exported %n run(s) to %1", nullptr, m_sort->rowCount()).arg(path));
    return true;
}

} // namespace tidemark
