// SPDX-License-Identifier: MIT
#pragma once

#include "model/alerts/alertsettings.h"
#include "model/common/duration.h"
#include "model/domain/connectionspec.h"
#include "model/domain/runjson.h"
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
// The run and iteration shapes (runJson, iterationJson) live in model/domain/runjson.h: the
// alerts send them too.

QJsonObject connectionJson(const ConnectionSpec &spec);
QJsonObject tableJson(const TableSpec &spec);
// `schedule list --json`: name, cron, tz, tables ([] = all active), concurrency, retries,
// timeout ("15m", null = none), active, next_run_at, last_run_id, last_status.
QJsonObject scheduleJson(const ScheduleSpec &spec, const QDateTime &nextRunAt, const QString &lastStatus);
QJsonObject verifyJson(const VerifyResult &result);
QJsonObject backfillJson(qint64 tableId, const BackfillResult &result);
// `alert show --json`: hook, hook_timeout_ms, webhook (as stored: secrets are ${NAME}
// references), webhook_timeout_ms, on.
QJsonObject alertSettingsJson(const AlertSettings &settings);

// One line of compact JSON followed by a newline, as stdout gets it.
QByteArray toJsonLine(const QJsonObject &object);
QByteArray toJsonLine(const QJsonArray &array);

} // namespace tidemark::cli
