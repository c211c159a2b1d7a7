// SPDX-License-Identifier: MIT
#pragma once

// Header-only, so bench/bare_window.cpp (a plain Qt window built apart from Tidemark) times its
// GUI thread the way WindowEventLog times the window's.

#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>

namespace tidemark {

// How long this thread has been ready to run but waiting for a core, in all (Linux's schedstat;
// 0 where there is none). A late tick that mostly waited for a core was the machine's load, not
// the window's own work.
inline qint64 runQueueWaitMs() {
    QFile stat(QStringLiteral("/proc/thread-self/schedstat"));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = stat.readAll().split(' ');
    return fields.size() >= 2 ? fields.at(1).toLongLong() / 1000000 : 0;
}

// A 10 ms timer owned by `parent` on its thread: whenever it fires over 20 ms late it notes
// "late L waited W", L the lateness and W how much of it the thread spent waiting for a core.
inline void startLatenessProbe(QObject *parent, std::function<void(const QString &)> note) {
    auto *timer = new QTimer(parent);
    auto clock = std::make_shared<QElapsedTimer>();
    auto waited = std::make_shared<qint64>(runQueueWaitMs());
    clock->start();
    QObject::connect(timer, &QTimer::timeout, parent, [note = std::move(note), clock, waited] {
        const qint64 late = clock->restart() - 10;
        const qint64 waitedNow = runQueueWaitMs();
        if (late > 20)
            note(QStringLiteral("late %1 waited %2").arg(late).arg(waitedNow - *waited));
        *waited = waitedNow;
    });
    timer->start(10);
}

} // namespace tidemark
