// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/storedb.h"

#include <QList>
#include <QString>
#include <functional>

namespace tidemark {

// One of the workspace's tables as `workspace copy` moved it.
struct CopiedRows {
    QString table;
    qint64 rows = 0;
};

// Copies every row a workspace keeps from `from` into `to`, a workspace created moments ago,
// whichever backend each is: connections, the control table with its ids and positions,
// schedules and their firings, alerts and alarms, the history (runs, iterations, their logs and
// rejected rows) and the audit trail of position changes. Leases and runner rows stay behind:
// they belong to live processes of `from`. Of the meta keys, those that name the workspace
// itself (its id, its schema version, where it was copied to) stay `to`'s own; the others (the
// last fencing token drawn, the caps) come along. One snapshot of `from`, one write transaction
// of `to`: a failure leaves `to` as it was created. `progress` hears of each table when done.
QList<CopiedRows> copyStoreRows(StoreDb &from, StoreDb &to,
                                const std::function<void(const CopiedRows &)> &progress);

} // namespace tidemark
