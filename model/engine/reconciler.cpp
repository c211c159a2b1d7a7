// SPDX-License-Identifier: MIT
#include "model/engine/reconciler.h"

#include "model/common/duration.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/rowchecksum.h"
#include "model/engine/faultpoint.h"
#include "model/engine/rowvalues.h"
#include "model/engine/valuehash.h"
#include "model/engine/verifier.h"
#include "model/schedule/cronexpression.h"
#include "model/storage/workspace.h"

#include <QHash>
#include <QSet>
#include <QTimeZone>
#include <optional>

namespace tidemark {
namespace {

constexpr int kBatchRows = 10000;
constexpr int kSampleKeys = 5;

// A watermark as a number that orders like it: an integer, or a timestamp's microseconds.
std::optional<qint64> orderOf(const Watermark &watermark) {
    if (watermark.isNull())
        return std::nullopt;
    return watermark.type() == WatermarkType::Integer ? watermark.toInteger() : watermark.micros();
}

// The same of a target cell; nullopt for NULL or what no window orders (never removed).
std::optional<qint64> orderOf(const RowBatch &batch, const Cell &cell) {
    if (cell.type == CellType::Integer)
        return cell.integer;
    if (cell.type != CellType::Text)
        return std::nullopt;
    const std::string_view bytes = batch.bytes(cell);
    const auto parsed = Watermark::timestamp(QString::fromUtf8(bytes.data(), qsizetype(bytes.size())));
    return parsed ? std::optional<qint64>(parsed->micros()) : std::nullopt;
}

Watermark fromDisplay(const QString &text, WatermarkType type) {
    if (text.isEmpty())
        return Watermark();
    if (type == WatermarkType::Integer)
        return Watermark::integer(text.toLongLong());
    return Watermark::timestamp(text).value_or(Watermark());
}

class TableReconciler {
public:
    TableReconciler(Workspace &workspace, const TableSpec &spec, const std::atomic_bool *cancel)
        : m_workspace(workspace)
        , m_spec(spec)
        , m_cancel(cancel) {}

    ReconcileResult run(bool apply, const QDateTime &now, qint64 runId) {
        m_result.tableId = m_spec.id;
        m_result.source = m_spec.sourceDisplay();
        m_result.target = m_spec.targetDisplay();
        m_result.action = m_spec.deletes.actionText();
        if (apply && m_spec.deletes.isIgnore())
            throw ValidationError(
                QStringLiteral("table %1 (%2): its deletes are ignored; choose what happens to "
                               "them first (table edit %1 --deletes remove|mark:COLUMN)")
                    .arg(m_spec.id)
                    .arg(m_result.source));
        if (m_spec.mode == WriteMode::Overwrite)
            throw ValidationError(
                QStringLiteral("table %1 (%2) is copied whole (overwrite): the target loses "
                               "what the source deleted at every run already")
                    .arg(m_spec.id)
                    .arg(m_result.source));
        open();
        const QString what = QStringLiteral("table %1 (%2)").arg(m_spec.id).arg(m_result.source);
        const auto state = m_target->readState(m_workspace.workspaceId(), m_spec.id);
        m_position = state ? state->position : Position(m_spec.lastWatermark, m_spec.lastTiebreak);
        m_graceBound = graceBound(now);
        compareKeys();
        m_result.toRemove = m_result.gone - m_result.withinGrace;
        if (!m_sourceReadShort.isEmpty()) {
            m_result.refusedBy = QStringLiteral("source-read");
            m_result.refusal =
                QStringLiteral("%1: the source's keys came back short (%2: it stopped early or rows "
                               "went while it was read), so nothing is deleted; the next check "
                               "reads it again")
                    .arg(what, m_sourceReadShort);
        } else if (m_result.sourceRows == 0 && m_result.targetRows > 0) {
            m_result.refusedBy = QStringLiteral("empty-source");
            m_result.refusal = QStringLiteral("%1: the source returned no rows at all, so nothing is deleted "
                                              "(an emptied or wrongly restored source looks like this)")
                                   .arg(what);
        } else if (double(m_result.toRemove) * 100 >
                   m_spec.deletes.maxPercent * double(m_result.targetRows)) {
            m_result.refusedBy = QStringLiteral("max-delete-ratio");
            m_result.refusal =
                QStringLiteral("%1: %2 of the target's %3 (%4%) would go, above --max-delete-ratio %5%, so "
                               "nothing is deleted (check the source; to allow it: table edit %6 "
                               "--max-delete-ratio PERCENT)")
                    .arg(what, describeRowCount(m_result.toRemove), describeRowCount(m_result.targetRows))
                    .arg(double(m_result.toRemove) * 100 / double(std::max<qint64>(m_result.targetRows, 1)),
                         0, 'g', 3)
                    .arg(m_spec.deletes.maxPercent)
                    .arg(m_spec.id);
        }
        if (apply && m_result.refusedBy.isEmpty() && !m_doomed.isEmpty())
            remove(state ? std::optional<Position>(state->position) : std::nullopt, now, runId);
        return m_result;
    }

private:
    void throwIfCancelled() const {
        if (m_cancel && m_cancel->load())
            throw Error(QStringLiteral("table %1: reconcile cancelled").arg(m_spec.id));
    }

