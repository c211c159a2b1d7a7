// SPDX-License-Identifier: MIT
#include "model/storage/stores/auditstore.h"

#include "model/common/timestamp.h"
#include "model/storage/stores/storerows.h"

namespace tidemark {
namespace {

// Changes from before schema 6 name no host: their run's, when they had one.
const char *const kWatermarkChangeSelect =
    "SELECT c.id, c.table_id, c.at, c.old_value, c.new_value, c.cause, c.run_id, "
    "coalesce(c.host, r.host), c.changed_by FROM watermark_changes c LEFT JOIN runs r ON r.id = c.run_id ";

QList<WatermarkChange> readWatermarkChanges(Statement &stmt) {
    QList<WatermarkChange> result;
    while (stmt.step()) {
        WatermarkChange change;
        change.id = stmt.columnInt64(0);
        change.tableId = stmt.columnInt64(1);
        change.at = readTime(stmt, 2);
        change.oldValue = stmt.columnText(3);
        change.newValue = stmt.columnText(4);
        change.cause = stmt.columnText(5);
        change.runId = stmt.columnInt64(6);
        change.host = stmt.columnText(7);
        change.by = stmt.columnText(8);
        result.append(change);
    }
    return result;
}

} // namespace

void AuditStore::record(const PositionChange &change) {
    Statement log(m_db, QStringLiteral("INSERT INTO watermark_changes (table_id, at, old_value, new_value, "
                                       "old_tiebreak, new_tiebreak, cause, run_id, host, changed_by) VALUES "
                                       "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"));
    log.bind(1, change.tableId)
        .bind(2, nowText())
        .bind(3, textOrNull(change.oldValue))
        .bind(4, textOrNull(change.newValue))
        .bind(5, change.oldTiebreak)
        .bind(6, change.newTiebreak)
        .bind(7, change.cause)
        .bind(8, idOrNull(change.runId))
        .bind(9, hostName())
        .bind(10, m_db.userName())
        .run();
}

QList<WatermarkChange> AuditStore::changes(qint64 tableId) {
    Statement stmt(m_db, QLatin1String(kWatermarkChangeSelect) +
                             QStringLiteral("WHERE c.table_id = ?1 ORDER BY c.id"));
    stmt.bind(1, tableId);
    return readWatermarkChanges(stmt);
}

QList<WatermarkChange> AuditStore::backfills(qint64 tableId, const QDateTime &from, const QDateTime &to) {
    Statement backfills(
        m_db, QLatin1String(kWatermarkChangeSelect) +
                  QStringLiteral("WHERE %1 AND c.cause = ?2 AND c.at >= ?3 AND c.at <= ?4 ORDER BY c.id")
                      .arg(tableId > 0 ? QStringLiteral("c.table_id = ?1") : QStringLiteral("?1 = 0")));
    backfills.bind(1, tableId).bind(2, QStringLiteral("backfill")).bind(3, isoUtc(from)).bind(4, isoUtc(to));
    return readWatermarkChanges(backfills);
}

QHash<qint64, QDateTime> AuditStore::positionsMovedAt() {
    // Newest first along (table_id, id), so each table stops at its latest move, however long its
    // log. An entry whose position is the one it had (a table added, an edit) moved nothing.
    Statement stmt(m_db,
                   QStringLiteral("SELECT t.id, coalesce((SELECT c.at FROM watermark_changes c WHERE "
                                  "c.table_id = t.id AND (coalesce(c.new_value, '') <> "
                                  "coalesce(c.old_value, '') OR coalesce(c.new_tiebreak, '') <> "
                                  "coalesce(c.old_tiebreak, '')) ORDER BY c.id DESC LIMIT 1), t.created_at) "
                                  "FROM tables t"));
    QHash<qint64, QDateTime> movedAt;
    while (stmt.step())
        movedAt.insert(stmt.columnInt64(0), readTime(stmt, 1));
    return movedAt;
}

} // namespace tidemark
