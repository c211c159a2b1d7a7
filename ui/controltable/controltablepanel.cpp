// SPDX-License-Identifier: MIT
#include "ui/controltable/controltablepanel.h"

#include "model/engine/restoredtargetcheck.h"
#include "model/engine/stalledtables.h"
#include "model/models/controltablemodel.h"
#include "model/models/itemroles.h"
#include "model/models/nextruncolumn.h"
#include "ui/common/columnfitter.h"
#include "ui/common/columnmenu.h"
#include "ui/common/rolelimits.h"
#include "ui/common/statusdelegate.h"
#include "ui/common/tablenaming.h"
#include "ui/common/workspacegateway.h"
#include "ui/controltable/commands/addtablecommand.h"
#include "ui/controltable/commands/edittablecommand.h"
#include "ui/controltable/commands/removetablecommand.h"
#include "ui/controltable/commands/setactivecommand.h"
#include "ui/controltable/tabledialog.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

namespace tidemark {

ControlTablePanel::ControlTablePanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new ControlTableModel(this))
    , m_nextRuns(new NextRunColumn(m_model))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_filter(new QLineEdit(this))
    , m_undoStack(new QUndoStack(this))
    , m_firstSteps(new QWidget(this))
    , m_stalledTimer(new QTimer(this)) {
    m_stalledTimer->setInterval(kStalledCheckMs);
    connect(m_stalledTimer, &QTimer::timeout, this, &ControlTablePanel::reloadStalled);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RawRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_filter->setObjectName(QStringLiteral("controlTableFilter"));
    m_filter->setPlaceholderText(tr("Filter tables (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_view->setObjectName(QStringLiteral("controlTableView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ControlTableModel::Id, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->setTabKeyNavigation(false); // Tab leaves for the next panel; arrows move in the table
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->setItemDelegateForColumn(ControlTableModel::LastStatus, new StatusDelegate(m_view));
    // Widths that keep "Last watermark", the status and the next run on screen; at 1024 pixels
    // the keys and the mode make room. Long names elide in the middle. Tie-breaker and lookback
    // are rarely set: hidden until asked for from the header's menu.
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setColumnWidth(ControlTableModel::Id, 40);
    m_view->setColumnWidth(ControlTableModel::Active, 52);
    m_view->setColumnWidth(ControlTableModel::Source, 140);
    m_view->setColumnWidth(ControlTableModel::Target, 140);
    m_view->setColumnWidth(ControlTableModel::WatermarkColumn, 110);
    m_view->setColumnWidth(ControlTableModel::Tiebreak, 80);
    m_view->setColumnWidth(ControlTableModel::Keys, 80);
    m_view->setColumnWidth(ControlTableModel::Mode, 70);
    m_view->setColumnWidth(ControlTableModel::Lookback, 70);
    m_view->setColumnWidth(ControlTableModel::LastWatermark, 170);
    m_view->setColumnWidth(ControlTableModel::LastStatus,
                           statusColumnWidth(m_view, ControlTableModel::LastStatus));
    m_view->hideColumn(ControlTableModel::Tiebreak);
    m_view->hideColumn(ControlTableModel::Lookback);
    const int nextRun = widthForSamples(m_view, ControlTableModel::NextRun, {widestZonedTime()});
    auto *fitter = new ColumnFitter(m_view, ControlTableModel::NextRun, nextRun, nextRun,
                                    {ControlTableModel::Keys, ControlTableModel::Mode});
    fitter->setGrowing({ControlTableModel::Source, ControlTableModel::Target,
                        ControlTableModel::WatermarkColumn, ControlTableModel::LastWatermark});
    installColumnMenu(m_view, ControlTableModel::LastStatus);
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        if (index.column() != ControlTableModel::Active)
            editSelected();
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ControlTablePanel::selectionChanged);

    connect(m_model, &ControlTableModel::activeChangeRequested, this,
            [this](qint64 id, bool active) { setActive({id}, active); });

    auto *title = new QLabel(tr("<b>Control table</b>"), this);
    auto *header = new QHBoxLayout;
    header->addWidget(title);
    header->addStretch();
    header->addWidget(m_filter, 1);
    // First launch: say what to do, with the buttons that do it.
    m_firstSteps->setObjectName(QStringLiteral("firstSteps"));
    auto *connections = new QPushButton(tr("Connections…"), m_firstSteps);
    connections->setObjectName(QStringLiteral("firstStepsConnections"));
    connect(connections, &QPushButton::clicked, this, &ControlTablePanel::connectionsRequested);
    auto *add = new QPushButton(tr("Add Table…"), m_firstSteps);
    add->setObjectName(QStringLiteral("firstStepsAddTable"));
    connect(add, &QPushButton::clicked, this, &ControlTablePanel::addTable);
    auto *hint = new QLabel(tr("This workspace has no tables yet. Add a connection (source and target "
                               "databases), then a table to copy."),
                            m_firstSteps);
    hint->setWordWrap(true);
    auto *steps = new QHBoxLayout(m_firstSteps);
    steps->addWidget(hint, 1);
    steps->addWidget(connections);
    steps->addWidget(add);
    m_firstSteps->hide();
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &ControlTablePanel::updateFirstSteps);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &ControlTablePanel::updateFirstSteps);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ControlTablePanel::updateFirstSteps);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_firstSteps);
    layout->addWidget(m_view);
    m_tabOrder = {m_filter, connections, add, m_view};
}

