// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QDateTime>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace tidemark {

// The JSON shape of a run as the CLI contract prints it (docs/design.md, "The headless CLI"): shared
// by `run --json`, `history --json` and the alerts (hook stdin, webhook body). Field names are a
// contract: add fields, never rename them. Absent values are JSON null, never "".

// A watermark's display text as JSON: null when none, a number for integer watermarks (so
// scripts can compare them), an ISO-8601 string for timestamps.
QJsonValue watermarkJson(const QString &display);
// isoUtc() of the time, or null when the time is not set.
QJsonValue timeJson(const QDateTime &time);

QJsonObject iterationJson(const IterationRecord &record);
// {"run_id", "status", "iterations"} as `run --json` prints it; `withRunDetails` adds the
// fields `history --json` shows (trigger, host, times, concurrency, dry_run, schedule).
QJsonObject runJson(const RunRecord &run, bool withRunDetails);

} // namespace tidemark
