// SPDX-License-Identifier: MIT
#pragma once

#include <functional>

namespace tidemark {

// Fault injection for the crash and concurrency tests, costing one string compare when unset:
// - TIDEMARK_FAULT_POINT names a point: the process kills itself with SIGKILL right there,
//   exactly as a power cut or an OOM kill would;
// - TIDEMARK_FAULT_STOP names a point, or several separated by commas: the first time each is
//   reached the process stops itself with SIGSTOP (a closed laptop lid, a paused VM) until
//   someone sends SIGCONT; its heartbeat stops with it, so its lease expires while it holds an
//   open target transaction. A test acts between two stops (takes a lock, then releases it).
// - TIDEMARK_FAULT_DELAY names a point and milliseconds ("before_write_transaction:300"): every
//   time it is reached, the thread sleeps that long (a slow server), so iterations overlap in
//   time and the caps have something to hold back.
// - a hook set by setFaultHook() runs at every point, on the thread that reaches it: an
//   in-process test interleaves a second iteration or a backfill right there.
void faultPoint(const char *name);

// Test-only; set (or clear with an empty function) while no iteration or backfill runs.
void setFaultHook(std::function<void(const char *name)> hook);

} // namespace tidemark
