// SPDX-License-Identifier: MIT
#include "ui/mainwindow/mainwindow.h"

#include "model/common/englishplurals.h"
#include "model/common/error.h"
#include "model/credentials/credentialstore.h"
#include "model/engine/backfill.h"
#include "model/engine/remotework.h"
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/models/displayformat.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/runhistorymodel.h"
#include "model/models/schedulelistmodel.h"
#include "model/models/timeconvention.h"
#include "model/storage/serverworkspaceaddress.h"
#include "model/storage/workspace.h"
#include "model/storage/workspacelocation.h"
#include "model/storage/workspacepasswords.h"
#include "model/storage/workspacewatcher.h"
#include "ui/backfill/backfilldialog.h"
#include "ui/common/columnmenu.h"
#include "ui/common/resources.h"
#include "ui/common/rolelimits.h"
#include "ui/common/workspacegateway.h"
#include "ui/connections/connectionsdialog.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/controltable/verifydialog.h"
#include "ui/controltable/watermarkhistorydialog.h"
#include "ui/history/historypanel.h"
#include "ui/mainwindow/demoworkspace.h"
#include "ui/mainwindow/helpdialogs.h"
#include "ui/mainwindow/serverworkspacedialog.h"
#include "ui/mainwindow/welcomepage.h"
#include "ui/mainwindow/windowfit.h"
#include "ui/mainwindow/windowtray.h"
#include "ui/mainwindow/workspacepassworddialog.h"
#include "ui/run/cancelconsequences.h"
#include "ui/run/rejectedrowsdialog.h"
#include "ui/run/runalerts.h"
#include "ui/run/runnotifier.h"
#include "ui/run/runpanel.h"
#include "ui/schedules/runnersdialog.h"
#include "ui/schedules/runnersetupdialog.h"
#include "ui/schedules/runnerstatuswidget.h"
#include "ui/schedules/schedulespanel.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QtConcurrent>

