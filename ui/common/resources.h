// SPDX-License-Identifier: MIT
#pragma once

namespace tidemark {

// Registers the icons compiled into tidemark_ui. A static library's resources are only linked
// when something references their initializer, so the window, the delegates and the tests
// call this before loading ":/icons/...". Idempotent.
void ensureResources();

} // namespace tidemark
