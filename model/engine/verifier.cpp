// SPDX-License-Identifier: MIT
#include "model/engine/verifier.h"

#include "model/common/error.h"
#include "model/common/timestamp.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/rowchecksum.h"
#include "model/engine/rowvalues.h"
#include "model/engine/valuehash.h"
#include "model/storage/workspace.h"

#include <QHash>
#include <QLocale>
#include <QSet>
#include <algorithm>
#include <vector>

namespace tidemark {

// "1 row", "40,000 rows": the figures people read in a verify report.
QString describeRowCount(qint64 rows) {
    static const QLocale english(QLocale::English, QLocale::UnitedStates);
    return english.toString(rows) + (rows == 1 ? QStringLiteral(" row") : QStringLiteral(" rows"));
}

namespace {

constexpr int kBatchRows = 10000;
constexpr int kExamples = 5;

// Where a row's watermark stands against the table's position.
enum class Place { Inside, Past, NullWatermark, Unorderable };

struct Entry {
    quint64 key;
    quint64 row;
    bool pastWatermark; // target rows only: not at or below the watermark
    bool operator<(const Entry &other) const { return key != other.key ? key < other.key : row < other.row; }
};

// One side of the comparison: (key hash, row hash) per row compared, plus what was left out.
struct Side {
    std::vector<Entry> entries;
    // Source rows no window has copied (past the watermark, or not orderable): their keys, or
    // without a key their row hashes. Target rows with these keys are left out too.
    QSet<quint64> leftOut;
    qint64 nullWatermarks = 0;
    qint64 unorderable = 0;
};

// A row at fault, by its key hash (or row hash without a key), until describe() names it.
struct NotedFault {
    quint64 id;
    VerifyFault::Kind kind;
    bool pastWatermark;
};

// What describe() finds of one noted row on one side.
struct SeenRow {
    QString key;
    std::vector<quint64> columnHashes;
};

class TableVerifier {
public:
    TableVerifier(Workspace &workspace, const TableSpec &spec, VerifyMethod method,
                  const std::atomic_bool *cancel)
        : m_workspace(workspace)
        , m_spec(spec)
        , m_method(method)
        , m_cancel(cancel) {}

    VerifyResult run() {
        VerifyResult result;
        result.tableId = m_spec.id;
        result.source = m_spec.sourceDisplay();
        result.target = m_spec.targetDisplay();

        const ConnectionSpec sourceConnection = m_workspace.requireConnection(m_spec.sourceConnection);
        const ConnectionSpec targetConnection = m_workspace.requireConnection(m_spec.targetConnection);
        m_source = openConnector(sourceConnection);
        m_source->setZeroDates(m_spec.zeroDates);
        m_target = openConnector(targetConnection);
        const TableRef sourceTable = m_source->parseTableName(m_spec.sourceTable);
        const TableRef targetTable = m_target->parseTableName(m_spec.targetTable);
        const TableSchema sourceSchema = m_source->describeTable(sourceTable);
        m_columns = sourceSchema.columnNames();
        m_keys = m_spec.keyColumns.isEmpty() ? sourceSchema.primaryKey() : m_spec.keyColumns;
        for (const QString &key : m_keys)
            m_keyIndexes.push_back(indexOf(key));
        for (int i = 0; i < int(m_columns.size()); ++i)
            m_allIndexes.push_back(i);
        const bool filter = !m_spec.watermarkColumn.isEmpty() && m_spec.mode != WriteMode::Overwrite;
        m_watermarkIndex = filter ? indexOf(m_spec.watermarkColumn) : -1;
        m_tiebreakIndex = m_spec.tiebreakColumn.isEmpty() ? -1 : indexOf(m_spec.tiebreakColumn);
        const auto state = m_target->readState(m_workspace.workspaceId(), m_spec.id);
        m_position = state ? state->position : Position(m_spec.lastWatermark, m_spec.lastTiebreak);

        if (!m_target->tableExists(targetTable)) {
            m_compare.assign(m_columns.size(), ValueCompare::Exact);
            Side source = read(*m_source, sourceTable, nullptr);
            result.sourceRows = qint64(source.entries.size());
            result.missingInTarget = result.sourceRows;
            result.nullWatermarkRows = source.nullWatermarks;
            result.unorderableWatermarkRows = source.unorderable;
            result.matches = result.sourceRows == 0;
            if (!result.matches)
                result.difference = QStringLiteral("target table '%1' does not exist").arg(result.target);
            return result;
        }
        const TableSchema targetSchema = m_target->describeTable(targetTable);
        const bool sameEngine = sourceConnection.kind == targetConnection.kind;
        for (const ColumnInfo &column : sourceSchema.columns) {
            const ColumnInfo *targetColumn = targetSchema.column(column.name);
            if (!targetColumn)
                throw Error(QStringLiteral("table %1: column '%2' is missing in target '%3'")
                                .arg(m_spec.id)
                                .arg(column.name, result.target));
            m_compare.push_back(valueCompare(column, *targetColumn, sameEngine));
        }

        if (!(m_method == VerifyMethod::Ranges &&
              compareByRanges(sourceTable, targetTable, sourceSchema, targetSchema, result))) {
            m_buckets.clear();
            Side source = read(*m_source, sourceTable, nullptr);
            Side target = read(*m_target, targetTable, &source.leftOut);
            result.sourceRows = qint64(source.entries.size());
            result.targetRows = qint64(target.entries.size());
            result.nullWatermarkRows = source.nullWatermarks;
            result.unorderableWatermarkRows = source.unorderable;
            compare(source, target, result);
        }
        result.matches = result.missingInTarget == 0 && result.extraInTarget == 0 && result.differing == 0;
        if (!result.matches)
            describe(result, sourceTable, targetTable);
        return result;
    }

private:
    void throwIfCancelled() const {
        if (m_cancel && m_cancel->load())
            throw Error(QStringLiteral("table %1: verify cancelled").arg(m_spec.id));
    }

