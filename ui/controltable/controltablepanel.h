// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"
#include "model/domain/tablespec.h"
#include "model/domain/workspacerole.h"
#include "ui/controltable/commands/controltablecommand.h"

#include <QWidget>

#include <atomic>
#include <memory>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTimer;
class QUndoStack;

namespace tidemark {

class ControlTableModel;
class NextRunColumn;
class RestoredTargetCheck;
class RoleLimits;
class WorkspaceGateway;

// The control table: a filterable, sortable view over ControlTableModel, its add / edit /
// remove / pause / resume operations (each an undo command on undoStack()), and the checkbox
// that pauses a table. Reads and writes go through the workspace's gateway.
class ControlTablePanel : public QWidget {
    Q_OBJECT
public:
    explicit ControlTablePanel(QWidget *parent = nullptr);

    // Shows another workspace (nullptr = none): clears the undo history, reloads the tables.
    // `hasTables` is what a look at the file found, for the first-steps bar until they are read.
    void setGateway(WorkspaceGateway *gateway, bool hasTables = true);
    // The window's role limits: a double-click, the checkbox and the first steps' button do only
    // what the role allows, and say so otherwise.
    void setRoleLimits(RoleLimits *limits);
    ControlTableModel *model() const { return m_model; }
    QUndoStack *undoStack() const { return m_undoStack; }
    QTableView *view() const { return m_view; }
    // The panel's widgets in the order Tab should visit them: the filter, the first steps'
    // buttons (when shown), the table. Set by the window once the panel is laid out in it
    // (moving a widget into a layout of another parent rebuilds its focus chain).
    const QList<QWidget *> &tabOrder() const { return m_tabOrder; }
    static constexpr int kStalledCheckMs = 60'000;
    QList<qint64> selectedIds() const;
    QList<TableSpec> selectedTables() const;
    // The workspace's schedules, for the "Next run" column.
    void setSchedules(const QList<ScheduleSpec> &schedules);
    NextRunColumn *nextRunColumn() const { return m_nextRuns; }
    // What the panel's undo commands share (the gateway, the model, the restored-target check).
    ControlTableCommand::Context commandContext() const;

public slots:
    void addTable();
    void editSelected();
    void removeSelected();
    void pauseSelected();
    void resumeSelected();
    void focusFilter();
    void reload();
    // Reads which tables are stalled now (stalledTables): after each read of the tables, and
    // every kStalledCheckMs, since a table stalls by standing still, with nothing to read.
    void reloadStalled();

signals:
    void selectionChanged();
    void statusMessage(const QString &message);
    // The first-launch guide's "Connections…" button (the dialog belongs to the window).
    void connectionsRequested();

private:
    void setActive(const QList<qint64> &ids, bool active);
    // Whether the role allows `what`; if not, says why in the status bar.
    bool allowed(WorkspaceRole needed, const QString &what);
    void updateFirstSteps();

    WorkspaceGateway *m_gateway = nullptr;
    RoleLimits *m_roleLimits = nullptr;
    RestoredTargetCheck *m_restoredTargetCheck = nullptr; // the gateway's child: goes with it
    ControlTableModel *m_model;
    NextRunColumn *m_nextRuns;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_view;
    QLineEdit *m_filter;
    QList<QWidget *> m_tabOrder;
    QUndoStack *m_undoStack;
    QWidget *m_firstSteps; // shown while an open workspace has no tables
    QTimer *m_stalledTimer;
    std::shared_ptr<std::atomic_bool> m_stalledSuperseded; // the stalled read asked for last
    bool m_loaded = false;                                 // the open workspace's tables have been read once
    bool m_expectTables = true;                            // until then: whether opening it found any
};

} // namespace tidemark
