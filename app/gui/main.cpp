// SPDX-License-Identifier: MIT
#include "model/common/logging.h"
#include "model/engine/runcoordinator.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/runhistorymodel.h"
#include "ui/common/resources.h"
#include "ui/common/workspacegateway.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/controltable/verifydialog.h"
#include "ui/controltable/watermarkhistorydialog.h"
#include "ui/history/historypanel.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/run/rejectedrowsdialog.h"
#include "ui/run/runpanel.h"
#include "ui/schedules/schedulespanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QIcon>
#include <QScreen>
#include <QTableView>
#include <QTimer>
#include <memory>

#include <cstdio>
#include <functional>

namespace {

// scripts/screenshots.sh names the state the window should show (TIDEMARK_SCREENSHOT_STATE) and
// takes the shot once the window prints "screenshot-ready" on stdout. The script prepares the
// workspace with the CLI beforehand (a backfill, a hand-edited target); the window only opens
// the view:
//   main               a run from the window, finished, the history shown
//   running            a run, mid-way through its streaming table (the demo's clicks)
//   watermark-history  Tables › Watermark History… of the first table
//   rejected-rows      a run, then Rejected Rows… of the iteration that rejected some
//   verify             Tables › Verify… of the first table, its result shown
//   schedules          the Schedules dock in front, a schedule selected
void announceReady() {
    std::fputs("screenshot-ready\n", stdout);
    std::fflush(stdout);
}

// Calls `action` once `view` shows rows (they are read off the GUI thread).
void whenRowsShown(QTableView *view, const std::function<void()> &action) {
    auto *poll = new QTimer(view);
    QObject::connect(poll, &QTimer::timeout, view, [view, poll, action] {
        if (view->model()->rowCount() == 0)
            return;
        poll->deleteLater();
        poll->stop();
        action();
    });
    poll->start(100);
}

void whenTablesShown(tidemark::MainWindow &window, const std::function<void()> &action) {
    whenRowsShown(window.controlTable()->view(), action);
}

// Selects the first table, opens its dialog with `open`, and is ready once the dialog signals `done`.
template <typename Dialog, typename Signal>
void openForFirstTable(tidemark::MainWindow &window, void (tidemark::MainWindow::*open)(), Signal done) {
    whenTablesShown(window, [&window, open, done] {
        window.controlTable()->view()->selectRow(0);
        (window.*open)();
        QObject::connect(window.findChild<Dialog *>(), done, &window, announceReady);
    });
}

// Selects the run grid's row of `source` and brings its progress into view, fitted to its text,
// as a user would (header menu › auto-fit).
void showProgressOf(tidemark::MainWindow &window, const QString &source) {
    using tidemark::IterationGridModel;
    QTableView *grid = window.runPanel()->view();
    for (int row = 0; row < grid->model()->rowCount(); ++row) {
        if (grid->model()->index(row, IterationGridModel::Source).data().toString() != source)
            continue;
        grid->resizeColumnToContents(IterationGridModel::Progress);
        grid->selectRow(row);
        grid->scrollTo(grid->model()->index(row, IterationGridModel::Progress));
        return;
    }
}

void runAllThen(tidemark::MainWindow &window, const std::function<void(const tidemark::RunRecord &)> &done) {
    whenTablesShown(window, [&window, done] {
        QObject::connect(window.coordinator(), &tidemark::RunCoordinator::runFinished, &window, done,
                         Qt::SingleShotConnection);
        window.runAll();
    });
}

void enterScreenshotState(tidemark::MainWindow &window, const QString &state) {
    using namespace tidemark;
    if (state == QLatin1String("main")) {
        runAllThen(window, [&window](const RunRecord &) {
            QTimer::singleShot(700, &window, [&window] {
                window.showHistory();
                QTimer::singleShot(800, &window, announceReady);
            });
        });
    } else if (state == QLatin1String("running")) {
        runAllThen(window, [](const RunRecord &) {});
        // Ready when the streaming table is past a third of its window and has a rate to show.
        QObject::connect(window.coordinator(), &RunCoordinator::iterationChanged, &window,
                         [&window](const IterationRecord &record) {
                             static bool announced = false;
                             if (announced || record.status != IterationStatus::Running ||
                                 record.windowRows <= 0 || record.rowsRead * 3 < record.windowRows ||
                                 record.startedAt.msecsTo(QDateTime::currentDateTimeUtc()) < 1500)
                                 return;
                             announced = true;
                             showProgressOf(window, record.source);
                             announceReady();
                         });
    } else if (state == QLatin1String("watermark-history")) {
        openForFirstTable<WatermarkHistoryDialog>(window, &MainWindow::showWatermarkHistory,
                                                  &WatermarkHistoryDialog::loaded);
    } else if (state == QLatin1String("rejected-rows")) {
        runAllThen(window, [&window](const RunRecord &run) {
            for (const IterationRecord &iteration : run.iterations) {
                if (iteration.rowsSkipped > 0) {
                    window.showRejectedRows(iteration);
                    // The first one selected, so the pane below shows it whole.
                    QTableView *rows = window.findChild<RejectedRowsDialog *>()->view();
                    whenRowsShown(rows, [rows] {
                        rows->selectRow(0);
                        announceReady();
                    });
                    return;
                }
            }
        });
    } else if (state == QLatin1String("verify")) {
        openForFirstTable<VerifyDialog>(window, &MainWindow::verifySelected, &VerifyDialog::verifyFinished);
    } else if (state == QLatin1String("schedules")) {
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("schedulesDock"));
        dock->show();
        dock->raise();
        SchedulesPanel *panel = window.schedulesPanel();
        QObject::connect(
            panel, &SchedulesPanel::reloaded, panel,
            [panel] {
                panel->view()->selectRow(0);
                announceReady();
            },
            Qt::SingleShotConnection);
    }
}

