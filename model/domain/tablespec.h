// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/deletepolicy.h"
#include "model/domain/watermark.h"

#include <QString>
#include <QStringList>
#include <QVariant>

namespace tidemark {

enum class WriteMode { Append, Merge, Overwrite };

QString writeModeName(WriteMode mode); // "append" | "merge" | "overwrite"
std::optional<WriteMode> writeModeFromName(const QString &name);

// What a copy does with a MySQL/MariaDB zero date ('0000-00-00', '2024-00-15') outside the
// watermark column, which no other engine can store: fail naming the column and the row's key
// (the default), or copy it as NULL. In the watermark column a zero date is never selectable
// either way: counted and reported, like a NULL.
enum class ZeroDates { Fail, Null };

QString zeroDatesName(ZeroDates policy); // "fail" | "null"
std::optional<ZeroDates> zeroDatesFromName(const QString &name);

// A timestamp watermark's future guard when a table names none (TableSpec::maxFuture).
inline constexpr const char *kDefaultMaxFuture = "1d";

// One row of the control table: what to copy, where, and how far it has been copied.
struct TableSpec {
    qint64 id = 0; // never reused within a workspace
    QString sourceConnection;
    QString sourceTable; // verbatim; for PostgreSQL "schema.table" or "table"
    QString targetConnection;
    QString targetTable;
    QString watermarkColumn; // empty only with WriteMode::Overwrite
    WatermarkType watermarkType = WatermarkType::None;
    QString tiebreakColumn; // optional
    QStringList keyColumns; // merge keys; empty = the source's primary key (resolved at add)
    WriteMode mode = WriteMode::Append;
    QString lookback; // as given ("2h", "500"); empty = none
    Watermark initialWatermark;
    Watermark lastWatermark;
    QVariant lastTiebreak; // null when there is no tiebreak position
    // The state row's backfill generation that lastWatermark came with (0 before any backfill).
    qint64 lastGeneration = 0;
    bool active = true;
    qint64 maxSkipped = 0;
    bool expectRows = false;
    bool commitPerBatch = false; // commit each batch with its state row (long loads)
    int batchSize = 10000;
    bool addNewColumns = false; // add source columns that the target lacks instead of failing
    // The future guard: a timestamp watermark never moves past now + maxFuture ("1d" when
    // empty), and an integer one never by more than maxJump in one run (0: no limit). Rows
    // beyond wait, counted, and the iteration warns: one row dated 3000 must not freeze a table.
    QString maxFuture;
    qint64 maxJump = 0;
    // A duration ("1d"); empty = never. An active table whose position has not moved for longer
    // while rows wait above it, or that no run has copied for that long, is stalled (tableHealth).
    QString staleAfter;
    DeletePolicy deletes; // what reconcile does with rows the source deleted (ignore by default)
    // The zone whose wall-clock time a timestamp watermark without zone holds (an IANA name,
    // "Europe/Berlin"); empty = UTC. See docs/design.md, "Naive timestamps".
    QString sourceTimezone;
    ZeroDates zeroDates = ZeroDates::Fail;

    // "conn:table" as the CLI spells it.
    QString sourceDisplay() const { return sourceConnection + QLatin1Char(':') + sourceTable; }
    QString targetDisplay() const { return targetConnection + QLatin1Char(':') + targetTable; }
};

} // namespace tidemark
