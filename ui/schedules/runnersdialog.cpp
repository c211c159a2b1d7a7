// SPDX-License-Identifier: MIT
#include "ui/schedules/runnersdialog.h"

#include "model/schedule/runnerstatus.h"
#include "ui/common/workspacegateway.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tidemark {
namespace {

constexpr int kRefreshMs = 2000;

QString localTime(const QDateTime &time) {
    return time.isValid() ? time.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : QString();
}

} // namespace

RunnersDialog::RunnersDialog(WorkspaceGateway *gateway, QWidget *parent)
    : QDialog(parent)
    , m_gateway(gateway)
    , m_view(new QTableView(this))
    , m_model(new QStandardItemModel(0, 6, this))
    , m_summary(new QLabel(this)) {
    setWindowTitle(tr("Runners"));
    m_model->setHorizontalHeaderLabels(
        {tr("Runner"), tr("Role"), tr("State"), tr("Running"), tr("Last beat"), tr("Version")});
    m_view->setModel(m_model);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_summary->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *refresh = buttons->addButton(tr("&Refresh"), QDialogButtonBox::ActionRole);
    connect(refresh, &QPushButton::clicked, this, &RunnersDialog::reload);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_view);
    layout->addWidget(buttons);
    resize(760, 320);
    m_refresh.setInterval(kRefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, &RunnersDialog::reload);
}

void RunnersDialog::showEvent(QShowEvent *event) {
    QDialog::showEvent(event);
    reload();
    m_refresh.start();
}

void RunnersDialog::hideEvent(QHideEvent *event) {
    m_refresh.stop();
    QDialog::hideEvent(event);
}

void RunnersDialog::reload() {
    m_gateway->submitRead(
        this,
        [](Workspace &ws) {
            return Read{ws.runner(), ws.fleetRunners()};
        },
        [this](const Read &read) { display(read); },
        [this](const QString &error) { m_summary->setText(tr("Cannot read the runners: %1").arg(error)); });
}

void RunnersDialog::display(const Read &read) {
    m_model->removeRows(0, m_model->rowCount());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto addRow = [this](const QStringList &cells, const QString &tooltip) {
        QList<QStandardItem *> items;
        for (const QString &cell : cells) {
            auto *item = new QStandardItem(cell);
            item->setToolTip(tooltip);
            items << item;
        }
        m_model->appendRow(items);
    };
    if (read.scheduler) {
        const RunnerStatus status = RunnerStatus::of(read.scheduler, now);
        addRow({QStringLiteral("%1:%2").arg(read.scheduler->host).arg(read.scheduler->pid),
                tr("fires schedules"),
                status.state == RunnerStatus::State::Running ? tr("alive") : tr("stopped"), QString(),
                localTime(read.scheduler->lastBeatAt), read.scheduler->version},
               status.text);
    }
    int alive = 0;
    int slotsFree = 0;
    for (const FleetRunner &runner : read.fleet) {
        if (runner.alive) {
            ++alive;
            slotsFree += qMax(0, runner.slotCount - runner.running);
        }
        addRow({runner.id, tr("takes queued work"), runner.alive ? tr("alive") : tr("stopped"),
                tr("%1 of %2 slots").arg(runner.running).arg(runner.slotCount), localTime(runner.lastBeatAt),
                runner.version},
               tr("Started %1 on host %2").arg(localTime(runner.startedAt), runner.host));
    }
    m_view->resizeColumnsToContents();
    if (read.fleet.isEmpty())
        m_summary->setText(read.scheduler
                               ? tr("No runner takes queued work yet; the one that fires schedules "
                                    "takes it while it is active (tidemark-cli serve --fleet adds more).")
                               : tr("No runner has run on this workspace: Run › Set Up Runner… starts one "
                                    "on this machine (tidemark-cli serve)."));
    else
        m_summary->setText(
            tr("%n runner(s) alive taking queued work, %1 slot(s) free.", nullptr, alive).arg(slotsFree));
}

} // namespace tidemark