    int indexOf(const QString &column) const { return int(m_columns.indexOf(column)); }
    bool keyed() const { return !m_keyIndexes.empty(); }

    quint64 hashColumns(const RowBatch &batch, int row, const std::vector<int> &columns) const {
        quint64 hash = 0x9e3779b97f4a7c15ULL;
        for (int column : columns)
            hash = hashCell(batch, batch.cell(row, column), m_compare[std::size_t(column)], hash);
        return hash;
    }

    quint64 hashRow(const RowBatch &batch, int row) const { return hashColumns(batch, row, m_allIndexes); }

    // The source follows the window's own rule (watermark, then tiebreak). The target may spell a
    // timestamp differently from the position, so it compares the watermark alone, as an instant.
    Place place(const RowBatch &batch, int row, bool isSource) const {
        const Cell &cell = batch.cell(row, m_watermarkIndex);
        Watermark watermark;
        switch (cell.type) {
        case CellType::Null:
            return Place::NullWatermark;
        case CellType::Integer:
            watermark = Watermark::integer(cell.integer);
            break;
        case CellType::Text: {
            const std::string_view bytes = batch.bytes(cell);
            const QString text = QString::fromUtf8(bytes.data(), qsizetype(bytes.size()));
            if (auto parsed = Watermark::timestamp(text)) {
                watermark = *parsed;
                break;
            }
            // ±infinity, NaN, BC, years past 9999, text that is no timestamp: the copy counts them
            // and copies none of them (no window can order them), so verify leaves them out too.
            return Place::Unorderable;
        }
        case CellType::Real: // NaN, ±infinity: never a watermark type
        case CellType::Blob:
            return Place::Unorderable;
        }
        if (m_position.isNull())
            return Place::Past;
        const Watermark &limit = m_position.watermark();
        if (watermark.type() != limit.type())
            return Place::Unorderable;
        if (!isSource) {
            const bool past = watermark.type() == WatermarkType::Integer
                                  ? watermark.toInteger() > limit.toInteger()
                                  : watermark.micros() > limit.micros();
            return past ? Place::Past : Place::Inside;
        }
        const bool byTiebreak = m_tiebreakIndex >= 0 && m_position.hasTiebreak();
        const Position position(watermark, byTiebreak ? cellToVariant(batch, batch.cell(row, m_tiebreakIndex))
                                                      : QVariant());
        return position > m_position ? Place::Past : Place::Inside;
    }

    // Every row of a side, or with ranges only those of the buckets that differ.
    std::unique_ptr<SourceCursor> openRows(SourceReader &connector, const TableRef &table) {
        if (m_buckets.isEmpty())
            return connector.openScan(table, m_columns, m_keys);
        const bool isSource = &connector == m_source.get();
        return connector.openBucketScan(isSource ? m_sourceQuery : m_targetQuery, m_buckets);
    }

