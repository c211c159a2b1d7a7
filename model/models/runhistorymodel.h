// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runpage.h"

#include <QAbstractTableModel>
#include <QList>
#include <QSet>
#include <QTimeZone>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace tidemark {

// One page a RunHistoryModel asks of its page source.
struct RunPageRequest {
    quint64 id = 0;
    RunPageQuery query;
    // Set when the model no longer wants the page (its filter changed, a newer refresh was
    // asked): a source that has not read it yet skips the read.
    std::shared_ptr<std::atomic_bool> superseded = std::make_shared<std::atomic_bool>(false);
};

// The run history, newest first (start time, then id) unless sorted, fetched lazily a page at a
// time: the view's canFetchMore/fetchMore ask the page source for the runs after the last one
// shown, so every run is reachable by scrolling and none is read before it is needed. Sorting
// is the query's too (sort(): the workspace orders every run, not the pages read so far), by
// the columns canSort() allows under the filter. The
// table and status filters are the query's (the workspace filters in SQL); filtered to a table,
// a row carries that table's iteration's figures and status. Rows are RunOverview: figures,
// not iterations (a run may have a thousand). The model knows no workspace: the source reads
// off the GUI thread and answers with pageLoaded(). GUI thread only.
class RunHistoryModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Id,
        Started,
        Trigger,
        Status,
        Duration,
        Tables,
        RowsRead,
        RowsWritten,
        RowsSkipped,
        Problems,
        ColumnCount
    };
    using PageSource = std::function<void(const RunPageRequest &request)>;

    explicit RunHistoryModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;
    // Drops the rows and asks for the first page in that order; a column canSort() refuses is
    // ignored.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    // Whether sort() can order the whole history by `column` under the current filter, or
    // filtered to `tableId` (0: none).
    bool canSort(int column) const { return canSort(column, m_query.tableId); }
    static bool canSort(int column, qint64 tableId);
    // The column sorted by (Started, newest first, until sort() is called).
    int sortColumn() const;
    Qt::SortOrder sortOrder() const;

    // Where pages come from (none: the model shows what upsertRuns gives it). Drops the rows and
    // asks for the first page.
    void setPageSource(PageSource source, int pageSize = 200);
    // Drops the rows and asks for the first page of these runs (0 / empty: any). An order the
    // new filter cannot take falls back to newest first (sortChanged says so).
    void setFilter(qint64 tableId, const QString &status);
    qint64 tableFilter() const { return m_query.tableId; }
    // The runs shown, as a query (filter and order; no limit, no cursor): what an export reads.
    RunPageQuery query() const { return m_query; }
    QString statusFilter() const { return m_query.status; }
    // Asks for the newest page again: new runs appear at the top, changed ones change in place,
    // older rows stay (and with them scroll and selection). A refresh not read yet is superseded.
    void refresh();
    // The source's answer to request `requestId`; an answer nobody waits for any more is dropped.
    void pageLoaded(quint64 requestId, const QList<tidemark::RunOverview> &page);
    // The read failed: nothing more is fetched until the next refresh or filter.
    void pageFailed(quint64 requestId);
    // Whole runs read again because they changed (another process runs them): rows shown change
    // in place, new runs the filter takes are inserted in order (older than the last page read:
    // left to the page that brings them).
    void upsertRuns(const QList<tidemark::RunRecord> &runs);
    // A run shown here, with the iterations it has now (the window's own run, whose figures come
    // from its coordinator rather than the workspace): its row's figures follow them. A run not
    // shown is left to the read that brings it.
    void updateRunFigures(qint64 runId, const QList<tidemark::IterationRecord> &iterations);

    // A CSV export of the history: the header names (the zone shown, durations in seconds),
    // then a record per run, times ISO-8601 with their offset in `zone`, numbers raw, the rest as
    // shown. csvFields reads nothing but its arguments: any thread.
    QStringList csvHeader() const;
    static QStringList csvFields(const RunOverview &run, const QTimeZone &zone);

    const RunOverview &runAt(int row) const { return m_rows.at(row); }
    int rowOfRun(qint64 runId) const;
    // Every run the filter takes has been read.
    bool isComplete() const { return m_complete; }

signals:
    // A page asked for has been taken in (shown, merged or found superseded by nothing newer).
    void pageArrived();
    // The order changed other than by sort() (a filter that cannot take it).
    void sortChanged(int column, Qt::SortOrder order);

private:
    struct Pending {
        quint64 id = 0;
        std::shared_ptr<std::atomic_bool> superseded;
        bool replacesRows = false; // the first page after a reset; otherwise merged (refresh) or appended
    };
    void reset();
    void request(std::optional<Pending> &slot, const RunPageQuery &query, bool replacesRows);
    void supersede(std::optional<Pending> &slot);
    void upsert(const RunOverview &overview);
    bool inOrder(int row) const; // against its neighbours
    QVariant displayValue(const RunOverview &run, int column) const;
    QVariant rawValue(const RunOverview &run, int column) const;

    PageSource m_source;
    int m_pageSize = 200;
    RunPageQuery m_query; // the filter; limit and cursor are set per request
    QList<RunOverview> m_rows;
    QSet<qint64> m_ids;
    bool m_complete = true;
    std::optional<Pending> m_head; // the newest page: first load or refresh
    std::optional<Pending> m_tail; // the page after the last row
    quint64 m_lastRequestId = 0;
};

} // namespace tidemark
