// SPDX-License-Identifier: MIT
#include "ui/controltable/watermarkhistorydialog.h"

#include "model/models/itemroles.h"
#include "model/models/watermarkhistorymodel.h"
#include "model/storage/workspace.h"
#include "ui/common/tablenaming.h"
#include "ui/common/workspacegateway.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tidemark {

WatermarkHistoryDialog::WatermarkHistoryDialog(WorkspaceGateway *gateway, const TableSpec &table,
                                               QWidget *parent)
    : QDialog(parent)
    , m_gateway(gateway)
    , m_table(table)
    , m_model(new WatermarkHistoryModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTableView(this))
    , m_status(new QLabel(this)) {
    setObjectName(QStringLiteral("watermarkHistoryDialog"));
    setWindowTitle(tr("Watermark history — %1").arg(tableName(table)));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RawRole);
    m_view->setObjectName(QStringLiteral("watermarkHistoryView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(WatermarkHistoryModel::Time, Qt::DescendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setColumnWidth(WatermarkHistoryModel::Time, 190);
    m_view->setColumnWidth(WatermarkHistoryModel::OldValue, 200);
    m_view->setColumnWidth(WatermarkHistoryModel::NewValue, 200);
    m_view->setColumnWidth(WatermarkHistoryModel::Cause, 110);
    m_view->setColumnWidth(WatermarkHistoryModel::Run, 50);
    m_view->setColumnWidth(WatermarkHistoryModel::By, 90);
    m_status->setObjectName(QStringLiteral("watermarkHistoryStatus"));

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *refresh = buttons->addButton(tr("Refresh"), QDialogButtonBox::ActionRole);
    connect(refresh, &QPushButton::clicked, this, &WatermarkHistoryDialog::reload);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    resize(900, 420);
    reload();
}

void WatermarkHistoryDialog::reload() {
    if (!m_gateway)
        return;
    m_status->setText(tr("Reading the watermark log…"));
    const qint64 id = m_table.id;
    m_gateway->submit(
        this, [id](Workspace &ws) { return ws.watermarkChanges(id); },
        [this](const QList<WatermarkChange> &changes) {
            m_model->setChanges(changes);
            m_status->setText(changes.isEmpty() ? tr("The watermark of this table has not changed yet.")
                                                : tr("%n change(s)", nullptr, int(changes.size())));
            emit loaded(int(changes.size()));
        },
        [this](const QString &error) { m_status->setText(error); });
}

} // namespace tidemark