    ChecksumQuery checksumQuery(const TableRef &table, const TableSchema &schema) const {
        ChecksumQuery query;
        query.table = table;
        for (int i = 0; i < int(m_columns.size()); ++i) {
            query.columns << *schema.column(m_columns[i]);
            query.compare << checksumCompare(m_compare[std::size_t(i)]);
        }
        query.keyIndexes = QList<int>(m_keyIndexes.begin(), m_keyIndexes.end());
        return query;
    }

    // Each database sums the rows of each bucket of keys (model/connectors/rowchecksum.h); only
    // the buckets whose sums differ are read and compared row by row, and the rows of the others,
    // equal on both sides, are counted from whole-table figures. Keyed tables only (a row's
    // bucket is its key's). False when an engine cannot sum its rows, or when so many buckets
    // differ that reading them one by one would cost more than reading every row: the caller
    // then compares every row. Nothing in `result` changes until it returns true.
    bool compareByRanges(const TableRef &sourceTable, const TableRef &targetTable,
                         const TableSchema &sourceSchema, const TableSchema &targetSchema,
                         VerifyResult &result) {
        if (!keyed())
            return false;
        m_sourceQuery = checksumQuery(sourceTable, sourceSchema);
        m_targetQuery = checksumQuery(targetTable, targetSchema);
        QHash<int, BucketSum> sourceSums, targetSums;
        {
            auto sourceCursor = m_source->openChecksums(m_sourceQuery);
            if (!sourceCursor)
                return false;
            sourceSums = readBucketSums(*sourceCursor, [this] { throwIfCancelled(); });
        }
        {
            auto targetCursor = m_target->openChecksums(m_targetQuery);
            if (!targetCursor)
                return false;
            targetSums = readBucketSums(*targetCursor, [this] { throwIfCancelled(); });
        }
        QList<int> differing;
        qint64 sourceTotal = 0;
        for (auto it = sourceSums.cbegin(); it != sourceSums.cend(); ++it) {
            sourceTotal += it->rows;
            if (targetSums.value(it.key()) != *it)
                differing << it.key();
        }
        for (auto it = targetSums.cbegin(); it != targetSums.cend(); ++it) {
            if (!sourceSums.contains(it.key()))
                differing << it.key();
        }
        const qsizetype buckets = std::max(sourceSums.size(), targetSums.size());
        if (tooManyDifferingBuckets(differing.size(), buckets))
            return false;

        qint64 nulls = 0, unorderable = 0, past = 0;
        if (m_watermarkIndex >= 0) {
            try {
                const WatermarkProbe probe =
                    m_source->probeWatermark(sourceTable, m_spec.watermarkColumn, m_spec.watermarkType,
                                             std::optional<Watermark>(m_position.watermark()));
                nulls = probe.nullCount;
                unorderable = probe.unorderableCount;
                if (m_position.isNull()) {
                    past = sourceTotal - nulls - unorderable;
                } else {
                    // The copy's own window: the rows it has not copied yet.
                    WindowQuery window;
                    window.table = sourceTable;
                    window.columns = m_columns;
                    window.watermarkColumn = m_spec.watermarkColumn;
                    window.watermarkType = m_spec.watermarkType;
                    window.tiebreakColumn = m_spec.tiebreakColumn;
                    window.lower = m_tiebreakIndex >= 0 ? m_position : Position(m_position.watermark());
                    past = m_source->countWindow(window);
                }
            } catch (const Error &) {
                return false; // e.g. a column whose spellings mix: every row is read and placed one by one
            }
        }
        const qint64 inside = sourceTotal - nulls - unorderable - past;

        m_buckets = differing;
        Side source, target;
        if (!differing.isEmpty()) {
            source = read(*m_source, sourceTable, nullptr);
            target = read(*m_target, targetTable, &source.leftOut);
        }
        // The equal buckets' rows inside the position, the same on both sides. Below zero the
        // source changed between two reads: the figures would not add up, so read every row.
        const qint64 insideElsewhere = inside - qint64(source.entries.size());
        if (insideElsewhere < 0 || source.nullWatermarks > nulls || source.unorderable > unorderable) {
            m_buckets.clear();
            return false;
        }
        result.sourceRows = inside;
        result.targetRows = qint64(target.entries.size()) + insideElsewhere;
        result.nullWatermarkRows = nulls;
        result.unorderableWatermarkRows = unorderable;
        result.comparedByRanges = true;
        result.differingRanges = int(differing.size());
        compare(source, target, result);
        return true;
    }

