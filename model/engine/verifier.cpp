// SPDX-License-Identifier: MIT
#include "model/engine/verifier.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/engine/rowvalues.h"
#include "model/storage/workspace.h"

#include <QHash>
#include <QSet>
#include <algorithm>
#include <vector>

namespace tidemark {
namespace {

constexpr int kBatchRows = 10000;
constexpr int kExamples = 5;

quint64 hashCell(const RowBatch &batch, const Cell &cell, quint64 seed) {
    const auto type = static_cast<quint64>(cell.type);
    switch (cell.type) {
    case CellType::Null:
        return qHash(type, seed);
    case CellType::Integer:
        return qHash(qint64(cell.integer), qHash(type, seed));
    case CellType::Real:
        return qHash(cell.real, qHash(type, seed));
    case CellType::Text:
    case CellType::Blob: {
        const std::string_view bytes = batch.bytes(cell);
        return qHash(QByteArrayView(bytes.data(), qsizetype(bytes.size())), qHash(type, seed));
    }
    }
    return seed;
}

quint64 hashColumns(const RowBatch &batch, int row, const std::vector<int> &columns) {
    quint64 hash = 0x9e3779b97f4a7c15ULL;
    for (int column : columns)
        hash = hashCell(batch, batch.cell(row, column), hash);
    return hash;
}

struct Entry {
    quint64 key;
    quint64 row;
    bool operator<(const Entry &other) const { return key != other.key ? key < other.key : row < other.row; }
};

// One side of the comparison: (key hash, row hash) per row, plus keys left out.
struct Side {
    std::vector<Entry> entries;
    QSet<quint64> newerKeys; // keys whose source version is past the watermark
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

        m_source = openConnector(requireConnection(m_spec.sourceConnection));
        m_target = openConnector(requireConnection(m_spec.targetConnection));
        const TableRef sourceTable = m_source->parseTableName(m_spec.sourceTable);
        const TableRef targetTable = m_target->parseTableName(m_spec.targetTable);
        const TableSchema sourceSchema = m_source->describeTable(sourceTable);
        m_columns = sourceSchema.columnNames();
        m_keys = m_spec.keyColumns.isEmpty() ? sourceSchema.primaryKey() : m_spec.keyColumns;
        const auto state = m_target->readState(m_workspace.workspaceId(), m_spec.id);
        m_position = state ? state->position : Position(m_spec.lastWatermark, m_spec.lastTiebreak);

        if (!m_target->tableExists(targetTable)) {
            Side source = read(*m_source, sourceTable, true, nullptr);
            result.sourceRows = qint64(source.entries.size());
            result.missingInTarget = result.sourceRows;
            result.matches = result.sourceRows == 0;
            if (!result.matches)
                result.difference = QStringLiteral("target table '%1' does not exist").arg(result.target);
            return result;
        }
        const TableSchema targetSchema = m_target->describeTable(targetTable);
        for (const QString &column : m_columns) {
            if (!targetSchema.column(column))
                throw Error(QStringLiteral("table %1: column '%2' is missing in target '%3'")
                                .arg(m_spec.id)
                                .arg(column, result.target));
        }

        Side source = read(*m_source, sourceTable, true, nullptr);
        Side target = read(*m_target, targetTable, false, &source.newerKeys);
        result.sourceRows = qint64(source.entries.size());
        result.targetRows = qint64(target.entries.size());
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

    bool pastWatermark(const RowBatch &batch, int row, int watermarkIndex, int tiebreakIndex) const {
        const Cell &cell = batch.cell(row, watermarkIndex);
        if (cell.type == CellType::Null)
            return true; // never selectable, so never copied
        // Like the window: the tiebreak counts only when the position has one.
        const bool byTiebreak = tiebreakIndex >= 0 && m_position.hasTiebreak();
        return Position(watermarkFromCell(batch, cell),
                        byTiebreak ? cellToVariant(batch, batch.cell(row, tiebreakIndex)) : QVariant()) >
               m_position;
    }

