// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QTimer>
#include <QWidget>
#include <atomic>
#include <memory>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace tidemark {

class IterationDetails;
class IterationGridModel;
class RunCoordinator;
class WorkspaceGateway;

// The iteration grid of the current run (fed live by the coordinator) or of a run picked in the
// history, with the selected iteration's details beside it and a summary line above.
// The live run keeps its own model, so looking at history never loses live updates.
class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget *parent = nullptr);

    // Feeds the live grid from `coordinator` (nullptr = none).
    void setCoordinator(RunCoordinator *coordinator);
    // Where a past run's iteration reads its log lines when it is opened (nullptr = nowhere).
    void setGateway(WorkspaceGateway *gateway) { m_gateway = gateway; }
    IterationGridModel *liveModel() const { return m_live; }
    IterationGridModel *shownModel() const;
    QTableView *view() const { return m_view; }
    QSplitter *splitter() const { return m_splitter; }
    bool isShowingLive() const;
    // Tall enough to show every iteration of a run of kRowsShown tables.
    QSize sizeHint() const override;
    static constexpr int kRowsShown = 8;
    // How often a live run's summary line is written again.
    static constexpr int kLiveSummaryMs = 250;

public slots:
    void showLive();
    void showPastRun(const tidemark::RunRecord &run);
    // Runs read again because they changed (WorkspaceWatcher): the run shown is updated in
    // place, and a run that another process is running is shown as it goes while this window
    // runs nothing itself and the user is not reading another past run.
    void followRuns(const QList<tidemark::RunRecord> &runs);
    void clear();
    // The live run's reports since the last tick, applied at once, with the summary. Anything
    // that decides on the live rows (what a cancel would roll back) brings them up to date first.
    void applyLiveReports();

signals:
    // The user asked for the rejected rows of this iteration (grid context menu, details pane).
    void rejectedRowsRequested(const tidemark::IterationRecord &record);
    // The live run's rows and its summary were just shown, together: whatever else shows its
    // figures (the history's row of the run) takes them now, so every view says the same count.
    void liveFiguresShown(qint64 runId, const QList<tidemark::IterationRecord> &iterations);

private:
    void setShown(IterationGridModel *model);
    void updateSummary();
    void updateDetails();
    void loadLog(qint64 iterationId);

    IterationGridModel *m_live;
    IterationGridModel *m_past;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_view;
    IterationDetails *m_details;
    QSplitter *m_splitter;
    QLabel *m_title;
    QLabel *m_summary;
    QPushButton *m_backToLive;
    QTimer *m_summaryTimer; // a live run's summary, at most a few times a second
    QTimer *m_liveTick;     // the live run's reports, applied together every kLiveSummaryMs
    QList<IterationRecord> m_liveReports;
    RunCoordinator *m_coordinator = nullptr;
    WorkspaceGateway *m_gateway = nullptr;
    std::shared_ptr<std::atomic_bool> m_logSuperseded; // the log read a newer one made pointless
    qint64 m_followed = 0;                             // the run of another process shown by followRuns
};

} // namespace tidemark
