// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/connectors/contractsql.h"
#include "model/domain/position.h"

#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVariantList>

namespace tidemark {

// The one definition of the target-side state table, `tidemark_state` (docs/design.md, step 6),
// rendered per dialect so SQLite and PostgreSQL hold the same columns with the same meaning:
//   workspace_id, table_id   the key (table ids are never reused)
//   watermark_type, watermark   the position's watermark, as Watermark::nativeText()
//   tiebreak, tiebreak_type     the position's tiebreak as text plus its type (integer, real,
//                               text, blob as hex), so every engine stores and compares it alike
//   run_id, updated_at          who wrote it, when
//   state_version               kStateTableVersion of the build that wrote the row
//   generation                  how many backfills reset the row (docs/design.md, "Backfill"): only a
//                               backfill increases it, so (generation, position) orders every
//                               state the row ever held, and a run's compare-and-set includes it
//   target_table, workspace_path  the table the rows go to (stateTargetKey) and where the owning
//                               workspace was: one target table belongs to one row (a unique
//                               index), so a second workspace or table copying into it is refused
//                               naming the owner; NULL in rows written before version 4
//   iteration_id, rows_written, rows_skipped, window_done   the iteration that committed the
//                               row and its rows committed so far, and whether that commit ended its
//                               window: when the workspace could not record the commit (locked, disk
//                               full), the next reconcile completes that iteration's history from
//                               here; NULL when a backfill or adoption wrote the row, and before version 5
//   fence                       the highest fencing token of a claim on the table (docs/design.md,
//                               "Fencing"): a compare-and-set carrying a lower one writes nothing;
//                               NULL (read as 0) before version 6
// Version 1 (the first builds) lacked state_version everywhere and tiebreak_type in SQLite
// (where tiebreak kept SQLite's own value type); version 2 lacked generation; version 3 lacked
// target_table and workspace_path; version 4 the iteration columns; version 5 the fence. A write migrates
// such a table in place: positions kept, generation 0.
// Only writes create or migrate the table: a read of a target without it means "no state".
// Every statement takes the row values in stateRowValues() order and the expected position in
// positionValues() order, as bound parameters.
using StateDialect = SqlDialect;

inline constexpr int kStateTableVersion = 6;

class StateTableSql {
public:
    explicit StateTableSql(StateDialect dialect);

    QString tableName() const; // quoted (and schema-qualified in PostgreSQL)
    static QStringList columnNames();
    QString create() const; // CREATE TABLE IF NOT EXISTS with the whole definition
    // ALTER TABLE ... ADD COLUMN for each column of the definition not in `present`.
    QStringList addMissingColumns(const QStringList &present) const;
    // watermark_type, watermark, tiebreak, tiebreak_type, run_id, generation, iteration_id,
    // rows_written, rows_skipped, window_done, fence of (workspace_id ?1, table_id ?2), locked FOR
    // UPDATE when asked (a server; SQLite's write lock covers it). `present` names the table's
    // columns: an older table that lacks tiebreak_type, generation, the iteration columns or the
    // fence (not migrated yet, as reads never migrate) reads NULL, 0, NULLs and NULL in their place.
    QString select(const QStringList &present, bool forUpdate = false) const;
    // Row values (?1..?17): inserts the row unless one exists for the key.
    QString insertIfAbsent() const;
    // Row values (?1..?17), expected position (?18..?21): moves the row only from `expected`, only
    // while it still holds the row values' generation (a run never changes it), and only while
    // its fence is not above the row values' (no later claim took the table over).
    QString updateIfAt() const;
    // Row values (?1..?17): inserts or overwrites (an explicit backfill), keeping the fence.
    QString upsert() const;
    // (workspace_id ?1, table_id ?2, token ?3): raises the row's fence to the token, if lower.
    QString raiseFence() const;
    // (workspace_id ?1, table_id ?2)
    QString remove() const;
    // The unique index on target_table; run after create() and addMissingColumns().
    QString createOwnerIndex() const;
    // workspace_id, table_id, workspace_path of the row owning target_table ?1.
    QString selectOwner() const;
    // Whether a table with the `present` columns records owners (version 4 on): selectOwner()
    // may run on it.
    static bool recordsOwners(const QStringList &present);

private:
    QString param(int index) const;
    QString sameAs(const QString &column, int index) const; // NULL-safe equality
    QString columnType(int column) const;
    QString columnDefinition(int column) const; // name, type, constraints
    StateDialect m_dialect;
};

// workspace_id, table_id, watermark_type, watermark, tiebreak, tiebreak_type, run_id,
// updated_at (now), state_version, generation, target_table, workspace_path, iteration_id,
// rows_written, rows_skipped, window_done, fence; NULL as an invalid QVariant.
QVariantList stateRowValues(const TargetState &state);
// How target_table names `table`: quoted (and schema-qualified in PostgreSQL), so no two tables
// share a key.
QString stateTargetKey(const TableRef &table);
// watermark_type, watermark, tiebreak, tiebreak_type of a position.
QVariantList positionValues(const Position &position);
// The tiebreak as stored: text and type name (integer, real, text, blob); both NULL when none.
QVariant tiebreakStoredText(const QVariant &tiebreak);
QVariant tiebreakStoredType(const QVariant &tiebreak);
QVariant tiebreakFromStored(const QString &type, const QString &text);

} // namespace tidemark
