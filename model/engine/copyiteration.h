// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"
#include "model/domain/watermarkrange.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace tidemark {

class ConnectorCache;
class Workspace;

// Told about an iteration as it goes; called on the iteration's own thread.
class IterationObserver {
public:
    virtual ~IterationObserver() = default;
    virtual void iterationChanged(const IterationRecord &record) {}
    virtual void logged(const IterationRecord &record, const LogLine &line) {}
};

// One iteration of the copy contract (docs/design.md, "One iteration"), synchronous, one method
// per step: lease, reconcile, window, read, write, commit, advance, account, cancel.
// The commit is a compare-and-set of the target's state row (docs/design.md, "The target is the
// lock"): an iteration that finds the target moved on since it started writes nothing and ends
// `skipped`, naming the run that committed first.
// Runs on the calling thread with its own connections; never throws: every failure becomes a
// status and an error naming the table, column or file at fault.
class CopyIteration {
public:
    struct Options {
        bool dryRun = false;
        // `run --adopt`: take the target table over from the workspace or table that owns it
        // (model/engine/targetownership.h) before reconciling; logged and recorded as a
        // watermark change with cause "adopt".
        bool adopt = false;
        // The environment variable TIDEMARK_TEST_LEASE_TTL_MS overrides it: for tests only, so
        // a lease can expire within a test run.
        std::chrono::milliseconds leaseTtl{60000};
        // Checked between batches; a statement running when it is set is interrupted.
        const std::atomic_bool *cancel = nullptr;
        IterationObserver *observer = nullptr;
        // The worker thread's connectors, kept open across the run's iterations; null: this
        // iteration opens its own and closes them at its end.
        ConnectorCache *connectors = nullptr;
        // `backfill ID --range`: re-copies the rows of the range already copied (up to the
        // position), under the merge rule, beside the table's live copies: without the table's
        // lease, committing per batch and never moving the position or the state row; a backfill
        // that raises the row's generation meanwhile ends it (docs/design.md, "Range backfill").
        std::optional<WatermarkRangeText> range;
        // This process's own limit on iterations running at once (`serve --slots`), beside the
        // workspace's caps; 0 = none.
        int processSlots = 0;
    };

    // `workspace` is this thread's own Workspace; `record` is the queued iteration (with id).
    CopyIteration(Workspace &workspace, const TableSpec &spec, IterationRecord record, Options options);
    ~CopyIteration();

    IterationRecord run();

private:
    struct State;
    std::unique_ptr<State> d;
};

} // namespace tidemark