namespace tidemark {

namespace {

constexpr int kMaxRecent = 8;
const char *const kRecentKey = "workspace/recent";
const char *const kTimesInUtcKey = "view/timesInUtc";
const char *const kReopenLastKey = "workspace/reopenLast";

QString windowTitleFor(const QString &workspace) {
    if (workspace.isEmpty())
        return QStringLiteral("Tidemark");
    const QString name = WorkspaceLocation::isServer(workspace)
                             ? ServerWorkspaceAddress::fromLocation(workspace).displayName()
                             : QFileInfo(workspace).fileName();
    return QStringLiteral("%1 — Tidemark").arg(name);
}

// What the look at a workspace file before opening it found: why it cannot be opened, or
// whether it has tables.
struct WorkspaceLook {
    QString error;
    bool hasTables = false;
    // The server wants a password the window was not given (or refused the one given).
    std::optional<WorkspacePasswordError::Reason> password;
    QString passwordTarget;
    QString keychainProblem; // then: why no keychain could keep it (empty: one can)
    // The user's role in a server workspace (nullopt: nothing is limited) and their login.
    std::optional<WorkspaceRole> role;
    QString user;
};

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_roleLimits(new RoleLimits(this))
    , m_notifier(new RunNotifier(this))
    , m_controlTable(new ControlTablePanel(this))
    , m_runPanel(new RunPanel(this))
    , m_history(new HistoryPanel(m_controlTable->model(), this))
    , m_historyDock(new QDockWidget(tr("Run history"), this))
    , m_mainSplitter(new QSplitter(Qt::Vertical, this))
    , m_pages(new QStackedWidget(this))
    , m_demo(new DemoWorkspace(this))
    , m_concurrency(new QSpinBox(this))
    , m_pathLabel(new QLabel(this))
    , m_runLabel(new QLabel(this))
    , m_reloadTimer(new QTimer(this)) {
    ensureResources();
    installEnglishPlurals();
    setWindowTitle(windowTitleFor(QString()));
    m_mainSplitter->setObjectName(QStringLiteral("mainSplitter"));
    m_mainSplitter->addWidget(m_controlTable);
    m_mainSplitter->addWidget(m_runPanel);
    // The run grid keeps its height (a run's rows, RunPanel::sizeHint) as the window grows or
    // shrinks; the control table takes the rest.
    m_mainSplitter->setStretchFactor(0, 1);
    m_mainSplitter->setStretchFactor(1, 0);
    m_pages->addWidget(m_mainSplitter);
    setCentralWidget(m_pages);

    m_historyDock->setObjectName(QStringLiteral("historyDock"));
    m_historyDock->setWidget(m_history);
    addDockWidget(Qt::BottomDockWidgetArea, m_historyDock);

    m_schedules = new SchedulesPanel(m_controlTable->undoStack(), this);
    m_schedules->setRoleLimits(m_roleLimits);
    m_controlTable->setRoleLimits(m_roleLimits);
    m_schedulesDock = new QDockWidget(tr("Schedules"), this);
    m_schedulesDock->setObjectName(QStringLiteral("schedulesDock"));
    m_schedulesDock->setWidget(m_schedules);
    addDockWidget(Qt::BottomDockWidgetArea, m_schedulesDock);
    tabifyDockWidget(m_historyDock, m_schedulesDock);
    m_historyDock->raise();

    m_concurrency->setObjectName(QStringLiteral("concurrency"));
    m_concurrency->setRange(1, 16);
    m_concurrency->setValue(2);
    m_concurrency->setToolTip(tr("Tables copied at the same time"));
    m_concurrency->setPrefix(tr("Concurrency: "));

    m_runLabel->setObjectName(QStringLiteral("runState"));
    m_pathLabel->setObjectName(QStringLiteral("workspacePath"));
    statusBar()->addWidget(m_pathLabel, 1);
    statusBar()->addPermanentWidget(m_runLabel);

    // Reloading the control table after each finished iteration would re-read it up to
    // `concurrency` times a second; one read per half second is plenty for the watermarks.
    m_reloadTimer->setSingleShot(true);
    m_reloadTimer->setInterval(500);
    connect(m_reloadTimer, &QTimer::timeout, m_controlTable, &ControlTablePanel::reload);
    // The history reads the window's own run only when it starts and ends (see the watcher
    // below); in between its row takes the figures the run grid shows, when it shows them, so it
    // never says "0 read" (nor any other count) beside the grid.
    connect(m_runPanel, &RunPanel::liveFiguresShown, m_history, &HistoryPanel::updateRunFigures);

    createActions();
    createMenus();
    m_tray = new WindowTray(this, m_runAllAction, m_quitAction);
    m_notifier->setTray(m_tray->icon());
    m_welcome = new WelcomePage(m_newAction, m_openAction, m_openServerAction, m_demoAction,
                                m_reopenLastAction, this);
    m_welcome->setRecent(m_recent);
    m_pages->addWidget(m_welcome);
    connect(m_welcome, &WelcomePage::recentChosen, this, &MainWindow::openWorkspace);
    connect(m_demo, &DemoWorkspace::made, this, &MainWindow::openWorkspace);
    connect(m_demo, &DemoWorkspace::failed, this, [this](const QString &error) {
        m_welcome->setNote(QString());
        m_demoAction->setEnabled(true);
        showError(tr("Open the demo"), error);
    });

    // Schedules and the runner: the "Next run" column follows the schedules the dock read.
    m_runnerStatus = new RunnerStatusWidget(m_setUpRunnerAction, this);
    statusBar()->addPermanentWidget(m_runnerStatus);
    connect(m_runnerStatus, &RunnerStatusWidget::stateChanged, this, [this] {
        m_schedules->setRunnerStatus(m_runnerStatus->isKnown() ? std::optional(m_runnerStatus->status())
                                                               : std::nullopt);
    });
    connect(m_schedules, &SchedulesPanel::runnerSetupRequested, this, &MainWindow::setUpRunner);
    connect(m_schedules, &SchedulesPanel::reloaded, this,
            [this] { m_controlTable->setSchedules(m_schedules->model()->schedules()); });

    connect(m_controlTable, &ControlTablePanel::selectionChanged, this, &MainWindow::updateActions);
    connect(m_controlTable, &ControlTablePanel::connectionsRequested, this, &MainWindow::manageConnections);
    connect(m_controlTable, &ControlTablePanel::statusMessage, this,
            [this](const QString &message) { statusBar()->showMessage(message, 5000); });
    connect(m_history, &HistoryPanel::statusMessage, this,
            [this](const QString &message) { statusBar()->showMessage(message, 8000); });
    connect(m_history, &HistoryPanel::runSelected, m_runPanel, &RunPanel::showPastRun);
    connect(m_runPanel, &RunPanel::rejectedRowsRequested, this, &MainWindow::showRejectedRows);
    connect(m_notifier, &RunNotifier::notified, this, [this](const QString &title, const QString &message) {
        statusBar()->showMessage(title + QStringLiteral(" — ") +
                                     QString(message).replace(QLatin1Char('\n'), QStringLiteral("; ")),
                                 15000);
    });

    // Tab follows the layout: the ring starts at the toolbar's concurrency (by creation order it
    // came between the docks' tabs and the status bar's link), then the control table's pane
    // (by creation order its table came first), then the others top to bottom.
    const QList<QWidget *> tabOrder =
        QList<QWidget *>{m_runnerStatus->setupLink(), m_concurrency} + m_controlTable->tabOrder();
    for (qsizetype i = 1; i < tabOrder.size(); ++i)
        setTabOrder(tabOrder.at(i - 1), tabOrder.at(i));

    restoreSettings();
    updateActions();
    m_pathLabel->setText(tr("No workspace — File › Open (Ctrl+O) or New (Ctrl+N)"));
    showWelcome(true);
}

bool MainWindow::isWelcomeShown() const {
    return m_pages->currentWidget() == m_welcome;
}

void MainWindow::showWelcome(bool show) {
    if (show == isWelcomeShown())
        return;
    // Empty docks under the welcome page would only say "nothing here" twice more.
    if (show) {
        m_historyDockWasVisible = !m_historyDock->isHidden();
        m_schedulesDockWasVisible = !m_schedulesDock->isHidden();
        m_historyDock->hide();
        m_schedulesDock->hide();
        m_pages->setCurrentWidget(m_welcome);
    } else {
        m_pages->setCurrentWidget(m_mainSplitter);
        m_historyDock->setVisible(m_historyDockWasVisible);
        m_schedulesDock->setVisible(m_schedulesDockWasVisible);
    }
}

void MainWindow::openOnStart(const QString &workspace) {
    if (!workspace.isEmpty())
        return openWorkspace(workspace);
    if (!m_reopenLastAction->isChecked() || m_recent.isEmpty())
        return;
    // A file that is gone is not looked for; a server out of reach says so when it is opened.
    const QString &last = m_recent.constFirst();
    if (WorkspaceLocation::isServer(last) || QFileInfo::exists(last))
        openWorkspace(last);
}

void MainWindow::openDemo() {
    if (!m_demo->isAvailable())
        return showError(tr("Open the demo"), m_demo->unavailableReason());
    if (m_demo->isMade())
        return openWorkspace(m_demo->workspacePath());
    m_demoAction->setEnabled(false);
    const QString note = tr("Making the demo in %1 (a few seconds)…")
                             .arg(QDir::toNativeSeparators(QFileInfo(m_demo->workspacePath()).path()));
    m_welcome->setNote(note);
    statusBar()->showMessage(note, 10000);
    m_demo->make();
}

MainWindow::~MainWindow() {
    delete m_watcher; // stops polling before the gateway it feeds goes
    m_watcher = nullptr;
    // The coordinator cancels and waits for its iterations; the gateway for its job.
    delete m_coordinator;
    m_coordinator = nullptr;
    m_controlTable->setGateway(nullptr);
    m_history->setGateway(nullptr);
    m_runPanel->setGateway(nullptr);
    m_schedules->setGateway(nullptr);
    delete m_gateway;
}

QString MainWindow::workspacePath() const {
    return m_gateway ? m_gateway->path() : QString();
}

void MainWindow::createActions() {
    const auto make = [this](const QString &name, const QString &text, const QKeySequence &shortcut,
                             auto slot) {
        auto *action = new QAction(text, this);
        action->setObjectName(name);
        if (!shortcut.isEmpty())
            action->setShortcut(shortcut);
        connect(action, &QAction::triggered, this, slot);
        addAction(action); // shortcuts work even when the toolbar is hidden
        return action;
    };
    m_newAction = make(QStringLiteral("actionNewWorkspace"), tr("&New Workspace…"), QKeySequence::New,
                       &MainWindow::newWorkspace);
    m_openAction = make(QStringLiteral("actionOpenWorkspace"), tr("&Open Workspace…"), QKeySequence::Open,
                        &MainWindow::chooseWorkspace);
    m_openServerAction = make(QStringLiteral("actionOpenServerWorkspace"), tr("Open &Server Workspace…"),
                              QKeySequence(), &MainWindow::chooseServerWorkspace);
    m_openServerAction->setToolTip(tr("A team's workspace in a PostgreSQL database"));
    m_demoAction =
        make(QStringLiteral("actionOpenDemo"), tr("Open the &Demo"), QKeySequence(), &MainWindow::openDemo);
    m_demoAction->setToolTip(
        m_demo->isAvailable() ? tr("A sample shop database and seven tables, one for each way a run can end")
                              : m_demo->unavailableReason());
    m_demoAction->setEnabled(m_demo->isAvailable());
    m_reopenLastAction = new QAction(tr("Reopen the Last Workspace on Start"), this);
    m_reopenLastAction->setObjectName(QStringLiteral("actionReopenLast"));
    m_reopenLastAction->setCheckable(true);
    m_reopenLastAction->setChecked(QSettings().value(QLatin1String(kReopenLastKey), true).toBool());
    connect(m_reopenLastAction, &QAction::toggled, this,
            [this](bool checked) { m_settingsWriter.write(QLatin1String(kReopenLastKey), checked); });
    m_quitAction = make(QStringLiteral("actionQuit"), tr("&Quit"), QKeySequence::Quit, &QWidget::close);

    m_undoAction = m_controlTable->undoStack()->createUndoAction(this, tr("&Undo"));
    m_undoAction->setObjectName(QStringLiteral("actionUndo"));
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_redoAction = m_controlTable->undoStack()->createRedoAction(this, tr("&Redo"));
    m_redoAction->setObjectName(QStringLiteral("actionRedo"));
    // Ctrl+Shift+Z everywhere, plus the platform's own redo keys (Ctrl+Y on some), each once: on
    // X11 the platform's is Ctrl+Shift+Z too, and the shortcut list showed it twice.
    QList<QKeySequence> redoKeys{QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)};
    for (const QKeySequence &key : QKeySequence::keyBindings(QKeySequence::Redo)) {
        if (!redoKeys.contains(key))
            redoKeys << key;
    }
    m_redoAction->setShortcuts(redoKeys);
    m_undoAction->setProperty("shortcutListName", tr("Undo"));
    m_redoAction->setProperty("shortcutListName", tr("Redo"));
    addAction(m_undoAction);
    addAction(m_redoAction);
    m_findAction = make(QStringLiteral("actionFind"), tr("&Filter Tables"), QKeySequence::Find,
                        [this] { m_controlTable->focusFilter(); });

