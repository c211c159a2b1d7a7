// SPDX-License-Identifier: MIT
#include "ui/controltable/commands/setactivecommand.h"

#include "model/models/controltablemodel.h"
#include "model/storage/workspace.h"
#include "ui/common/tablenaming.h"

namespace tidemark {

namespace {

// As every command of the control table says it: the table's source for one, a count for more.
QString describe(const ControlTableCommand::Context &context, const QList<qint64> &ids, bool active) {
    if (ids.size() == 1) {
        const auto spec = context.model->table(ids.first());
        const QString name = spec ? tableName(*spec) : QString::number(ids.first());
        return active ? QObject::tr("Resume table %1").arg(name) : QObject::tr("Pause table %1").arg(name);
    }
    return active ? QObject::tr("Resume %n table(s)", nullptr, int(ids.size()))
                  : QObject::tr("Pause %n table(s)", nullptr, int(ids.size()));
}

} // namespace

SetActiveCommand::SetActiveCommand(const Context &context, const QList<qint64> &tableIds, bool active,
                                   QUndoCommand *parent)
    : ControlTableCommand(context, describe(context, tableIds, active), parent)
    , m_ids(tableIds)
    , m_active(active) {}

void SetActiveCommand::apply(bool active) {
    for (qint64 id : std::as_const(m_ids))
        m_context.model->setActive(id, active);
    persist([ids = m_ids, active](Workspace &ws) {
        for (qint64 id : ids)
            ws.setActive(id, active);
    });
}

void SetActiveCommand::redo() {
    apply(m_active);
}

void SetActiveCommand::undo() {
    apply(!m_active);
}

} // namespace tidemark
