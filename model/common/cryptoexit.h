// SPDX-License-Identifier: MIT
#pragma once

namespace tidemark {

// OpenSSL (loaded by libpq and Connector/C, for TLS and password hashing) frees its global state
// in an exit handler, and each thread's own state as that thread ends. Qt's pooled threads are
// detached: one may still be ending when main returns, and its state is then freed after the
// global clean-up ran, which it cannot be (a leak at every such exit, reported by
// LeakSanitizer). Called first thing in main, this asks OpenSSL to keep its global state until
// the process is gone instead; the system reclaims it.
void keepCryptoStateUntilExit();

} // namespace tidemark