    m_addAction = make(QStringLiteral("actionAddTable"), tr("&Add Table…"), QKeySequence(Qt::Key_Insert),
                       [this] { m_controlTable->addTable(); });
    m_addAction->setShortcuts({QKeySequence(Qt::Key_Insert), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N)});
    m_editAction = make(QStringLiteral("actionEditTable"), tr("&Edit Table…"), QKeySequence(Qt::Key_F2),
                        [this] { m_controlTable->editSelected(); });
    m_removeAction = make(QStringLiteral("actionRemoveTable"), tr("&Remove Table"), QKeySequence::Delete,
                          [this] { m_controlTable->removeSelected(); });
    // Del must not fire while the user edits text (the filter box): only from the table.
    m_removeAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    removeAction(m_removeAction);
    m_pauseAction = make(QStringLiteral("actionPause"), tr("&Pause"), QKeySequence(Qt::CTRL | Qt::Key_P),
                         [this] { m_controlTable->pauseSelected(); });
    m_resumeAction =
        make(QStringLiteral("actionResume"), tr("Res&ume"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
             [this] { m_controlTable->resumeSelected(); });
    m_backfillAction = make(QStringLiteral("actionBackfill"), tr("&Backfill…"),
                            QKeySequence(Qt::CTRL | Qt::Key_B), &MainWindow::backfillSelected);
    m_watermarkHistoryAction = make(QStringLiteral("actionWatermarkHistory"), tr("&Watermark History…"),
                                    QKeySequence(), &MainWindow::showWatermarkHistory);
    m_verifyAction =
        make(QStringLiteral("actionVerify"), tr("&Verify…"), QKeySequence(), &MainWindow::verifySelected);
    m_connectionsAction = make(QStringLiteral("actionConnections"), tr("&Connections…"),
                               QKeySequence(Qt::CTRL | Qt::Key_K), &MainWindow::manageConnections);

    m_runAllAction = make(QStringLiteral("actionRunAll"), tr("Run &All Active"), QKeySequence(Qt::Key_F5),
                          &MainWindow::runAll);
    m_runSelectedAction = make(QStringLiteral("actionRunSelected"), tr("Run &Selected"),
                               QKeySequence(Qt::SHIFT | Qt::Key_F5), &MainWindow::runSelected);
    m_runOnRunnersAction = make(QStringLiteral("actionRunOnRunners"), tr("Run All on Ru&nners"),
                                QKeySequence(), &MainWindow::runAllOnRunners);
    m_dryRunAction = make(QStringLiteral("actionDryRun"), tr("&Dry Run"), QKeySequence(Qt::CTRL | Qt::Key_F5),
                          &MainWindow::dryRun);
    // Not Esc: Esc means "leave this field" or "close this popup" everywhere else, and pressing
    // it in the filter box cancelled a copy. A chord nothing else uses, and a question first.
    m_cancelAction = make(QStringLiteral("actionCancelRun"), tr("&Cancel Run"),
                          QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X), &MainWindow::confirmCancelRun);
    m_showCurrentRunAction = make(QStringLiteral("actionShowCurrentRun"), tr("Show &Current Run"),
                                  QKeySequence(Qt::CTRL | Qt::Key_J), [this] { m_runPanel->showLive(); });
    m_refreshAction = make(QStringLiteral("actionRefresh"), tr("&Refresh"), QKeySequence::Refresh, [this] {
        m_controlTable->reload();
        m_history->reload();
        readRole();
    });
    m_refreshAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_setUpRunnerAction =
        make(QStringLiteral("actionSetUpRunner"), tr("Set Up R&unner…"), {}, &MainWindow::setUpRunner);
    m_setUpRunnerAction->setToolTip(tr("Run this workspace's schedules unattended: a systemd user service"));
    m_runnersAction = make(QStringLiteral("actionRunners"), tr("Runn&ers…"), {}, [this] {
        if (!m_gateway)
            return;
        auto *dialog = new RunnersDialog(m_gateway, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    m_runnersAction->setToolTip(
        tr("The workspace's runners: which fires schedules, which take queued work, and "
           "what each is running"));

    m_runAllAction->setToolTip(tr("Copy every active table (F5)"));
    m_runSelectedAction->setToolTip(tr("Copy the selected tables (Shift+F5)"));
    m_runOnRunnersAction->setToolTip(
        tr("Hand every active table to the workspace's runners instead of copying here: any runner "
           "copies it, and this window follows"));
    m_dryRunAction->setToolTip(tr("Show each window's bounds and row count, write nothing (Ctrl+F5)"));
    m_cancelAction->setToolTip(
        tr("Cancel the run, after asking when rows would be rolled back (Ctrl+Shift+X)"));

    // The same actions on the control table's context menu (Del lives there, see above).
    QTableView *tableView = m_controlTable->view();
    tableView->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *separator1 = new QAction(this);
    separator1->setSeparator(true);
    auto *separator2 = new QAction(this);
    separator2->setSeparator(true);
    tableView->addActions({m_runSelectedAction, separator1, m_editAction, m_pauseAction, m_resumeAction,
                           m_backfillAction, m_watermarkHistoryAction, m_verifyAction, separator2,
                           m_removeAction});

    // A server workspace's roles (docs/team.md): what this login may not do is greyed out.
    const auto limit = [this](QAction *action, WorkspaceRole needed, const QString &what) {
        m_roleLimits->limit(action, needed, what);
    };
    limit(m_addAction, WorkspaceRole::Analyst, tr("adding a table"));
    limit(m_editAction, WorkspaceRole::Analyst, tr("editing a table"));
    limit(m_removeAction, WorkspaceRole::Analyst, tr("removing a table"));
    limit(m_pauseAction, WorkspaceRole::Operator, tr("pausing a table"));
    limit(m_resumeAction, WorkspaceRole::Operator, tr("resuming a table"));
    limit(m_backfillAction, WorkspaceRole::Operator, tr("a backfill"));
    limit(m_runAllAction, WorkspaceRole::Operator, tr("running"));
    limit(m_runSelectedAction, WorkspaceRole::Operator, tr("running"));
    limit(m_runOnRunnersAction, WorkspaceRole::Operator, tr("running"));
    limit(m_dryRunAction, WorkspaceRole::Operator, tr("a dry run"));
    limit(m_setUpRunnerAction, WorkspaceRole::Operator, tr("a runner"));
    connect(m_roleLimits, &RoleLimits::changed, this, &MainWindow::updateActions);

    // One row, short labels: at 1024 pixels no action hides behind the » overflow, and the run
    // grid below has the height of a run's rows. The undo
    // actions keep a fixed label (their tooltip names the command).
    m_runAllAction->setIconText(tr("Run All"));
    m_cancelAction->setIconText(tr("Cancel"));
    m_addAction->setIconText(tr("Add"));
    m_editAction->setIconText(tr("Edit"));
    m_removeAction->setIconText(tr("Remove"));
    m_undoAction->setIconText(tr("Undo"));
    m_redoAction->setIconText(tr("Redo"));
    auto *toolbar = addToolBar(tr("Run"));
    toolbar->setObjectName(QStringLiteral("mainToolbar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_runAllAction->setIcon(QIcon(QStringLiteral(":/icons/status-running.svg")));
    m_dryRunAction->setIcon(QIcon(QStringLiteral(":/icons/status-dry_run.svg")));
    m_cancelAction->setIcon(QIcon(QStringLiteral(":/icons/status-cancelled.svg")));
    toolbar->addAction(m_runAllAction);
    toolbar->addAction(m_runSelectedAction);
    toolbar->addAction(m_dryRunAction);
    toolbar->addAction(m_cancelAction);
    toolbar->addWidget(m_concurrency);
    auto *tablesToolbar = addToolBar(tr("Tables"));
    tablesToolbar->setObjectName(QStringLiteral("tablesToolbar"));
    tablesToolbar->addAction(m_addAction);
    tablesToolbar->addAction(m_editAction);
    tablesToolbar->addAction(m_removeAction);
    tablesToolbar->addAction(m_pauseAction);
    tablesToolbar->addAction(m_resumeAction);
    tablesToolbar->addAction(m_backfillAction);
    tablesToolbar->addSeparator();
    tablesToolbar->addAction(m_undoAction);
    tablesToolbar->addAction(m_redoAction);
}

void MainWindow::createMenus() {
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_newAction);
    file->addAction(m_openAction);
    file->addAction(m_openServerAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(m_demoAction);
    file->addAction(m_reopenLastAction);
    file->addSeparator();
    file->addAction(m_connectionsAction);
    file->addSeparator();
    file->addAction(m_quitAction);
    m_recent = QSettings().value(QLatin1String(kRecentKey)).toStringList();
    updateRecentMenu();

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undoAction);
    edit->addAction(m_redoAction);
    edit->addSeparator();
    edit->addAction(m_findAction);

    QMenu *tables = menuBar()->addMenu(tr("&Tables"));
    tables->addAction(m_addAction);
    tables->addAction(m_editAction);
    tables->addAction(m_removeAction);
    tables->addSeparator();
    tables->addAction(m_pauseAction);
    tables->addAction(m_resumeAction);
    tables->addAction(m_backfillAction);
    tables->addSeparator();
    tables->addAction(m_watermarkHistoryAction);
    tables->addAction(m_verifyAction);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_runAllAction);
    run->addAction(m_runSelectedAction);
    run->addAction(m_runOnRunnersAction);
    run->addAction(m_dryRunAction);
    run->addAction(m_cancelAction);
    run->addSeparator();
    run->addAction(m_setUpRunnerAction);
    run->addAction(m_runnersAction);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_showCurrentRunAction);
    QAction *historyToggle = m_historyDock->toggleViewAction();
    historyToggle->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
    view->addAction(historyToggle);
    view->addAction(m_schedulesDock->toggleViewAction());
    view->addAction(m_refreshAction);
    view->addSeparator();
    addTimeConventionActions(view);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    const auto openDialog = [this](QDialog *dialog) {
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    };
    QAction *shortcuts = help->addAction(tr("&Keyboard Shortcuts"), this, [this, openDialog] {
        openDialog(new ShortcutsDialog(findChildren<QAction *>(), this));
    });
    shortcuts->setObjectName(QStringLiteral("actionKeyboardShortcuts"));
    QAction *log = help->addAction(tr("Where Is the &Log File"), this, [this, openDialog] {
        openDialog(new LogFileDialog(workspacePath(), this));
    });
    log->setObjectName(QStringLiteral("actionLogFile"));
    help->addSeparator();
    QAction *about = help->addAction(tr("&About Tidemark"), this, [this, openDialog] {
        auto *box = new QMessageBox(QMessageBox::Information, tr("About Tidemark"), aboutText(),
                                    QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("aboutBox"));
        openDialog(box);
    });
    about->setObjectName(QStringLiteral("actionAbout"));
    about->setMenuRole(QAction::AboutRole);
}

void MainWindow::updateActions() {
    const bool open = m_gateway != nullptr;
    const bool running = m_coordinator && m_coordinator->isRunning();
    const int selected = int(m_controlTable->selectedIds().size());
    m_addAction->setEnabled(open);
    m_editAction->setEnabled(open && selected == 1);
    m_removeAction->setEnabled(open && selected > 0);
    m_pauseAction->setEnabled(open && selected > 0);
    m_resumeAction->setEnabled(open && selected > 0);
    m_backfillAction->setEnabled(open && selected == 1 && !running);
    m_watermarkHistoryAction->setEnabled(open && selected == 1);
    m_verifyAction->setEnabled(open && selected == 1);
    m_connectionsAction->setEnabled(open);
    m_runAllAction->setEnabled(open && !running);
    m_runSelectedAction->setEnabled(open && !running && selected > 0);
    m_runOnRunnersAction->setEnabled(open && !running);
    m_dryRunAction->setEnabled(open && !running);
    m_cancelAction->setEnabled(running);
    m_refreshAction->setEnabled(open);
    m_setUpRunnerAction->setEnabled(open);
    m_runnersAction->setEnabled(open);
    m_roleLimits->apply();
}

void MainWindow::chooseWorkspace() {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open workspace"), QFileInfo(workspacePath()).path(),
                                     tr("Tidemark workspaces (*.tidemark);;All files (*)"));
    if (!path.isEmpty())
        openWorkspace(path);
}

void MainWindow::chooseServerWorkspace() {
    // Starts from the server workspace open now, else the last one opened (else the defaults).
    QString start = workspacePath();
    if (!WorkspaceLocation::isServer(start)) {
        const auto recent = std::find_if(m_recent.cbegin(), m_recent.cend(), [](const QString &path) {
            return WorkspaceLocation::isServer(path);
        });
        start = recent != m_recent.cend() ? *recent : QString();
    }
    auto *dialog = new ServerWorkspaceDialog(ServerWorkspaceAddress::fromLocation(start), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { openWorkspace(dialog->location()); });
    dialog->open();
}

void MainWindow::newWorkspace() {
    QString path = QFileDialog::getSaveFileName(this, tr("New workspace"), QFileInfo(workspacePath()).path(),
                                                tr("Tidemark workspaces (*.tidemark)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".tidemark");
    createWorkspaceAt(path);
}

void MainWindow::createWorkspaceAt(const QString &path) {
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, path] {
        const QString error = watcher->result();
        watcher->deleteLater();
        if (!error.isEmpty())
            return showError(tr("New workspace"), error);
        openWorkspace(path);
    });
    watcher->setFuture(QtConcurrent::run([path]() -> QString {
        try {
            Workspace::create(path);
            return {};
        } catch (const Error &e) {
            return e.message();
        }
    }));
}

void MainWindow::openWorkspace(const QString &path) {
    if (m_coordinator && m_coordinator->isRunning()) {
        showError(tr("Open workspace"),
                  tr("A run is in progress in %1; cancel it first (Run › Cancel Run, Ctrl+Shift+X).")
                      .arg(workspacePath()));
        return;
    }
    QString absolute; // a file's absolute path, or a server workspace's URI with its schema
    try {
        absolute = WorkspaceLocation::resolve(path).text();
    } catch (const Error &e) {
        showError(tr("Open workspace"), e.message());
        return;
    }
    if (!WorkspaceLocation::isServer(absolute) && !QFileInfo::exists(absolute))
        return offerToCreate(absolute);
    // Titled at once, so a window not shown yet (main opens its workspace first) is created
    // with its final title: on X, the first title that is not Latin-1 (the em dash) costs Xlib a
    // round trip to the server, which set just after the first paint held the GUI thread for
    // ~170 ms under Xvfb at 10,000 tables; taken with the window's creation it is not noticed.
    setWindowTitle(windowTitleFor(absolute));
    // Check the file on a worker first, so a bad file leaves the current workspace open.
    auto *watcher = new QFutureWatcher<WorkspaceLook>(this);
    connect(watcher, &QFutureWatcher<WorkspaceLook>::finished, this, [this, watcher, absolute] {
        const WorkspaceLook look = watcher->result();
        watcher->deleteLater();
        std::optional<std::pair<QString, QString>> toKeep = std::exchange(m_passwordToKeep, std::nullopt);
        if (look.password) {
            setWindowTitle(windowTitleFor(workspacePath()));
            askWorkspacePassword(absolute, look.passwordTarget,
                                 *look.password == WorkspacePasswordError::Reason::Refused,
                                 look.keychainProblem);
            return;
        }
        if (!look.error.isEmpty()) {
            setWindowTitle(windowTitleFor(workspacePath()));
            showError(tr("Open workspace"), look.error);
            emit workspaceFailed(look.error);
            return;
        }
        if (toKeep)
            keepWorkspacePassword(toKeep->first, toKeep->second);
        m_roleLimits->setRole(look.role, look.user);
        setWorkspace(absolute, look.hasTables);
    });
    watcher->setFuture(QtConcurrent::run([absolute] {
        WorkspaceLook look;
        try {
            const std::unique_ptr<Workspace> workspace =
                withKeychainPassword([&] { return Workspace::open(absolute); });
            look.hasTables = workspace->hasTables();
            look.role = workspace->myRole();
            look.user = workspace->databaseUser();
        } catch (const WorkspacePasswordError &e) {
            look.error = e.message();
            look.password = e.reason();
            look.passwordTarget = e.target();
            look.keychainProblem =
                CredentialStore::unavailableReason(); // asks D-Bus: here, off the GUI thread
        } catch (const Error &e) {
            look.error = e.message();
        }
        return look;
    }));
}

void MainWindow::showWorkspacePath() {
    const QString path = workspacePath();
    const std::optional<WorkspaceRole> role = m_roleLimits->role();
    m_pathLabel->setText(
        role ? tr("%1 — as %2, %3").arg(path, m_roleLimits->user(), workspaceRoleWithArticle(*role))
             : QDir::toNativeSeparators(path));
}

void MainWindow::readRole() {
    if (!m_gateway || !WorkspaceLocation::isServer(workspacePath()))
        return;
    m_gateway->submitRead(
        this, [](Workspace &workspace) { return workspace.myRole(); },
        [this](std::optional<WorkspaceRole> role) {
            m_roleLimits->setRole(role, m_roleLimits->user());
            showWorkspacePath();
        },
        // Every role revoked: the server refuses what the window still offers, and says why.
        [this](const QString &message) { statusBar()->showMessage(message, 15000); });
}

void MainWindow::askWorkspacePassword(const QString &location, const QString &target, bool refused,
                                      const QString &keychainProblem) {
    auto *dialog = new WorkspacePasswordDialog(ServerWorkspaceAddress::fromLocation(location), refused,
                                               keychainProblem, this);
    dialog->setObjectName(QStringLiteral("workspacePasswordDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::finished, this, [this, dialog, location, target](int result) {
        if (result != QDialog::Accepted) {
            WorkspacePasswords::forget(target); // a refused one is not tried again
            return;
        }
        WorkspacePasswords::remember(target, dialog->password().toUtf8());
        if (dialog->keepInKeychain())
            m_passwordToKeep = std::pair{target, dialog->password()}; // once the server took it
        openWorkspace(location);
    });
    dialog->open();
}

void MainWindow::keepWorkspacePassword(const QString &target, const QString &password) {
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher] {
        const QString error = watcher->result();
        watcher->deleteLater();
        if (error.isEmpty()) {
            statusBar()->showMessage(tr("The password is remembered in the system keychain."), 10000);
            return;
        }
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Workspace Password"),
                                    tr("The password could not be remembered: the window asks for it again "
                                       "next time."),
                                    QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("passwordNotKept"));
        box->setDetailedText(error);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    watcher->setFuture(QtConcurrent::run([target, password]() -> QString {
        try {
            CredentialStore::saveWorkspacePassword(target, password);
            return {};
        } catch (const Error &e) {
            return e.message();
        }
    }));
}

