// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"

#include <QPointer>
#include <QUndoCommand>
#include <functional>

namespace tidemark {

class Workspace;
class WorkspaceGateway;

// The Schedules panel's undoable edits. Each writes through the gateway (in order, off the GUI
// thread) and then calls `reload`, which shows the workspace's word on it, failed write or not.
// A schedule is named by its name throughout: it is what the runner, the CLI and undo share.
class ScheduleCommand : public QUndoCommand {
public:
    struct Context {
        QPointer<WorkspaceGateway> gateway;
        std::function<void()> reload;
    };
    ScheduleCommand(Context context, const QString &text);

protected:
    void persist(std::function<void(Workspace &)> write);
    Context m_context;
};

class AddScheduleCommand : public ScheduleCommand {
public:
    AddScheduleCommand(const Context &context, const ScheduleSpec &spec);
    void redo() override;
    void undo() override;

private:
    ScheduleSpec m_spec;
};

class EditScheduleCommand : public ScheduleCommand {
public:
    EditScheduleCommand(const Context &context, const ScheduleSpec &before, const ScheduleSpec &after);
    void redo() override;
    void undo() override;

private:
    ScheduleSpec m_before;
    ScheduleSpec m_after;
};

class SetScheduleActiveCommand : public ScheduleCommand {
public:
    SetScheduleActiveCommand(const Context &context, const QString &name, bool active);
    void redo() override;
    void undo() override;

private:
    QString m_name;
    bool m_active;
};

// Undo adds it back with its settings and its last firing (so the runner does not see a
// brand-new schedule and its missed-run rule stays the same) and last run.
class RemoveScheduleCommand : public ScheduleCommand {
public:
    RemoveScheduleCommand(const Context &context, const ScheduleSpec &spec);
    void redo() override;
    void undo() override;

private:
    ScheduleSpec m_spec;
};

} // namespace tidemark
