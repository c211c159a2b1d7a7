// SPDX-License-Identifier: MIT
#pragma once

#include "model/common/error.h"

#include <QByteArray>
#include <QString>
#include <optional>

namespace tidemark {

// Passwords of server workspaces that libpq's own sources (PGPASSWORD, ~/.pgpass, a service file)
// do not hold: typed in the window, or read from the system keychain. Held in this process's
// memory only, by the workspace's server (WorkspaceLocation::target(): one password serves every
// schema there), for every connection the process opens to it: its worker threads, its watcher,
// a reconnect. Never written anywhere.
class WorkspacePasswords {
public:
    static void remember(const QString &target, const QByteArray &password);
    static void forget(const QString &target);
    static std::optional<QByteArray> find(const QString &target);
};

// A server workspace's connection was refused for want of a password: none was given (libpq found
// none), or the one given was wrong. The message names the workspace and says where a password
// is looked for.
class WorkspacePasswordError : public ValidationError {
public:
    enum class Reason { Missing, Refused };
    WorkspacePasswordError(const QString &message, const QString &target, Reason reason)
        : ValidationError(message)
        , m_target(target)
        , m_reason(reason) {}
    const QString &target() const { return m_target; }
    Reason reason() const { return m_reason; }

private:
    QString m_target;
    Reason m_reason;
};

} // namespace tidemark
