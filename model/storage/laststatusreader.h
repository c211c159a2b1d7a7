// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "model/storage/workspace.h"

#include <QHash>
#include <QList>
#include <QString>

namespace tidemark {

// Each live table's last-run status (Workspace::lastIterationStatuses). While iterations are
// open (a run is going, in any process) it reads again only the statuses of the tables whose
// iterations began, moved or ended since the read before: a reload during a run of 10,000
// tables reads the few statuses that moved, not 10,000 (an index probe or two each). With none
// open it reads them all. Keeps what it saw; one reader per connection, on its thread.
class LastStatusReader {
public:
    // The statuses of `tables` (the live tables, as just read).
    QHash<qint64, QString> read(Workspace &workspace, const QList<TableSpec> &tables);

private:
    bool m_primed = false;
    qint64 m_lastIterationId = 0;
    QHash<qint64, IterationActivity::Open> m_open;
    QHash<qint64, QString> m_statuses;
};

} // namespace tidemark
