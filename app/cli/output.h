// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>

namespace tidemark::cli {

// stdout, flushed at once: a script reading a pipe sees each answer as it is written.
void writeOut(const QByteArray &bytes);
void writeOut(const QString &text);
// Every error is exactly one line on stderr, "tidemark-cli: " first.
void writeError(const QString &message);
// `message` with its line breaks turned into spaces; names in it keep their exact spacing.
QString oneLine(const QString &message);

} // namespace tidemark::cli
