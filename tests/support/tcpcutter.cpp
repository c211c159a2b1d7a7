// SPDX-License-Identifier: MIT
#include "tests/support/tcpcutter.h"

#include <QHostAddress>

namespace tidemark::test {

TcpCutter::TcpCutter(quint16 upstreamPort, QObject *parent)
    : QObject(parent)
    , m_upstreamPort(upstreamPort) {
    connect(&m_server, &QTcpServer::newConnection, this, &TcpCutter::accept);
    if (m_server.listen(QHostAddress::LocalHost))
        m_port = m_server.serverPort();
}

void TcpCutter::accept() {
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        auto *upstream = new QTcpSocket(this);
        client->setParent(this);
        const auto relay = [](QTcpSocket *from, QTcpSocket *to) {
            connect(from, &QTcpSocket::readyRead, to, [from, to] {
                if (to->state() == QAbstractSocket::ConnectedState)
                    to->write(from->readAll());
            });
            connect(from, &QTcpSocket::disconnected, to, [to] { to->disconnectFromHost(); });
        };
        relay(client, upstream);
        relay(upstream, client);
        // What the client sends before the server connection is up waits in its buffer.
        connect(upstream, &QTcpSocket::connected, client, [client, upstream] {
            if (client->bytesAvailable() > 0)
                upstream->write(client->readAll());
        });
        connect(upstream, &QTcpSocket::errorOccurred, client, [client] { client->abort(); });
        upstream->connectToHost(QHostAddress::LocalHost, m_upstreamPort);
        m_pairs.append(qMakePair(QPointer<QTcpSocket>(client), QPointer<QTcpSocket>(upstream)));
        ++m_relayed;
    }
}

void TcpCutter::cut() {
    m_server.close();
    for (const auto &[client, upstream] : std::as_const(m_pairs)) {
        if (client)
            client->abort();
        if (upstream)
            upstream->abort();
    }
    m_pairs.clear();
}

bool TcpCutter::restore() {
    return m_server.isListening() || m_server.listen(QHostAddress::LocalHost, m_port);
}

} // namespace tidemark::test