void ControlTablePanel::updateFirstSteps() {
    m_firstSteps->setVisible(m_gateway && (m_loaded ? m_model->rowCount() == 0 : !m_expectTables));
}

void ControlTablePanel::setGateway(WorkspaceGateway *gateway, bool hasTables) {
    m_undoStack->clear();
    m_loaded = false;
    // Shown with the window's first frame rather than once the tables are read: shown just after
    // it, in a window under the pointer, the bar asks X where the pointer is (QCursor::pos) and
    // waits behind the server taking that frame in (~50 ms on the GUI thread under Xvfb).
    m_expectTables = hasTables;
    m_model->setTables({});
    if (m_stalledSuperseded)
        m_stalledSuperseded->store(true); // a reply about the workspace shown before
    m_model->setStalled({});
    m_gateway = gateway;
    m_restoredTargetCheck = nullptr;
    updateFirstSteps();
    if (!m_gateway)
        return;
    // Its findings are shown as the workspace's refusals are, naming both tables.
    m_restoredTargetCheck = new RestoredTargetCheck(m_gateway->path(), m_gateway);
    connect(m_restoredTargetCheck, &RestoredTargetCheck::problemFound, m_gateway,
            [gateway](qint64, const QString &message) { emit gateway->errorOccurred(message); });
    connect(m_gateway, &WorkspaceGateway::tablesLoaded, this, [this](const TablesRead &read) {
        m_gateway->dispose(m_model->applyRead(read));
        m_loaded = true;
        updateFirstSteps();
        reloadStalled();
    });
    reload();
}

void ControlTablePanel::reloadStalled() {
    if (m_stalledSuperseded)
        m_stalledSuperseded->store(true);
    if (!m_gateway || !m_model->anyStaleAfter()) {
        m_stalledTimer->stop();
        m_model->setStalled({});
        return;
    }
    if (!m_stalledTimer->isActive())
        m_stalledTimer->start();
    m_stalledSuperseded = std::make_shared<std::atomic_bool>(false);
    m_gateway->submitLatest(
        this, m_stalledSuperseded,
        [](Workspace &ws) { return stalledTables(ws, QDateTime::currentDateTimeUtc()); },
        [this](const QHash<qint64, QString> &stalled) { m_model->setStalled(stalled); });
}

void ControlTablePanel::setSchedules(const QList<ScheduleSpec> &schedules) {
    m_nextRuns->setSchedules(schedules);
}

void ControlTablePanel::reload() {
    if (m_gateway)
        m_gateway->reloadTables();
}

ControlTableCommand::Context ControlTablePanel::commandContext() const {
    return {m_gateway, m_model, m_restoredTargetCheck};
}

