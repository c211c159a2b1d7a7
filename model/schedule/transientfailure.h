// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark {

// The one place that decides whether a failed iteration may succeed if simply tried again:
// a connection refused or lost, a lock or serialization timeout, a deadlock. Everything else
// (validation, a missing column, a type error, a constraint) fails the same way again and is
// never retried.
bool isTransientFailure(const QString &error);

} // namespace tidemark
