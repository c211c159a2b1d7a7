// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"
#include "model/domain/watermarkrange.h"
#include "ui/common/settingswriter.h"

#include <QMainWindow>
#include <optional>
#include <utility>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QSpinBox;
class QSplitter;
class QStackedWidget;

namespace tidemark {

class ControlTablePanel;
class HistoryPanel;
class RunCoordinator;
class RunNotifier;
class RunAlerts;
class RunPanel;
class RunnerStatusWidget;
class RoleLimits;
class SchedulesPanel;
class DemoWorkspace;
class WelcomePage;
class WindowTray;
class WorkspaceGateway;
class WorkspaceWatcher;

// Composes the panels (control table on top, the run grid with the iteration details below,
// the history in a dock) and owns the actions, menus, toolbar and shortcuts. It holds no
// logic of its own: actions call the panels, the gateway or the run coordinator. One
// workspace at a time; opening another replaces the gateway and the coordinator.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    QString workspacePath() const;
    RunCoordinator *coordinator() const { return m_coordinator; }
    WorkspaceGateway *gateway() const { return m_gateway; }
    ControlTablePanel *controlTable() const { return m_controlTable; }
    RunPanel *runPanel() const { return m_runPanel; }
    HistoryPanel *historyPanel() const { return m_history; }
    SchedulesPanel *schedulesPanel() const { return m_schedules; }
    RunnerStatusWidget *runnerStatus() const { return m_runnerStatus; }
    RunAlerts *runAlerts() const { return m_alerts; }
    WelcomePage *welcomePage() const { return m_welcome; }
    WindowTray *tray() const { return m_tray; }
    bool isWelcomeShown() const;

public slots:
    // Opens an existing workspace (checked off the GUI thread first); errors are shown.
    void openWorkspace(const QString &path);
    void newWorkspace();
    void chooseWorkspace();
    void chooseServerWorkspace();
    // At start: `workspace` when one is named, else the last one when the setting says so
    // (a file that is still there, or a server workspace), else the welcome page.
    void openOnStart(const QString &workspace);
    // The demo workspace of a source checkout, made first when it is not there yet.
    void openDemo();
    void runAll();
    void runSelected();
    // Every active table, handed to the workspace's runners (RunRequest::queued): the grid
    // follows what they record.
    void runAllOnRunners();
    void dryRun();
    // Cancels at once (quitting, tests); the Cancel Run action asks first (confirmCancelRun).
    void cancelRun();
    // Cancels, first asking when a table copied in one transaction would roll back.
    void confirmCancelRun();
    void backfillSelected();
    void manageConnections();
    // Shows the history dock with the newest run selected (its iterations in the grid).
    void showHistory();
    // The operator's views of the selected table / an iteration (modeless dialogs).
    void showWatermarkHistory();
    void verifySelected();
    void showRejectedRows(const tidemark::IterationRecord &iteration);
    // Makes the workspace's runner a systemd user service (RunnerSetupDialog).
    void setUpRunner();

signals:
    void workspaceOpened(const QString &path);
    void workspaceFailed(const QString &error);
    void backfillFinished(qint64 tableId);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void createMenus();
    void addTimeConventionActions(QMenu *view); // View › Times in Local Zone / UTC
    void setWorkspace(const QString &path, bool hasTables);
    // The workspace and, on a server with roles, who the window works as, in the status bar.
    void showWorkspacePath();
    // Reads the role again: one granted or revoked while the window is open shows at a refresh.
    void readRole();
    void createWorkspaceAt(const QString &path);
    void offerToCreate(const QString &path);
    // A server workspace's server wants a password nobody gave (or refused the one given).
    void askWorkspacePassword(const QString &location, const QString &target, bool refused,
                              const QString &keychainProblem);
    void keepWorkspacePassword(const QString &target, const QString &password); // off the GUI thread
    void showWelcome(bool show);
    // `range`: a range backfill of the one table (RunRequest::range).
    void startRun(const QList<qint64> &tableIds, bool dryRun,
                  const std::optional<WatermarkRangeText> &range = std::nullopt, bool onRunners = false);
    void updateActions();
    void updateRecentMenu();
    void rememberRecent(const QString &path);
    void restoreSettings();
    void saveSettings();
    void showError(const QString &title, const QString &message);
    void onRunStarted(qint64 runId, const QList<tidemark::IterationRecord> &iterations);
    void onIterationChanged(const tidemark::IterationRecord &record);
    void onRunFinished(const tidemark::RunRecord &run);
    void loadRunner();

    WorkspaceGateway *m_gateway = nullptr;
    WorkspaceWatcher *m_watcher = nullptr;
    RoleLimits *m_roleLimits;
    RunCoordinator *m_coordinator = nullptr;
    RunNotifier *m_notifier;
    RunAlerts *m_alerts = nullptr; // the hook and webhook of the window's runs; one per workspace
    ControlTablePanel *m_controlTable;
    RunPanel *m_runPanel;
    HistoryPanel *m_history;
    QDockWidget *m_historyDock;
    SchedulesPanel *m_schedules = nullptr;
    QDockWidget *m_schedulesDock = nullptr;
    RunnerStatusWidget *m_runnerStatus = nullptr;
    QSplitter *m_mainSplitter;
    QStackedWidget *m_pages;
    WelcomePage *m_welcome = nullptr;
    WindowTray *m_tray = nullptr;
    DemoWorkspace *m_demo;
    // The docks' visibility while the welcome page hides them, restored with a workspace.
    bool m_historyDockWasVisible = true;
    bool m_schedulesDockWasVisible = true;
    QSpinBox *m_concurrency;
    QLabel *m_pathLabel;
    QLabel *m_runLabel;
    QMenu *m_recentMenu = nullptr;
    QStringList m_recent; // the recent workspaces, newest first, as the writer was last given them
    SettingsWriter m_settingsWriter;
    class QTimer *m_reloadTimer;
    bool m_closeWhenIdle = false; // closing was asked mid-run: close once it has finished
    // A typed password to keep in the keychain once the server has taken it: (server, password).
    std::optional<std::pair<QString, QString>> m_passwordToKeep;

    QAction *m_newAction = nullptr;
    QAction *m_openAction = nullptr;
    QAction *m_openServerAction = nullptr;
    QAction *m_demoAction = nullptr;
    QAction *m_reopenLastAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_undoAction = nullptr;
    QAction *m_redoAction = nullptr;
    QAction *m_findAction = nullptr;
    QAction *m_addAction = nullptr;
    QAction *m_editAction = nullptr;
    QAction *m_removeAction = nullptr;
    QAction *m_pauseAction = nullptr;
    QAction *m_resumeAction = nullptr;
    QAction *m_backfillAction = nullptr;
    QAction *m_watermarkHistoryAction = nullptr;
    QAction *m_verifyAction = nullptr;
    QAction *m_connectionsAction = nullptr;
    QAction *m_runAllAction = nullptr;
    QAction *m_runSelectedAction = nullptr;
    QAction *m_runOnRunnersAction = nullptr;
    QAction *m_runnersAction = nullptr;
    QAction *m_dryRunAction = nullptr;
    QAction *m_cancelAction = nullptr;
    QAction *m_showCurrentRunAction = nullptr;
    QAction *m_refreshAction = nullptr;
    QAction *m_setUpRunnerAction = nullptr;
};

} // namespace tidemark
