// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"

#include <atomic>
#include <functional>
#include <memory>

namespace tidemark {

class Workspace;

// Told about an iteration as it goes; called on the iteration's own thread.
class IterationObserver {
public:
    virtual ~IterationObserver() = default;
    virtual void iterationChanged(const IterationRecord &record) {}
    virtual void logged(const IterationRecord &record, const LogLine &line) {}
};

// One iteration of the copy contract (DESIGN.md, "One iteration"), synchronous, one method
// per step: lease, reconcile, window, read, write, commit, advance, account, cancel.
// Runs on the calling thread with its own connections; never throws: every failure becomes a
// status and an error naming the table, column or file at fault.
class CopyIteration {
public:
    struct Options {
        bool dryRun = false;
        int leaseTtlSeconds = 60;
        const std::atomic_bool *cancel = nullptr; // checked between batches
        IterationObserver *observer = nullptr;
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
