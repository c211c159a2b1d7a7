// SPDX-License-Identifier: MIT
#include "ui/history/historypanel.h"

#include "model/models/controltablemodel.h"
#include "model/models/displayformat.h"
#include "model/models/itemroles.h"
#include "model/models/runhistorymodel.h"
#include "ui/common/columnmenu.h"
#include "ui/common/statusdelegate.h"
#include "ui/common/workspacegateway.h"
#include "ui/history/historychart.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace tidemark {

HistoryPanel::HistoryPanel(ControlTableModel *tables, QWidget *parent)
    : QWidget(parent)
    , m_tables(tables)
    , m_model(new RunHistoryModel(this))
    , m_filter(new RunHistoryFilterModel(this))
    , m_view(new QTableView(this))
    , m_tableFilter(new QComboBox(this))
    , m_statusFilter(new QComboBox(this))
    , m_count(new QLabel(this))
    , m_chart(new HistoryChart(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this)) {
    m_filter->setSourceModel(m_model);
    m_view->setObjectName(QStringLiteral("historyView"));
    m_view->setModel(m_filter);
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
    // Widths that keep Read and Written on screen at 1024 pixels beside the chart.
    m_view->setColumnWidth(RunHistoryModel::Id, 44);
    m_view->setColumnWidth(RunHistoryModel::Started, 130);
    m_view->setColumnWidth(RunHistoryModel::Trigger, 60);
    m_view->setColumnWidth(RunHistoryModel::Status, 100);
    m_view->setColumnWidth(RunHistoryModel::Duration, 64);
    m_view->setColumnWidth(RunHistoryModel::Tables, 52);
    m_view->setColumnWidth(RunHistoryModel::RowsRead, 80);
    m_view->setColumnWidth(RunHistoryModel::RowsWritten, 80);
    m_view->setColumnWidth(RunHistoryModel::RowsSkipped, 64);
    installColumnMenu(m_view, RunHistoryModel::Status);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                const QModelIndex source = m_filter->mapToSource(current);
                if (source.isValid())
                    emit runSelected(m_model->runAt(source.row()));
            });

    m_tableFilter->setObjectName(QStringLiteral("historyTableFilter"));
    m_statusFilter->setObjectName(QStringLiteral("historyStatusFilter"));
    m_statusFilter->addItem(tr("Any status"), QString());
    for (IterationStatus status :
         {IterationStatus::Succeeded, IterationStatus::NoNewRows, IterationStatus::Warning,
          IterationStatus::Failed, IterationStatus::Cancelled, IterationStatus::Skipped,
          IterationStatus::DryRun, IterationStatus::Interrupted})
        m_statusFilter->addItem(statusIcon(iterationStatusName(status)), statusLabel(status),
                                iterationStatusName(status));
    refillTableFilter();
    connect(m_tables, &QAbstractItemModel::rowsInserted, this, &HistoryPanel::refillTableFilter);
    connect(m_tables, &QAbstractItemModel::rowsRemoved, this, &HistoryPanel::refillTableFilter);
    connect(m_tables, &QAbstractItemModel::modelReset, this, &HistoryPanel::refillTableFilter);
    connect(m_tableFilter, &QComboBox::currentIndexChanged, this, &HistoryPanel::applyFilters);
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
    applyFilters();
}

void HistoryPanel::setGateway(WorkspaceGateway *gateway) {
    m_model->setRuns({});
    m_gateway = gateway;
    m_chart->setGateway(gateway);
    if (!m_gateway)
        return;
    connect(m_gateway, &WorkspaceGateway::historyLoaded, this, [this](const QList<RunRecord> &runs) {
        const qint64 selected = m_view->currentIndex().data(RunIdRole).toLongLong();
        m_model->setRuns(runs);
        applyFilters();
        if (selected) {
            const int row = m_model->rowOfRun(selected);
            if (row >= 0) {
                const QSignalBlocker block(m_view->selectionModel());
                m_view->setCurrentIndex(m_filter->mapFromSource(m_model->index(row, 0)));
            }
        }
    });
    reload();
}

void HistoryPanel::selectNewest() {
    if (m_filter->rowCount() > 0)
        m_view->setCurrentIndex(m_filter->index(0, 0)); // emits runSelected
}

void HistoryPanel::reload() {
    if (m_gateway)
        m_gateway->reloadHistory(500);
}

void HistoryPanel::mergeRuns(const QList<RunRecord> &runs) {
    m_model->upsertRuns(runs);
    applyFilters();
}

void HistoryPanel::refillTableFilter() {
    const qint64 current = m_tableFilter->currentData().toLongLong();
    const QSignalBlocker block(m_tableFilter);
    m_tableFilter->clear();
    m_tableFilter->addItem(tr("All tables"), qint64(0));
    for (int row = 0; row < m_tables->rowCount(); ++row) {
        const TableSpec &spec = m_tables->tableAt(row);
        m_tableFilter->addItem(QStringLiteral("%1 → %2").arg(spec.sourceDisplay(), spec.targetDisplay()),
                               spec.id);
    }
    m_tableFilter->setCurrentIndex(qMax(0, m_tableFilter->findData(current)));
    if (m_model->rowCount() > 0)
        updateChart();
}

void HistoryPanel::applyFilters() {
    m_filter->setTableFilter(m_tableFilter->currentData().toLongLong());
    m_filter->setStatusFilter(m_statusFilter->currentData().toString());
    m_count->setText(tr("%n run(s)", nullptr, m_filter->rowCount()));
    updateChart();
}

void HistoryPanel::updateChart() {
    // The chart follows the table filter; "All tables" charts each run's totals.
    const qint64 table = m_filter->tableFilter();
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
    if (!file.open(QIODevice::WriteOnly) || file.write(modelToCsv(*m_filter).toUtf8()) < 0 ||
        !file.commit()) {
        emit statusMessage(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    emit statusMessage(tr("Exported %n run(s) to %1", nullptr, m_filter->rowCount()).arg(path));
    return true;
}

} // namespace tidemark
