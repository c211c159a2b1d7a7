// SPDX-License-Identifier: MIT
#include "model/domain/runjson.h"

#include <QJsonArray>

namespace tidemark {

namespace {

QJsonValue optionalText(const QString &text) {
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

} // namespace

QJsonValue watermarkJson(const QString &display) {
    if (display.isEmpty())
        return QJsonValue(QJsonValue::Null);
    bool isInteger = false;
    const qint64 value = display.toLongLong(&isInteger);
    if (isInteger)
        return QJsonValue(value);
    return QJsonValue(display);
}

QJsonValue timeJson(const QDateTime &time) {
    return time.isValid() ? QJsonValue(isoUtc(time)) : QJsonValue(QJsonValue::Null);
}

QJsonObject iterationJson(const IterationRecord &record) {
    QJsonObject object;
    object.insert(QStringLiteral("table_id"), record.tableId);
    object.insert(QStringLiteral("source"), record.source);
    object.insert(QStringLiteral("target"), record.target);
    object.insert(QStringLiteral("status"), iterationStatusName(record.status));
    object.insert(QStringLiteral("started_at"), timeJson(record.startedAt));
    object.insert(QStringLiteral("finished_at"), timeJson(record.finishedAt));
    object.insert(QStringLiteral("duration_ms"), record.durationMs);
    object.insert(QStringLiteral("rows_read"), record.rowsRead);
    // What the window, `history` and the hook's readers call Read: a failed or cancelled
    // iteration's rolled-back reads left out (rowsShownRead), so every view gives one count.
    object.insert(QStringLiteral("rows_read_kept"), rowsShownRead(record));
    object.insert(QStringLiteral("rows_written"), record.rowsWritten);
    object.insert(QStringLiteral("rows_skipped"), record.rowsSkipped);
    object.insert(QStringLiteral("rows_null_watermark"), record.rowsNullWatermark);
    object.insert(QStringLiteral("rows_unorderable_watermark"), record.rowsUnorderableWatermark);
    object.insert(QStringLiteral("rows_pending"), record.rowsPending);
    object.insert(QStringLiteral("rows_rolled_back"), record.rowsRolledBack);
    object.insert(QStringLiteral("rows_future"), record.rowsFuture);
    object.insert(QStringLiteral("source_behind"), record.sourceBehind);
    object.insert(QStringLiteral("rows_deleted"), record.rowsDeleted);
    object.insert(QStringLiteral("window_rows"),
                  record.windowRows < 0 ? QJsonValue(QJsonValue::Null) : QJsonValue(record.windowRows));
    object.insert(QStringLiteral("watermark_before"), watermarkJson(record.watermarkBefore));
    object.insert(QStringLiteral("watermark_after"), watermarkJson(record.watermarkAfter));
    object.insert(QStringLiteral("window_lower"), watermarkJson(record.windowLower));
    object.insert(QStringLiteral("window_upper"), watermarkJson(record.windowUpper));
    object.insert(QStringLiteral("error"), optionalText(record.error));
    object.insert(QStringLiteral("iteration_id"), record.id);
    // "host:pid" of the process that ran it; null while queued and in older records.
    object.insert(QStringLiteral("runner"), optionalText(record.runner));
    object.insert(QStringLiteral("waiting"), optionalText(record.waiting));
    return object;
}

QJsonObject runJson(const RunRecord &run, bool withRunDetails) {
    QJsonObject object;
    object.insert(QStringLiteral("run_id"), run.id);
    object.insert(QStringLiteral("status"), run.status);
    object.insert(QStringLiteral("kind"), run.kind);
    if (withRunDetails) {
        object.insert(QStringLiteral("trigger"), run.trigger);
        object.insert(QStringLiteral("host"), run.host);
        object.insert(QStringLiteral("pid"), run.pid);
        object.insert(QStringLiteral("started_by"), optionalText(run.startedBy));
        object.insert(QStringLiteral("started_at"), timeJson(run.startedAt));
        object.insert(QStringLiteral("finished_at"), timeJson(run.finishedAt));
        object.insert(QStringLiteral("concurrency"), run.concurrency);
        object.insert(QStringLiteral("dry_run"), run.dryRun);
        object.insert(QStringLiteral("queued"), run.queued);
        object.insert(QStringLiteral("schedule"),
                      run.schedule.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(run.schedule));
        if (!run.error.isEmpty())
            object.insert(QStringLiteral("error"), run.error);
    }
    QJsonArray iterations;
    for (const IterationRecord &record : run.iterations)
        iterations.append(iterationJson(record));
    object.insert(QStringLiteral("iterations"), iterations);
    return object;
}

} // namespace tidemark
