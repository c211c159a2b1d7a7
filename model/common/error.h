// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <stdexcept>

namespace tidemark {

// The one exception type of the core. Its message is meant for the user as it is: it names the
// table, column, connection or file at fault. Never carries a password.
class Error : public std::runtime_error {
public:
    explicit Error(const QString &message) : std::runtime_error(message.toStdString()), m_message(message) {}
    const QString &message() const { return m_message; }

private:
    QString m_message;
};

// Raised when input is refused before anything ran (the CLI maps it to exit code 2).
class ValidationError : public Error {
public:
    using Error::Error;
};

} // namespace tidemark
