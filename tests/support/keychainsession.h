// SPDX-License-Identifier: MIT
#pragma once

// Suites that talk to a real Secret Service: their main() calls this first. Outside a keychain
// session it runs the same executable again inside `dbus-run-session`, with a private
// gnome-keyring-daemon started unlocked (--unlock reads the keyring password from stdin) and
// XDG_DATA_HOME/XDG_RUNTIME_DIR in a temporary directory, so the user's own keyring is never
// touched; headless, and as root. Returns the exit code of that run, or -1 when this process
// already is the run inside the session (main then runs the tests). Missing tools fail the suite:
// scripts/deps.sh installs them.
namespace tidemark::test {

int reRunInKeychainSession(int argc, char **argv);

} // namespace tidemark::test
