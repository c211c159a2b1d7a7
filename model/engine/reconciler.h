// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <atomic>

namespace tidemark {

class Workspace;

// What reconcile found, and did: the target rows at or below the table's position whose key the
// source no longer has.
struct ReconcileResult {
    qint64 tableId = 0;
    QString source;
    QString target;
    QString action;        // DeletePolicy::actionText(): what --apply does
    qint64 sourceRows = 0; // every source row, whatever its watermark
    qint64 targetRows = 0;
    qint64 gone = 0;        // target rows at or below the position whose key left the source
    qint64 withinGrace = 0; // of those, kept: copied within the delete grace
    qint64 toRemove = 0;    // gone - withinGrace
    qint64 removed = 0;     // removed or marked, committed with the state row
    bool applied = false;
    QString refusedBy;      // the guard that refused: "empty-source" | "max-delete-ratio"; empty = none
    QString refusal;        // one sentence naming the table, the guard and what to do
    QStringList sampleKeys; // a few keys to remove, {"id":3}
    bool byRanges = false;  // summed by bucket of keys in each database; else every key was read
    int rangesRead = 0;
};

// Finds the target rows of table `tableId` that the source deleted (docs/design.md, "Deletes"):
// each database sums its keys by bucket (model/connectors/rowchecksum.h), only the buckets that
// differ are read, and a target key the source lacks is gone when its row is at or below the
// position and was copied before the delete grace (the position the table had `grace` ago).
// Guards, all before anything changes: fewer source keys read than the source's own sums
// counted, a source with no rows at all, and more to remove than --max-delete-ratio of the
// target's rows, refuse (refusedBy). With `apply` (and a policy that
// removes or marks), the rows go in one target transaction under the state row's compare-and-
// set: all of them or none, and none if a copy moved the position meanwhile. Throws
// ValidationError for a table without a key, an overwrite table, a missing mark column or
// `apply` with the policy `ignore`; Error naming the table when a side cannot be read (nothing
// is removed then). `runId` goes into the state row (0: on demand).
ReconcileResult reconcileTable(Workspace &workspace, qint64 tableId, bool apply, const QDateTime &now,
                               qint64 runId = 0, const std::atomic_bool *cancel = nullptr);

// One line for people: what is gone, what was kept, what was removed or refused.
QString reconcileText(const ReconcileResult &result);

} // namespace tidemark
