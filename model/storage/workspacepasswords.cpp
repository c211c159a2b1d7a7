// SPDX-License-Identifier: MIT
#include "model/storage/workspacepasswords.h"

#include <QHash>

#include <mutex>

namespace tidemark {
namespace {

std::mutex s_mutex;
QHash<QString, QByteArray> &passwords() {
    static QHash<QString, QByteArray> held;
    return held;
}

} // namespace

void WorkspacePasswords::remember(const QString &target, const QByteArray &password) {
    std::lock_guard lock(s_mutex);
    passwords().insert(target, password);
}

void WorkspacePasswords::forget(const QString &target) {
    std::lock_guard lock(s_mutex);
    passwords().remove(target);
}

std::optional<QByteArray> WorkspacePasswords::find(const QString &target) {
    std::lock_guard lock(s_mutex);
    const auto found = passwords().constFind(target);
    if (found == passwords().cend())
        return std::nullopt;
    return *found;
}

} // namespace tidemark
