// SPDX-License-Identifier: MIT
#include "model/connectors/staterows.h"

#include "model/common/error.h"

namespace tidemark {

namespace {

// A row of StateTableSql::select() as the state it records.
TargetState stateFromRow(const QVariantList &row, const QString &workspaceId, qint64 tableId,
                         const QString &context) {
    TargetState state;
    state.workspaceId = workspaceId;
    state.tableId = tableId;
    Watermark watermark;
    try {
        watermark =
            Watermark::fromStored(watermarkTypeFromName(row.value(0).toString()), row.value(1).toString());
    } catch (const Error &error) {
        throw Error(QStringLiteral("%1: %2").arg(context, error.message()));
    }
    // A version-1 row has no tiebreak type: its value is as the engine kept it.
    const QVariant tiebreak = row.value(2);
    state.position = Position(watermark, tiebreak.isNull()       ? QVariant()
                                         : row.value(3).isNull() ? tiebreak
                                                                 : tiebreakFromStored(row.value(3).toString(),
                                                                                      tiebreak.toString()));
    state.runId = row.value(4).toLongLong();
    state.generation = row.value(5).toLongLong();
    state.iterationId = row.value(6).toLongLong();
    state.rowsWritten = row.value(7).toLongLong();
    state.rowsSkipped = row.value(8).toLongLong();
    state.windowDone = row.value(9).toLongLong() != 0;
    state.fence = row.value(10).toLongLong();
    return state;
}

} // namespace

StateRows::StateRows(StatePort &port)
    : m_port(port)
    , m_sql(port.stateDialect()) {}

QStringList StateRows::presentColumns() {
    return m_tableReady ? StateTableSql::columnNames() : m_port.stateColumns();
}

void StateRows::ensureTable() {
    if (m_tableReady)
        return;
    const QStringList present = m_port.stateColumns();
    const QStringList missing = present.isEmpty() ? QStringList() : m_sql.addMissingColumns(present);
    if (!present.isEmpty() && missing.isEmpty()) {
        m_tableReady = true;
        return;
    }
    const QStringList statements =
        QStringList{m_sql.create()} + missing + QStringList{m_sql.createOwnerIndex()};
    // Made inside a transaction that may still roll back: looked at again next time.
    m_tableReady = m_port.runStateDdl(statements, present);
}

std::optional<TargetState> StateRows::row(const QString &workspaceId, qint64 tableId, bool forUpdate) {
    const QStringList present = presentColumns();
    if (present.isEmpty())
        return std::nullopt;
    const QList<QVariantList> rows =
        m_port.stateQuery(m_sql.select(present, forUpdate), {workspaceId, tableId});
    if (rows.isEmpty())
        return std::nullopt;
    return stateFromRow(rows.first(), workspaceId, tableId, m_port.stateContext());
}

std::optional<TargetState> StateRows::read(const QString &workspaceId, qint64 tableId) {
    return row(workspaceId, tableId, false);
}

std::optional<TargetState> StateRows::beginWrite(const QString &workspaceId, qint64 tableId) {
    const bool ddlInside = m_port.stateDdlInTransaction();
    if (!ddlInside)
        ensureTable();
    m_port.beginStateTransaction(workspaceId, tableId);
    try {
        if (ddlInside)
            ensureTable();
        return row(workspaceId, tableId, true);
    } catch (const Error &) {
        m_port.rollbackStateTransaction();
        throw;
    }
}

bool StateRows::compareAndSet(const std::optional<Position> &expected, const TargetState &next) {
    QVariantList values = stateRowValues(next);
    if (expected)
        values << positionValues(*expected);
    return m_port.stateTrySet(expected ? m_sql.updateIfAt() : m_sql.insertIfAbsent(), values) == 1;
}

void StateRows::write(const TargetState &state) {
    ensureTable();
    m_port.stateExec(m_sql.upsert(), stateRowValues(state));
}

void StateRows::clear(const QString &workspaceId, qint64 tableId) {
    if (presentColumns().isEmpty())
        return;
    m_port.stateExec(m_sql.remove(), {workspaceId, tableId});
}

bool StateRows::raiseFence(const QString &workspaceId, qint64 tableId, qint64 token,
                           const std::optional<Position> &expected, qint64 generation) {
    const std::optional<TargetState> current = beginWrite(workspaceId, tableId);
    if (!current || current->position != expected || current->generation != generation)
        return false;
    try {
        return m_port.stateExec(m_sql.raiseFence(), {workspaceId, tableId, token}) == 1;
    } catch (const Error &) {
        m_port.rollbackStateTransaction();
        throw;
    }
}

std::optional<StateOwner> StateRows::owner(const QString &targetKey) {
    // Read outside a write: no state table, or one from before owners were recorded.
    if (!StateTableSql::recordsOwners(presentColumns()))
        return std::nullopt;
    const QList<QVariantList> rows = m_port.stateQuery(m_sql.selectOwner(), {targetKey});
    if (rows.isEmpty())
        return std::nullopt;
    const QVariantList &row = rows.first();
    return StateOwner{row.value(0).toString(), row.value(1).toLongLong(), row.value(2).toString()};
}

} // namespace tidemark
