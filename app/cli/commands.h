// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>
#include <memory>

namespace tidemark {
class Workspace;
}

namespace tidemark::cli {

// The tidemark-cli commands (DESIGN.md, "The headless CLI — a contract"): parses arguments,
// calls the core, formats the result. Exit codes: 0 fine, 1 an iteration failed or was
// cancelled (or verify found a difference), 2 usage or validation error (nothing was run).
// Must run on the thread of a QCoreApplication: `run` spins its event loop.
class Commands {
public:
    // `arguments` as QCoreApplication::arguments() gives them (program name first).
    int execute(const QStringList &arguments);

private:
    int dispatch(const QString &command, const QStringList &rest);

    int init(const QStringList &args);
    int connectionAdd(const QStringList &args);
    int connectionList(const QStringList &args);
    int connectionSetPassword(const QStringList &args);
    int connectionForgetPassword(const QStringList &args);
    int connectionEdit(const QStringList &args);
    int connectionRemove(const QStringList &args);
    int connectionTest(const QStringList &args);
    int tableAdd(const QStringList &args);
    int tableList(const QStringList &args);
    int tableSetActive(const QStringList &args, const QString &command, bool active);
    int tableRemove(const QStringList &args);
    int tableRestore(const QStringList &args);
    int tablePosition(const QStringList &args);
    int tableSetPosition(const QStringList &args);
    int tableEdit(const QStringList &args);
    int tablePurge(const QStringList &args);
    int run(const QStringList &args);
    int backfill(const QStringList &args);
    int history(const QStringList &args);
    int verify(const QStringList &args);
    int alertSet(const QStringList &args);
    int alertShow(const QStringList &args);
    int alertTest(const QStringList &args);
    int alertClear(const QStringList &args);
    int schedule(const QString &sub, const QStringList &args);
    int scheduleAdd(const QStringList &args);
    int scheduleEdit(const QStringList &args);
    int scheduleList(const QStringList &args);
    int scheduleNext(const QStringList &args);
    int scheduleSetActive(const QStringList &args, const QString &command, bool active);
    int scheduleRemove(const QStringList &args);
    int serve(const QStringList &args);
    int runners(const QStringList &args);

    // The workspace file: -w/--workspace, else $TIDEMARK_WORKSPACE; absolute.
    QString workspacePath() const;
    // Opens the workspace; a missing or foreign file is a ValidationError (exit 2). Runs of dead
    // processes it closes as interrupted get their alerts sent before it returns.
    std::unique_ptr<Workspace> openWorkspace();
    void installLogging(const QString &path);

    QString m_workspace;
    bool m_loggingInstalled = false;
};

} // namespace tidemark::cli
