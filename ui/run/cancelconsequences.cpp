// SPDX-License-Identifier: MIT
#include "ui/run/cancelconsequences.h"

namespace tidemark {

namespace {

// Long runs name their first few tables only: the box must fit on the screen.
constexpr int kNamedTables = 4;

QString names(const QStringList &tables) {
    QStringList shown = tables.mid(0, kNamedTables);
    if (tables.size() > kNamedTables)
        shown << CancelConsequences::tr("and %n more", nullptr, int(tables.size() - kNamedTables));
    return shown.join(QStringLiteral(", "));
}

} // namespace

CancelConsequences::CancelConsequences(const QList<IterationRecord> &iterations,
                                       const QList<TableSpec> &tables) {
    for (const IterationRecord &it : iterations) {
        const QString name = QStringLiteral("%1 → %2").arg(it.source, it.target);
        if (it.status == IterationStatus::Queued) {
            m_queued << name;
            continue;
        }
        if (it.status != IterationStatus::Running)
            continue;
        const auto table = std::find_if(tables.cbegin(), tables.cend(),
                                        [&](const TableSpec &t) { return t.id == it.tableId; });
        // A table removed meanwhile still runs with the mode it started with; unknown, the
        // safer words (it rolls back) are the ones that warn.
        if (table != tables.cend() && table->commitPerBatch)
            m_perBatch << name;
        else
            m_wholeWindow << name;
    }
}

QString CancelConsequences::text() const {
    QStringList paragraphs;
    // Worded so that one table or many read the same: no verb follows the count.
    if (!m_wholeWindow.isEmpty())
        paragraphs << tr("Rolled back, as each is copied in one transaction: %1. The rows this run wrote "
                         "there are discarded; target and watermark stay as they were before the run.")
                          .arg(names(m_wholeWindow));
    if (!m_perBatch.isEmpty())
        paragraphs << tr("Kept up to the last committed batch, as each commits batch by batch: %1. The "
                         "committed batches stay in the target and the watermark stays at the last of "
                         "them; only the batch in progress rolls back, and the next run goes on from there.")
                          .arg(names(m_perBatch));
    if (!m_queued.isEmpty())
        paragraphs << tr("Not started, so not copied by this run: %1.").arg(names(m_queued));
    return paragraphs.join(QStringLiteral("\n\n"));
}

} // namespace tidemark
