// SPDX-License-Identifier: MIT
#include "model/engine/verifier.h"

#include "model/common/error.h"
#include "model/common/timestamp.h"
#include "model/connectors/connectorfactory.h"
#include "model/engine/rowvalues.h"
#include "model/storage/workspace.h"

#include <QHash>
#include <QLocale>
#include <QSet>
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
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

// How one column's values are compared. Within one engine a value reads back as it was written,
// so cells compare exactly. Between engines a timestamp or a decimal is spelled by the engine
// that holds it, so those compare by meaning: the instant (to the microsecond, zone applied),
// the decimal as PostgreSQL's numeric spells it (scale included).
enum class ValueCompare { Exact, Instant, Decimal };

bool isTemporal(LogicalType type) {
    return type == LogicalType::Date || type == LogicalType::Timestamp || type == LogicalType::TimestampTz;
}

ValueCompare valueCompare(const ColumnInfo &source, const ColumnInfo &target, bool sameEngine) {
    if (sameEngine)
        return ValueCompare::Exact;
    if (isTemporal(source.logical) || isTemporal(target.logical))
        return ValueCompare::Instant;
    if (source.logical == LogicalType::Numeric || target.logical == LogicalType::Numeric)
        return ValueCompare::Decimal;
    return ValueCompare::Exact;
}

// Tags keep kinds apart: NULL, 0, 0.0, '' and x'' all differ.
enum class Tag : quint64 { Null = 1, Integer, Real, Text, Blob, Instant };

quint64 hashTag(Tag tag, quint64 seed) {
    return qHash(quint64(tag), seed);
}

quint64 hashBytes(Tag tag, std::string_view bytes, quint64 seed) {
    return qHash(QByteArrayView(bytes.data(), qsizetype(bytes.size())), hashTag(tag, seed));
}

// Bit for bit (qHash(double) makes -0.0 equal to 0.0), with one NaN as PostgreSQL has one.
quint64 hashReal(double value, quint64 seed) {
    if (std::isnan(value))
        value = std::numeric_limits<double>::quiet_NaN();
    return qHash(std::bit_cast<quint64>(value), hashTag(Tag::Real, seed));
}

// An integer or real as PostgreSQL's numeric spells it: plain digits, no exponent; a real by its
// shortest exact spelling, which is what the copy writes.
std::string decimalText(const Cell &cell) {
    char buffer[400]; // the fixed spelling of 5e-324 or DBL_MAX is under 330 characters
    if (cell.type == CellType::Integer)
        return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, cell.integer).ptr);
    if (std::isnan(cell.real))
        return "NaN";
    if (std::isinf(cell.real))
        return cell.real > 0 ? "Infinity" : "-Infinity";
    return std::string(
        buffer, std::to_chars(buffer, buffer + sizeof buffer, cell.real, std::chars_format::fixed).ptr);
}

quint64 hashCell(const RowBatch &batch, const Cell &cell, ValueCompare how, quint64 seed) {
    switch (cell.type) {
    case CellType::Null:
        return hashTag(Tag::Null, seed);
    case CellType::Integer:
        if (how == ValueCompare::Decimal)
            return hashBytes(Tag::Text, decimalText(cell), seed);
        return qHash(qint64(cell.integer), hashTag(Tag::Integer, seed));
    case CellType::Real:
        if (how == ValueCompare::Decimal)
            return hashBytes(Tag::Text, decimalText(cell), seed);
        return hashReal(cell.real, seed);
    case CellType::Text: {
        const std::string_view bytes = batch.bytes(cell);
        if (how == ValueCompare::Instant) {
            // What no parser orders (infinity, BC) compares as the text the engines both spell.
            if (const auto instant = parseTimestamp(QString::fromUtf8(bytes.data(), qsizetype(bytes.size()))))
                return qHash(instant->subMicros, qHash(instant->micros, hashTag(Tag::Instant, seed)));
        }
        return hashBytes(Tag::Text, bytes, seed);
    }
    case CellType::Blob:
        return hashBytes(Tag::Blob, batch.bytes(cell), seed);
    }
    return seed;
}

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
    TableVerifier(Workspace &workspace, const TableSpec &spec, const std::atomic_bool *cancel)
        : m_workspace(workspace)
        , m_spec(spec)
        , m_cancel(cancel) {}

    VerifyResult run() {
        VerifyResult result;
        result.tableId = m_spec.id;
        result.source = m_spec.sourceDisplay();
        result.target = m_spec.targetDisplay();

        const ConnectionSpec sourceConnection = requireConnection(m_spec.sourceConnection);
        const ConnectionSpec targetConnection = requireConnection(m_spec.targetConnection);
        m_source = openConnector(sourceConnection);
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

        Side source = read(*m_source, sourceTable, nullptr);
        Side target = read(*m_target, targetTable, &source.leftOut);
        result.sourceRows = qint64(source.entries.size());
        result.targetRows = qint64(target.entries.size());
        result.nullWatermarkRows = source.nullWatermarks;
        result.unorderableWatermarkRows = source.unorderable;
        compare(source, target, result);
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

    ConnectionSpec requireConnection(const QString &name) {
        const auto connection = m_workspace.connection(name);
        if (!connection)
            throw Error(QStringLiteral("connection '%1' does not exist").arg(name));
        return *connection;
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

    // `leftOut` null: reading the source, which fills its own leftOut. Otherwise the target, whose
    // rows with a left-out key (or, without a key, past the watermark and left out in the source
    // too) are not compared: their source version is not copied yet.
    Side read(SourceReader &connector, const TableRef &table, const QSet<quint64> *leftOut) {
        Side side;
        const bool isSource = leftOut == nullptr;
        auto cursor = connector.openScan(table, m_columns, m_keys);
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
        auto cursor = connector.openScan(table, m_columns, m_keys);
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

VerifyResult verifyTable(Workspace &workspace, qint64 tableId, const std::atomic_bool *cancel) {
    const auto spec = workspace.table(tableId);
    if (!spec)
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(tableId));
    return TableVerifier(workspace, *spec, cancel).run();
}

} // namespace tidemark
