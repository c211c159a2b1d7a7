// SPDX-License-Identifier: MIT
#pragma once

#include <QHash>
#include <QMutex>

namespace tidemark {

// Undoing a removal re-adds the table, and redoing an addition adds it again: the workspace
// never reuses an id, so the table comes back under a new one. Commands further along the
// undo stack still name the old id; this map, shared by the stack's commands, leads them to
// the current one. Written on the gateway's worker, read there and on the GUI thread.
class TableIdAliases {
public:
    qint64 resolve(qint64 id) const {
        QMutexLocker lock(&m_mutex);
        for (int hops = 0; m_next.contains(id) && hops < 1000; ++hops)
            id = m_next.value(id);
        return id;
    }
    void alias(qint64 from, qint64 to) {
        QMutexLocker lock(&m_mutex);
        if (from != to)
            m_next.insert(from, to);
    }

private:
    mutable QMutex m_mutex;
    QHash<qint64, qint64> m_next;
};

} // namespace tidemark
