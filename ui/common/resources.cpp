// SPDX-License-Identifier: MIT
#include "ui/common/resources.h"

#include <QtGlobal>

// Q_INIT_RESOURCE declares the initializer at the point of use, so it must sit outside any
// namespace.
static void initTidemarkResources() {
    Q_INIT_RESOURCE(tidemark);
}

namespace tidemark {

void ensureResources() {
    static const bool done = [] {
        initTidemarkResources();
        return true;
    }();
    Q_UNUSED(done);
}

} // namespace tidemark
