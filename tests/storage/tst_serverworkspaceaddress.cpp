// SPDX-License-Identifier: MIT
// The server workspace address the window's dialog builds: WorkspaceLocation reads it back part
// for part, whatever characters the parts hold.
#include "model/storage/serverworkspaceaddress.h"
#include "model/storage/workspacelocation.h"

#include <QDir>
#include <QUrl>
#include <QtTest>

using namespace tidemark;

class TestServerWorkspaceAddress : public QObject {
    Q_OBJECT

private slots:
    void defaultsAreLeftOut() {
        ServerWorkspaceAddress address;
        address.database = QStringLiteral("warehouse");
        address.user = QStringLiteral("ana");
        QCOMPARE(address.location(), QStringLiteral("postgresql://ana@localhost:5432/warehouse"));
        const WorkspaceLocation resolved = WorkspaceLocation::resolve(address.location());
        QVERIFY(resolved.isServer());
        QCOMPARE(resolved.schema(), QStringLiteral("tidemark"));
    }

    void partsRoundTrip_data() {
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("database");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("schema");
        QTest::addColumn<QString>("sslmode");
        QTest::newRow("plain") << "db.example.com"
                               << "warehouse"
                               << "ana"
                               << "team_a"
                               << "require";
        QTest::newRow("awkward") << "10.0.0.7"
                                 << "data lake"
                                 << "ana@corp"
                                 << "Ops & Co #1"
                                 << "verify-full";
        QTest::newRow("unicode") << "localhost"
                                 << "lager"
                                 << "jürgen"
                                 << "arbeitsbereich ü"
                                 << "disable";
        QTest::newRow("IPv6") << "::1"
                              << "warehouse"
                              << "ana"
                              << "tidemark"
                              << "prefer";
    }

    void partsRoundTrip() {
        QFETCH(QString, host);
        QFETCH(QString, database);
        QFETCH(QString, user);
        QFETCH(QString, schema);
        QFETCH(QString, sslmode);
        ServerWorkspaceAddress address;
        address.host = host;
        address.port = 6543;
        address.database = database;
        address.user = user;
        address.schema = schema;
        address.sslmode = sslmode;
        QVERIFY(address.problem().isEmpty());
        const QString location = address.location();
        const WorkspaceLocation resolved = WorkspaceLocation::resolve(location);
        QVERIFY(resolved.isServer());
        QCOMPARE(resolved.schema(), schema);
        const ServerWorkspaceAddress back = ServerWorkspaceAddress::fromLocation(resolved.text());
        QCOMPARE(back.host, host);
        QCOMPARE(back.port, 6543);
        QCOMPARE(back.database, database);
        QCOMPARE(back.user, user);
        QCOMPARE(back.schema, schema);
        QCOMPARE(back.sslmode, sslmode);
    }

    void missingPartsAreNamed() {
        ServerWorkspaceAddress address;
        QVERIFY(address.problem().contains(QLatin1String("database")));
        address.database = QStringLiteral("warehouse");
        address.schema = QStringLiteral(" ");
        QVERIFY(address.problem().contains(QLatin1String("schema")));
        address.schema = QStringLiteral("tidemark");
        address.host.clear();
        QVERIFY(address.problem().contains(QLatin1String("host")));
    }

    // A file's log is beside it; a server workspace has no folder of its own, so each machine logs
    // it under its state directory, named after server, database and schema (the window once wrote
    // "postgresql:/…?schema=x.log" under its working directory).
    void logFiles() {
        QCOMPARE(WorkspaceLocation::logFileFor(QStringLiteral("/tmp/a.tidemark")),
                 QStringLiteral("/tmp/a.tidemark.log"));
        qputenv("XDG_STATE_HOME", "/tmp/state");
        QCOMPARE(WorkspaceLocation::logFileFor(
                     QStringLiteral("postgresql://ana@db:5433/warehouse?sslmode=require&schema=x")),
                 QStringLiteral("/tmp/state/tidemark/ana@db_5433_warehouse_x.log"));
        qunsetenv("XDG_STATE_HOME");
        QCOMPARE(WorkspaceLocation::logFileFor(QStringLiteral("postgres://db/w?schema=team")),
                 QDir::homePath() + QStringLiteral("/.local/state/tidemark/db_w_team.log"));
        QCOMPARE(WorkspaceLocation::logFileFor(QString()), QString());
    }

    void aFileStartsFromTheDefaults() {
        const ServerWorkspaceAddress address =
            ServerWorkspaceAddress::fromLocation(QStringLiteral("/tmp/a.tidemark"));
        QCOMPARE(address.host, QStringLiteral("localhost"));
        QCOMPARE(address.port, 5432);
        QVERIFY(address.database.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestServerWorkspaceAddress)
#include "tst_serverworkspaceaddress.moc"