void MainWindow::offerToCreate(const QString &path) {
    auto *box = new QMessageBox(QMessageBox::Question, tr("Open workspace"),
                                tr("There is no workspace at %1.").arg(QDir::toNativeSeparators(path)),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("createWorkspaceQuestion"));
    box->setInformativeText(tr("Create a new, empty workspace there?"));
    QPushButton *create = box->addButton(tr("Create Workspace"), QMessageBox::AcceptRole);
    create->setObjectName(QStringLiteral("createWorkspace"));
    box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(create);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, create, path] {
        if (box->clickedButton() == create)
            createWorkspaceAt(path);
    });
    box->open();
}

void MainWindow::setWorkspace(const QString &path, bool hasTables) {
    RunCoordinator *oldCoordinator = m_coordinator;
    WorkspaceGateway *oldGateway = m_gateway;
    m_gateway = new WorkspaceGateway(path, this);
    m_coordinator = new RunCoordinator(path, this);
    connect(m_gateway, &WorkspaceGateway::errorOccurred, this,
            [this](const QString &message) { showError(tr("Workspace"), message); });
    connect(m_coordinator, &RunCoordinator::runStarted, this, &MainWindow::onRunStarted);
    connect(m_coordinator, &RunCoordinator::iterationChanged, this, &MainWindow::onIterationChanged);
    connect(m_coordinator, &RunCoordinator::runFinished, this, &MainWindow::onRunFinished);
    connect(m_coordinator, &RunCoordinator::runFailedToStart, this, [this](const QString &error) {
        m_runLabel->setText(tr("Run not started"));
        updateActions();
        if (m_closeWhenIdle) {
            m_closeWhenIdle = false;
            QMetaObject::invokeMethod(this, &QWidget::close, Qt::QueuedConnection);
            return;
        }
        showError(tr("Run"), error);
    });
    if (m_alerts)
        m_alerts->retire();
    m_alerts = new RunAlerts(m_gateway, this);
    m_runPanel->setCoordinator(m_coordinator);
    m_controlTable->setGateway(m_gateway, hasTables);
    m_history->setGateway(m_gateway);
    m_runPanel->setGateway(m_gateway);
    m_schedules->setGateway(m_gateway);
    delete oldCoordinator;
    delete oldGateway;
    // Runs of other processes (cron, tidemark-cli, the runner) and their watermarks, live.
    delete m_watcher;
    m_watcher = new WorkspaceWatcher(path, std::chrono::milliseconds(500), this);
    connect(m_watcher, &WorkspaceWatcher::changed, this, [this](const WorkspaceChanges &changes) {
        if (changes.tables)
            m_controlTable->reload();
        // The window's own run is fed by its coordinator: reading it back twice a second (10,000
        // iterations with their logs) would only hold up the gateway's other reads. The history
        // reads it when it starts and when it has finished.
        QList<qint64> runs = changes.runs;
        if (m_coordinator->isRunning())
            runs.removeAll(m_coordinator->currentRunId());
        if (!runs.isEmpty())
            m_gateway->reloadRuns(runs);
        if (changes.schedules)
            m_schedules->reload();
        if (changes.runner)
            loadRunner();
    });
    m_runnerStatus->clear();
    loadRunner();
    connect(m_gateway, &WorkspaceGateway::runsLoaded, m_history, &HistoryPanel::mergeRuns);
    connect(m_gateway, &WorkspaceGateway::runsLoaded, m_runPanel, &RunPanel::followRuns);

    showWorkspacePath();
    m_runLabel->setText(tr("Idle"));
    setWindowTitle(windowTitleFor(path));
    rememberRecent(path);
    m_welcome->setNote(QString());
    m_demoAction->setEnabled(m_demo->isAvailable());
    showWelcome(false);
    updateActions();
    emit workspaceOpened(path);
}

