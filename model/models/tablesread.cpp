// SPDX-License-Identifier: MIT
#include "model/models/tablesread.h"

#include <algorithm>
#include <utility>

namespace tidemark {

bool sameTableSpec(const TableSpec &a, const TableSpec &b) {
    return a.id == b.id && a.sourceConnection == b.sourceConnection && a.sourceTable == b.sourceTable &&
           a.targetConnection == b.targetConnection && a.targetTable == b.targetTable &&
           a.watermarkColumn == b.watermarkColumn && a.watermarkType == b.watermarkType &&
           a.tiebreakColumn == b.tiebreakColumn && a.keyColumns == b.keyColumns && a.mode == b.mode &&
           a.lookback == b.lookback && a.initialWatermark == b.initialWatermark &&
           a.lastWatermark == b.lastWatermark && a.lastTiebreak == b.lastTiebreak && a.active == b.active &&
           a.maxSkipped == b.maxSkipped && a.expectRows == b.expectRows &&
           a.commitPerBatch == b.commitPerBatch && a.batchSize == b.batchSize &&
           a.addNewColumns == b.addNewColumns;
}

TablesRead TablesReadSequence::next(QList<TableSpec> tables, QHash<qint64, QString> lastStatuses) {
    const auto byId = [](const TableSpec &a, const TableSpec &b) {
        return a.id < b.id;
    };
    if (!std::is_sorted(tables.cbegin(), tables.cend(), byId))
        std::sort(tables.begin(), tables.end(), byId);
    TablesRead read{std::move(tables), std::move(lastStatuses), m_previous.number + 1, {}, m_previous.number};
    // Both in id order: walked together.
    const QList<TableSpec> &before = m_previous.tables;
    const QList<TableSpec> &after = read.tables;
    qsizetype b = 0;
    qsizetype a = 0;
    while (b < before.size() || a < after.size()) {
        if (a == after.size() || (b < before.size() && before.at(b).id < after.at(a).id)) {
            read.changedIds << before.at(b++).id;
        } else if (b == before.size() || after.at(a).id < before.at(b).id) {
            read.changedIds << after.at(a++).id;
        } else {
            const qint64 id = after.at(a).id;
            if (!sameTableSpec(before.at(b), after.at(a)) ||
                m_previous.lastStatuses.value(id) != read.lastStatuses.value(id))
                read.changedIds << id;
            ++a;
            ++b;
        }
    }
    m_previous = read;
    return read;
}

void MissedTablesReads::miss(const TablesRead &read) {
    if (!m_any)
        m_since = read.since;
    m_any = true;
    m_changedIds += read.changedIds;
}

TablesRead MissedTablesReads::fold(TablesRead read) {
    if (!m_any)
        return read;
    read.changedIds += std::exchange(m_changedIds, {});
    std::sort(read.changedIds.begin(), read.changedIds.end());
    read.changedIds.erase(std::unique(read.changedIds.begin(), read.changedIds.end()), read.changedIds.end());
    read.since = m_since;
    m_any = false;
    return read;
}

} // namespace tidemark