    // `leftOut` null: reading the source, which fills its own leftOut. Otherwise the target, whose
    // rows with a left-out key (or, without a key, past the watermark and left out in the source
    // too) are not compared: their source version is not copied yet.
    Side read(SourceReader &connector, const TableRef &table, const QSet<quint64> *leftOut) {
        Side side;
        const bool isSource = leftOut == nullptr;
        auto cursor = openRows(connector, table);
        RowBatch batch(int(m_columns.size()));
        while (cursor->fetch(batch, kBatchRows)) {
            throwIfCancelled();
            for (int row = 0; row < batch.rowCount(); ++row) {
                const quint64 key = keyed() ? hashColumns(batch, row, m_keyIndexes) : 0;
                if (!isSource && keyed() && leftOut->contains(key))
                    continue;
                const quint64 rowHash = hashRow(batch, row);
                const Place where = m_watermarkIndex >= 0 ? place(batch, row, isSource) : Place::Inside;
                if (isSource) {
                    if (where == Place::Inside) {
                        side.entries.push_back({key, rowHash, false});
                        continue;
                    }
                    side.nullWatermarks += where == Place::NullWatermark;
                    side.unorderable += where == Place::Unorderable;
                    side.leftOut.insert(keyed() ? key : rowHash);
                    continue;
                }
                const bool past = where != Place::Inside;
                if (!keyed() && past && leftOut->contains(rowHash))
                    continue;
                side.entries.push_back({key, rowHash, past});
            }
        }
        std::sort(side.entries.begin(), side.entries.end());
        return side;
    }

    // Keyed: a merge-join on the key (equal keys with different row hashes differ). Without a
    // key: a multiset comparison of row hashes.
    void compare(const Side &source, const Side &target, VerifyResult &result) {
        const bool byKey = keyed();
        const auto before = [byKey](const Entry &a, const Entry &b) {
            return byKey ? a.key < b.key : a.row < b.row;
        };
        const auto id = [byKey](const Entry &entry) {
            return byKey ? entry.key : entry.row;
        };
        auto s = source.entries.begin();
        auto t = target.entries.begin();
        while (s != source.entries.end() || t != target.entries.end()) {
            if (t == target.entries.end() || (s != source.entries.end() && before(*s, *t))) {
                ++result.missingInTarget;
                note(id(*s++), VerifyFault::Kind::MissingInTarget, false);
            } else if (s == source.entries.end() || before(*t, *s)) {
                ++result.extraInTarget;
                result.extraPastWatermark += t->pastWatermark;
                note(id(*t), VerifyFault::Kind::ExtraInTarget, t->pastWatermark);
                ++t;
            } else {
                if (s->row != t->row) {
                    ++result.differing;
                    note(id(*s), VerifyFault::Kind::Differs, false);
                }
                ++s;
                ++t;
            }
        }
    }

    void note(quint64 id, VerifyFault::Kind kind, bool pastWatermark) {
        if (m_noted.size() < kExamples)
            m_noted.push_back({id, kind, pastWatermark});
    }

    // A second pass names the rows at fault and the columns that differ, so the report is
    // actionable.
    void describe(VerifyResult &result, const TableRef &sourceTable, const TableRef &targetTable) {
        QStringList parts;
        if (result.missingInTarget)
            parts << describeRowCount(result.missingInTarget) + QStringLiteral(" missing in the target");
        if (result.extraInTarget) {
            QString extra =
                describeRowCount(result.extraInTarget) + QStringLiteral(" in the target not in the source");
            if (result.extraPastWatermark)
                extra += QStringLiteral(" (%1 past the watermark)").arg(result.extraPastWatermark);
            parts << extra;
        }
        if (result.differing)
            parts << describeRowCount(result.differing) +
                         (result.differing == 1 ? QStringLiteral(" differs") : QStringLiteral(" differ"));
        result.difference =
            QStringLiteral("table %1 (%2 -> %3): %4 (source %5, target %6, up to watermark %7)")
                .arg(m_spec.id)
                .arg(result.source, result.target, parts.join(QStringLiteral(", ")),
                     describeRowCount(result.sourceRows), describeRowCount(result.targetRows))
                .arg(m_position.isNull() ? QStringLiteral("none") : m_position.watermark().display());

        QSet<quint64> wanted;
        for (const NotedFault &fault : m_noted)
            wanted.insert(fault.id);
        const QHash<quint64, SeenRow> inSource = find(*m_source, sourceTable, wanted);
        const QHash<quint64, SeenRow> inTarget = find(*m_target, targetTable, wanted);
        for (const NotedFault &noted : m_noted) {
            VerifyFault fault;
            fault.kind = noted.kind;
            fault.pastWatermark = noted.pastWatermark;
            const auto sourceIt = inSource.constFind(noted.id);
            const auto targetIt = inTarget.constFind(noted.id);
            const SeenRow *sourceRow = sourceIt == inSource.cend() ? nullptr : &*sourceIt;
            const SeenRow *targetRow = targetIt == inTarget.cend() ? nullptr : &*targetIt;
            fault.key = sourceRow ? sourceRow->key : targetRow ? targetRow->key : QString();
            if (noted.kind == VerifyFault::Kind::Differs && sourceRow && targetRow) {
                for (int column = 0; column < int(m_columns.size()); ++column) {
                    if (sourceRow->columnHashes[std::size_t(column)] !=
                        targetRow->columnHashes[std::size_t(column)])
                        fault.columns << m_columns[column];
                }
            }
            if (!result.examples.contains(fault.key))
                result.examples << fault.key;
            result.faults << fault;
        }
    }