QList<qint64> ControlTablePanel::selectedIds() const {
    QList<qint64> ids;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows())
        ids << index.data(TableIdRole).toLongLong();
    std::sort(ids.begin(), ids.end());
    return ids;
}

QList<TableSpec> ControlTablePanel::selectedTables() const {
    QList<TableSpec> tables;
    for (qint64 id : selectedIds()) {
        if (auto spec = m_model->table(id))
            tables << *spec;
    }
    return tables;
}

void ControlTablePanel::setRoleLimits(RoleLimits *limits) {
    m_roleLimits = limits;
    auto *add = m_firstSteps->findChild<QPushButton *>(QStringLiteral("firstStepsAddTable"));
    connect(limits, &RoleLimits::changed, add, [add, limits] {
        const bool allowed = limits->allows(WorkspaceRole::Analyst);
        add->setEnabled(allowed);
        add->setToolTip(allowed ? QString() : limits->refusal(WorkspaceRole::Analyst, tr("adding a table")));
    });
}

bool ControlTablePanel::allowed(WorkspaceRole needed, const QString &what) {
    if (!m_roleLimits || m_roleLimits->allows(needed))
        return true;
    emit statusMessage(m_roleLimits->refusal(needed, what));
    return false;
}

void ControlTablePanel::addTable() {
    if (!m_gateway || !allowed(WorkspaceRole::Analyst, tr("adding a table")))
        return;
    auto *dialog = new TableDialog(m_gateway, std::nullopt, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        m_undoStack->push(new AddTableCommand(commandContext(), dialog->preparedSpec()));
        emit statusMessage(tr("Added %1").arg(tableName(dialog->preparedSpec())));
    });
    dialog->open();
}

void ControlTablePanel::editSelected() {
    const QList<TableSpec> tables = selectedTables();
    if (!m_gateway || tables.size() != 1 || !allowed(WorkspaceRole::Analyst, tr("editing a table")))
        return;
    const TableSpec before = tables.first();
    auto *dialog = new TableDialog(m_gateway, before, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, before] {
        m_undoStack->push(new EditTableCommand(commandContext(), before, dialog->preparedSpec()));
    });
    dialog->open();
}

void ControlTablePanel::removeSelected() {
    const QList<TableSpec> tables = selectedTables();
    if (!m_gateway || tables.isEmpty() || !allowed(WorkspaceRole::Analyst, tr("removing a table")))
        return;
    QStringList names;
    for (const TableSpec &spec : tables)
        names << tableName(spec);
    const auto answer = QMessageBox::question(
        this, tr("Remove tables"),
        tr("Remove %n table(s) from the control table?\n\n%1\n\nThe target tables and their rows are kept. "
           "Ctrl+Z brings the rows back.",
           nullptr, int(tables.size()))
            .arg(names.join(QLatin1Char('\n'))));
    if (answer != QMessageBox::Yes)
        return;
    m_undoStack->beginMacro(tables.size() == 1 ? tr("Remove table %1").arg(names.first())
                                               : tr("Remove %n table(s)", nullptr, int(tables.size())));
    for (const TableSpec &spec : tables)
        m_undoStack->push(new RemoveTableCommand(commandContext(), spec));
    m_undoStack->endMacro();
}

void ControlTablePanel::setActive(const QList<qint64> &ids, bool active) {
    QList<qint64> changing;
    for (qint64 id : ids) {
        if (auto spec = m_model->table(id); spec && spec->active != active)
            changing << id;
    }
    if (!m_gateway || changing.isEmpty() ||
        !allowed(WorkspaceRole::Operator, active ? tr("resuming a table") : tr("pausing a table")))
        return;
    m_undoStack->push(new SetActiveCommand(commandContext(), changing, active));
}

void ControlTablePanel::pauseSelected() {
    setActive(selectedIds(), false);
}

void ControlTablePanel::resumeSelected() {
    setActive(selectedIds(), true);
}

void ControlTablePanel::focusFilter() {
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

} // namespace tidemark
