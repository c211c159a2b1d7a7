// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"

#include <QCoreApplication>
#include <QStringList>

namespace tidemark {

// What cancelling a run does to each table it has not finished, in the user's words, for the
// Cancel Run confirmation and the quit dialog. The two kinds of table end differently: one
// copied in a single transaction (the whole window) rolls back everything this run wrote into
// it, one that commits each batch keeps the batches already committed and its watermark moves
// with them. Saying "nothing changes" for both was wrong for the second.
class CancelConsequences {
    Q_DECLARE_TR_FUNCTIONS(tidemark::CancelConsequences)
public:
    // `iterations` are the run's, `tables` the workspace's (for the commit mode of each).
    CancelConsequences(const QList<IterationRecord> &iterations, const QList<TableSpec> &tables);

    // True when cancelling throws work away: a whole-window table is being copied.
    bool losesRows() const { return !m_wholeWindow.isEmpty(); }
    // One paragraph per kind of table concerned (running whole-window, running per-batch,
    // queued), each naming its tables as "source → target".
    QString text() const;

private:
    QStringList m_wholeWindow;
    QStringList m_perBatch;
    QStringList m_queued;
};

} // namespace tidemark
