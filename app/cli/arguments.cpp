// SPDX-License-Identifier: MIT
#include "app/cli/arguments.h"

#include "app/cli/subcommandparser.h"
#include "model/common/duration.h"
#include "model/common/error.h"
#include "model/storage/workspace.h"

namespace tidemark::cli {

qint64 parseInteger(const QString &text, const QString &what, qint64 minimum, qint64 maximum) {
    bool ok = false;
    const qint64 value = text.trimmed().toLongLong(&ok);
    if (!ok || value < minimum || value > maximum) {
        const QString range = maximum == std::numeric_limits<qint64>::max()
                                  ? QStringLiteral("of at least %1").arg(minimum)
                                  : QStringLiteral("from %1 to %2").arg(minimum).arg(maximum);
        throw ValidationError(QStringLiteral("%1: '%2' is not an integer %3").arg(what, text, range));
    }
    return value;
}

qint64 optionInteger(const SubcommandParser &parser, const QString &option, qint64 minimum, qint64 maximum) {
    return parseInteger(parser.value(option), QStringLiteral("%1: --%2").arg(parser.command(), option),
                        minimum, maximum);
}

int optionCap(const SubcommandParser &parser, const QString &option) {
    if (parser.value(option).trimmed() == QLatin1String("none"))
        return 0;
    return int(optionInteger(parser, option, 0, kMaxCap));
}

QString parseMaxFuture(const QString &text, const QString &command) {
    if (text.trimmed() == QLatin1String("none"))
        return QStringLiteral("none");
    constexpr qint64 kMinute = 60'000;
    constexpr qint64 kTenYears = 3650LL * 86'400'000;
    const QString option = command + QStringLiteral(": --max-future");
    const qint64 ms = parseDurationMs(text, option);
    if (ms < kMinute || ms > kTenYears)
        throw ValidationError(QStringLiteral("%1: '%2' is not from 1m to 3650d (or none)").arg(option, text));
    return durationText(ms);
}

qint64 parseTableId(const QString &text, const QString &command) {
    return parseInteger(text, QStringLiteral("%1: table ID").arg(command), 1);
}

QList<qint64> parseTableIds(const QStringList &texts, const QString &command) {
    QList<qint64> ids;
    for (const QString &text : texts) {
        const qint64 id = parseInteger(text, QStringLiteral("%1: --table").arg(command), 1);
        if (!ids.contains(id))
            ids.append(id);
    }
    return ids;
}

QPair<QString, QString> splitConnTable(const QString &text, const QString &option) {
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    if (colon <= 0 || colon + 1 >= text.size())
        throw ValidationError(QStringLiteral("%1: '%2' is not CONN:TABLE").arg(option, text));
    return {text.left(colon), text.mid(colon + 1)};
}

void throwNoSuchTable(Workspace &workspace, qint64 id) {
    throw ValidationError(
        QStringLiteral("table %1: no such table in workspace %2").arg(id).arg(workspace.path()));
}

TableSpec requireTable(Workspace &workspace, qint64 id) {
    if (const std::optional<TableSpec> spec = workspace.table(id))
        return *spec;
    if (const std::optional<TableSpec> removed = workspace.archivedTable(id))
        throw ValidationError(
            QStringLiteral("table %1 (%2 -> %3) is removed; restore it with: tidemark-cli -w %4 "
                           "table restore %1")
                .arg(id)
                .arg(removed->sourceDisplay(), removed->targetDisplay(), workspace.path()));
    throwNoSuchTable(workspace, id);
}

} // namespace tidemark::cli
