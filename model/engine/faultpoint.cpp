// SPDX-License-Identifier: MIT
#include "model/engine/faultpoint.h"

#include <QByteArray>
#include <QList>
#include <QThread>
#include <QtGlobal>
#include <atomic>
#include <csignal>
#include <cstring>

namespace tidemark {
namespace {

std::function<void(const char *)> &faultHook() {
    static std::function<void(const char *)> hook;
    return hook;
}

} // namespace

void setFaultHook(std::function<void(const char *name)> hook) {
    faultHook() = std::move(hook);
}

void faultPoint(const char *name) {
    if (faultHook())
        faultHook()(name);
    static const QByteArray kill = qgetenv("TIDEMARK_FAULT_POINT");
    static const QList<QByteArray> stops = qgetenv("TIDEMARK_FAULT_STOP").split(',');
    static std::atomic<quint64> stopped{0}; // bit i: stops[i] was reached once already
    if (!kill.isEmpty() && std::strcmp(kill.constData(), name) == 0)
        std::raise(SIGKILL);
    static const QList<QByteArray> delay = qgetenv("TIDEMARK_FAULT_DELAY").split(':');
    if (delay.size() == 2 && delay[0] == name)
        QThread::msleep(delay[1].toULong());
    for (int i = 0; i < qMin(int(stops.size()), 64); ++i) {
        const quint64 bit = quint64(1) << i;
        if (!stops[i].isEmpty() && stops[i] == name && !(stopped.fetch_or(bit) & bit))
            std::raise(SIGSTOP);
    }
}

} // namespace tidemark
