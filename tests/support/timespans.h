// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QList>
#include <QString>

namespace tidemark::test {

// An iteration's time in history: its start and finish, and its target ("dst:orders").
struct Span {
    QDateTime start;
    QDateTime finish;
    QString target;
};

// The most spans open at one moment; a span that starts when another finishes does not overlap it.
int mostAtOnce(const QList<Span> &spans);

} // namespace tidemark::test
