// SPDX-License-Identifier: MIT
#include "model/storage/stores/controltablestore.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/storage/stores/auditstore.h"
#include "model/storage/stores/connectionstore.h"
#include "model/storage/stores/leasestore.h"
#include "model/storage/stores/storerows.h"

namespace tidemark {
namespace {

// Removed tables are set apart by archived_at; every read says which side it wants.
QString archivedCondition(bool archived) {
    return archived ? QStringLiteral("archived_at IS NOT NULL") : QStringLiteral("archived_at IS NULL");
}

QList<TableSpec> readTables(StoreDb &db, bool archived) {
    // Counted first: growing the list would move every table read so far, again and again
    // (a quarter of the read's time at 10,000 tables). Only a size hint: no snapshot needed.
    Statement count(db,
                    QStringLiteral("SELECT count(*) FROM tables WHERE %1").arg(archivedCondition(archived)));
    count.step();
    Statement stmt(db, QStringLiteral("SELECT %1 FROM tables WHERE %2 ORDER BY id")
                           .arg(kTableColumns, archivedCondition(archived)));
    QList<TableSpec> result;
    result.reserve(count.columnInt64(0));
    while (stmt.step())
        result.append(readTable(stmt, db));
    return result;
}

std::optional<TableSpec> readTable(StoreDb &db, qint64 id, bool archived) {
    Statement stmt(db, QStringLiteral("SELECT %1 FROM tables WHERE id = ?1 AND %2")
                           .arg(kTableColumns, archivedCondition(archived)));
    stmt.bind(1, id);
    if (!stmt.step())
        return std::nullopt;
    return readTable(stmt, db);
}

} // namespace

QList<TableSpec> ControlTableStore::tables(bool archived) {
    return readTables(m_db, archived);
}

std::optional<TableSpec> ControlTableStore::table(qint64 id, bool archived) {
    return readTable(m_db, id, archived);
}

bool ControlTableStore::hasTables() {
    Statement stmt(
        m_db, QStringLiteral("SELECT EXISTS (SELECT 1 FROM tables WHERE %1)").arg(archivedCondition(false)));
    stmt.step();
    return stmt.columnInt64(0) != 0;
}

qint64 ControlTableStore::add(const TableSpec &spec) {
    Transaction transaction(m_db);
    Statement insert(
        m_db, QStringLiteral(
                  "INSERT INTO tables (source_connection, source_table, target_connection, target_table, "
                  "watermark_column, watermark_type, tiebreak_column, key_columns, mode, lookback, "
                  "initial_watermark, active, max_skipped, expect_rows, commit_per_batch, batch_size, "
                  "add_new_columns, max_future, max_jump, stale_after, delete_policy, source_timezone, "
                  "zero_dates, last_watermark, last_tiebreak, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                  "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, "
                  "?25, ?26)"));
    bindTableConfig(insert, spec);
    insert.bind(24, textOrNull(spec.lastWatermark.nativeText()))
        .bind(25, m_db.storedTiebreak(spec.lastTiebreak))
        .bind(26, nowText());
    insert.run();
    const qint64 id = m_db.lastInsertId();
    transaction.commit();
    return id;
}

void ControlTableStore::update(const TableSpec &spec) {
    Transaction transaction(m_db);
    m_db.lock(StoreLock::ControlTable);
    writeConfig(spec);
    transaction.commit();
}

void ControlTableStore::writeConfig(const TableSpec &spec) {
    const std::optional<TableSpec> stored = readTable(m_db, spec.id, false);
    if (!stored)
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(spec.id));
    // As in setArchived: an edit moved back by Undo, or made while another process added a
    // table, must not make a second writer of one target table; this transaction decides.
    const bool movesTarget =
        stored->targetConnection != spec.targetConnection || stored->targetTable != spec.targetTable;
    if (const auto target = m_connections.connection(spec.targetConnection); movesTarget && target) {
        if (const auto other = otherTableWritingInto(*target, spec.targetTable, spec.id, false))
            throw ValidationError(
                QStringLiteral("table %1 (%2 -> %3) cannot write into %4: table %5 (%6 -> %7) writes into "
                               "it now, and one target table takes one table's rows (keep table %1's "
                               "target, or remove table %5 first)")
                    .arg(spec.id)
                    .arg(stored->sourceDisplay(), stored->targetDisplay(), spec.targetDisplay())
                    .arg(other->id)
                    .arg(other->sourceDisplay(), other->targetDisplay()));
    }
    Statement update(
        m_db,
        QStringLiteral("UPDATE tables SET source_connection = ?1, source_table = ?2, target_connection = ?3, "
                       "target_table = ?4, watermark_column = ?5, watermark_type = ?6, tiebreak_column = ?7, "
                       "key_columns = ?8, mode = ?9, lookback = ?10, initial_watermark = ?11, active = ?12, "
                       "max_skipped = ?13, expect_rows = ?14, commit_per_batch = ?15, batch_size = ?16, "
                       "add_new_columns = ?17, max_future = ?18, max_jump = ?19, stale_after = ?20, "
                       "delete_policy = ?21, source_timezone = ?22, zero_dates = ?23 WHERE id = ?24 AND "
                       "archived_at IS NULL"));
    bindTableConfig(update, spec);
    update.bind(24, spec.id).run();
}

