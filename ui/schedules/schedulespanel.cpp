// SPDX-License-Identifier: MIT
#include "ui/schedules/schedulespanel.h"

#include "model/models/schedulelistmodel.h"
#include "model/storage/workspace.h"
#include "ui/common/columnfitter.h"
#include "ui/common/rolelimits.h"
#include "ui/common/workspacegateway.h"
#include "ui/schedules/runnerbanner.h"
#include "ui/schedules/schedulecommands.h"
#include "ui/schedules/scheduledialog.h"

#include <QAction>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace tidemark {

namespace {

constexpr int kRefreshMs = 30'000;

struct ScheduleList {
    QList<ScheduleSpec> schedules;
    QHash<QString, QString> lastStatuses;
};

} // namespace

SchedulesPanel::SchedulesPanel(QUndoStack *undoStack, QWidget *parent)
    : QWidget(parent)
    , m_undoStack(undoStack)
    , m_model(new ScheduleListModel(this))
    , m_view(new QTableView(this))
    , m_refreshTimer(new QTimer(this))
    , m_runnerBanner(new RunnerBanner(this)) {
    m_view->setObjectName(QStringLiteral("schedulesView"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    // One line a schedule; the fire times never cut, the rest fits 1024 pixels.
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->setColumnWidth(ScheduleListModel::Name, 120);
    m_view->setColumnWidth(ScheduleListModel::Cron, 130);
    m_view->setColumnWidth(ScheduleListModel::Zone, 130);
    m_view->setColumnWidth(ScheduleListModel::Tables, 90);
    m_view->setColumnWidth(ScheduleListModel::NextLocal,
                           widthForSamples(m_view, ScheduleListModel::NextLocal, {widestZonedTime()}));
    m_view->setColumnWidth(ScheduleListModel::NextShown,
                           widthForSamples(m_view, ScheduleListModel::NextShown, {widestTime()}));
    m_view->setColumnWidth(ScheduleListModel::LastStatus, 100);
    // Spare width goes to the names, the crons, the tables and a missed firing's count, not to
    // the last column; a narrow dock hides the zone (the local next run names it) first.
    auto *fitter = new ColumnFitter(m_view, ScheduleListModel::LastStatus, 100, 100,
                                    {ScheduleListModel::Zone, ScheduleListModel::NextShown});
    fitter->setGrowing({ScheduleListModel::Name, ScheduleListModel::Cron, ScheduleListModel::Tables,
                        ScheduleListModel::NextLocal});

    auto *toolbar = new QToolBar(this);
    const auto make = [this, toolbar](const char *name, const QString &text, void (SchedulesPanel::*slot)()) {
        auto *action = toolbar->addAction(text, this, slot);
        action->setObjectName(QString::fromLatin1(name));
        return action;
    };
    m_addAction = make("actionAddSchedule", tr("Add…"), &SchedulesPanel::addSchedule);
    m_editAction = make("actionEditSchedule", tr("Edit…"), &SchedulesPanel::editSchedule);
    m_pauseAction = make("actionPauseSchedule", tr("Pause"), &SchedulesPanel::pauseSchedule);
    m_resumeAction = make("actionResumeSchedule", tr("Resume"), &SchedulesPanel::resumeSchedule);
    m_removeAction = make("actionRemoveSchedule", tr("Remove"), &SchedulesPanel::removeSchedule);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_runnerBanner);
    layout->addWidget(toolbar);
    layout->addWidget(m_view);
    connect(m_runnerBanner, &RunnerBanner::setUpRequested, this, &SchedulesPanel::runnerSetupRequested);

    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &SchedulesPanel::updateActions);
    connect(m_view, &QTableView::doubleClicked, this, [this] {
        if (m_editAction->isEnabled())
            editSchedule();
    });
    connect(m_refreshTimer, &QTimer::timeout, this, &SchedulesPanel::reload);
    m_refreshTimer->start(kRefreshMs);
    updateActions();
}

void SchedulesPanel::setRoleLimits(RoleLimits *limits) {
    m_roleLimits = limits;
    limits->limit(m_addAction, WorkspaceRole::Analyst, tr("adding a schedule"));
    limits->limit(m_editAction, WorkspaceRole::Analyst, tr("editing a schedule"));
    limits->limit(m_removeAction, WorkspaceRole::Analyst, tr("removing a schedule"));
    limits->limit(m_pauseAction, WorkspaceRole::Operator, tr("pausing a schedule"));
    limits->limit(m_resumeAction, WorkspaceRole::Operator, tr("resuming a schedule"));
    connect(limits, &RoleLimits::changed, this, &SchedulesPanel::updateActions);
    updateActions();
}

