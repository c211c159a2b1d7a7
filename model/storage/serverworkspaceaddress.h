// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace tidemark {

// A server workspace's address in the parts the window's "Open Server Workspace" dialog asks
// for. location() is the text WorkspaceLocation::resolve() reads back:
// postgresql://USER@HOST:PORT/DATABASE?sslmode=MODE&schema=SCHEMA, every part percent-encoded,
// the defaults (sslmode prefer, schema tidemark) left out. It never holds a password: libpq finds
// it (PGPASSWORD, ~/.pgpass, a service file), as for every server workspace.
struct ServerWorkspaceAddress {
    QString host = QStringLiteral("localhost");
    int port = 5432;
    QString database;
    QString user;
    QString schema = QStringLiteral("tidemark");
    QString sslmode = QStringLiteral("prefer");

    // Empty when the address names a workspace; else what is missing, in the dialog's words.
    QString problem() const;
    QString location() const;
    // How a window title or a recent list names it: "tidemark in warehouse on db.example.com:5432".
    QString displayName() const;
    // The parts of a server workspace's location (a recent one, to start from); the defaults
    // when `text` names no server workspace.
    static ServerWorkspaceAddress fromLocation(const QString &text);
};

} // namespace tidemark