void MainWindow::startRun(const QList<qint64> &tableIds, bool dryRun,
                          const std::optional<WatermarkRangeText> &range, bool onRunners) {
    if (!m_coordinator || m_coordinator->isRunning())
        return;
    RunRequest request;
    request.tableIds = tableIds;
    request.concurrency = m_concurrency->value();
    request.dryRun = dryRun;
    request.trigger = QStringLiteral("gui");
    request.range = range;
    request.queued = onRunners;
    if (m_coordinator->start(request)) {
        m_runLabel->setText(range       ? tr("Starting a range backfill…")
                            : dryRun    ? tr("Starting a dry run…")
                            : onRunners ? tr("Handing a run to the runners…")
                                        : tr("Starting a run…"));
        m_runPanel->showLive();
    }
    updateActions();
}

void MainWindow::runAll() {
    if (m_gateway && !m_coordinator->isRunning()) {
        // Say why nothing ran rather than flash an empty run.
        const QList<TableSpec> tables = m_controlTable->model()->tables();
        if (tables.isEmpty()) {
            statusBar()->showMessage(
                tr("Nothing to run: the workspace has no tables yet. Add one with Tables › "
                   "Add Table… (Insert), after a connection (File › Connections…)."),
                10000);
            return;
        }
        if (std::none_of(tables.begin(), tables.end(), [](const TableSpec &t) { return t.active; })) {
            statusBar()->showMessage(
                tr("Nothing to run: every table is paused. Resume them (Ctrl+Shift+P) or run the "
                   "selected ones (Shift+F5)."),
                10000);
            return;
        }
    }
    startRun({}, false);
}

