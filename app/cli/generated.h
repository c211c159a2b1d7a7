// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark::cli {

// Files the package ships, written from the command table (app/cli/commandtable.h) so that they
// always describe the commands as they parse: `tidemark-cli --generate bash-completion` and
// `tidemark-cli --generate man` (used by the build; not in the usage text). A ValidationError
// names an unknown `kind`.
QString generatedFile(const QString &kind);
QString bashCompletion();
QString manPage();

} // namespace tidemark::cli
