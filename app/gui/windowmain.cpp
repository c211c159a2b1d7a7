// SPDX-License-Identifier: MIT
#include "app/gui/windowmain.h"

#include "model/common/cryptoexit.h"
#include "model/common/logging.h"
#include "model/storage/workspacelocation.h"
#include "ui/common/resources.h"
#include "ui/mainwindow/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QIcon>

namespace {

void setApplicationNames() {
    QCoreApplication::setOrganizationName(QStringLiteral("Tidemark"));
    QCoreApplication::setApplicationName(QStringLiteral("Tidemark"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TIDEMARK_VERSION));
}

void describeOptions(QCommandLineParser &parser, const QCommandLineOption &workspaceOption) {
    parser.setApplicationDescription(QStringLiteral("Incremental table-copy jobs with watermarks"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption(workspaceOption);
    parser.addPositionalArgument(QStringLiteral("workspace"),
                                 QStringLiteral("Workspace to open: a file, or a postgresql:// URI (a server "
                                                "workspace; its schema as ?schema=NAME)."),
                                 QStringLiteral("[WORKSPACE]"));
}

// QApplication aborts when it finds no display, and printing the usage or the version needs
// none: those are answered by a QCoreApplication before any window system is touched.
bool asksForHelpOrVersion(int argc, char *argv[]) {
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "--")
            break;
        if (arg == "-h" || arg == "-?" || arg == "--help" || arg == "--help-all" || arg == "-v" ||
            arg == "--version")
            return true;
    }
    return false;
}

} // namespace

namespace tidemark {

int runWindow(int argc, char *argv[], const std::function<void(MainWindow &)> &instrument) {
    keepCryptoStateUntilExit();
    const QCommandLineOption workspaceOption(
        {QStringLiteral("w"), QStringLiteral("workspace")},
        QStringLiteral("Workspace to open: a file, or a postgresql:// URI."), QStringLiteral("WORKSPACE"));
    if (asksForHelpOrVersion(argc, argv)) {
        QCoreApplication app(argc, argv);
        setApplicationNames();
        QCommandLineParser parser;
        describeOptions(parser, workspaceOption);
        parser.process(app); // prints the usage or the version and exits
        return 0;
    }

    QApplication app(argc, argv);
    setApplicationNames();
    QApplication::setDesktopFileName(QStringLiteral("io.tidemark.Tidemark"));
    ensureResources();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/tidemark.svg")));

    QCommandLineParser parser;
    describeOptions(parser, workspaceOption);
    parser.process(app);

    QString workspace = parser.value(workspaceOption);
    if (workspace.isEmpty() && !parser.positionalArguments().isEmpty())
        workspace = parser.positionalArguments().constFirst();
    if (workspace.isEmpty())
        workspace = qEnvironmentVariable("TIDEMARK_WORKSPACE");

    // The log file sits beside the workspace, so it follows the workspace the window opens.
    installLogSinks(QString(), true);
    forwardQtMessages();

    MainWindow window;
    QObject::connect(&window, &MainWindow::workspaceOpened,
                     [](const QString &path) { installLogSinks(WorkspaceLocation::logFileFor(path), true); });
    if (instrument)
        instrument(window);
    // Opened before it is shown: its file is checked meanwhile, and the window is created with
    // the workspace's title (MainWindow::openWorkspace). Without one, the last one or the welcome.
    window.openOnStart(workspace);
    window.show();
    return app.exec();
}

} // namespace tidemark