    Side read(SourceReader &connector, const TableRef &table, bool isSource,
              const QSet<quint64> *excludedKeys) {
        Side side;
        const bool filter = !m_spec.watermarkColumn.isEmpty() && m_spec.mode != WriteMode::Overwrite;
        const auto indexOf = [&](const QString &column) {
            return int(m_columns.indexOf(column));
        };
        const int watermarkIndex = filter ? indexOf(m_spec.watermarkColumn) : -1;
        const int tiebreakIndex = m_spec.tiebreakColumn.isEmpty() ? -1 : indexOf(m_spec.tiebreakColumn);
        std::vector<int> keyIndexes, allIndexes;
        for (const QString &key : m_keys)
            keyIndexes.push_back(indexOf(key));
        for (int i = 0; i < int(m_columns.size()); ++i)
            allIndexes.push_back(i);

        auto cursor = connector.openScan(table, m_columns, m_keys);
        RowBatch batch(int(m_columns.size()));
        while (cursor->fetch(batch, kBatchRows)) {
            throwIfCancelled();
            for (int row = 0; row < batch.rowCount(); ++row) {
                const quint64 key = keyIndexes.empty() ? 0 : hashColumns(batch, row, keyIndexes);
                if (excludedKeys && !keyIndexes.empty() && excludedKeys->contains(key))
                    continue;
                if (watermarkIndex >= 0 && pastWatermark(batch, row, watermarkIndex, tiebreakIndex)) {
                    if (isSource && !keyIndexes.empty())
                        side.newerKeys.insert(key);
                    continue;
                }
                side.entries.push_back({key, hashColumns(batch, row, allIndexes)});
            }
        }
        std::sort(side.entries.begin(), side.entries.end());
        return side;
    }

    // Keyed: a merge-join on the key (equal keys with different row hashes differ). Without a
    // key: a multiset comparison of row hashes.
    void compare(const Side &source, const Side &target, VerifyResult &result) {
        const bool keyed = !m_keys.isEmpty();
        const auto before = [keyed](const Entry &a, const Entry &b) {
            return keyed ? a.key < b.key : a.row < b.row;
        };
        auto s = source.entries.begin();
        auto t = target.entries.begin();
        while (s != source.entries.end() || t != target.entries.end()) {
            if (t == target.entries.end() || (s != source.entries.end() && before(*s, *t))) {
                ++result.missingInTarget;
                noteKey(s++->key);
            } else if (s == source.entries.end() || before(*t, *s)) {
                ++result.extraInTarget;
                noteKey(t++->key);
            } else {
                if (s->row != t->row) {
                    ++result.differing;
                    noteKey(s->key);
                }
                ++s;
                ++t;
            }
        }
    }

    void noteKey(quint64 key) {
        if (m_exampleKeys.size() < kExamples)
            m_exampleKeys.insert(key);
    }

    // A second pass names the first keys at fault, so the report is actionable.
    void describe(VerifyResult &result, const TableRef &sourceTable, const TableRef &targetTable) {
        QStringList parts;
        if (result.missingInTarget)
            parts << QStringLiteral("%1 rows missing in the target").arg(result.missingInTarget);
        if (result.extraInTarget)
            parts << QStringLiteral("%1 rows in the target not in the source").arg(result.extraInTarget);
        if (result.differing)
            parts << QStringLiteral("%1 rows differ").arg(result.differing);
        result.difference =
            QStringLiteral("table %1 (%2 -> %3): %4 (source %5 rows, target %6 rows, up to watermark %7)")
                .arg(m_spec.id)
                .arg(result.source, result.target, parts.join(QStringLiteral(", ")))
                .arg(result.sourceRows)
                .arg(result.targetRows)
                .arg(m_position.isNull() ? QStringLiteral("none") : m_position.watermark().display());
        if (m_keys.isEmpty())
            return;
        std::vector<int> keyIndexes;
        for (const QString &key : m_keys)
            keyIndexes.push_back(int(m_columns.indexOf(key)));
        QSet<QString> seen;
        for (SourceReader *connector : {m_source.get(), static_cast<SourceReader *>(m_target.get())}) {
            auto cursor = connector->openScan(connector == m_source.get() ? sourceTable : targetTable,
                                              m_columns, m_keys);
            RowBatch batch(int(m_columns.size()));
            while (cursor->fetch(batch, kBatchRows)) {
                throwIfCancelled();
                for (int row = 0; row < batch.rowCount(); ++row) {
                    if (m_exampleKeys.contains(hashColumns(batch, row, keyIndexes))) {
                        const QString key = rowToJson(batch, row, m_columns, m_keys);
                        if (!seen.contains(key)) {
                            seen.insert(key);
                            result.examples << key;
                        }
                    }
                }
            }
        }
    }

    Workspace &m_workspace;
    TableSpec m_spec;
    std::unique_ptr<SourceReader> m_source;
    std::unique_ptr<Connector> m_target; // read like a source, and its state row
    QStringList m_columns;
    QStringList m_keys;
    Position m_position;
    QSet<quint64> m_exampleKeys;
    const std::atomic_bool *m_cancel;
};

} // namespace

VerifyResult verifyTable(Workspace &workspace, qint64 tableId, const std::atomic_bool *cancel) {
    const auto spec = workspace.table(tableId);
    if (!spec)
        throw ValidationError(QStringLiteral("table %1 does not exist").arg(tableId));
    return TableVerifier(workspace, *spec, cancel).run();
}

} // namespace tidemark
