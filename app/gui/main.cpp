// SPDX-License-Identifier: MIT
#include "model/common/logging.h"
#include "model/engine/runcoordinator.h"
#include "ui/common/resources.h"
#include "ui/common/workspacegateway.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/schedules/schedulespanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QIcon>
#include <QTableView>
#include <QTimer>
#include <memory>

namespace {

// scripts/screenshots.sh names the state the window should show (TIDEMARK_SCREENSHOT_STATE):
// "main" as opened, "running" with a run in progress, "history" after a run, its chart shown,
// "schedules" with the Schedules dock in front, a schedule selected.
void prepareScreenshotState(tidemark::MainWindow &window, const QString &state) {
    if (state == QLatin1String("schedules")) {
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("schedulesDock"));
        dock->show();
        dock->raise();
        tidemark::SchedulesPanel *panel = window.schedulesPanel();
        QObject::connect(
            panel, &tidemark::SchedulesPanel::reloaded, panel, [panel] { panel->view()->selectRow(0); },
            Qt::SingleShotConnection);
        return;
    }
    if (state != QLatin1String("running") && state != QLatin1String("history"))
        return;
    QObject::connect(&window, &tidemark::MainWindow::workspaceOpened, &window, [&window, state] {
        if (state == QLatin1String("history")) {
            QObject::connect(
                window.coordinator(), &tidemark::RunCoordinator::runFinished, &window,
                [&window] { QTimer::singleShot(700, &window, &tidemark::MainWindow::showHistory); });
        }
        QTimer::singleShot(400, &window, &tidemark::MainWindow::runAll);
    });
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
        // Queued: noted once the window has taken the reply in (its own slots run first).
        QObject::connect(
            gateway, &tidemark::WorkspaceGateway::tablesLoaded, &window,
            [note](const QList<tidemark::TableSpec> &tables) {
                note(QStringLiteral("tables %1").arg(tables.size()));
            },
            Qt::QueuedConnection);
        QObject::connect(
            gateway, &tidemark::WorkspaceGateway::historyLoaded, &window,
            [note](const QList<tidemark::RunRecord> &runs) {
                note(QStringLiteral("history %1").arg(runs.size()));
            },
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
