// SPDX-License-Identifier: MIT
#include "model/engine/connectorcache.h"

#include "model/connectors/connectorfactory.h"

namespace tidemark {
namespace {

// What the connection opens: an edit of any of it during the run means a new connection.
bool sameEndpoint(const ConnectionSpec &a, const ConnectionSpec &b) {
    return a.name == b.name && a.kind == b.kind && a.path == b.path && a.conninfo == b.conninfo &&
           a.passwordEnv == b.passwordEnv && a.keychainKey == b.keychainKey;
}

} // namespace

std::shared_ptr<Connector> ConnectorCache::acquire(const ConnectionSpec &spec) {
    const auto found = m_entries.constFind(spec.id);
    if (found != m_entries.constEnd() && sameEndpoint(found->spec, spec))
        return found->connector;
    std::shared_ptr<Connector> connector = openConnector(spec);
    m_entries.insert(spec.id, Entry{spec, connector});
    return connector;
}

void ConnectorCache::discard(const Connector *connector) {
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        if (it->connector.get() == connector)
            it = m_entries.erase(it);
        else
            ++it;
    }
}

} // namespace tidemark
