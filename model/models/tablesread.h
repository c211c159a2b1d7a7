// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"

#include <QHash>
#include <QList>
#include <QMetaType>

namespace tidemark {

// One read of the control table: every live table in id order, each one's last-run status, and
// which tables it shows otherwise than the read before it in the same sequence. A model that
// showed that read need look at those tables only.
struct TablesRead {
    QList<TableSpec> tables;
    QHash<qint64, QString> lastStatuses;
    quint64 number = 0; // 1 for the first read of a sequence
    // Added, removed or changed since read number `since` (by the first read: all of them), in
    // id order.
    QList<qint64> changedIds;
    quint64 since = 0; // number - 1, or earlier when reads before it were missed (MissedTablesReads)
};

// Whether a control-table row shows `a` as it shows `b` (every field but the generation).
bool sameTableSpec(const TableSpec &a, const TableSpec &b);

// Numbers the successive reads of one reader and tells what each one changed, comparing it with
// the read before (which it keeps): the comparison of 10,000 tables is the reader's work, on its
// thread, not the GUI thread's.
class TablesReadSequence {
public:
    TablesRead next(QList<TableSpec> tables, QHash<qint64, QString> lastStatuses);

private:
    TablesRead m_previous;
};

// The reads of a sequence a consumer let go (out of date when they came: a write was queued
// after they began), folded into the next one it takes: that one then names every table changed
// since the last read taken, so it can still be applied as a change of those rows alone.
class MissedTablesReads {
public:
    void miss(const TablesRead &read);
    // `read` with the missed reads' changes (and from where they count); forgets them.
    TablesRead fold(TablesRead read);

private:
    bool m_any = false;
    quint64 m_since = 0;
    QList<qint64> m_changedIds;
};

} // namespace tidemark

Q_DECLARE_METATYPE(tidemark::TablesRead)
