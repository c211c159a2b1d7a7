// SPDX-License-Identifier: MIT
#include "model/common/logging.h"
#include "model/engine/runcoordinator.h"
#include "ui/common/resources.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/schedules/schedulespanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QIcon>
#include <QTableView>
#include <QTimer>

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
    window.show();
    if (!workspace.isEmpty())
        window.openWorkspace(workspace);
    return app.exec();
}