void MainWindow::runAllOnRunners() {
    startRun({}, false, std::nullopt, true);
    statusBar()->showMessage(tr("Handed to the runners (Run › Runners… shows them)."), 10000);
}

void MainWindow::runSelected() {
    const QList<qint64> ids = m_controlTable->selectedIds();
    if (ids.isEmpty()) {
        statusBar()->showMessage(tr("Choose the tables to run first."), 4000);
        return;
    }
    startRun(ids, false);
}

void MainWindow::dryRun() {
    startRun({}, true);
}

void MainWindow::cancelRun() {
    if (m_coordinator && m_coordinator->isRunning()) {
        m_coordinator->cancel();
        m_runLabel->setText(tr("Cancelling run %1…").arg(m_coordinator->currentRunId()));
    }
}

void MainWindow::confirmCancelRun() {
    if (!m_coordinator || !m_coordinator->isRunning())
        return;
    m_runPanel->applyLiveReports();
    const CancelConsequences consequences(m_runPanel->liveModel()->iterations(),
                                          m_controlTable->model()->tables());
    if (!consequences.losesRows())
        return cancelRun();
    auto *box =
        new QMessageBox(QMessageBox::Question, tr("Cancel run"),
                        tr("Cancel run %1?").arg(m_coordinator->currentRunId()), QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("cancelRunConfirmation"));
    box->setInformativeText(consequences.text());
    QPushButton *cancel = box->addButton(tr("Cancel Run"), QMessageBox::DestructiveRole);
    cancel->setObjectName(QStringLiteral("confirmCancelRun"));
    // The default answer keeps the copy: Enter or Esc on the question loses nothing.
    QPushButton *keep = box->addButton(tr("Keep Running"), QMessageBox::RejectRole);
    keep->setObjectName(QStringLiteral("keepRunning"));
    box->setDefaultButton(keep);
    box->setEscapeButton(keep);
    box->setAttribute(Qt::WA_DeleteOnClose);
    const qint64 runId = m_coordinator->currentRunId();
    connect(box, &QMessageBox::finished, this, [this, box, cancel, runId] {
        // The run the question was about, not one started since.
        if (box->clickedButton() == cancel && m_coordinator && m_coordinator->isRunning() &&
            m_coordinator->currentRunId() == runId)
            cancelRun();
    });
    box->open();
}

