// SPDX-License-Identifier: MIT
#include "app/cli/commands.h"
#include "model/common/cryptoexit.h"
#include "model/common/englishplurals.h"
#include "model/common/logging.h"

#include <QCoreApplication>

int main(int argc, char *argv[]) {
    tidemark::keepCryptoStateUntilExit();
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("tidemark-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(TIDEMARK_VERSION));
    tidemark::forwardQtMessages();
    tidemark::installEnglishPlurals(); // "1 row", "2 rows" from tr("%n row(s)")
    return tidemark::cli::Commands().execute(QCoreApplication::arguments());
}