void SchedulesPanel::setGateway(WorkspaceGateway *gateway) {
    m_gateway = gateway;
    reload();
}

void SchedulesPanel::setRunnerStatus(const std::optional<RunnerStatus> &status) {
    m_runnerStatus = status;
    m_runnerBanner->setStatus(status);
    if (m_dialog)
        m_dialog->runnerBanner()->setStatus(status);
}

void SchedulesPanel::reload() {
    if (!m_gateway) {
        m_model->setSchedules({}, {}, QDateTime::currentDateTimeUtc());
        updateActions();
        return;
    }
    const quint64 generation = ++m_generation;
    m_gateway->submit(
        this,
        [](Workspace &ws) {
            ScheduleList list;
            list.schedules = ws.schedules();
            for (const ScheduleSpec &spec : std::as_const(list.schedules))
                if (spec.lastRunId > 0)
                    list.lastStatuses.insert(spec.name, ws.runStatus(spec.lastRunId));
            return list;
        },
        [this, generation](ScheduleList list) {
            if (generation != m_generation)
                return; // a later read is on its way
            const QString selected = current() ? current()->name : QString();
            m_model->setSchedules(list.schedules, list.lastStatuses, QDateTime::currentDateTimeUtc());
            const int row = m_model->rowOfSchedule(selected);
            if (row >= 0)
                m_view->selectRow(row);
            updateActions();
            emit reloaded();
        });
}

std::optional<ScheduleSpec> SchedulesPanel::current() const {
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return std::nullopt;
    return m_model->scheduleAt(rows.first().row());
}

void SchedulesPanel::updateActions() {
    const auto spec = current();
    const bool open = m_gateway != nullptr;
    m_addAction->setEnabled(open);
    m_editAction->setEnabled(open && spec);
    m_pauseAction->setEnabled(open && spec && spec->active);
    m_resumeAction->setEnabled(open && spec && !spec->active);
    m_removeAction->setEnabled(open && spec);
    if (m_roleLimits)
        m_roleLimits->apply();
}

ScheduleCommand::Context SchedulesPanel::commandContext() {
    // Commands stay on the window's stack; the panel may be gone when one is undone.
    return {m_gateway, [panel = QPointer<SchedulesPanel>(this)] {
                if (panel)
                    panel->reload();
            }};
}

void SchedulesPanel::push(QUndoCommand *command) {
    m_undoStack->push(command); // runs redo()
}

void SchedulesPanel::addSchedule() {
    showDialog(std::nullopt);
}

void SchedulesPanel::editSchedule() {
    if (const auto spec = current())
        showDialog(spec);
}

void SchedulesPanel::showDialog(const std::optional<ScheduleSpec> &existing) {
    if (!m_gateway || m_dialog)
        return;
    // The table list comes from the workspace first; the dialog opens when it is there.
    m_gateway->submit(
        this,
        [](Workspace &ws) {
            QStringList names;
            for (const ScheduleSpec &schedule : ws.schedules())
                names << schedule.name;
            return std::pair{ws.tables(), names};
        },
        [this, existing](const std::pair<QList<TableSpec>, QStringList> &read) {
            if (m_dialog)
                return;
            m_dialog = new ScheduleDialog(read.first, this);
            m_dialog->setAttribute(Qt::WA_DeleteOnClose);
            m_dialog->runnerBanner()->setStatus(m_runnerStatus);
            connect(m_dialog->runnerBanner(), &RunnerBanner::setUpRequested, this,
                    &SchedulesPanel::runnerSetupRequested);
            if (existing)
                m_dialog->setSchedule(*existing);
            else
                m_dialog->setTakenNames(read.second); // a duplicate is refused before the dialog closes
            connect(m_dialog, &QDialog::accepted, this, [this, existing, dialog = m_dialog] {
                const ScheduleCommand::Context context = commandContext();
                if (existing)
                    push(new EditScheduleCommand(context, *existing, dialog->schedule()));
                else
                    push(new AddScheduleCommand(context, dialog->schedule()));
            });
            m_dialog->open();
        });
}

void SchedulesPanel::pauseSchedule() {
    if (const auto spec = current(); spec && spec->active)
        push(new SetScheduleActiveCommand(commandContext(), spec->name, false));
}

void SchedulesPanel::resumeSchedule() {
    if (const auto spec = current(); spec && !spec->active)
        push(new SetScheduleActiveCommand(commandContext(), spec->name, true));
}

void SchedulesPanel::removeSchedule() {
    if (const auto spec = current())
        push(new RemoveScheduleCommand(commandContext(), *spec));
}

} // namespace tidemark
