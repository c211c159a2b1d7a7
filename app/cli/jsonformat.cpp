// SPDX-License-Identifier: MIT
#include "app/cli/jsonformat.h"

#include "model/domain/sourcezone.h"

#include <QJsonDocument>

namespace tidemark::cli {

namespace {

QJsonValue optionalText(const QString &text) {
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

} // namespace

QJsonObject connectionJson(const ConnectionSpec &spec) {
    QJsonObject object;
    object.insert(QStringLiteral("id"), spec.id);
    object.insert(QStringLiteral("name"), spec.name);
    object.insert(QStringLiteral("kind"), connectionKindName(spec.kind));
    object.insert(QStringLiteral("path"), optionalText(spec.path));
    object.insert(QStringLiteral("conninfo"), optionalText(spec.conninfo));
    object.insert(QStringLiteral("password_env"), optionalText(spec.passwordEnv));
    object.insert(QStringLiteral("max_connections"),
                  spec.maxConnections > 0 ? QJsonValue(spec.maxConnections) : QJsonValue(QJsonValue::Null));
    return object;
}

QJsonObject tableJson(const TableSpec &spec) {
    QJsonObject object;
    object.insert(QStringLiteral("id"), spec.id);
    object.insert(QStringLiteral("source"), spec.sourceDisplay());
    object.insert(QStringLiteral("target"), spec.targetDisplay());
    object.insert(QStringLiteral("source_connection"), spec.sourceConnection);
    object.insert(QStringLiteral("source_table"), spec.sourceTable);
    object.insert(QStringLiteral("target_connection"), spec.targetConnection);
    object.insert(QStringLiteral("target_table"), spec.targetTable);
    object.insert(QStringLiteral("watermark_column"), optionalText(spec.watermarkColumn));
    object.insert(QStringLiteral("watermark_type"), watermarkTypeName(spec.watermarkType));
    object.insert(QStringLiteral("tiebreak_column"), optionalText(spec.tiebreakColumn));
    object.insert(QStringLiteral("key_columns"), QJsonArray::fromStringList(spec.keyColumns));
    object.insert(QStringLiteral("mode"), writeModeName(spec.mode));
    object.insert(QStringLiteral("lookback"), optionalText(spec.lookback));
    object.insert(QStringLiteral("initial_watermark"),
                  watermarkJson(shownWatermark(spec.initialWatermark, spec.sourceTimezone)));
    object.insert(QStringLiteral("last_watermark"),
                  watermarkJson(shownWatermark(spec.lastWatermark, spec.sourceTimezone)));
    object.insert(QStringLiteral("last_tiebreak"), spec.lastTiebreak.isNull()
                                                       ? QJsonValue(QJsonValue::Null)
                                                       : QJsonValue::fromVariant(spec.lastTiebreak));
    object.insert(QStringLiteral("active"), spec.active);
    object.insert(QStringLiteral("max_skipped"), spec.maxSkipped);
    object.insert(QStringLiteral("expect_rows"), spec.expectRows);
    object.insert(QStringLiteral("commit_per_batch"), spec.commitPerBatch);
    object.insert(QStringLiteral("batch_size"), spec.batchSize);
    object.insert(QStringLiteral("add_new_columns"), spec.addNewColumns);
    if (spec.watermarkType == WatermarkType::Timestamp)
        object.insert(QStringLiteral("max_future"),
                      spec.maxFuture.isEmpty() ? QString::fromLatin1(kDefaultMaxFuture) : spec.maxFuture);
    else
        object.insert(QStringLiteral("max_future"), QJsonValue(QJsonValue::Null));
    object.insert(QStringLiteral("max_jump"),
                  spec.maxJump > 0 ? QJsonValue(spec.maxJump) : QJsonValue(QJsonValue::Null));
    object.insert(QStringLiteral("stale_after"), optionalText(spec.staleAfter));
    object.insert(QStringLiteral("deletes"), deletePolicyToJson(spec.deletes));
    // The zone a timestamp watermark without one is read in: UTC unless the table says.
    object.insert(
        QStringLiteral("source_timezone"),
        spec.watermarkType == WatermarkType::Timestamp
            ? QJsonValue(spec.sourceTimezone.isEmpty() ? QStringLiteral("UTC") : spec.sourceTimezone)
            : QJsonValue(QJsonValue::Null));
    object.insert(QStringLiteral("zero_dates"), zeroDatesName(spec.zeroDates));
    return object;
}

QJsonObject scheduleJson(const ScheduleSpec &spec, const QDateTime &nextRunAt, const QString &lastStatus) {
    QJsonObject object;
    object.insert(QStringLiteral("name"), spec.name);
    object.insert(QStringLiteral("cron"), spec.cron);
    object.insert(QStringLiteral("tz"), spec.timeZone);
    QJsonArray tables;
    for (const qint64 id : spec.tableIds)
        tables.append(id);
    object.insert(QStringLiteral("tables"), tables);
    object.insert(QStringLiteral("concurrency"), spec.concurrency);
    object.insert(QStringLiteral("retries"), spec.retries);
    object.insert(QStringLiteral("timeout"), spec.timeoutSeconds > 0
                                                 ? QJsonValue(durationText(spec.timeoutSeconds * 1000))
                                                 : QJsonValue(QJsonValue::Null));
    object.insert(QStringLiteral("active"), spec.active);
    object.insert(QStringLiteral("next_run_at"), timeJson(nextRunAt));
    object.insert(QStringLiteral("last_run_id"),
                  spec.lastRunId > 0 ? QJsonValue(spec.lastRunId) : QJsonValue(QJsonValue::Null));
    object.insert(QStringLiteral("last_status"),
                  lastStatus.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(lastStatus));
    // The schedule's own alerts, sent besides the workspace's; null when it has none.
    object.insert(QStringLiteral("alerts"), spec.alerts.isEmpty()
                                                ? QJsonValue(QJsonValue::Null)
                                                : QJsonValue(alertSettingsToJson(spec.alerts)));
    return object;
}

QJsonObject reconcileJson(const ReconcileResult &result) {
    QJsonObject object;
    object.insert(QStringLiteral("table_id"), result.tableId);
    object.insert(QStringLiteral("source"), result.source);
    object.insert(QStringLiteral("target"), result.target);
    object.insert(QStringLiteral("action"), result.action);
    object.insert(QStringLiteral("source_rows"), result.sourceRows);
    object.insert(QStringLiteral("target_rows"), result.targetRows);
    object.insert(QStringLiteral("gone"), result.gone);
    object.insert(QStringLiteral("within_grace"), result.withinGrace);
    object.insert(QStringLiteral("to_remove"), result.toRemove);
    object.insert(QStringLiteral("removed"), result.removed);
    object.insert(QStringLiteral("applied"), result.applied);
    object.insert(QStringLiteral("refused_by"), optionalText(result.refusedBy));
    object.insert(QStringLiteral("refusal"), optionalText(result.refusal));
    object.insert(QStringLiteral("sample_keys"), QJsonArray::fromStringList(result.sampleKeys));
    object.insert(QStringLiteral("method"),
                  result.byRanges ? QStringLiteral("ranges") : QStringLiteral("rows"));
    object.insert(QStringLiteral("ranges_read"), result.rangesRead);
    return object;
}

QJsonObject verifyJson(const VerifyResult &result) {
    QJsonObject object;
    object.insert(QStringLiteral("table_id"), result.tableId);
    object.insert(QStringLiteral("source"), result.source);
    object.insert(QStringLiteral("target"), result.target);
    object.insert(QStringLiteral("matches"), result.matches);
    object.insert(QStringLiteral("source_rows"), result.sourceRows);
    object.insert(QStringLiteral("target_rows"), result.targetRows);
    object.insert(QStringLiteral("missing_in_target"), result.missingInTarget);
    object.insert(QStringLiteral("extra_in_target"), result.extraInTarget);
    object.insert(QStringLiteral("differing"), result.differing);
    object.insert(QStringLiteral("difference"), optionalText(result.difference));
    object.insert(QStringLiteral("examples"), QJsonArray::fromStringList(result.examples));
    object.insert(QStringLiteral("error"), QJsonValue(QJsonValue::Null));
    object.insert(QStringLiteral("extra_past_watermark"), result.extraPastWatermark);
    object.insert(QStringLiteral("null_watermark_rows"), result.nullWatermarkRows);
    object.insert(QStringLiteral("unorderable_watermark_rows"), result.unorderableWatermarkRows);
    // How the rows were compared: "ranges" (summed in each database by range of keys, those that
    // differ read row by row: `ranges_read` of them) or "rows" (every row read).
    object.insert(QStringLiteral("method"),
                  result.comparedByRanges ? QStringLiteral("ranges") : QStringLiteral("rows"));
    object.insert(QStringLiteral("ranges_read"), result.differingRanges);
    QJsonArray faults;
    for (const VerifyFault &fault : result.faults) {
        QJsonObject entry;
        entry.insert(QStringLiteral("key"), QJsonDocument::fromJson(fault.key.toUtf8()).object());
        entry.insert(QStringLiteral("kind"), verifyFaultKindName(fault.kind));
        entry.insert(QStringLiteral("columns"), QJsonArray::fromStringList(fault.columns));
        entry.insert(QStringLiteral("past_watermark"), fault.pastWatermark);
        faults.append(entry);
    }
    object.insert(QStringLiteral("differences"), faults);
    return object;
}

QJsonObject backfillJson(qint64 tableId, const BackfillResult &result) {
    QJsonObject object;
    object.insert(QStringLiteral("table_id"), tableId);
    object.insert(QStringLiteral("watermark_before"), watermarkJson(result.before.display()));
    object.insert(QStringLiteral("watermark_after"), watermarkJson(result.after.display()));
    object.insert(QStringLiteral("rows_deleted"),
                  result.rowsDeleted < 0 ? QJsonValue(QJsonValue::Null) : QJsonValue(result.rowsDeleted));
    return object;
}

QJsonObject alertSettingsJson(const AlertSettings &settings) {
    return alertSettingsToJson(settings);
}

JsonArrayStream::JsonArrayStream(std::function<void(const QByteArray &)> write)
    : m_write(std::move(write)) {
    m_write(QByteArrayLiteral("["));
}

void JsonArrayStream::append(const QJsonObject &object) {
    const QByteArray element = QJsonDocument(object).toJson(QJsonDocument::Compact);
    m_write(m_empty ? element : ',' + element);
    m_empty = false;
}

void JsonArrayStream::finish() {
    m_write(QByteArrayLiteral("]\n"));
}

QByteArray toJsonLine(const QJsonObject &object) {
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

QByteArray toJsonLine(const QJsonArray &array) {
    return QJsonDocument(array).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace tidemark::cli