// The screenshot fills the screen, whatever size the script's X server has.
void prepareScreenshotState(tidemark::MainWindow &window, const QString &state) {
    if (state.isEmpty())
        return;
    window.setGeometry(QGuiApplication::primaryScreen()->geometry());
    QObject::connect(
        &window, &tidemark::MainWindow::workspaceOpened, &window,
        [&window, state] { enterScreenshotState(window, state); }, Qt::SingleShotConnection);
}

// bench/window_scale.sh names a file (TIDEMARK_BENCH_EVENTS) where the window notes, one line
// each with the wall-clock time, what the bench cannot see through X: the tables and the history
// read and shown, a run started, finished or followed from another process. It also keeps the
// GUI thread's own stall figure beside the X ping probe's: a 10 ms timer that notes how late it
// fired whenever that is over 20 ms.
void noteBenchEvents(tidemark::MainWindow &window, const QString &path) {
    auto *file = new QFile(path, &window);
    if (!file->open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered))
        return;
    const auto note = [file](const QString &what) {
        file->write(QStringLiteral("%1 %2\n")
                        .arg(double(QDateTime::currentMSecsSinceEpoch()) / 1000.0, 0, 'f', 3)
                        .arg(what)
                        .toUtf8());
    };
    auto *timer = new QTimer(&window);
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    QObject::connect(timer, &QTimer::timeout, &window, [note, clock] {
        const qint64 late = clock->restart() - 10;
        if (late > 20)
            note(QStringLiteral("late %1").arg(late));
    });
    timer->start(10);
    QObject::connect(&window, &tidemark::MainWindow::workspaceOpened, &window, [&window, note] {
        tidemark::WorkspaceGateway *gateway = window.gateway();
        // Noted once the window has taken the reply in (its own slots run first). Only the count
        // is queued: a queued copy of the list could be its last holder, freed on this thread.
        QObject::connect(gateway, &tidemark::WorkspaceGateway::tablesLoaded, &window,
                         [note, &window](const QList<tidemark::TableSpec> &tables) {
                             const qsizetype count = tables.size();
                             QMetaObject::invokeMethod(
                                 &window, [note, count] { note(QStringLiteral("tables %1").arg(count)); },
                                 Qt::QueuedConnection);
                         });
        tidemark::RunHistoryModel *history = window.historyPanel()->model();
        QObject::connect(
            history, &tidemark::RunHistoryModel::pageArrived, &window,
            [note, history] { note(QStringLiteral("history %1").arg(history->rowCount())); },
            Qt::QueuedConnection);
        QObject::connect(gateway, &tidemark::WorkspaceGateway::runsLoaded, &window,
                         [note](const QList<tidemark::RunRecord> &runs) {
                             for (const tidemark::RunRecord &run : runs)
                                 note(QStringLiteral("followed %1 %2").arg(run.id).arg(run.status));
                         });
        QObject::connect(window.coordinator(), &tidemark::RunCoordinator::runStarted, &window,
                         [note](qint64 runId, const QList<tidemark::IterationRecord> &iterations) {
                             note(QStringLiteral("run-started %1 %2").arg(runId).arg(iterations.size()));
                         });
        QObject::connect(window.coordinator(), &tidemark::RunCoordinator::runFinished, &window,
                         [note](const tidemark::RunRecord &run) {
                             note(QStringLiteral("run-finished %1 %2").arg(run.id).arg(run.status));
                         });
    });
}

} // namespace

int main(int argc, char *argv[]) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Tidemark"));
    QApplication::setApplicationName(QStringLiteral("Tidemark"));
    QApplication::setApplicationVersion(QStringLiteral(TIDEMARK_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("io.tidemark.Tidemark"));
    tidemark::ensureResources();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tidemark.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Incremental table-copy jobs with watermarks"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption workspaceOption({QStringLiteral("w"), QStringLiteral("workspace")},
                                             QStringLiteral("Workspace file to open."),
                                             QStringLiteral("FILE"));
    parser.addOption(workspaceOption);
    parser.addPositionalArgument(QStringLiteral("workspace"), QStringLiteral("Workspace file to open."),
                                 QStringLiteral("[FILE]"));
    parser.process(app);

    QString workspace = parser.value(workspaceOption);
    if (workspace.isEmpty() && !parser.positionalArguments().isEmpty())
        workspace = parser.positionalArguments().constFirst();
    if (workspace.isEmpty())
        workspace = qEnvironmentVariable("TIDEMARK_WORKSPACE");

    // The log file sits beside the workspace, so it follows the workspace the window opens.
    tidemark::installLogSinks(QString(), true);
    tidemark::forwardQtMessages();

    tidemark::MainWindow window;
    QObject::connect(&window, &tidemark::MainWindow::workspaceOpened,
                     [](const QString &path) { tidemark::installLogSinks(path, true); });
    prepareScreenshotState(window, qEnvironmentVariable("TIDEMARK_SCREENSHOT_STATE"));
    if (qEnvironmentVariableIsSet("TIDEMARK_BENCH_EVENTS"))
        noteBenchEvents(window, qEnvironmentVariable("TIDEMARK_BENCH_EVENTS"));
    window.show();
    if (!workspace.isEmpty())
        window.openWorkspace(workspace);
    return app.exec();
}
