// SPDX-License-Identifier: MIT
#pragma once

#include "model/storage/storecopy.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <functional>

namespace tidemark {

class Workspace;

struct WorkspaceCopyReport {
    QList<CopiedRows> rows;
    QStringList takenOver;    // "table 3 (dst:orders) at <position>": its target is the copy's now
    QStringList notTakenOver; // "table 4 (dst:x): <why>": the copy takes it over with run --adopt
};

// `workspace copy DEST`: the whole of `source` in a new workspace at `destination`, of either
// kind, with the targets taken over, so that runs from the copy go on exactly where `source`
// stopped (no re-copy, no duplicate) and `source` runs nothing any more (its runs are refused,
// naming the copy; a target's state row names its new owner too). Refuses (ValidationError) a
// destination that exists, and while a run of `source` is going (naming it); then nothing is
// changed. A target out of reach does not stop the copy: it is reported, and the copy's first
// `run --adopt` of that table takes it over. `progress` hears a line per step.
WorkspaceCopyReport copyWorkspace(Workspace &source, const QString &destination,
                                  const std::function<void(const QString &)> &progress);

} // namespace tidemark
