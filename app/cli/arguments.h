// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"
#include "model/domain/tablespec.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <limits>

namespace tidemark {
class Workspace;
}

namespace tidemark::cli {

class SubcommandParser;

// The ranges the usage text documents, one place for each. Numbers that become an int stay far
// below overflow; the rest are what is still useful, so that a typo is refused instead of a
// process that waits for days or prints two billion lines.
constexpr qint64 kMaxConcurrency = 256;     // run and schedule --concurrency
constexpr qint64 kMaxBatchSize = 1'000'000; // the window allows batches up to the same size
// A count of rows: 2^53, the largest integer every JSON reader of `table list --json` keeps exact.
constexpr qint64 kMaxSkipped = qint64(1) << 53;
constexpr qint64 kMaxRetries = 10;     // the retry delay stops growing long before
constexpr qint64 kMaxNextCount = 1000; // schedule next --count
constexpr qint64 kMaxHistoryLimit = std::numeric_limits<int>::max();
constexpr qint64 kMaxIterationTimeoutSeconds = 7 * 86'400; // schedule --timeout: a week

// Every number an option takes is range-checked: '2147483648' for an int is refused, never wrapped.
// `what` names the command and the option ("schedule add nightly: --retries").
qint64 parseInteger(const QString &text, const QString &what, qint64 minimum,
                    qint64 maximum = std::numeric_limits<qint64>::max());
// `option` of `parser`'s command as a bounded integer; the error names both.
qint64 optionInteger(const SubcommandParser &parser, const QString &option, qint64 minimum,
                     qint64 maximum = std::numeric_limits<qint64>::max());
// A cap (--max-concurrency, --max-connections): 1 to kMaxCap, or 0 / "none" for no cap (0).
int optionCap(const SubcommandParser &parser, const QString &option);
// --max-future: a duration from one minute to ten years, or "none" (a table whose watermark is
// dated ahead on purpose, such as planned events). Stored as its shortest spelling.
QString parseMaxFuture(const QString &text, const QString &command);
// A positional table ID of `command` ("table pause: table ID: '0' is not ...").
qint64 parseTableId(const QString &text, const QString &command);
// The --table ID... of `command`, without repeats.
QList<qint64> parseTableIds(const QStringList &texts, const QString &command);
// CONN:TABLE splits at the first colon; TABLE is kept verbatim.
QPair<QString, QString> splitConnTable(const QString &text, const QString &option);

[[noreturn]] void throwNoSuchTable(Workspace &workspace, qint64 id);
// A live table; a removed one is named, with how to bring it back.
TableSpec requireTable(Workspace &workspace, qint64 id);

} // namespace tidemark::cli
