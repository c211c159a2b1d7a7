// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>

namespace tidemark::test {

// A TCP relay on 127.0.0.1 between the processes under test and a server (the workspace's
// PostgreSQL), that the test can cut as a network would: cut() drops every relayed connection
// and refuses new ones, restore() accepts them again on the same port. It relays on the test's
// own thread, so the test spins the event loop while it waits (QTRY_*, QTest::qWait).
class TcpCutter : public QObject {
    Q_OBJECT

public:
    explicit TcpCutter(quint16 upstreamPort, QObject *parent = nullptr);
    bool listening() const { return m_server.isListening(); }
    quint16 port() const { return m_port; }
    void cut();
    bool restore();
    int relayed() const { return m_relayed; } // connections relayed so far

private:
    void accept();

    quint16 m_upstreamPort;
    quint16 m_port = 0;
    int m_relayed = 0;
    QTcpServer m_server;
    QList<QPair<QPointer<QTcpSocket>, QPointer<QTcpSocket>>> m_pairs;
};

} // namespace tidemark::test
