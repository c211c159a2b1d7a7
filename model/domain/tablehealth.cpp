// SPDX-License-Identifier: MIT
#include "model/domain/tablehealth.h"

#include "model/common/duration.h"
#include "model/common/error.h"

#include <optional>

namespace tidemark {
namespace {

constexpr qint64 kMinuteMs = 60'000;
constexpr qint64 kTenYearsMs = 3650LL * 86'400'000;

std::optional<TableHealth> stalled(const TableSpec &spec, const IterationRecord &last,
                                   const QDateTime &movedAt, const QDateTime &now) {
    if (!spec.active || spec.staleAfter.isEmpty() || !movedAt.isValid())
        return std::nullopt; // a paused table stands still on purpose
    qint64 staleAfterMs = 0;
    try {
        staleAfterMs = parseDurationMs(spec.staleAfter, QStringLiteral("stale after"));
    } catch (const ValidationError &) {
        return std::nullopt; // every way in (the CLI, the dialog, a document) checks it first
    }
    if (movedAt.msecsTo(now) <= staleAfterMs)
        return std::nullopt;
    const QString still = QStringLiteral("its position has not moved since %1 (%2; stale after %3)")
                              .arg(isoUtc(movedAt), formatAge(movedAt.secsTo(now)), spec.staleAfter);
    if (last.id == 0 || !last.finishedAt.isValid() || last.finishedAt.msecsTo(now) > staleAfterMs) {
        const QString since = last.id == 0 || !last.finishedAt.isValid()
                                  ? QStringLiteral("it was added")
                                  : QStringLiteral("%1 (%2 ago)")
                                        .arg(isoUtc(last.finishedAt), formatAge(last.finishedAt.secsTo(now)));
        return TableHealth{QStringLiteral("stalled"),
                           QStringLiteral("%1, and no run has copied it since %2: is its schedule firing?")
                               .arg(still, since)};
    }
    // The last run looked at the source recently: rows waiting above where it stopped, or none.
    if (last.windowUpper.isEmpty() || last.windowUpper == last.watermarkAfter)
        return std::nullopt; // caught up: a quiet source, not a stalled table
    return TableHealth{
        QStringLiteral("stalled"),
        QStringLiteral("%1, though its source holds rows up to %2; its last run (%3) ended %4 at %5")
            .arg(still, last.windowUpper, isoUtc(last.finishedAt), iterationStatusName(last.status),
                 last.watermarkAfter.isEmpty() ? QStringLiteral("none") : last.watermarkAfter)};
}

} // namespace

TableHealth tableHealth(const TableSpec &spec, const IterationRecord &last, const QDateTime &movedAt,
                        const QDateTime &now) {
    if (last.id != 0 &&
        (last.status == IterationStatus::Failed || last.status == IterationStatus::Interrupted))
        return {QStringLiteral("failing"), last.error};
    if (last.id != 0 && last.sourceBehind)
        return {QStringLiteral("source_behind"), last.error};
    if (last.id != 0 && last.rowsFuture > 0)
        return {QStringLiteral("held_back"), last.error};
    if (const std::optional<TableHealth> health = stalled(spec, last, movedAt, now))
        return *health;
    return {QStringLiteral("ok"), QString()};
}

QString parseStaleAfter(const QString &text, const QString &what) {
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty() || trimmed == QLatin1String("none"))
        return QString();
    const qint64 ms = parseDurationMs(trimmed, what);
    if (ms < kMinuteMs || ms > kTenYearsMs)
        throw ValidationError(QStringLiteral("%1: '%2' is not from 1m to 3650d (or none)").arg(what, text));
    return durationText(ms);
}

} // namespace tidemark
