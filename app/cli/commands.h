// SPDX-License-Identifier: MIT
#pragma once

#include "app/cli/clisession.h"

#include <QString>
#include <QStringList>

namespace tidemark::cli {

struct CommandSpec;

// tidemark-cli (docs/design.md, "The headless CLI — a contract"): reads the global options, finds the
// command in the command table (app/cli/commandtable.h), parses its arguments as declared there
// and calls its handler. Exit codes: 0 fine, 1 an iteration failed or was cancelled (or verify
// found a difference), 2 usage or validation error (nothing was run). Must run on the thread of a
// QCoreApplication: `run` spins its event loop.
class Commands {
public:
    // `arguments` as QCoreApplication::arguments() gives them (program name first).
    int execute(const QStringList &arguments);

private:
    int dispatch(const QString &command, const QStringList &rest);
    int runCommand(const CommandSpec &spec, const QStringList &args);

    CliSession m_session;
};

} // namespace tidemark::cli
