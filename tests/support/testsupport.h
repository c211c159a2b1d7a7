// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by several test suites. Additive: add a function, don't change one.

#include <QString>
#include <QStringList>

namespace tidemark::test {

// Path of the built tidemark-cli (for end-to-end tests through the CLI contract).
inline QString cliPath()
{
    return QStringLiteral(TIDEMARK_CLI_PATH);
}

} // namespace tidemark::test
