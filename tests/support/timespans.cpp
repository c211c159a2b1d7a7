// SPDX-License-Identifier: MIT
#include "tests/support/timespans.h"

#include <algorithm>
#include <utility>

namespace tidemark::test {

int mostAtOnce(const QList<Span> &spans) {
    QList<std::pair<QDateTime, int>> events;
    for (const Span &span : spans) {
        events.append({span.start, +1});
        events.append({span.finish, -1});
    }
    std::sort(events.begin(), events.end()); // at one time, a finish (-1) before a start (+1)
    int open = 0;
    int most = 0;
    for (const auto &[at, change] : events) {
        open += change;
        most = std::max(most, open);
    }
    return most;
}

} // namespace tidemark::test