std::optional<TableSpec> ControlTableStore::otherTableWritingInto(const ConnectionSpec &target,
                                                                  const QString &targetTable, qint64 exceptId,
                                                                  bool archived) {
    const QString identity = tableIdentity(target.kind, targetTable);
    for (const TableSpec &other : readTables(m_db, archived)) {
        if (other.id == exceptId || tableIdentity(target.kind, other.targetTable) != identity)
            continue;
        const auto connection = m_connections.connection(other.targetConnection);
        if (connection ? sameDatabase(*connection, target) : other.targetConnection == target.name)
            return other;
    }
    return std::nullopt;
}

void ControlTableStore::setArchived(qint64 id, bool archived) {
    Transaction transaction(m_db);
    m_db.lock(StoreLock::ControlTable);
    Statement select(m_db, QStringLiteral("SELECT archived_at IS NOT NULL, last_watermark, last_tiebreak, "
                                          "watermark_type, source_connection, target_connection FROM "
                                          "tables WHERE id = ?1"));
    select.bind(1, id);
    if (!select.step())
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(id));
    if ((select.columnInt64(0) != 0) == archived)
        throw ValidationError(archived ? QStringLiteral("table %1 is removed already").arg(id)
                                       : QStringLiteral("table %1 is not removed").arg(id));
    const QString position =
        Watermark::fromStored(watermarkTypeFromName(select.columnText(3)), select.columnText(1)).display();
    const QString tiebreak = tiebreakText(m_db.tiebreakFromStored(select.columnVariant(2)));
    const QStringList connectionNames{select.columnText(4), select.columnText(5)};
    select.reset();
    if (!archived) {
        // A removed table does not keep its connections from being removed; it needs them back.
        for (const QString &name : connectionNames) {
            if (!m_connections.connection(name))
                throw ValidationError(
                    QStringLiteral("table %1 cannot be restored: its connection '%2' no longer "
                                   "exists; add it again first")
                        .arg(id)
                        .arg(name));
        }
        // One target table takes one table's rows. Table setup refuses a second writer, but
        // not one that reached the target while this table was away (its connection removed and
        // the file added again under another name, a workspace from before that check), nor
        // another process adding one right now: this transaction is the one place to decide.
        const TableSpec restoring = *readTable(m_db, id, true);
        if (const auto other = otherTableWritingInto(*m_connections.connection(restoring.targetConnection),
                                                     restoring.targetTable, id, false))
            throw ValidationError(
                QStringLiteral("table %1 (%2 -> %3) cannot be restored: table %4 (%5 -> %6) writes into "
                               "its target now, and one target table takes one table's rows (remove "
                               "table %4 first, or keep table %1 removed)")
                    .arg(id)
                    .arg(restoring.sourceDisplay(), restoring.targetDisplay())
                    .arg(other->id)
                    .arg(other->sourceDisplay(), other->targetDisplay()));
    }
    Statement update(m_db, QStringLiteral("UPDATE tables SET archived_at = ?1 WHERE id = ?2"));
    update.bind(1, archived ? nowText() : QString()).bind(2, id).run();
    if (archived)
        m_leases.releaseAll(id);
    // The position is untouched; the log says when the table left and came back with it.
    m_audit.record({id, position, position, tiebreak, tiebreak,
                    archived ? QStringLiteral("remove") : QStringLiteral("restore"), 0});
    transaction.commit();
}

void ControlTableStore::purge(qint64 id) {
    Transaction transaction(m_db);
    const std::optional<TableSpec> removed = readTable(m_db, id, true);
    if (!removed) {
        if (readTable(m_db, id, false))
            throw ValidationError(QStringLiteral("table %1 is not removed").arg(id));
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(id));
    }
    Statement remove(m_db, QStringLiteral("DELETE FROM tables WHERE id = ?1"));
    remove.bind(1, id).run();
    m_leases.releaseAll(id);
    // The last word of the table's watermark log: where it stood when it was forgotten.
    m_audit.record({id, removed->lastWatermark.display(), QString(), tiebreakText(removed->lastTiebreak),
                    QString(), QStringLiteral("purge"), 0});
    transaction.commit();
}

