// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"
#include "model/domain/runrecord.h"
#include "model/domain/schedulespec.h"
#include "model/domain/tablespec.h"
#include "model/engine/backfill.h"
#include "model/engine/verifier.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace tidemark::cli {

// The JSON shapes of the CLI contract (DESIGN.md, "The headless CLI"). Field names are a
// contract: add fields, never rename them. Absent values are JSON null, never "".

// A watermark's display text as JSON: null when none, a number for integer watermarks (so
// scripts can compare them), an ISO-8601 string for timestamps.
QJsonValue watermarkJson(const QString &display);
// isoUtc() of the time, or null when the time is not set.
QJsonValue timeJson(const QDateTime &time);

QJsonObject connectionJson(const ConnectionSpec &spec);
QJsonObject tableJson(const TableSpec &spec);
QJsonObject iterationJson(const IterationRecord &record);
// {"run_id", "status", "iterations"} as `run --json` prints it; `withRunDetails` adds the
// fields `history --json` shows (trigger, host, times, concurrency, dry_run).
QJsonObject runJson(const RunRecord &run, bool withRunDetails);
// `schedule list --json`: name, cron, tz, tables ([] = all active), concurrency, retries,
// timeout ("15m", null = none), active, next_run_at, last_run_id, last_status.
QJsonObject scheduleJson(const ScheduleSpec &spec, const QDateTime &nextRunAt, const QString &lastStatus);
QJsonObject verifyJson(const VerifyResult &result);
QJsonObject backfillJson(qint64 tableId, const BackfillResult &result);

// One line of compact JSON followed by a newline, as stdout gets it.
QByteArray toJsonLine(const QJsonObject &object);
QByteArray toJsonLine(const QJsonArray &array);

} // namespace tidemark::cli
