// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark::cli {

// Reads a password typed on the terminal with echo off; the prompt goes to stderr. Throws
// ValidationError when stdin is not a terminal (use --password-stdin in scripts).
QString promptPassword(const QString &prompt);
// Reads one line from stdin (without its line break), for --password-stdin.
QString readPasswordLine();

} // namespace tidemark::cli
