// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"
#include "model/domain/tablespec.h"
#include "model/schedule/runnerstatus.h"
#include "ui/schedules/schedulecommands.h"
#include "ui/schedules/scheduledialog.h"

#include <QPointer>
#include <QWidget>
#include <optional>

class QAction;
class QTableView;
class QTimer;
class QUndoStack;

namespace tidemark {

class RoleLimits;
class RunnerBanner;
class ScheduleListModel;
class WorkspaceGateway;

// The workspace's schedules: the list (when each fires next, in its zone and in UTC; its last
// run's status), and add / edit / pause / resume / remove, each an undoable command on the
// window's undo stack. Reads and writes go through the gateway; the list is re-read after each
// write and every 30 s (the runner and the CLI change it too, and "next run" moves on).
class SchedulesPanel : public QWidget {
    Q_OBJECT
public:
    explicit SchedulesPanel(QUndoStack *undoStack, QWidget *parent = nullptr);

    void setGateway(WorkspaceGateway *gateway);
    // Greys out what the role does not allow (schedules: analyst; pausing one: operator).
    void setRoleLimits(RoleLimits *limits);
    ScheduleListModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    // The dialog opened by addSchedule()/editSchedule(), while it is open (tests).
    ScheduleDialog *openDialog() const { return m_dialog; }
    RunnerBanner *runnerBanner() const { return m_runnerBanner; }
    // The workspace's runner as last read (nullopt: not known yet); the banner follows it.
    void setRunnerStatus(const std::optional<tidemark::RunnerStatus> &status);

public slots:
    void reload();
    void addSchedule();
    void editSchedule();
    void pauseSchedule();
    void resumeSchedule();
    void removeSchedule();

signals:
    void reloaded();
    // The banner's "Set Up Runner…", here or in the schedule dialog.
    void runnerSetupRequested();

private:
    std::optional<ScheduleSpec> current() const;
    void showDialog(const std::optional<ScheduleSpec> &existing);
    void updateActions();
    ScheduleCommand::Context commandContext();
    void push(QUndoCommand *command);

    QUndoStack *m_undoStack;
    QPointer<WorkspaceGateway> m_gateway;
    RoleLimits *m_roleLimits = nullptr;
    ScheduleListModel *m_model;
    QTableView *m_view;
    QTimer *m_refreshTimer;
    QPointer<ScheduleDialog> m_dialog;
    RunnerBanner *m_runnerBanner;
    std::optional<RunnerStatus> m_runnerStatus;
    quint64 m_generation = 0;
    QAction *m_addAction;
    QAction *m_editAction;
    QAction *m_pauseAction;
    QAction *m_resumeAction;
    QAction *m_removeAction;
};

} // namespace tidemark
