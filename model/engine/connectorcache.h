// SPDX-License-Identifier: MIT
#pragma once

#include "model/connectors/connector.h"
#include "model/domain/connectionspec.h"

#include <QHash>
#include <memory>

namespace tidemark {

// The connectors one worker thread keeps open across the iterations of one run, one per
// connection. Opening a SQLite file parses its whole schema and a PostgreSQL connection costs
// round trips and authentication: a run over hundreds of tables pays that once per worker
// thread instead of once per table. Each connector is still used by one thread only (docs/design.md
// "Threads"); only the thread that owns the cache calls it, and it is destroyed after that
// thread's last iteration of the run (closing the connections).
// A connector is handed out again only while its connection's spec is unchanged and its last
// iteration released it clean: one that was interrupted (a Cancel stays in effect on an
// SQLite handle, a PostgreSQL cancel request may still be in flight) or whose iteration failed
// (a lost or broken session) is discarded, and the next iteration opens a new one.
class ConnectorCache {
public:
    // The open connector of `spec`, or a new one. Throws Error like openConnector().
    std::shared_ptr<Connector> acquire(const ConnectionSpec &spec);
    // Closes `connector` (once nobody else holds it); the next acquire() opens a new one.
    void discard(const Connector *connector);

private:
    struct Entry {
        ConnectionSpec spec;
        std::shared_ptr<Connector> connector;
    };
    QHash<qint64, Entry> m_entries; // by connection id
};

} // namespace tidemark
