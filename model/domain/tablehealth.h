// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"

#include <QDateTime>
#include <QString>

namespace tidemark {

// A table's health, worst first:
// - failing: its last finished run failed or was interrupted;
// - source_behind: that run found the source's highest watermark below the position;
// - held_back: that run held rows back beyond the future guard;
// - stalled: active, with a --stale-after, and its position has not moved for longer, while
//   that run ended with rows waiting above the position, or no run has copied it for that long;
// - ok.
// The reason says why in a sentence (empty when ok).
struct TableHealth {
    QString name;
    QString reason;
};

// `last`: the table's last finished iteration (id 0: none); `movedAt`: when its position last
// changed, or when it was added; `now` UTC. Pure: a caller re-evaluates it as time passes.
TableHealth tableHealth(const TableSpec &spec, const IterationRecord &last, const QDateTime &movedAt,
                        const QDateTime &now);

// A --stale-after value: a duration from 1m to 3650d in its shortest spelling, or "" for
// "none" or "". Throws ValidationError naming `what` (the option or field) and the text.
QString parseStaleAfter(const QString &text, const QString &what);

} // namespace tidemark
