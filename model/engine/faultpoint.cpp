// SPDX-License-Identifier: MIT
#include "model/engine/faultpoint.h"

#include <QByteArray>
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
    static const QByteArray stop = qgetenv("TIDEMARK_FAULT_STOP");
    static std::atomic_bool stopped{false};
    if (!kill.isEmpty() && std::strcmp(kill.constData(), name) == 0)
        std::raise(SIGKILL);
    if (!stop.isEmpty() && std::strcmp(stop.constData(), name) == 0 && !stopped.exchange(true))
        std::raise(SIGSTOP);
}

} // namespace tidemark
