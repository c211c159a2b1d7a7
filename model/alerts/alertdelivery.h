// SPDX-License-Identifier: MIT
#pragma once

#include <QMetaType>
#include <QString>

namespace tidemark {

// The outcome of one alert through one channel, as logged and as `alert test` prints it.
struct AlertDelivery {
    QString channel; // "hook" | "webhook"
    QString subject; // what it is about, as the log names it: "run 12", "table 3"
    bool ok = false;
    QString detail; // one line, secrets redacted: "exit code 0 in 12 ms", "HTTP 200 after 2 attempt(s)"
    qint64 elapsedMs = 0;
};

} // namespace tidemark

Q_DECLARE_METATYPE(tidemark::AlertDelivery)
