// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runpage.h"

#include <QObject>
#include <QStringList>
#include <QTimeZone>
#include <atomic>
#include <memory>

namespace tidemark {

class WorkspaceGateway;

// Writes every run a history query takes (its filter and order, not only the pages a view has
// read) to a CSV file. One page per job on the gateway's worker, the next asked when the last
// is written: no more than a page is ever in memory, and the workspace edits and history reads
// queued meanwhile take their turn between pages. The file appears whole or not at all.
// GUI thread only; finished() comes exactly once after start().
class HistoryExport : public QObject {
    Q_OBJECT
public:
    static constexpr int kPageRuns = 1000;

    HistoryExport(WorkspaceGateway *gateway, const RunPageQuery &query, const QString &path,
                  const QStringList &header, const QTimeZone &zone, QObject *parent = nullptr);
    ~HistoryExport() override;

    void start();
    // Stops after the page being written; the file is not written (one there stays as it was).
    void cancel();
    QString path() const { return m_path; }

signals:
    // `total` is the count of runs the query took when the export started (-1 until known).
    void progress(qint64 written, qint64 total);
    // `ok` false: cancelled (`cancelled`) or failed (`message` names the file or the workspace).
    void finished(bool ok, bool cancelled, qint64 written, const QString &message);

private:
    struct State;
    struct Step;
    void requestPage();
    void pageWritten(const Step &step);

    WorkspaceGateway *m_gateway;
    QString m_path;
    std::shared_ptr<State> m_state; // the worker's side: the query's cursor and the open file
    qint64 m_total = -1;
};

} // namespace tidemark
