// SPDX-License-Identifier: MIT
#include "app/cli/passwordinput.h"

#include "model/common/error.h"

#include <cstdio>
#include <string>
#include <termios.h>
#include <unistd.h>

namespace tidemark::cli {
namespace {

QString readLine() {
    std::string line;
    for (int c = std::fgetc(stdin); c != EOF && c != '\n'; c = std::fgetc(stdin))
        line.push_back(char(c));
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    return QString::fromLocal8Bit(line.data(), qsizetype(line.size()));
}

// Echo off for the life of the object, restored even when reading throws.
class EchoOff {
public:
    EchoOff() {
        m_active = tcgetattr(STDIN_FILENO, &m_saved) == 0;
        if (m_active) {
            termios quiet = m_saved;
            quiet.c_lflag &= ~tcflag_t(ECHO);
            quiet.c_lflag |= ECHONL;
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
        }
    }
    ~EchoOff() {
        if (m_active)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &m_saved);
    }
    EchoOff(const EchoOff &) = delete;
    EchoOff &operator=(const EchoOff &) = delete;

private:
    termios m_saved{};
    bool m_active = false;
};

} // namespace

QString promptPassword(const QString &prompt) {
    if (!isatty(STDIN_FILENO))
        throw ValidationError(
            QStringLiteral("%1: stdin is not a terminal; pipe the password with --password-stdin")
                .arg(prompt));
    const QByteArray text = (prompt + QStringLiteral(": ")).toLocal8Bit();
    std::fwrite(text.constData(), 1, size_t(text.size()), stderr);
    std::fflush(stderr);
    const EchoOff echoOff;
    return readLine();
}

QString readPasswordLine() {
    return readLine();
}

} // namespace tidemark::cli
