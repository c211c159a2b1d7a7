// SPDX-License-Identifier: MIT
#include "model/storage/stores/storerows.h"

#include "model/common/logging.h"
#include "model/common/timestamp.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSysInfo>

#include <cerrno>
#include <limits>
#include <signal.h>
#include <sys/types.h>

namespace tidemark {
namespace {

// The digits text[from, from + count), or -1 when one is not a digit.
int digits(const char *text, int from, int count) {
    int value = 0;
    for (int i = from; i < from + count; ++i) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

// Times are stored as isoUtc() writes them, "yyyy-MM-ddTHH:mm:ss.zzzZ": that form is read by
// hand, since QDateTime::fromString took a quarter of a history read. Anything else (older or
// hand-written rows) goes through Qt's parser.
QDateTime parseStoredTime(const char *text, int size) {
    if (size == 24 && text[4] == '-' && text[7] == '-' && text[10] == 'T' && text[13] == ':' &&
        text[16] == ':' && text[19] == '.' && text[23] == 'Z') {
        const QDate date(digits(text, 0, 4), digits(text, 5, 2), digits(text, 8, 2));
        const QTime time(digits(text, 11, 2), digits(text, 14, 2), digits(text, 17, 2), digits(text, 20, 3));
        constexpr qint64 kMsPerDay = 24 * 3600 * 1000;
        if (date.isValid() && time.isValid())
            return QDateTime::fromMSecsSinceEpoch((date.toJulianDay() - QDate(1970, 1, 1).toJulianDay()) *
                                                          kMsPerDay +
                                                      time.msecsSinceStartOfDay(),
                                                  Qt::UTC);
    }
    const QDateTime time = QDateTime::fromString(QString::fromUtf8(text, size), Qt::ISODateWithMs);
    return time.isValid() ? time.toUTC() : QDateTime();
}

QStringList keyColumnsFromJson(const QString &text) {
    QStringList columns;
    const QJsonArray array = QJsonDocument::fromJson(text.toUtf8()).array();
    for (const QJsonValue &value : array)
        columns.append(value.toString());
    return columns;
}

} // namespace

std::shared_ptr<spdlog::logger> storageLog() {
    return logger("core.storage");
}

QString nowText() {
    return isoUtc(QDateTime::currentDateTimeUtc());
}

QString timeText(const QDateTime &time) {
    return time.isValid() ? isoUtc(time) : QString();
}

QDateTime readTime(const Statement &stmt, int column) {
    const std::string_view text = stmt.columnUtf8(column);
    if (text.data() == nullptr)
        return QDateTime();
    return parseStoredTime(text.data(), int(text.size()));
}

QString textOrNull(const QString &text) {
    return text.isEmpty() ? QString() : text;
}

QVariant idOrNull(qint64 id) {
    return id > 0 ? QVariant(id) : QVariant();
}

bool processAlive(qint64 pid) {
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max())
        return false;
    if (::kill(pid_t(pid), 0) == 0)
        return true;
    return errno != ESRCH; // EPERM: alive, owned by someone else
}

QString hostName() {
    return QSysInfo::machineHostName();
}

QString idsJson(const QList<qint64> &ids) {
    QString json = QStringLiteral("[");
    for (qint64 id : ids)
        json += QString::number(id) + QLatin1Char(',');
    json.chop(ids.isEmpty() ? 0 : 1);
    return json + QLatin1Char(']');
}

// --- row mapping ---

const QString kConnectionColumns =
    QStringLiteral("id, name, kind, path, conninfo, password_env, max_connections");

ConnectionSpec readConnection(const Statement &stmt) {
    ConnectionSpec spec;
    spec.id = stmt.columnInt64(0);
    spec.name = stmt.columnText(1);
    spec.kind = connectionKindFromName(stmt.columnText(2));
    spec.path = stmt.columnText(3);
    spec.conninfo = stmt.columnText(4);
    spec.passwordEnv = stmt.columnText(5);
    spec.maxConnections = int(stmt.columnInt64(6));
    return spec;
}

const QString kTableColumns = QStringLiteral(
    "id, source_connection, source_table, target_connection, target_table, watermark_column, watermark_type, "
    "tiebreak_column, key_columns, mode, lookback, initial_watermark, last_watermark, last_tiebreak, active, "
    "max_skipped, expect_rows, commit_per_batch, batch_size, add_new_columns, last_generation, max_future, "
    "max_jump, stale_after, delete_policy, source_timezone, zero_dates");

namespace {

QString keyColumnsJson(const QStringList &columns) {
    return QString::fromUtf8(
        QJsonDocument(QJsonArray::fromStringList(columns)).toJson(QJsonDocument::Compact));
}

WatermarkType storedWatermarkType(const TableSpec &spec) {
    if (spec.watermarkType != WatermarkType::None)
        return spec.watermarkType;
    if (!spec.lastWatermark.isNull())
        return spec.lastWatermark.type();
    return spec.initialWatermark.type();
}

} // namespace

TableSpec readTable(const Statement &stmt, const StoreDb &db) {
    TableSpec spec;
    spec.id = stmt.columnInt64(0);
    spec.sourceConnection = stmt.columnText(1);
    spec.sourceTable = stmt.columnText(2);
    spec.targetConnection = stmt.columnText(3);
    spec.targetTable = stmt.columnText(4);
    spec.watermarkColumn = stmt.columnText(5);
    spec.watermarkType = watermarkTypeFromName(stmt.columnText(6));
    spec.tiebreakColumn = stmt.columnText(7);
    spec.keyColumns = keyColumnsFromJson(stmt.columnText(8));
    spec.mode = writeModeFromName(stmt.columnText(9)).value_or(WriteMode::Append);
    spec.lookback = stmt.columnText(10);
    spec.initialWatermark = Watermark::fromStored(spec.watermarkType, stmt.columnText(11));
    spec.lastWatermark = Watermark::fromStored(spec.watermarkType, stmt.columnText(12));
    spec.lastTiebreak = db.tiebreakFromStored(stmt.columnVariant(13));
    spec.active = stmt.columnInt64(14) != 0;
    spec.maxSkipped = stmt.columnInt64(15);
    spec.expectRows = stmt.columnInt64(16) != 0;
    spec.commitPerBatch = stmt.columnInt64(17) != 0;
    spec.batchSize = int(stmt.columnInt64(18));
    spec.addNewColumns = stmt.columnInt64(19) != 0;
    spec.lastGeneration = stmt.columnInt64(20);
    spec.maxFuture = stmt.columnText(21);
    spec.maxJump = stmt.columnInt64(22);
    spec.staleAfter = stmt.columnText(23);
    const QString policy = stmt.columnText(24);
    if (!policy.isEmpty())
        spec.deletes = deletePolicyFromJson(QJsonDocument::fromJson(policy.toUtf8()).object(),
                                            QStringLiteral("table %1: delete policy").arg(spec.id));
    spec.sourceTimezone = stmt.columnText(25);
    spec.zeroDates = zeroDatesFromName(stmt.columnText(26)).value_or(ZeroDates::Fail);
    return spec;
}

// Binds the configuration fields (everything but id, last watermark and tiebreak): ?1 to ?23.
void bindTableConfig(Statement &stmt, const TableSpec &spec) {
    stmt.bind(1, spec.sourceConnection)
        .bind(2, spec.sourceTable)
        .bind(3, spec.targetConnection)
        .bind(4, spec.targetTable)
        .bind(5, spec.watermarkColumn.isNull() ? QStringLiteral("") : spec.watermarkColumn)
        .bind(6, watermarkTypeName(storedWatermarkType(spec)))
        .bind(7, spec.tiebreakColumn.isNull() ? QStringLiteral("") : spec.tiebreakColumn)
        .bind(8, keyColumnsJson(spec.keyColumns))
        .bind(9, writeModeName(spec.mode))
        .bind(10, spec.lookback.isNull() ? QStringLiteral("") : spec.lookback)
        .bind(11, textOrNull(spec.initialWatermark.nativeText()))
        .bind(12, spec.active ? 1 : 0)
        .bind(13, spec.maxSkipped)
        .bind(14, spec.expectRows ? 1 : 0)
        .bind(15, spec.commitPerBatch ? 1 : 0)
        .bind(16, spec.batchSize)
        .bind(17, spec.addNewColumns ? 1 : 0)
        .bind(18, spec.maxFuture.isNull() ? QStringLiteral("") : spec.maxFuture)
        .bind(19, spec.maxJump)
        .bind(20, spec.staleAfter.isNull() ? QStringLiteral("") : spec.staleAfter)
        .bind(21, spec.deletes == DeletePolicy()
                      ? QStringLiteral("")
                      : QString::fromUtf8(
                            QJsonDocument(deletePolicyToJson(spec.deletes)).toJson(QJsonDocument::Compact)))
        .bind(22, spec.sourceTimezone.isNull() ? QStringLiteral("") : spec.sourceTimezone)
        .bind(23, zeroDatesName(spec.zeroDates));
}

const QString kIterationColumns = QStringLiteral(
    "id, run_id, table_id, source, target, status, started_at, finished_at, duration_ms, rows_read, "
    "rows_written, "
    "rows_skipped, rows_null_watermark, window_rows, watermark_before, watermark_after, window_lower, "
    "window_upper, error, rows_unorderable_watermark, rows_pending, rows_rolled_back, rows_future, "
    "source_behind, rows_deleted, runner, waiting");

// kIterationColumns, each qualified by `alias`.
QString iterationColumnsOf(const QString &alias) {
    return alias + QLatin1Char('.') +
           QString(kIterationColumns)
               .replace(QStringLiteral(", "), QStringLiteral(", ") + alias + QLatin1Char('.'));
}

// kIterationColumns from column `first` on.
IterationRecord readIteration(const Statement &stmt, int first) {
    IterationRecord record;
    record.id = stmt.columnInt64(first + 0);
    record.runId = stmt.columnInt64(first + 1);
    record.tableId = stmt.columnInt64(first + 2);
    record.source = stmt.columnText(first + 3);
    record.target = stmt.columnText(first + 4);
    record.status = iterationStatusFromName(stmt.columnText(first + 5)).value_or(IterationStatus::Failed);
    record.startedAt = readTime(stmt, first + 6);
    record.finishedAt = readTime(stmt, first + 7);
    record.durationMs = stmt.columnInt64(first + 8);
    record.rowsRead = stmt.columnInt64(first + 9);
    record.rowsWritten = stmt.columnInt64(first + 10);
    record.rowsSkipped = stmt.columnInt64(first + 11);
    record.rowsNullWatermark = stmt.columnInt64(first + 12);
    record.windowRows = stmt.columnInt64(first + 13);
    record.watermarkBefore = stmt.columnText(first + 14);
    record.watermarkAfter = stmt.columnText(first + 15);
    record.windowLower = stmt.columnText(first + 16);
    record.windowUpper = stmt.columnText(first + 17);
    record.error = stmt.columnText(first + 18);
    record.rowsUnorderableWatermark = stmt.columnInt64(first + 19);
    record.rowsPending = stmt.columnInt64(first + 20);
    record.rowsRolledBack = stmt.columnInt64(first + 21);
    record.rowsFuture = stmt.columnInt64(first + 22);
    record.sourceBehind = stmt.columnInt64(first + 23) != 0;
    record.rowsDeleted = stmt.columnInt64(first + 24);
    record.runner = stmt.columnText(first + 25);
    record.waiting = stmt.columnText(first + 26);
    return record;
}

const QString kRunColumns = QStringLiteral(
    R"(r.id, r."trigger", r.host, r.pid, r.started_at, r.finished_at, r.status, r.concurrency, r.dry_run, )"
    "r.schedule, r.kind, r.queued, r.started_by");

RunRecord readRun(const Statement &stmt) {
    RunRecord run;
    run.id = stmt.columnInt64(0);
    run.trigger = stmt.columnText(1);
    run.host = stmt.columnText(2);
    run.pid = stmt.columnInt64(3);
    run.startedAt = readTime(stmt, 4);
    run.finishedAt = readTime(stmt, 5);
    run.status = stmt.columnText(6);
    run.concurrency = int(stmt.columnInt64(7));
    run.dryRun = stmt.columnInt64(8) != 0;
    run.schedule = stmt.columnText(9);
    run.kind = stmt.columnText(10);
    run.queued = stmt.columnInt64(11) != 0;
    run.startedBy = stmt.columnText(12);
    return run;
}

// Binds the iteration's fields from run_id on, starting at ?1.
void bindIteration(Statement &stmt, const IterationRecord &record) {
    stmt.bind(1, record.runId)
        .bind(2, record.tableId)
        .bind(3, record.source.isNull() ? QStringLiteral("") : record.source)
        .bind(4, record.target.isNull() ? QStringLiteral("") : record.target)
        .bind(5, iterationStatusName(record.status))
        .bind(6, timeText(record.startedAt))
        .bind(7, timeText(record.finishedAt))
        .bind(8, record.durationMs)
        .bind(9, record.rowsRead)
        .bind(10, record.rowsWritten)
        .bind(11, record.rowsSkipped)
        .bind(12, record.rowsNullWatermark)
        .bind(13, record.windowRows)
        .bind(14, textOrNull(record.watermarkBefore))
        .bind(15, textOrNull(record.watermarkAfter))
        .bind(16, textOrNull(record.windowLower))
        .bind(17, textOrNull(record.windowUpper))
        .bind(18, textOrNull(record.error))
        .bind(19, record.rowsUnorderableWatermark)
        .bind(20, record.rowsPending)
        .bind(21, record.rowsRolledBack)
        .bind(22, record.rowsFuture)
        .bind(23, record.sourceBehind ? 1 : 0)
        .bind(24, record.rowsDeleted)
        .bind(25, record.runner.isNull() ? QStringLiteral("") : record.runner)
        .bind(26, record.waiting.isNull() ? QStringLiteral("") : record.waiting);
}

QString tiebreakText(const QVariant &value) {
    return value.isNull() ? QString() : value.toString();
}

} // namespace tidemark