    void open() {
        const ConnectionSpec sourceConnection = m_workspace.requireConnection(m_spec.sourceConnection);
        const ConnectionSpec targetConnection = m_workspace.requireConnection(m_spec.targetConnection);
        m_source = openConnector(sourceConnection);
        m_source->setZeroDates(m_spec.zeroDates);
        m_target = openConnector(targetConnection);
        m_sourceTable = m_source->parseTableName(m_spec.sourceTable);
        m_targetTable = m_target->parseTableName(m_spec.targetTable);
        const TableSchema sourceSchema = m_source->describeTable(m_sourceTable);
        m_keys = m_spec.keyColumns.isEmpty() ? sourceSchema.primaryKey() : m_spec.keyColumns;
        if (m_keys.isEmpty())
            throw ValidationError(
                QStringLiteral("table %1 (%2) has no key: reconcile tells a deleted row by its "
                               "key, and the source has no primary key (name one: table edit "
                               "%1 --key COL[,COL...])")
                    .arg(m_spec.id)
                    .arg(m_result.source));
        if (!m_target->tableExists(m_targetTable))
            throw ValidationError(
                QStringLiteral("table %1: target table '%2' does not exist (nothing was copied yet)")
                    .arg(m_spec.id)
                    .arg(m_result.target));
        const TableSchema targetSchema = m_target->describeTable(m_targetTable);
        const QString &mark = m_spec.deletes.markColumn;
        if (!mark.isEmpty() && !targetSchema.column(mark))
            throw ValidationError(
                QStringLiteral("table %1: --deletes mark:%2: target '%3' has no column '%2' (add "
                               "a nullable timestamp column for it)")
                    .arg(m_spec.id)
                    .arg(mark, m_result.target));
        const bool sameEngine = sourceConnection.kind == targetConnection.kind;
        for (const QString &key : std::as_const(m_keys)) {
            const ColumnInfo *source = sourceSchema.column(key);
            const ColumnInfo *target = targetSchema.column(key);
            if (!source || !target)
                throw ValidationError(QStringLiteral("table %1: key column '%2' is missing in %3")
                                          .arg(m_spec.id)
                                          .arg(key, source ? m_result.target : m_result.source));
            m_compare.push_back(valueCompare(*source, *target, sameEngine));
            m_sourceQuery.columns << *source;
            m_targetQuery.columns << *target;
            m_sourceQuery.compare << checksumCompare(m_compare.back());
            m_targetQuery.compare << checksumCompare(m_compare.back());
            m_sourceQuery.keyIndexes << int(m_sourceQuery.keyIndexes.size());
        }
        m_sourceQuery.table = m_sourceTable;
        m_targetQuery.table = m_targetTable;
        m_targetQuery.keyIndexes = m_sourceQuery.keyIndexes;
        if (!targetSchema.column(m_spec.watermarkColumn))
            throw ValidationError(
                QStringLiteral("table %1: target '%2' has no column '%3': reconcile places each "
                               "row against the position by its watermark")
                    .arg(m_spec.id)
                    .arg(m_result.target, m_spec.watermarkColumn));
    }

    // --delete-grace, or by default one run interval: the longest between two firings of the
    // active schedules that run the table, else one hour.
    qint64 graceMs(const QDateTime &now) {
        if (!m_spec.deletes.grace.isEmpty())
            return m_spec.deletes.graceMs();
        qint64 interval = 0;
        for (const ScheduleSpec &schedule : m_workspace.schedules()) {
            if (!schedule.active || (!schedule.tableIds.isEmpty() && !schedule.tableIds.contains(m_spec.id)))
                continue;
            try {
                const CronExpression cron = CronExpression::parse(schedule.cron);
                const QTimeZone zone(schedule.timeZone.toUtf8());
                const QDateTime first = cron.nextAfter(now, zone);
                const QDateTime second = first.isValid() ? cron.nextAfter(first, zone) : QDateTime();
                if (second.isValid())
                    interval = std::max(interval, first.msecsTo(second));
            } catch (const Error &) {
                // a schedule that cannot fire gives no interval
            }
        }
        return interval > 0 ? interval : DeletePolicy::kDefaultGraceMs;
    }

