// SPDX-License-Identifier: MIT
#include "ui/history/historyexport.h"

#include "model/models/runhistorycsv.h"
#include "model/storage/workspace.h"
#include "ui/common/workspacegateway.h"

namespace tidemark {

// Touched by the worker only, one job at a time, except `cancelled`.
struct HistoryExport::State {
    RunPageQuery query;
    QString path;
    QStringList header;
    QTimeZone zone;
    std::unique_ptr<RunHistoryCsv> file;
    std::atomic_bool cancelled{false};
};

struct HistoryExport::Step {
    qint64 total = -1; // the first step's count
    qint64 written = 0;
    bool done = false;
    bool cancelled = false;
};

HistoryExport::HistoryExport(WorkspaceGateway *gateway, const RunPageQuery &query, const QString &path,
                             const QStringList &header, const QTimeZone &zone, QObject *parent)
    : QObject(parent)
    , m_gateway(gateway)
    , m_path(path)
    , m_state(std::make_shared<State>()) {
    m_state->query = query;
    m_state->query.limit = kPageRuns;
    m_state->query.before.reset();
    m_state->path = path;
    m_state->header = header;
    m_state->zone = zone;
}

HistoryExport::~HistoryExport() {
    m_state->cancelled.store(true); // a page still queued drops the file instead of going on
}

void HistoryExport::start() {
    requestPage();
}

void HistoryExport::cancel() {
    m_state->cancelled.store(true);
}

void HistoryExport::requestPage() {
    m_gateway->submitRead(
        this,
        [state = m_state](Workspace &ws) {
            Step step;
            if (state->cancelled.load()) {
                state->file.reset(); // QSaveFile: nothing written, nothing replaced
                step.cancelled = true;
                return step;
            }
            if (!state->file) {
                step.total = ws.runCount(state->query);
                state->file = std::make_unique<RunHistoryCsv>(state->path, state->header, state->zone);
            }
            const QList<RunOverview> page = ws.runOverviews(state->query);
            state->file->write(page);
            step.written = state->file->written();
            if (page.size() < state->query.limit) {
                state->file->commit();
                state->file.reset();
                step.done = true;
            } else {
                state->query.before = cursorOf(page.last(), state->query.order);
            }
            return step;
        },
        [this](const Step &step) { pageWritten(step); },
        // The file half written goes with the state, never committed.
        [this](const QString &error) { emit finished(false, false, 0, error); });
}

void HistoryExport::pageWritten(const Step &step) {
    if (step.cancelled) {
        emit finished(false, true, 0, {});
        return;
    }
    if (step.total >= 0)
        m_total = step.total;
    emit progress(step.written, m_total);
    if (step.done) {
        emit finished(true, false, step.written, {});
        return;
    }
    requestPage();
}

} // namespace tidemark
