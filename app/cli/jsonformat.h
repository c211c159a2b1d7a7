// SPDX-License-Identifier: MIT
#pragma once

#include "model/common/duration.h"
#include "model/domain/alertsettings.h"
#include "model/domain/connectionspec.h"
#include "model/domain/runjson.h"
#include "model/domain/runrecord.h"
#include "model/domain/schedulespec.h"
#include "model/domain/tablespec.h"
#include "model/engine/backfill.h"
#include "model/engine/reconciler.h"
#include "model/engine/verifier.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <functional>

namespace tidemark::cli {

// The JSON shapes of the CLI contract (docs/design.md, "The headless CLI"). Field names are a
// contract: add fields, never rename them. Absent values are JSON null, never "".
// The run and iteration shapes (runJson, iterationJson) live in model/domain/runjson.h: the
// alerts send them too.

QJsonObject connectionJson(const ConnectionSpec &spec);
QJsonObject tableJson(const TableSpec &spec);
// `schedule list --json`: name, cron, tz, tables ([] = all active), concurrency, retries,
// timeout ("15m", null = none), active, next_run_at, last_run_id, last_status.
QJsonObject scheduleJson(const ScheduleSpec &spec, const QDateTime &nextRunAt, const QString &lastStatus);
QJsonObject verifyJson(const VerifyResult &result);
// `reconcile --json`: the figures, the guard that refused (or null), sample keys, the method.
QJsonObject reconcileJson(const ReconcileResult &result);
QJsonObject backfillJson(qint64 tableId, const BackfillResult &result);
// `alert show --json`: hook, hook_timeout_ms, webhook (as stored: secrets are ${NAME}
// references), webhook_timeout_ms, on.
QJsonObject alertSettingsJson(const AlertSettings &settings);

// A JSON array written element by element (`history --json` streams its runs): the same bytes
// as toJsonLine() of the whole array, without holding it. `write` gets each piece in order.
class JsonArrayStream {
public:
    explicit JsonArrayStream(std::function<void(const QByteArray &)> write);
    void append(const QJsonObject &object);
    void finish(); // the closing bracket and the newline

private:
    std::function<void(const QByteArray &)> m_write;
    bool m_empty = true;
};

// One line of compact JSON followed by a newline, as stdout gets it.
QByteArray toJsonLine(const QJsonObject &object);
QByteArray toJsonLine(const QJsonArray &array);

} // namespace tidemark::cli
