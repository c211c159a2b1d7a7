// SPDX-License-Identifier: MIT
#include "model/common/logging.h"
#include "ui/common/resources.h"
#include "ui/mainwindow/mainwindow.h"
#include "ui/mainwindow/screenshotstate.h"
#include "ui/mainwindow/windoweventlog.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

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
    // scripts/screenshots.sh and bench/window_scale.sh drive the window through these.
    if (const QString state = qEnvironmentVariable("TIDEMARK_SCREENSHOT_STATE"); !state.isEmpty())
        new tidemark::ScreenshotState(&window, state);
    if (qEnvironmentVariableIsSet("TIDEMARK_BENCH_EVENTS"))
        new tidemark::WindowEventLog(&window, qEnvironmentVariable("TIDEMARK_BENCH_EVENTS"));
    // Opened before it is shown: its file is checked meanwhile, and the window is created with
    // the workspace's title (MainWindow::openWorkspace).
    if (!workspace.isEmpty())
        window.openWorkspace(workspace);
    window.show();
    return app.exec();
}