void MainWindow::onRunStarted(qint64 runId, const QList<IterationRecord> &iterations) {
    m_runLabel->setText(tr("Run %1: %n table(s)", nullptr, int(iterations.size())).arg(runId));
    m_history->reload(); // the new run appears in the history as running
    updateActions();
}

void MainWindow::onIterationChanged(const IterationRecord &record) {
    if (isFinished(record.status) && !m_reloadTimer->isActive())
        m_reloadTimer->start();
}

void MainWindow::onRunFinished(const RunRecord &run) {
    if (run.dryRun) {
        qint64 rows = 0;
        for (const IterationRecord &it : run.iterations)
            rows += it.status == IterationStatus::DryRun ? it.rowsRead : 0;
        m_runLabel->setText(
            tr("Dry run %1: would copy %2 rows; nothing written").arg(run.id).arg(formatCount(rows)));
    } else if (run.kind == QLatin1String(kRunKindRangeBackfill)) {
        m_runLabel->setText(tr("Range backfill (run %1) %2; the watermark stays")
                                .arg(run.id)
                                .arg(statusLabel(run.status).toLower()));
    } else {
        m_runLabel->setText(tr("Run %1 %2").arg(run.id).arg(statusLabel(run.status).toLower()));
    }
    m_notifier->runFinished(run);
    m_alerts->runFinished(run);
    m_controlTable->reload();
    m_history->reload();
    updateActions();
    if (m_closeWhenIdle) {
        m_closeWhenIdle = false;
        // Queued: the coordinator is still inside its own signal here.
        QMetaObject::invokeMethod(this, &QWidget::close, Qt::QueuedConnection);
    }
}

void MainWindow::backfillSelected() {
    const QList<TableSpec> tables = m_controlTable->selectedTables();
    if (!m_gateway || tables.size() != 1)
        return;
    auto *dialog = new BackfillDialog(tables.first(), m_gateway->path(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const BackfillRequest req = dialog->request();
        if (const auto range = dialog->range()) {
            if (m_coordinator->isRunning())
                statusBar()->showMessage(tr("A run is in progress: re-copy the range once it has ended."),
                                         10000);
            startRun({req.tableId}, false, range);
            return;
        }
        const bool runAfterwards = dialog->runAfterwards();
        m_runLabel->setText(tr("Backfilling table %1…").arg(req.tableId));
        // On a remote-work thread with its own workspace connection: a backfill waits for
        // the source and target, and the workspace thread keeps serving edits and history.
        // One queue per backfill, gone with its reply (or with the window, dropping it).
        auto *work = new RemoteWorkQueue(this);
        connect(work, &RemoteWorkQueue::settled, work, &QObject::deleteLater);
        work->submit(
            QString(),
            [req, path = m_gateway->path()](RemoteTask &) {
                const std::unique_ptr<Workspace> workspace = Workspace::open(path);
                return runBackfill(*workspace, req);
            },
            [this, id = req.tableId, runAfterwards](const BackfillResult &result) {
                QString text =
                    tr("Table %1 backfilled: watermark %2 → %3")
                        .arg(id)
                        .arg(result.before.isNull() ? tr("(none)") : result.before.display(),
                             result.after.isNull() ? tr("(the beginning)") : result.after.display());
                if (result.rowsDeleted > 0)
                    text += tr(", %1 target rows deleted").arg(formatCount(result.rowsDeleted));
                else if (result.rowsDeleted < 0)
                    text += tr(", target emptied");
                m_runLabel->setText(tr("Idle"));
                statusBar()->showMessage(text, 10000);
                m_controlTable->reload();
                emit backfillFinished(id);
                if (runAfterwards)
                    startRun({id}, false);
            },
            [this](const QString &error) {
                m_runLabel->setText(tr("Idle"));
                showError(tr("Backfill"), error);
                m_controlTable->reload();
            });
    });
    dialog->open();
}

void MainWindow::showHistory() {
    m_historyDock->show();
    m_historyDock->raise();
    m_history->selectNewest();
}