    // Rows above the position the table had `grace` ago were copied within it: kept. nullopt:
    // the table has had no position that long, so every row was copied within it.
    std::optional<qint64> graceBound(const QDateTime &now) {
        const QDateTime cutoff = now.addMSecs(-graceMs(now));
        Watermark then = m_spec.initialWatermark;
        bool known = false;
        for (const WatermarkChange &change : m_workspace.watermarkChanges(m_spec.id)) {
            if (change.at > cutoff)
                break;
            then = fromDisplay(change.newValue, m_spec.watermarkType);
            known = true;
        }
        if (!known && then.isNull())
            return std::nullopt;
        return orderOf(then);
    }

    quint64 keyHash(const RowBatch &batch, int row) const {
        quint64 hash = 0x9e3779b97f4a7c15ULL;
        for (int column = 0; column < int(m_keys.size()); ++column)
            hash = hashCell(batch, batch.cell(row, column), m_compare[std::size_t(column)], hash);
        return hash;
    }

    static qint64 rowsOf(const QHash<int, BucketSum> &sums) {
        qint64 rows = 0;
        for (const BucketSum &bucket : sums)
            rows += bucket.rows;
        return rows;
    }

    // The buckets of keys whose sums differ; nullopt when an engine cannot sum or too many differ.
    std::optional<QList<int>> differingBuckets() {
        auto sourceCursor = m_source->openChecksums(m_sourceQuery);
        if (!sourceCursor)
            return std::nullopt;
        const QHash<int, BucketSum> sourceSums =
            readBucketSums(*sourceCursor, [this] { throwIfCancelled(); });
        sourceCursor.reset();
        auto targetCursor = m_target->openChecksums(m_targetQuery);
        if (!targetCursor)
            return std::nullopt;
        const QHash<int, BucketSum> targetSums =
            readBucketSums(*targetCursor, [this] { throwIfCancelled(); });
        QList<int> differing;
        for (auto it = targetSums.cbegin(); it != targetSums.cend(); ++it) {
            if (sourceSums.value(it.key()) != *it) {
                differing << it.key();
                m_sourceRowsToRead += sourceSums.value(it.key()).rows;
            }
        }
        const qsizetype buckets = std::max(sourceSums.size(), targetSums.size());
        if (tooManyDifferingBuckets(differing.size(), buckets))
            return std::nullopt;
        m_result.sourceRows = rowsOf(sourceSums);
        m_result.targetRows = rowsOf(targetSums);
        return differing;
    }

    // Only a target bucket can hold a row the source lost: buckets only the source has are new
    // rows, not deletes.
    void compareKeys() {
        const QStringList targetColumns = m_keys + QStringList{m_spec.watermarkColumn};
        std::unique_ptr<SourceCursor> sourceRows, targetRows;
        const std::optional<QList<int>> buckets = differingBuckets();
        faultPoint("reconcile.summed");
        if (buckets) {
            m_result.byRanges = true;
            m_result.rangesRead = int(buckets->size());
            if (buckets->isEmpty())
                return;
            sourceRows = m_source->openBucketScan(m_sourceQuery, *buckets);
            ChecksumQuery withWatermark = m_targetQuery;
            withWatermark.columns << *m_target->describeTable(m_targetTable).column(m_spec.watermarkColumn);
            targetRows = m_target->openBucketScan(withWatermark, *buckets);
        } else {
            sourceRows = m_source->openScan(m_sourceTable, m_keys, m_keys);
            targetRows = m_target->openScan(m_targetTable, targetColumns, m_keys);
        }
        QSet<quint64> sourceKeys;
        qint64 sourceRead = 0;
        RowBatch batch(int(m_keys.size()));
        while (sourceRows->fetch(batch, kBatchRows)) {
            throwIfCancelled();
            for (int row = 0; row < batch.rowCount(); ++row)
                sourceKeys.insert(keyHash(batch, row));
            sourceRead += batch.rowCount();
        }
        sourceRows.reset();
        if (!buckets)
            m_result.sourceRows = sourceRead;
        else if (sourceRead < m_sourceRowsToRead)
            m_sourceReadShort =
                QStringLiteral("%1 of the %2 source rows its sums counted in the buckets read")
                    .arg(sourceRead)
                    .arg(m_sourceRowsToRead);
        const std::optional<qint64> position = orderOf(m_position.watermark());
        RowBatch rows(int(targetColumns.size()));
        while (targetRows->fetch(rows, kBatchRows)) {
            throwIfCancelled();
            for (int row = 0; row < rows.rowCount(); ++row) {
                if (!buckets)
                    ++m_result.targetRows;
                if (sourceKeys.contains(keyHash(rows, row)))
                    continue;
                // At or below the position: what a copy put there. Past it, or unplaceable: not ours.
                const std::optional<qint64> at = orderOf(rows, rows.cell(row, int(m_keys.size())));
                if (!at || !position || *at > *position)
                    continue;
                ++m_result.gone;
                if (!m_graceBound || *at > *m_graceBound) {
                    ++m_result.withinGrace;
                    continue;
                }
                QVariantList key;
                for (int column = 0; column < int(m_keys.size()); ++column)
                    key << cellToVariant(rows, rows.cell(row, column));
                m_doomed << key;
                if (m_result.sampleKeys.size() < kSampleKeys)
                    m_result.sampleKeys << rowToJson(rows, row, targetColumns, m_keys);
            }
        }
    }