void ControlTableStore::setActive(qint64 id, bool active) {
    Statement update(m_db,
                     QStringLiteral("UPDATE tables SET active = ?1 WHERE id = ?2 AND archived_at IS NULL"));
    update.bind(1, active ? 1 : 0).bind(2, id).run();
    if (m_db.changes() == 0)
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(id));
}

ControlTableStore::HeldPosition ControlTableStore::heldPosition(qint64 tableId) {
    // Locked to the end of the transaction: no other process moves the position between the
    // compare and the write.
    Statement select(m_db, QStringLiteral("SELECT watermark_type, last_watermark, last_tiebreak, "
                                          "last_generation FROM tables WHERE id = ?1") +
                               m_db.forUpdate());
    select.bind(1, tableId);
    if (!select.step())
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(tableId));
    HeldPosition held;
    held.type = watermarkTypeFromName(select.columnText(0));
    held.position = Position(Watermark::fromStored(held.type, select.columnText(1)),
                             m_db.tiebreakFromStored(select.columnVariant(2)));
    held.generation = select.columnInt64(3);
    return held;
}

// Moves the position and records the change (old, new, cause, run id, time).
void ControlTableStore::movePosition(qint64 tableId, const HeldPosition &held, const Position &next,
                                     qint64 generation, const QString &cause, qint64 runId) {
    WatermarkType type = held.type;
    const Watermark &watermark = next.watermark();
    if (!watermark.isNull()) {
        if (type != WatermarkType::None && type != watermark.type())
            throw Error(QStringLiteral("workspace %1: table %2 has a %3 watermark, not a %4 one")
                            .arg(m_db.location())
                            .arg(tableId)
                            .arg(watermarkTypeName(type), watermarkTypeName(watermark.type())));
        type = watermark.type();
    }
    Statement update(m_db, QStringLiteral("UPDATE tables SET watermark_type = ?1, last_watermark = ?2, "
                                          "last_tiebreak = ?3, last_generation = ?4 WHERE id = ?5"));
    update.bind(1, watermarkTypeName(type))
        .bind(2, textOrNull(watermark.nativeText()))
        .bind(3, m_db.storedTiebreak(next.tiebreak()))
        .bind(4, generation)
        .bind(5, tableId)
        .run();
    m_audit.record({tableId, held.position.watermark().display(), watermark.display(),
                    tiebreakText(held.position.tiebreak()), tiebreakText(next.tiebreak()), cause, runId});
}

void ControlTableStore::setWatermark(qint64 tableId, const Watermark &watermark, const QVariant &tiebreak,
                                     const QString &cause, qint64 runId) {
    Transaction transaction(m_db);
    const HeldPosition held = heldPosition(tableId);
    movePosition(tableId, held, Position(watermark, tiebreak), held.generation, cause, runId);
    transaction.commit();
}

FollowResult ControlTableStore::followTargetState(qint64 tableId, qint64 generation, const Position &position,
                                                  const QString &cause, qint64 runId) {
    // One write transaction, the row locked (heldPosition): no other process can move the
    // position between the compare and the write.
    Transaction transaction(m_db);
    const HeldPosition held = heldPosition(tableId);
    const int order = generation != held.generation ? (generation < held.generation ? -1 : 1)
                                                    : position.compare(held.position);
    if (order <= 0) {
        if (order < 0)
            storageLog()->debug("table {}: kept generation {} at {}; the {} of generation {} at {} is older",
                                tableId, held.generation, str(held.position.display()), str(cause),
                                generation, str(position.display()));
        return order < 0 ? FollowResult::Stale : FollowResult::Unchanged;
    }
    movePosition(tableId, held, position, generation, cause, runId);
    transaction.commit();
    return FollowResult::Moved;
}

void ControlTableStore::replace(const TableSpec &spec, qint64 generation, const Position &position,
                                const QString &cause) {
    Transaction transaction(m_db);
    m_db.lock(StoreLock::ControlTable);
    // Read while the row still has its old type: the log shows where the table stood.
    HeldPosition held = heldPosition(spec.id);
    writeConfig(spec);
    held.type = spec.watermarkType; // the new position is of the new type
    movePosition(spec.id, held, position, generation, cause, 0);
    transaction.commit();
}
} // namespace tidemark
