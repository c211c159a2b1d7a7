// SPDX-License-Identifier: MIT
#include "ui/controltable/controltablepanel.h"

#include "model/models/controltablemodel.h"
#include "model/models/itemroles.h"
#include "ui/common/statusdelegate.h"
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
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QUndoStack>
#include <QVBoxLayout>

namespace tidemark {

ControlTablePanel::ControlTablePanel(QWidget *parent)
    : QWidget(parent)
    , m_model(new ControlTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_filter(new QLineEdit(this))
    , m_undoStack(new QUndoStack(this)) {
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
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->setItemDelegateForColumn(ControlTableModel::LastStatus, new StatusDelegate(m_view));
    m_view->setColumnWidth(ControlTableModel::Id, 48);
    m_view->setColumnWidth(ControlTableModel::Active, 56);
    m_view->setColumnWidth(ControlTableModel::Source, 200);
    m_view->setColumnWidth(ControlTableModel::Target, 200);
    m_view->setColumnWidth(ControlTableModel::WatermarkColumn, 170);
    m_view->setColumnWidth(ControlTableModel::LastWatermark, 210);
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
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_view);
}

void ControlTablePanel::setGateway(WorkspaceGateway *gateway) {
    m_undoStack->clear();
    m_model->setTables({});
    m_gateway = gateway;
    if (!m_gateway)
        return;
    connect(m_gateway, &WorkspaceGateway::tablesLoaded, m_model, &ControlTableModel::setTables);
    reload();
}

void ControlTablePanel::reload() {
    if (m_gateway)
        m_gateway->reloadTables();
}

ControlTableCommand::Context ControlTablePanel::commandContext() const {
    return {m_gateway, m_model};
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

void ControlTablePanel::addTable() {
    if (!m_gateway)
        return;
    auto *dialog = new TableDialog(m_gateway, std::nullopt, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        m_undoStack->push(new AddTableCommand(commandContext(), dialog->preparedSpec()));
        emit statusMessage(tr("Added %1").arg(dialog->preparedSpec().sourceDisplay()));
    });
    dialog->open();
}

void ControlTablePanel::editSelected() {
    const QList<TableSpec> tables = selectedTables();
    if (!m_gateway || tables.size() != 1)
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
    if (!m_gateway || tables.isEmpty())
        return;
    QStringList names;
    for (const TableSpec &spec : tables)
        names << spec.sourceDisplay();
    const auto answer = QMessageBox::question(
        this, tr("Remove tables"),
        tr("Remove %n table(s) from the control table?\n\n%1\n\nThe target tables and their rows are kept. "
           "Ctrl+Z brings the rows back.",
           nullptr, int(tables.size()))
            .arg(names.join(QLatin1Char('\n'))));
    if (answer != QMessageBox::Yes)
        return;
    m_undoStack->beginMacro(tables.size() == 1 ? tr("Remove table %1").arg(names.first())
                                               : tr("Remove %1 tables").arg(tables.size()));
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
    if (!m_gateway || changing.isEmpty())
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
