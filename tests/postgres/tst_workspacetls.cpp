// SPDX-License-Identifier: MIT
// A server workspace's connection and TLS, against the throwaway cluster, which offers TLS with a
// self-signed certificate for 127.0.0.1 (scripts/pgcluster.sh): libpq's default (sslmode=prefer)
// takes it; verify-full with that certificate as the root connects; verify-full against another
// root is refused, with the workspace named and nothing created.
#include "model/common/error.h"
#include "model/storage/workspace.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace tidemark;
using namespace tidemark::test;

class TestWorkspaceTls : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        TIDEMARK_REQUIRE_POSTGRES();
        QVERIFY(m_dir.isValid());
        m_certificate = PgSession().value(QStringLiteral("SHOW unix_socket_directories")) +
                        QStringLiteral("/server.crt");
        QVERIFY2(QFileInfo::exists(m_certificate), qPrintable(m_certificate));
    }

    void cleanup() {
        PgSession().exec(QStringLiteral("DROP SCHEMA IF EXISTS \"%1\" CASCADE").arg(schema()));
    }

    void preferTakesTheTlsOffered() {
        const auto workspace = Workspace::create(location({}));
        QVERIFY(workspace->tables().isEmpty());
        QVERIFY2(sessionTls().startsWith(QStringLiteral("true TLS")), qPrintable(sessionTls()));
    }

    void verifyFullWithTheServersCertificate() {
        const auto workspace =
            Workspace::create(location(QStringLiteral("&sslmode=verify-full&sslrootcert=") + m_certificate));
        QVERIFY(workspace->tables().isEmpty());
        QVERIFY2(sessionTls().startsWith(QStringLiteral("true TLS")), qPrintable(sessionTls()));
    }

    void verifyFullAgainstAnotherRootIsRefused() {
        const QString other = m_dir.filePath(QStringLiteral("other.crt"));
        QProcess openssl;
        openssl.start(QStringLiteral("openssl"),
                      {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-nodes"),
                       QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                       QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-subj"),
                       QStringLiteral("/CN=someone else"), QStringLiteral("-keyout"),
                       m_dir.filePath(QStringLiteral("other.key")), QStringLiteral("-out"), other});
        QVERIFY(openssl.waitForFinished(60000));
        QCOMPARE(openssl.exitCode(), 0);
        try {
            Workspace::create(location(QStringLiteral("&sslmode=verify-full&sslrootcert=") + other));
            QFAIL("a server whose certificate the root does not sign was trusted");
        } catch (const Error &error) {
            QVERIFY2(error.message().contains(QStringLiteral("certificate verify failed")),
                     qPrintable(error.message()));
            QVERIFY2(error.message().contains(schema()), qPrintable(error.message()));
        }
        QCOMPARE(PgSession().value(QStringLiteral("SELECT count(*) FROM pg_namespace WHERE nspname = $1"),
                                   {schema()}),
                 QStringLiteral("0"));
    }

private:
    QString schema() const { return QStringLiteral("tls_%1").arg(QCoreApplication::applicationPid()); }
    QString application() const { return QStringLiteral("tls_probe_%1").arg(QCoreApplication::applicationPid()); }
    QString location(const QString &extra) const {
        return QStringLiteral("postgresql://tidemark@127.0.0.1:%1/tidemark?schema=%2&application_name=%3")
                   .arg(pgPort(), schema(), application()) +
               extra;
    }
    // "true TLSv1.3" for the workspace's session when it runs over TLS.
    QString sessionTls() const {
        return PgSession().value(
            QStringLiteral("SELECT s.ssl::text || ' ' || coalesce(s.version, '') FROM pg_stat_ssl s "
                           "JOIN pg_stat_activity a USING (pid) WHERE a.application_name = $1"),
            {application()});
    }

    QTemporaryDir m_dir;
    QString m_certificate;
};

QTEST_GUILESS_MAIN(TestWorkspaceTls)
#include "tst_workspacetls.moc"
