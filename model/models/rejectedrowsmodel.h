// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/workspace.h"

#include <QAbstractTableModel>
#include <QList>
#include <functional>

namespace tidemark {

// The rows one iteration rejected (key, error, values), fetched a page at a time as a view
// scrolls (canFetchMore/fetchMore), so 100,000 of them never reach the GUI thread at once.
// The model does not read the workspace itself: fetchMore asks its PageRequester for the page
// after the last row it holds, and the reader answers with appendPage (off the GUI thread in
// the window, at once in a test). DisplayRole is one line of text, ToolTipRole the whole
// value, RawRole the typed value. GUI thread only.
class RejectedRowsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Time, Key, Error, Values, ColumnCount };
    static constexpr int kPageSize = 500;
    using PageRequester = std::function<void(qint64 iterationId, qint64 afterId, int limit)>;

    explicit RejectedRowsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

    // Empties the model and shows `iterationId`'s rows, read through `requester`.
    void setIteration(qint64 iterationId, PageRequester requester);
    qint64 iterationId() const { return m_iterationId; }
    // A page read for `iterationId` after `afterId`; a reply for another iteration, or to a
    // request the model no longer waits for, is dropped.
    void appendPage(qint64 iterationId, qint64 afterId, const QList<RejectedRow> &rows);
    // The request for a page failed: the model stops fetching (a later setIteration retries).
    void pageFailed(qint64 iterationId);
    const RejectedRow &rowAt(int row) const { return m_rows.at(row); }
    bool isComplete() const { return m_complete; }

private:
    qint64 lastId() const { return m_rows.isEmpty() ? 0 : m_rows.last().id; }

    QList<RejectedRow> m_rows;
    qint64 m_iterationId = 0;
    PageRequester m_requester;
    bool m_pending = false;  // a page was asked for and has not come back
    bool m_complete = false; // the last page was shorter than a page: nothing more to fetch
};

} // namespace tidemark
