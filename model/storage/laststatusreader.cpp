// SPDX-License-Identifier: MIT
#include "model/storage/laststatusreader.h"

#include <algorithm>
#include <utility>

namespace tidemark {

QHash<qint64, QString> LastStatusReader::read(Workspace &workspace, const QList<TableSpec> &tables) {
    // Looked at before the statuses are read: whatever moves after this look is named by the
    // next one.
    IterationActivity activity =
        workspace.iterationActivity(m_primed ? std::optional<qint64>(m_lastIterationId) : std::nullopt);
    // With no iteration open (no run going) reloads are rare, and a full read also takes in
    // what moved an ended iteration (a commit the workspace could not record, completed later).
    if (!m_primed || activity.open.isEmpty()) {
        m_statuses = workspace.lastIterationStatuses();
    } else {
        QList<qint64> touched = std::move(activity.tablesIteratedSince);
        for (auto it = m_open.cbegin(); it != m_open.cend(); ++it) {
            const auto now = activity.open.constFind(it.key());
            if (now == activity.open.cend() || !(*now == it.value()))
                touched << it->tableId; // it has moved on or ended
        }
        for (auto it = activity.open.cbegin(); it != activity.open.cend(); ++it) {
            if (!m_open.contains(it.key()))
                touched << it->tableId;
        }
        for (const TableSpec &table : tables) {
            if (!m_statuses.contains(table.id))
                touched << table.id; // added, or restored
        }
        std::sort(touched.begin(), touched.end());
        touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
        const QHash<qint64, QString> fresh = workspace.lastIterationStatuses(touched);
        bool removedMeanwhile = false;
        for (qint64 id : std::as_const(touched)) {
            const auto status = fresh.constFind(id);
            if (status != fresh.cend())
                m_statuses.insert(id, *status);
            removedMeanwhile |= status == fresh.cend();
        }
        // Every live table has a status now (touched named those missing), so a size that differs
        // means some of them are gone.
        if (removedMeanwhile || m_statuses.size() != tables.size()) {
            QHash<qint64, QString> live;
            live.reserve(tables.size());
            for (const TableSpec &table : tables)
                live.insert(table.id, m_statuses.value(table.id));
            m_statuses = std::move(live);
        }
    }
    m_primed = true;
    m_lastIterationId = activity.lastIterationId;
    m_open = std::move(activity.open);
    return m_statuses;
}

} // namespace tidemark
