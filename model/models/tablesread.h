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
    // Added, removed or changed since read number - 1 (by the first read: all of them), in id
    // order.
    QList<qint64> changedIds;
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

} // namespace tidemark

Q_DECLARE_METATYPE(tidemark::TablesRead)
