// SPDX-License-Identifier: MIT
#pragma once

#include "ui/controltable/commands/controltablecommand.h"

#include <QList>

namespace tidemark {

// Pauses or resumes tables (the active flag): paused tables are shown, not run.
class SetActiveCommand : public ControlTableCommand {
public:
    SetActiveCommand(const Context &context, const QList<qint64> &tableIds, bool active,
                     QUndoCommand *parent = nullptr);
    void redo() override;
    void undo() override;

private:
    void apply(bool active);

    QList<qint64> m_ids;
    bool m_active;
};

} // namespace tidemark
