// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/connectionspec.h"
#include "model/storage/workspacepasswords.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace tidemark {

// Passwords of PostgreSQL connections in the system keychain (the Secret Service on Linux,
// e.g. gnome-keyring or KWallet, through QtKeychain). An entry is found by the service
// "Tidemark" and the connection's keychainKey ("<workspace id>/connection/<id>"), so the window
// and `tidemark-cli` of the same user, opening the same workspace file by any path, find the
// same entry. To look at it by hand: `secret-tool lookup server Tidemark user KEY`.
//
// QtKeychain's jobs are asynchronous and need an event loop; they all run on one thread of their
// own (started on first use, stopped when the QCoreApplication goes), and these calls wait for
// the answer, so they work from the CLI's main thread without a running event loop and from any
// worker. They block: the window calls them off the GUI thread. A QCoreApplication must exist.
// Errors are Error exceptions naming the connection; they never carry the password.
class CredentialStore {
public:
    static constexpr const char *serviceName = "Tidemark";

    // The stored password, or nullopt when there is no entry. Throws Error when no keychain
    // answers (no Secret Service, locked, refused).
    static std::optional<QString> readPassword(const ConnectionSpec &spec);
    // Stores (or replaces) the password. Throws Error when it could not be stored.
    static void savePassword(const ConnectionSpec &spec, const QString &password);
    // Removes the entry; returns false when there was none. Throws Error when no keychain answers.
    static bool forgetPassword(const ConnectionSpec &spec);
    // The same for a server workspace's password, by its server (WorkspaceLocation::target()).
    static std::optional<QString> readWorkspacePassword(const QString &target);
    static void saveWorkspacePassword(const QString &target, const QString &password);
    static bool forgetWorkspacePassword(const QString &target);
    // Why no keychain can be used here (TIDEMARK_NO_KEYCHAIN=1, no D-Bus session bus, no Secret
    // Service answering), or an empty string when one answers. Blocks while it asks.
    static QString unavailableReason();
};

// The password libpq gets for a PostgreSQL connection: the typed one (typedPassword) when there
// is one, else the first found of:
//   1. the environment variable named in passwordEnv (Error naming it when it is not set);
//   2. the keychain entry of the connection (skipped when TIDEMARK_NO_KEYCHAIN=1, or when no
//      keychain answers: that is logged at debug level, the password is not);
//   3. nothing: libpq then reads ~/.pgpass, a service file or PGPASSWORD itself.
// `keychainProblem`, when given, says why the keychain could not be asked (empty: it was asked,
// or was not to be), so a failed login can say where the password was looked for.
QByteArray resolvePostgresPassword(const ConnectionSpec &spec, QString *keychainProblem = nullptr);

// A server workspace's keychain entry: "workspace/<the URI without schema>", so one entry serves
// every schema of that server and user. To look at it: `secret-tool lookup server Tidemark user KEY`.
QString workspaceKeychainKey(const QString &target);

// After a workspace refused a connection for want of a password (WorkspacePasswordError): reads
// the keychain's password for that server and has this process use it (WorkspacePasswords).
// False when there is none, TIDEMARK_NO_KEYCHAIN=1, or no keychain answers (logged at debug).
// Blocks while the keychain answers: not on the GUI thread.
bool rememberWorkspacePasswordFromKeychain(const QString &target);

// Calls `open`, which opens (or creates) a workspace; when a server asks for a password libpq could
// not find and the keychain holds one for it, calls it again with that password.
template <typename Open>
auto withKeychainPassword(Open open) -> decltype(open()) {
    try {
        return open();
    } catch (const WorkspacePasswordError &error) {
        if (error.reason() != WorkspacePasswordError::Reason::Missing ||
            !rememberWorkspacePasswordFromKeychain(error.target()))
            throw;
    }
    return open();
}

} // namespace tidemark