    void remove(const std::optional<Position> &expected, const QDateTime &now, qint64 runId) {
        const QString workspaceId = m_workspace.workspaceId();
        const std::optional<TargetState> state = m_target->beginStateWrite(workspaceId, m_spec.id);
        const auto moved = [&] {
            m_target->rollback();
            return Error(
                QStringLiteral("table %1 (%2): a copy moved its position while reconcile compared the "
                               "keys; nothing was deleted (run reconcile again)")
                    .arg(m_spec.id)
                    .arg(m_result.source));
        };
        if (!expected) {
            m_target->rollback();
            throw Error(
                QStringLiteral("table %1 (%2): target '%3' holds no state row for it yet, so nothing is "
                               "deleted (run the table once first)")
                    .arg(m_spec.id)
                    .arg(m_result.source, m_result.target));
        }
        if (!state || state->position != *expected)
            throw moved();
        try {
            m_result.removed =
                m_target->removeKeys(m_targetTable, m_keys, m_doomed, m_spec.deletes.markColumn, now.toUTC());
            faultPoint("reconcile.removed");
            TargetState next = *state;
            next.runId = runId;
            if (!m_target->compareAndSetState(state->position, next))
                throw moved();
            m_target->commit();
        } catch (...) {
            m_target->rollback();
            throw;
        }
        m_result.applied = true;
        logger("core.reconcile")
            ->info(
                "table {} ({}): {} {} target rows whose key left the source", m_spec.id, str(m_result.source),
                m_spec.deletes.action == DeletePolicy::Action::Mark ? "marked" : "removed", m_result.removed);
    }

    Workspace &m_workspace;
    TableSpec m_spec;
    const std::atomic_bool *m_cancel;
    std::unique_ptr<Connector> m_source;
    std::unique_ptr<Connector> m_target;
    TableRef m_sourceTable;
    TableRef m_targetTable;
    QStringList m_keys;
    std::vector<ValueCompare> m_compare; // per key column
    ChecksumQuery m_sourceQuery;         // the keys alone
    ChecksumQuery m_targetQuery;
    Position m_position;
    std::optional<qint64> m_graceBound;
    qint64 m_sourceRowsToRead = 0; // by the sums, in the buckets read
    QString m_sourceReadShort;     // why the source's keys cannot be trusted; empty when they can
    QList<QVariantList> m_doomed;
    ReconcileResult m_result;
};

} // namespace

ReconcileResult reconcileTable(Workspace &workspace, qint64 tableId, bool apply, const QDateTime &now,
                               qint64 runId, const std::atomic_bool *cancel) {
    const auto spec = workspace.table(tableId);
    if (!spec)
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(tableId));
    return TableReconciler(workspace, *spec, cancel).run(apply, now, runId);
}

QString reconcileText(const ReconcileResult &result) {
    QString text = QStringLiteral("table %1 (%2 -> %3): %4 of %5 gone from the source")
                       .arg(result.tableId)
                       .arg(result.source, result.target, describeRowCount(result.gone),
                            describeRowCount(result.targetRows));
    if (result.withinGrace > 0)
        text += QStringLiteral(" (%1 kept: copied within the delete grace)")
                    .arg(describeRowCount(result.withinGrace));
    if (!result.refusedBy.isEmpty())
        return text + QStringLiteral("; refused by %1: %2").arg(result.refusedBy, result.refusal);
    if (result.applied)
        return text + QStringLiteral("; %1 %2").arg(result.action.startsWith(QLatin1String("mark"))
                                                        ? QStringLiteral("marked")
                                                        : QStringLiteral("removed"),
                                                    describeRowCount(result.removed));
    if (result.toRemove == 0)
        return text;
    return text + QStringLiteral("; %1 to %2 (reconcile %3 --apply)")
                      .arg(describeRowCount(result.toRemove),
                           result.action == QLatin1String("ignore") ? QStringLiteral("remove or mark")
                           : result.action.startsWith(QLatin1String("mark")) ? QStringLiteral("mark")
                                                                             : QStringLiteral("remove"))
                      .arg(result.tableId);
}

} // namespace tidemark
