// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

namespace tidemark {

class StoreDb;

// One entry of the audit trail: a table's position before and after a change, and why.
struct PositionChange {
    qint64 tableId = 0;
    QString oldValue; // display form; empty: none
    QString newValue;
    QString oldTiebreak;
    QString newTiebreak;
    QString cause;
    qint64 runId = 0;
    bool forgotten = false; // purge: no new value, no new tiebreak
};

// The audit trail of position changes (table watermark_changes): who moved which table's
// position, from where to where, when, why and from which host.
class AuditStore {
public:
    explicit AuditStore(StoreDb &db)
        : m_db(db) {}
    // Inside the caller's transaction, beside the change it records.
    void record(const PositionChange &change);
    QList<WatermarkChange> changes(qint64 tableId);
    // The backfills of a table (0: every table) in [from, to].
    QList<WatermarkChange> backfills(qint64 tableId, const QDateTime &from, const QDateTime &to);
    // Workspace::positionsMovedAt.
    QHash<qint64, QDateTime> positionsMovedAt();

private:
    StoreDb &m_db;
};

} // namespace tidemark