    // The first row on one side with each wanted id: its key (the whole row without a key) and
    // each column's hash.
    QHash<quint64, SeenRow> find(SourceReader &connector, const TableRef &table,
                                 const QSet<quint64> &wanted) {
        QHash<quint64, SeenRow> seen;
        auto cursor = openRows(connector, table);
        RowBatch batch(int(m_columns.size()));
        while (seen.size() < wanted.size() && cursor->fetch(batch, kBatchRows)) {
            throwIfCancelled();
            for (int row = 0; row < batch.rowCount(); ++row) {
                const quint64 id = keyed() ? hashColumns(batch, row, m_keyIndexes) : hashRow(batch, row);
                if (!wanted.contains(id) || seen.contains(id))
                    continue;
                SeenRow &found = seen[id];
                found.key = rowToJson(batch, row, m_columns, keyed() ? m_keys : m_columns);
                for (int column = 0; column < batch.columnCount(); ++column)
                    found.columnHashes.push_back(
                        hashCell(batch, batch.cell(row, column), m_compare[std::size_t(column)], 0));
            }
        }
        return seen;
    }

    Workspace &m_workspace;
    TableSpec m_spec;
    std::unique_ptr<SourceReader> m_source;
    std::unique_ptr<Connector> m_target; // read like a source, and its state row
    QStringList m_columns;
    QStringList m_keys;
    std::vector<int> m_keyIndexes;
    std::vector<int> m_allIndexes;
    std::vector<ValueCompare> m_compare; // per column
    int m_watermarkIndex = -1;           // -1: every row is compared (no watermark, or overwrite)
    int m_tiebreakIndex = -1;
    Position m_position;
    std::vector<NotedFault> m_noted;
    VerifyMethod m_method;
    ChecksumQuery m_sourceQuery; // ranges: what each side sums and reads
    ChecksumQuery m_targetQuery;
    QList<int> m_buckets; // ranges: the buckets read row by row; empty: every row is read
    const std::atomic_bool *m_cancel;
};

} // namespace

QString verifyFaultKindName(VerifyFault::Kind kind) {
    switch (kind) {
    case VerifyFault::Kind::MissingInTarget:
        return QStringLiteral("missing_in_target");
    case VerifyFault::Kind::ExtraInTarget:
        return QStringLiteral("extra_in_target");
    case VerifyFault::Kind::Differs:
        break;
    }
    return QStringLiteral("differs");
}

QString verifyFaultText(const VerifyFault &fault) {
    switch (fault.kind) {
    case VerifyFault::Kind::MissingInTarget:
        return fault.key + QStringLiteral(" missing in the target");
    case VerifyFault::Kind::ExtraInTarget:
        return fault.key + (fault.pastWatermark ? QStringLiteral(" only in the target, past the watermark")
                                                : QStringLiteral(" only in the target"));
    case VerifyFault::Kind::Differs:
        break;
    }
    return fault.key + QStringLiteral(" differs in ") + fault.columns.join(QStringLiteral(", "));
}

VerifyResult verifyTable(Workspace &workspace, qint64 tableId, const std::atomic_bool *cancel,
                         VerifyMethod method) {
    const auto spec = workspace.table(tableId);
    if (!spec)
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(tableId));
    return TableVerifier(workspace, *spec, method, cancel).run();
}

} // namespace tidemark
