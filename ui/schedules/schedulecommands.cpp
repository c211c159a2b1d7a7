// SPDX-License-Identifier: MIT
#include "ui/schedules/schedulecommands.h"

#include "model/storage/workspace.h"
#include "ui/common/workspacegateway.h"

namespace tidemark {

namespace {

void restore(Workspace &ws, const ScheduleSpec &spec) {
    ws.addSchedule(spec);
    if (spec.lastFiredAt.isValid())
        ws.recordScheduleFiring(spec.name, spec.lastFiredAt);
    if (spec.lastRunId > 0)
        ws.setScheduleLastRun(spec.name, spec.lastRunId);
}

} // namespace

ScheduleCommand::ScheduleCommand(Context context, const QString &text)
    : m_context(std::move(context)) {
    setText(text);
}

void ScheduleCommand::persist(std::function<void(Workspace &)> write) {
    if (!m_context.gateway)
        return;
    auto reload = m_context.reload;
    m_context.gateway->submit(
        nullptr, [write = std::move(write)](Workspace &ws) { write(ws); },
        [reload] {
            if (reload)
                reload();
        },
        [gateway = m_context.gateway, reload](const QString &error) {
            if (reload)
                reload();
            if (gateway)
                emit gateway->errorOccurred(error);
        });
}

AddScheduleCommand::AddScheduleCommand(const Context &context, const ScheduleSpec &spec)
    : ScheduleCommand(context, QObject::tr("Add schedule %1").arg(spec.name))
    , m_spec(spec) {}

void AddScheduleCommand::redo() {
    persist([spec = m_spec](Workspace &ws) { ws.addSchedule(spec); });
}

void AddScheduleCommand::undo() {
    persist([name = m_spec.name](Workspace &ws) { ws.removeSchedule(name); });
}

EditScheduleCommand::EditScheduleCommand(const Context &context, const ScheduleSpec &before,
                                         const ScheduleSpec &after)
    : ScheduleCommand(context, QObject::tr("Edit schedule %1").arg(after.name))
    , m_before(before)
    , m_after(after) {}

void EditScheduleCommand::redo() {
    persist([spec = m_after](Workspace &ws) { ws.editSchedule(spec); });
}

void EditScheduleCommand::undo() {
    persist([spec = m_before](Workspace &ws) { ws.editSchedule(spec); });
}

SetScheduleActiveCommand::SetScheduleActiveCommand(const Context &context, const QString &name, bool active)
    : ScheduleCommand(context, active ? QObject::tr("Resume schedule %1").arg(name)
                                      : QObject::tr("Pause schedule %1").arg(name))
    , m_name(name)
    , m_active(active) {}

void SetScheduleActiveCommand::redo() {
    persist([name = m_name, active = m_active](Workspace &ws) { ws.setScheduleActive(name, active); });
}

void SetScheduleActiveCommand::undo() {
    persist([name = m_name, active = !m_active](Workspace &ws) { ws.setScheduleActive(name, active); });
}

RemoveScheduleCommand::RemoveScheduleCommand(const Context &context, const ScheduleSpec &spec)
    : ScheduleCommand(context, QObject::tr("Remove schedule %1").arg(spec.name))
    , m_spec(spec) {}

void RemoveScheduleCommand::redo() {
    persist([name = m_spec.name](Workspace &ws) { ws.removeSchedule(name); });
}

void RemoveScheduleCommand::undo() {
    persist([spec = m_spec](Workspace &ws) { restore(ws, spec); });
}

} // namespace tidemark
