// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

namespace tidemark {

class AuditStore;
class ConnectionStore;
class LeaseStore;
class StoreDb;

// The control table: each table's spec and position (Workspace's "control table" part states
// the contract). A position moves only through here, each move recorded in the audit trail.
class ControlTableStore {
public:
    ControlTableStore(StoreDb &db, ConnectionStore &connections, AuditStore &audit, LeaseStore &leases)
        : m_db(db)
        , m_connections(connections)
        , m_audit(audit)
        , m_leases(leases) {}
    QList<TableSpec> tables(bool archived);
    bool hasTables();
    std::optional<TableSpec> table(qint64 id, bool archived);
    qint64 add(const TableSpec &spec);
    void update(const TableSpec &spec);
    void replace(const TableSpec &spec, qint64 generation, const Position &position, const QString &cause);
    void setArchived(qint64 id, bool archived);
    void purge(qint64 id);
    std::optional<TableSpec> otherTableWritingInto(const ConnectionSpec &target, const QString &targetTable,
                                                   qint64 exceptId, bool archived);
    void setActive(qint64 id, bool active);
    void setWatermark(qint64 tableId, const Watermark &watermark, const QVariant &tiebreak,
                      const QString &cause, qint64 runId);
    FollowResult followTargetState(qint64 tableId, qint64 generation, const Position &position,
                                   const QString &cause, qint64 runId);

private:
    // A table's position as the workspace holds it, read (and locked) inside the transaction
    // that moves it.
    struct HeldPosition {
        WatermarkType type = WatermarkType::None;
        Position position;
        qint64 generation = 0;
    };
    HeldPosition heldPosition(qint64 tableId);
    void movePosition(qint64 tableId, const HeldPosition &held, const Position &next, qint64 generation,
                      const QString &cause, qint64 runId);
    // update() inside the caller's transaction.
    void writeConfig(const TableSpec &spec);

    StoreDb &m_db;
    ConnectionStore &m_connections;
    AuditStore &m_audit;
    LeaseStore &m_leases;
};

} // namespace tidemark
