// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QTimer>
#include <functional>
#include <utility>

namespace tidemark {

// Counts of a run's iterations by status, for the summary line.
struct RunSummary {
    QHash<IterationStatus, int> counts;
    int total = 0;
    qint64 rowsRead = 0;
    qint64 rowsWritten = 0;
    qint64 rowsSkipped = 0;
    qint64 rowsDeleted = 0; // by the iterations' reconcile (DeletePolicy)
    int count(IterationStatus status) const { return counts.value(status); }
    // Counts `record` in (sign +1) or out (-1); `total` is the caller's.
    void add(const IterationRecord &record, int sign);
    // "8 tables: 5 succeeded, 1 failed, 2 running · 120,000 rows written"
    QString text() const;
};

// One row per iteration of one run: the live run (fed by RunCoordinator's signals) or a past
// run from the history. Updates are keyed by run id: anything about another run is dropped, so
// a late signal from a previous run can never overwrite the shown one. Each update emits one
// dataChanged for its row (a batch of rows: one per contiguous span); rows that are running tick
// their duration once a second. The summary is kept up to date row by row, so a run of 10,000
// iterations costs no pass over every row per update. GUI thread only.
class IterationGridModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Source,
        Target,
        Status,
        Started,
        Duration,
        RowsRead,
        RowsWritten,
        RowsSkipped,
        Progress,
        WatermarkBefore,
        WatermarkAfter,
        ColumnCount
    };

    explicit IterationGridModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

    qint64 runId() const { return m_runId; }
    bool isLive() const { return m_live; }
    const IterationRecord &iterationAt(int row) const { return m_rows.at(row); }
    const QList<IterationRecord> &iterations() const { return m_rows; }
    int rowOfTable(qint64 tableId) const { return m_rowOfTable.value(tableId, -1); }
    const RunSummary &summary() const { return m_summary; }

    // "Now" for ticking durations; tests replace it to stay deterministic.
    void setClock(std::function<QDateTime()> clock) { m_clock = std::move(clock); }

public slots:
    // Connected to RunCoordinator: a new live run replaces whatever is shown.
    void beginRun(qint64 runId, const QList<tidemark::IterationRecord> &iterations);
    void updateIteration(const tidemark::IterationRecord &record);
    void appendLog(qint64 runId, qint64 tableId, const tidemark::LogLine &line);
    void finishRun(const tidemark::RunRecord &run);
    // A past run, read from the history (not live: no ticking, no updates expected).
    void showRun(const tidemark::RunRecord &run);
    // The same run read again (another process is running it), without log lines: rows that
    // changed are updated in place (their lines to be read again), the others keep the lines
    // they hold; another run replaces the content as showRun does.
    void followRun(const tidemark::RunRecord &run);
    // The log lines of a past run's iteration, read when it was opened (a history leaves them
    // out); its row changes when they differ from what it holds.
    void setIterationLog(qint64 iterationId, const QList<tidemark::LogLine> &lines);
    void clear();

signals:
    void summaryChanged();
    // A log line was added to `row` (the details panel follows it without a model reset).
    void logAppended(int row, const tidemark::LogLine &line);

private:
    // The rows a batch of updates changed, as contiguous spans: one dataChanged per span.
    struct ChangedRows {
        QList<std::pair<int, int>> spans;
        void add(int row); // rows added in increasing order
        void emitFor(IterationGridModel *model) const;
    };

    void setRow(int row, IterationRecord record); // keeps the summary in step
    void reset(qint64 runId, const QList<IterationRecord> &rows, bool live);
    void tick();
    void updateTicking();
    qint64 elapsedMs(const IterationRecord &record) const;
    // A running row's progress text: the expected total and elapsed time while no row has been
    // reported, then rows/s and the time left.
    QString runningProgress(const IterationRecord &record) const;
    QVariant displayValue(const IterationRecord &record, int column) const;
    QVariant rawValue(const IterationRecord &record, int column) const;

    qint64 m_runId = 0;
    bool m_live = false;
    QList<IterationRecord> m_rows;
    QHash<qint64, int> m_rowOfTable;
    RunSummary m_summary;
    QTimer m_ticker;
    std::function<QDateTime()> m_clock;
};

// Progress of an iteration, 0..1, or -1 when there is no fraction to show (unknown, nothing to
// copy, or a running copy that has not reported a row yet: shown as busy).
double iterationProgress(const IterationRecord &record);
// A dry-run iteration: "would copy N rows (window a → b); nothing written".
QString dryRunText(const IterationRecord &record);

} // namespace tidemark
