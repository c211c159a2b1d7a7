// SPDX-License-Identifier: MIT
#pragma once

#include <spdlog/spdlog.h>

#include <QString>
#include <memory>

namespace tidemark {

// A named module logger ("core.engine", "core.storage", "core.connectors", "cli", "ui").
// Loggers share the sinks installed by the application; before that, stderr at warning level.
std::shared_ptr<spdlog::logger> logger(const char *name);

// Installs the sinks: the rotating log file `logFile` (5 x 5 MB; none when empty: see
// WorkspaceLocation::logFileFor) and, when `toStderr`, stderr at warning level. Called by app/ only.
void installLogSinks(const QString &logFile, bool toStderr);

// Replaces the stderr sink installed by installLogSinks (or adds one): the runner logs to stderr
// at info level, as plain lines or JSON lines, for journald. Called by app/ only.
void replaceStderrSink(spdlog::sink_ptr sink);

// Forwards qDebug/qWarning/... to the "qt" logger.
void forwardQtMessages();

inline std::string str(const QString &text) {
    return text.toStdString();
}

} // namespace tidemark