void MainWindow::showWatermarkHistory() {
    const QList<TableSpec> tables = m_controlTable->selectedTables();
    if (!m_gateway || tables.size() != 1)
        return;
    auto *dialog = new WatermarkHistoryDialog(m_gateway, tables.first(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::verifySelected() {
    const QList<TableSpec> tables = m_controlTable->selectedTables();
    if (!m_gateway || tables.size() != 1)
        return;
    auto *dialog = new VerifyDialog(m_gateway->path(), tables.first(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::showRejectedRows(const IterationRecord &iteration) {
    if (!m_gateway || iteration.id <= 0)
        return;
    auto *dialog = new RejectedRowsDialog(m_gateway, iteration, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

void MainWindow::loadRunner() {
    m_gateway->submit(
        m_runnerStatus, [](Workspace &ws) { return ws.runner(); },
        [this](const std::optional<RunnerHeartbeat> &heartbeat) { m_runnerStatus->setHeartbeat(heartbeat); });
}

void MainWindow::setUpRunner() {
    if (!m_gateway)
        return;
    auto *dialog = new RunnerSetupDialog(m_gateway->path(), RunnerSetupDialog::cliPath(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &RunnerSetupDialog::setupFinished, this, [this] {
        if (m_gateway)
            loadRunner();
    });
    dialog->open();
}

void MainWindow::manageConnections() {
    if (!m_gateway)
        return;
    auto *dialog = new ConnectionsDialog(m_gateway, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!m_roleLimits->allows(WorkspaceRole::Analyst))
        dialog->setReadOnly(m_roleLimits->refusal(WorkspaceRole::Analyst, tr("changing a connection")));
    dialog->open();
}

void MainWindow::showError(const QString &title, const QString &message) {
    statusBar()->showMessage(message, 10000);
    // Offscreen (tests, screenshots) a modal box would wait for a click nobody makes.
    if (QGuiApplication::platformName() == QLatin1String("offscreen"))
        return;
    auto *box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::addTimeConventionActions(QMenu *view) {
    // Every time shown (grid, history, details, log, chart, dialogs, CSV) follows this choice;
    // the views refresh themselves when it changes (TimeConvention::follow).
    auto *group = new QActionGroup(this);
    QAction *local = view->addAction(tr("Times in &Local Zone (%1)").arg(TimeConvention::localZoneName()));
    local->setObjectName(QStringLiteral("actionTimesLocal"));
    QAction *utc = view->addAction(tr("Times in &UTC"));
    utc->setObjectName(QStringLiteral("actionTimesUtc"));
    for (QAction *action : {local, utc}) {
        action->setCheckable(true);
        group->addAction(action);
    }
    TimeConvention &convention = TimeConvention::current();
    convention.setUtc(QSettings().value(QLatin1String(kTimesInUtcKey), false).toBool());
    (convention.isUtc() ? utc : local)->setChecked(true);
    connect(utc, &QAction::toggled, this, [this](bool checked) {
        TimeConvention::current().setUtc(checked);
        m_settingsWriter.write(QLatin1String(kTimesInUtcKey), checked);
    });
}

void MainWindow::rememberRecent(const QString &path) {
    m_recent.removeAll(path);
    m_recent.prepend(path);
    while (m_recent.size() > kMaxRecent)
        m_recent.removeLast();
    m_settingsWriter.write(QLatin1String(kRecentKey), m_recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    if (!m_recentMenu)
        return;
    m_recentMenu->clear();
    for (const QString &path : std::as_const(m_recent)) {
        QAction *action = m_recentMenu->addAction(QDir::toNativeSeparators(path));
        connect(action, &QAction::triggered, this, [this, path] { openWorkspace(path); });
    }
    m_recentMenu->setEnabled(!m_recent.isEmpty());
    if (m_welcome)
        m_welcome->setRecent(m_recent);
}

void MainWindow::restoreSettings() {
    QSettings settings;
    // Both fitted to the screen: 1400×880 does not fit a 1024×768 screen, nor does a geometry
    // saved on a larger monitor fit a laptop's, and what falls off is the status bar and the
    // right-hand actions.
    if (restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        fitWindowToScreen(this);
    else
        placeFirstWindow(this, QSize(1400, 880));
    if (!restoreState(settings.value(QStringLiteral("window/state")).toByteArray()))
        resizeDocks({m_historyDock}, {270}, Qt::Vertical);
    // Without a remembered state the splitter starts from the panels' size hints once shown (sizes
    // set now would be scaled to the splitter's size before the window is laid out).
    m_mainSplitter->restoreState(settings.value(QStringLiteral("window/mainSplitter")).toByteArray());
    m_runPanel->splitter()->restoreState(settings.value(QStringLiteral("window/runSplitter")).toByteArray());
    m_history->splitter()->restoreState(
        settings.value(QStringLiteral("window/historySplitter")).toByteArray());
    restoreColumns(settings, QStringLiteral("columns/controlTable"), m_controlTable->view(),
                   ControlTableModel::LastStatus);
    restoreColumns(settings, QStringLiteral("columns/iterationGrid"), m_runPanel->view(),
                   IterationGridModel::Status);
    restoreColumns(settings, QStringLiteral("columns/history"), m_history->view(), RunHistoryModel::Status);
    m_concurrency->setValue(settings.value(QStringLiteral("run/concurrency"), 2).toInt());
}

void MainWindow::saveSettings() {
    QSettings settings;
    // The docks as the user left them, not as the welcome page hid them.
    if (isWelcomeShown()) {
        m_historyDock->setVisible(m_historyDockWasVisible);
        m_schedulesDock->setVisible(m_schedulesDockWasVisible);
    }
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/mainSplitter"), m_mainSplitter->saveState());
    settings.setValue(QStringLiteral("window/runSplitter"), m_runPanel->splitter()->saveState());
    settings.setValue(QStringLiteral("window/historySplitter"), m_history->splitter()->saveState());
    saveColumns(settings, QStringLiteral("columns/controlTable"), m_controlTable->view());
    saveColumns(settings, QStringLiteral("columns/iterationGrid"), m_runPanel->view());
    saveColumns(settings, QStringLiteral("columns/history"), m_history->view());
    settings.setValue(QStringLiteral("run/concurrency"), m_concurrency->value());
}

void MainWindow::closeEvent(QCloseEvent *event) {
    if (m_closeWhenIdle && m_coordinator && m_coordinator->isRunning()) {
        // Asked again while the run rolls back: still waiting, still responsive.
        event->ignore();
        return;
    }
    if (m_coordinator && m_coordinator->isRunning() &&
        QGuiApplication::platformName() != QLatin1String("offscreen")) {
        m_runPanel->applyLiveReports();
        const CancelConsequences consequences(m_runPanel->liveModel()->iterations(),
                                              m_controlTable->model()->tables());
        const auto answer = QMessageBox::question(this, tr("Run in progress"),
                                                  tr("Run %1 is still copying. Cancel it and quit?\n\n%2")
                                                      .arg(m_coordinator->currentRunId())
                                                      .arg(consequences.text()));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
    }
    if (m_coordinator && m_coordinator->isRunning()) {
        // Never wait here (nor in ~RunCoordinator) on the GUI thread: cancel, keep the window
        // alive and answering, and close it from onRunFinished once the iterations have
        // rolled back. If the process dies before that, the next opener of the workspace
        // closes the run as interrupted.
        m_closeWhenIdle = true;
        cancelRun();
        m_runLabel->setText(tr("Cancelling run %1… the window closes when it has stopped")
                                .arg(m_coordinator->currentRunId()));
        updateActions();
        event->ignore();
        return;
    }
    // Off the screen first: what follows (the settings file written and synced, the workspace
    // let go of) is nothing to wait for with the window still showing and not answering.
    hide();
    saveSettings();
    event->accept();
}

} // namespace tidemark
