// SPDX-License-Identifier: MIT
#pragma once

namespace tidemark {

// Fault injection for the crash tests: when the environment variable TIDEMARK_FAULT_POINT
// names this point, the process kills itself with SIGKILL right here, exactly as a power cut
// or an OOM kill would. Costs one string compare when unset.
void faultPoint(const char *name);

} // namespace tidemark
