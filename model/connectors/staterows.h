// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/connectors/statetable.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <optional>

namespace tidemark {

// What the state-row protocol needs of one engine: its statements, its catalog, its rules for
// DDL and the lock that makes a second writer of a table wait. A connector implements it next to
// its own SQL; the protocol itself is StateRows, written once for every engine.
class StatePort {
public:
    virtual ~StatePort() = default;

    virtual StateDialect stateDialect() const = 0;
    // "connection 'dw', table 'tidemark_state'": what an error about the state row names.
    virtual QString stateContext() const = 0;
    // tidemark_state's columns; empty when the table does not exist (or its database does not).
    virtual QStringList stateColumns() = 0;
    // The rows of `sql` with `values` bound in order; SQL NULL as a null QVariant.
    virtual QList<QVariantList> stateQuery(const QString &sql, const QVariantList &values) = 0;
    // Runs `sql` with `values` bound; the rows it changed. Throws on any error.
    virtual qint64 stateExec(const QString &sql, const QVariantList &values) = 0;
    // As stateExec(), but another writer's key or lock refusing it (a duplicate key, a
    // serialization failure, a deadlock) returns -1: the compare-and-set's "no".
    virtual qint64 stateTrySet(const QString &sql, const QVariantList &values) = 0;
    // Whether tidemark_state is created and migrated inside the write transaction (SQLite, whose
    // write lock then serializes creators) rather than before it opens (a server, where DDL
    // commits or must be locked on its own).
    virtual bool stateDdlInTransaction() const = 0;
    // Runs `statements` (create, add the missing columns, the owner index) under the engine's
    // rules for concurrent creators; `present` is what the table had. Returns whether they are
    // committed already, so this connection need not look again.
    virtual bool runStateDdl(const QStringList &statements, const QStringList &present) = 0;
    // Opens the write transaction of (workspace, table), holding what makes a second writer of
    // that table wait until this one commits or rolls back. Throws when a transaction is open.
    virtual void beginStateTransaction(const QString &workspaceId, qint64 tableId) = 0;
    virtual void rollbackStateTransaction() = 0;
};

// The state-row protocol of TargetWriter (readState, beginStateWrite, compareAndSetState,
// writeState, clearState, readTargetOwner: connector.h states the contract), over one engine's
// port. Only writes create or migrate the table; a read of a target without it is "no state".
class StateRows {
public:
    explicit StateRows(StatePort &port);

    std::optional<TargetState> read(const QString &workspaceId, qint64 tableId);
    std::optional<TargetState> beginWrite(const QString &workspaceId, qint64 tableId);
    bool compareAndSet(const std::optional<Position> &expected, const TargetState &next);
    void write(const TargetState &state);
    void clear(const QString &workspaceId, qint64 tableId);
    // Opens the write transaction and raises the fence in it (TargetWriter::raiseFence); the
    // caller commits.
    bool raiseFence(const QString &workspaceId, qint64 tableId, qint64 token,
                    const std::optional<Position> &expected, qint64 generation);
    std::optional<StateOwner> owner(const QString &targetKey);

private:
    void ensureTable();
    // The columns as this connection knows them: all of them once it created or migrated the table.
    QStringList presentColumns();
    std::optional<TargetState> row(const QString &workspaceId, qint64 tableId, bool forUpdate);

    StatePort &m_port;
    const StateTableSql m_sql;
    bool m_tableReady = false;
};

} // namespace tidemark
