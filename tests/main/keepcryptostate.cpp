// SPDX-License-Identifier: MIT
// Linked into every suite: before QTEST_MAIN's main runs, OpenSSL is told to keep its global
// state until the process is gone, as the window's and the CLI's main do first thing. Without it,
// a pooled thread that spoke TLS to a server workspace could still be ending after OpenSSL's exit
// clean-up: LeakSanitizer reported its per-thread state (ui.tst_controltablepanel.server), and a
// release build once crashed there (ui.tst_serverworkspacedialog).
#include "model/common/cryptoexit.h"

namespace {

const bool kCryptoStateKept = (tidemark::keepCryptoStateUntilExit(), true);

} // namespace
