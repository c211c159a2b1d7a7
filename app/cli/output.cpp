// SPDX-License-Identifier: MIT
#include "app/cli/output.h"

#include <cstdio>

namespace tidemark::cli {

void writeOut(const QByteArray &bytes) {
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

void writeOut(const QString &text) {
    writeOut(text.toUtf8());
}

QString oneLine(const QString &message) {
    QString line = message.trimmed();
    line.replace(QLatin1String("\r\n"), QLatin1String(" "));
    line.replace(QLatin1Char('\n'), QLatin1Char(' '));
    line.replace(QLatin1Char('\r'), QLatin1Char(' '));
    return line;
}

void writeError(const QString &message) {
    const QString line = oneLine(message);
    const QByteArray bytes = (QStringLiteral("tidemark-cli: ") + line + QLatin1Char('\n')).toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stderr);
    std::fflush(stderr);
}

} // namespace tidemark::cli
