// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark {

// This process as history and the runners' queue name it: "host:pid" (an iteration's `runner`,
// a fleet runner's id).
QString thisRunnerId();

} // namespace tidemark
