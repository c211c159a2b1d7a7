// SPDX-License-Identifier: MIT
// Connection passwords in a real Secret Service (a private gnome-keyring-daemon inside
// dbus-run-session, started by main() below): the store's round trip, the resolution order, and
// tidemark-cli connecting to a password-only PostgreSQL database with the keychain's password,
// which then appears in no file beside the workspace, no log, no history and no output.
#include "model/common/error.h"
#include "model/credentials/credentialstore.h"
#include "tests/support/keychainsession.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QUuid>
#include <QtConcurrent>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

ConnectionSpec postgresSpec(const QString &name, qint64 id) {
    ConnectionSpec spec;
    spec.id = id;
    spec.name = name;
    spec.kind = ConnectionKind::Postgres;
    spec.conninfo = QStringLiteral("host=127.0.0.1 dbname=x");
    spec.keychainKey = connectionKeychainKey(QUuid::createUuid().toString(QUuid::WithoutBraces), id);
    return spec;
}

// secret-tool reads the Secret Service itself: an outside check of what the store wrote.
QString secretToolLookup(const QString &key) {
    QProcess process;
    process.start(QStringLiteral("secret-tool"), {QStringLiteral("lookup"), QStringLiteral("server"),
                                                  QStringLiteral("Tidemark"), QStringLiteral("user"), key});
    process.waitForFinished(60000);
    return QString::fromUtf8(process.readAllStandardOutput());
}

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
    QString describe() const {
        return QStringLiteral("exit %1; stdout: %2; stderr: %3").arg(exitCode).arg(out, err);
    }
};

// tidemark-cli with `input` on stdin and `env` added to this process's environment.
Run cli(const QStringList &args, const QByteArray &input = QByteArray(),
        const QHash<QString, QString> &env = {}) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    environment.remove(QStringLiteral("PGPASSWORD"));
    environment.insert(QStringLiteral("PGPASSFILE"), QStringLiteral("/nonexistent/pgpass"));
    for (auto it = env.begin(); it != env.end(); ++it)
        environment.insert(it.key(), it.value());
    process.setProcessEnvironment(environment);
    process.start(cliPath(), args);
    Run run;
    if (!process.waitForStarted(30000))
        return run;
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(300000))
        process.kill();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

// Every file under `dir` (workspace, -wal, logs, targets) that holds `needle`.
QStringList filesHolding(const QString &dir, const QByteArray &needle) {
    QStringList found;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile file(it.next());
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(needle))
            found << file.fileName();
    }
    return found;
}

} // namespace

class TestCredentialStore : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        // Inside the session main() set up: the Secret Service must answer, never a skip.
        const ConnectionSpec probe = postgresSpec(QStringLiteral("probe"), 1);
        try {
            CredentialStore::savePassword(probe, QStringLiteral("probe"));
            QVERIFY(CredentialStore::forgetPassword(probe));
        } catch (const Error &error) {
            QFAIL(qPrintable(QStringLiteral("no Secret Service in the test session: ") + error.message()));
        }
    }

    void roundTrip() {
        const ConnectionSpec spec = postgresSpec(QStringLiteral("warehouse"), 7);
        const QString password = QStringLiteral("p@ss wörd 'x' \\ \"y\"");
        QCOMPARE(CredentialStore::readPassword(spec), std::nullopt);
        CredentialStore::savePassword(spec, password);
        QCOMPARE(CredentialStore::readPassword(spec), std::optional<QString>(password));
        QCOMPARE(secretToolLookup(spec.keychainKey), password);

        CredentialStore::savePassword(spec, QStringLiteral("changed"));
        QCOMPARE(CredentialStore::readPassword(spec), std::optional<QString>(QStringLiteral("changed")));

        ConnectionSpec other = spec;
        other.keychainKey = connectionKeychainKey(QStringLiteral("another-workspace"), 7);
        QCOMPARE(CredentialStore::readPassword(other), std::nullopt);

        QVERIFY(CredentialStore::forgetPassword(spec));
        QCOMPARE(CredentialStore::readPassword(spec), std::nullopt);
        QVERIFY(secretToolLookup(spec.keychainKey).isEmpty());
        QVERIFY(!CredentialStore::forgetPassword(spec));
    }

    void readsFromManyThreadsAtOnce() {
        const ConnectionSpec spec = postgresSpec(QStringLiteral("shared"), 3);
        CredentialStore::savePassword(spec, QStringLiteral("s3cret"));
        const QList<int> jobs{1, 2, 3, 4, 5, 6, 7, 8};
        const QList<QString> read = QtConcurrent::blockingMapped(jobs, [spec](int) {
            return CredentialStore::readPassword(spec).value_or(QStringLiteral("<none>"));
        });
        for (const QString &password : read)
            QCOMPARE(password, QStringLiteral("s3cret"));
        QVERIFY(CredentialStore::forgetPassword(spec));
    }

    void resolutionOrder() {
        ConnectionSpec spec = postgresSpec(QStringLiteral("ordered"), 4);
        QCOMPARE(resolvePostgresPassword(spec), QByteArray()); // no entry: libpq's ~/.pgpass
        CredentialStore::savePassword(spec, QStringLiteral("from-keychain"));
        QCOMPARE(resolvePostgresPassword(spec), QByteArray("from-keychain"));

        qputenv("TIDEMARK_NO_KEYCHAIN", "1");
        QCOMPARE(resolvePostgresPassword(spec), QByteArray());
        qunsetenv("TIDEMARK_NO_KEYCHAIN");

        spec.passwordEnv = QStringLiteral("TIDEMARK_TEST_KC_PASSWORD");
        qputenv("TIDEMARK_TEST_KC_PASSWORD", "from-env");
        QCOMPARE(resolvePostgresPassword(spec), QByteArray("from-env"));
        qunsetenv("TIDEMARK_TEST_KC_PASSWORD");
        try {
            resolvePostgresPassword(spec);
            QFAIL("an unset --password-env variable must be an error, not a fall-through");
        } catch (const Error &error) {
            QVERIFY2(error.message().contains(QLatin1String("TIDEMARK_TEST_KC_PASSWORD")),
                     qPrintable(error.message()));
            QVERIFY(!error.message().contains(QLatin1String("from-keychain")));
        }

        spec.passwordEnv.clear();
        spec.keychainKey.clear(); // not saved in a workspace
        QCOMPARE(resolvePostgresPassword(spec), QByteArray());
    }

    void noSecretServiceIsAnErrorNamingTheConnection() {
        QTemporaryDir dir;
        const QString ws = dir.filePath(QStringLiteral("ws.db"));
        QCOMPARE(cli({QStringLiteral("-w"), ws, QStringLiteral("init")}).exitCode, 0);
        const QHash<QString, QString> noBus{
            {QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), QStringLiteral("unix:path=/nonexistent/bus")}};
        const Run add = cli({QStringLiteral("-w"), ws, QStringLiteral("connection"), QStringLiteral("add"),
                             QStringLiteral("lake"), QStringLiteral("--postgres"),
                             QStringLiteral("host=127.0.0.1 dbname=x"), QStringLiteral("--password-stdin")},
                            "Unique-Pw-4711\n", noBus);
        QCOMPARE(add.exitCode, 1);
        QVERIFY2(add.err.contains(QLatin1String("connection 'lake'")) &&
                     add.err.contains(QLatin1String("keychain")),
                 qPrintable(add.describe()));
        QVERIFY2(add.err.contains(QLatin1String("was not added")), qPrintable(add.describe()));
        QVERIFY(!add.err.contains(QLatin1String("Unique-Pw-4711")));
        const Run list = cli({QStringLiteral("-w"), ws, QStringLiteral("connection"), QStringLiteral("list"),
                              QStringLiteral("--json")});
        QCOMPARE(list.out.trimmed(), QStringLiteral("[]"));
        QVERIFY(filesHolding(dir.path(), "Unique-Pw-4711").isEmpty());
    }

    void cliOptionsAreChecked() {
        QTemporaryDir dir;
        const QString ws = dir.filePath(QStringLiteral("ws.db"));
        QCOMPARE(cli({QStringLiteral("-w"), ws, QStringLiteral("init")}).exitCode, 0);
        const QStringList add{QStringLiteral("-w"), ws, QStringLiteral("connection"), QStringLiteral("add"),
                              QStringLiteral("pg")};
        const Run both = cli(add + QStringList{QStringLiteral("--postgres"), QStringLiteral("dbname=x"),
                                               QStringLiteral("--password-env"), QStringLiteral("V"),
                                               QStringLiteral("--password-stdin")},
                             "pw\n");
        QCOMPARE(both.exitCode, 2);
        const Run sqlite =
            cli(add + QStringList{QStringLiteral("--sqlite"), dir.filePath(QStringLiteral("a.db")),
                                  QStringLiteral("--password-stdin")},
                "pw\n");
        QCOMPARE(sqlite.exitCode, 2);
        const Run empty = cli(add + QStringList{QStringLiteral("--postgres"), QStringLiteral("dbname=x"),
                                                QStringLiteral("--password-stdin")},
                              "\n");
        QCOMPARE(empty.exitCode, 2);
        // Not a terminal: --password-prompt says to use --password-stdin instead of hanging.
        const Run prompt = cli(add + QStringList{QStringLiteral("--postgres"), QStringLiteral("dbname=x"),
                                                 QStringLiteral("--password-prompt")});
        QCOMPARE(prompt.exitCode, 2);
        QVERIFY2(prompt.err.contains(QLatin1String("--password-stdin")), qPrintable(prompt.describe()));
        QCOMPARE(cli({QStringLiteral("-w"), ws, QStringLiteral("connection"),
                      QStringLiteral("forget-password"), QStringLiteral("nope")})
                     .exitCode,
                 2);
    }

    // A server workspace whose server wants a password libpq finds nowhere: the CLI takes the
    // keychain's (kept by the window, or by secret-tool), for `init` and every command after.
    void serverWorkspaceWithTheKeychainPassword() {
        TIDEMARK_REQUIRE_POSTGRES();
        const QString role = QStringLiteral("kcw_") + QUuid::createUuid().toString(QUuid::Id128).left(12);
        const QString password = QStringLiteral("Kw-") + QUuid::createUuid().toString(QUuid::Id128);
        PgSession pg(
            QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark_pw user=tidemark password=tidemark")
                .arg(pgPort()));
        // DDL takes no bound parameters: the role is a generated identifier, the password a
        // generated literal of letters, digits and '-'.
        pg.exec(QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2'").arg(role, password));
        pg.exec(QStringLiteral("GRANT CREATE ON DATABASE tidemark_pw TO %1").arg(role));
        const auto cleanup = qScopeGuard([&] {
            pg.exec(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(role));
            pg.exec(QStringLiteral("REVOKE CREATE ON DATABASE tidemark_pw FROM %1").arg(role));
            pg.exec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(role));
        });
        const QString location =
            QStringLiteral("postgresql://%1@127.0.0.1:%2/tidemark_pw?schema=%1").arg(role, pgPort());
        const QString server = QStringLiteral("postgresql://%1@127.0.0.1:%2/tidemark_pw").arg(role, pgPort());
        const QStringList w{QStringLiteral("-w"), location};
        QList<Run> runs;

        runs << cli(w + QStringList{QStringLiteral("init")});
        QCOMPARE(runs.last().exitCode, 2);
        QVERIFY2(runs.last().err.contains(QLatin1String("asks for a password")) &&
                     runs.last().err.contains(QLatin1String("keychain")),
                 qPrintable(runs.last().describe()));

        CredentialStore::saveWorkspacePassword(server, password);
        QCOMPARE(secretToolLookup(workspaceKeychainKey(server)), password);
        runs << cli(w + QStringList{QStringLiteral("init")});
        QVERIFY2(runs.last().exitCode == 0, qPrintable(runs.last().describe()));
        runs << cli(w + QStringList{QStringLiteral("connection"), QStringLiteral("add"),
                                    QStringLiteral("lite"), QStringLiteral("--sqlite"),
                                    QStringLiteral("/tmp/kc-target.db")});
        QVERIFY2(runs.last().exitCode == 0, qPrintable(runs.last().describe()));
        runs << cli(
            w + QStringList{QStringLiteral("connection"), QStringLiteral("list"), QStringLiteral("--json")});
        QVERIFY2(runs.last().exitCode == 0 && runs.last().out.contains(QLatin1String("lite")),
                 qPrintable(runs.last().describe()));

        // Without the keychain it is refused, saying where a password is looked for.
        runs << cli(w + QStringList{QStringLiteral("connection"), QStringLiteral("list")}, QByteArray(),
                    {{QStringLiteral("TIDEMARK_NO_KEYCHAIN"), QStringLiteral("1")}});
        QCOMPARE(runs.last().exitCode, 2);
        QVERIFY2(runs.last().err.contains(QLatin1String("~/.pgpass")), qPrintable(runs.last().describe()));
        // A wrong one in the keychain: the server's refusal, not a silent retry.
        CredentialStore::saveWorkspacePassword(server, QStringLiteral("not-it"));
        runs << cli(w + QStringList{QStringLiteral("connection"), QStringLiteral("list")});
        QCOMPARE(runs.last().exitCode, 2);
        QVERIFY2(runs.last().err.contains(QLatin1String("password authentication failed")),
                 qPrintable(runs.last().describe()));
        QVERIFY(CredentialStore::forgetWorkspacePassword(server));

        for (const Run &run : runs)
            QVERIFY2(!run.out.contains(password) && !run.err.contains(password), qPrintable(run.describe()));
        QCOMPARE(pg.value(QStringLiteral("SELECT count(*) FROM %1.meta WHERE value LIKE $1").arg(role),
                          {QStringLiteral("%") + password + QStringLiteral("%")}),
                 QStringLiteral("0"));
    }

    void cliRunsWithTheKeychainPasswordOnly() {
        TIDEMARK_REQUIRE_POSTGRES();
        // A role of its own with a password nobody else uses, on the scram-only database.
        const QString role = QStringLiteral("kc_") + QUuid::createUuid().toString(QUuid::Id128).left(12);
        const QString password = QStringLiteral("Kc-") + QUuid::createUuid().toString(QUuid::Id128);
        const QString table = role + QStringLiteral("_src");
        const QString admin =
            QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark_pw user=tidemark password=tidemark")
                .arg(pgPort());
        PgSession pg(admin);
        // DDL takes no bound parameters: role and table are generated identifiers, the password
        // a generated literal of letters, digits and '-'.
        pg.exec(QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2'").arg(role, password));
        pg.exec(QStringLiteral("CREATE TABLE public.%1 (id integer PRIMARY KEY, note text)").arg(table));
        pg.exec(QStringLiteral("INSERT INTO public.%1 SELECT g, 'row ' || g FROM generate_series(1, 25) g")
                    .arg(table));
        pg.exec(QStringLiteral("GRANT SELECT ON public.%1 TO %2").arg(table, role));
        const auto cleanup = qScopeGuard([&] {
            pg.exec(QStringLiteral("DROP TABLE IF EXISTS public.%1").arg(table));
            pg.exec(QStringLiteral("DROP ROLE IF EXISTS %1").arg(role));
        });

        QTemporaryDir dir;
        const QString ws = dir.filePath(QStringLiteral("ws.db"));
        const QString target = dir.filePath(QStringLiteral("target.db"));
        const QStringList w{QStringLiteral("-w"), ws};
        QCOMPARE(cli(w + QStringList{QStringLiteral("init")}).exitCode, 0);
        const QString conninfo =
            QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark_pw user=%2").arg(pgPort(), role);
        QList<Run> runs;
        runs << cli(w + QStringList{QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                                    QStringLiteral("--postgres"), conninfo,
                                    QStringLiteral("--password-stdin")},
                    password.toUtf8() + "\n");
        QVERIFY2(runs.last().exitCode == 0, qPrintable(runs.last().describe()));
        runs << cli(w + QStringList{QStringLiteral("connection"), QStringLiteral("add"),
                                    QStringLiteral("lite"), QStringLiteral("--sqlite"), target});
        QCOMPARE(runs.last().exitCode, 0);
        runs << cli(w + QStringList{QStringLiteral("table"), QStringLiteral("add"),
                                    QStringLiteral("--source"), QStringLiteral("pg:public.") + table,
                                    QStringLiteral("--target"), QStringLiteral("lite:copied"),
                                    QStringLiteral("--watermark"), QStringLiteral("id")});
        QVERIFY2(runs.last().exitCode == 0, qPrintable(runs.last().describe()));
        runs << cli(w + QStringList{QStringLiteral("run"), QStringLiteral("--json")});
        QVERIFY2(runs.last().exitCode == 0, qPrintable(runs.last().describe()));
        QCOMPARE(countRows(target, QStringLiteral("copied")), 25);

        // Without the keychain the same run cannot log in: the keychain is what gave the password.
        pg.exec(QStringLiteral("INSERT INTO public.%1 VALUES (26, 'late')").arg(table));
        runs << cli(w + QStringList{QStringLiteral("run")}, QByteArray(),
                    {{QStringLiteral("TIDEMARK_NO_KEYCHAIN"), QStringLiteral("1")}});
        QVERIFY2(runs.last().exitCode == 1, qPrintable(runs.last().describe()));
        QCOMPARE(countRows(target, QStringLiteral("copied")), 25);
        runs << cli(w + QStringList{QStringLiteral("history"), QStringLiteral("--json")});
        QCOMPARE(runs.last().exitCode, 0);

        // No keychain answers (a runner under cron or systemd): the error says where the password
        // was looked for and how to give it otherwise, in the run's history too.
        runs << cli(
            w + QStringList{QStringLiteral("run"), QStringLiteral("--json")}, QByteArray(),
            {{QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), QStringLiteral("unix:path=/nonexistent/bus")}});
        QVERIFY2(runs.last().exitCode == 1, qPrintable(runs.last().describe()));
        const QString unreachable = parseJsonObject(runs.last().out)
                                        .value(QStringLiteral("iterations"))
                                        .toArray()
                                        .at(0)
                                        .toObject()
                                        .value(QStringLiteral("error"))
                                        .toString();
        QVERIFY2(unreachable.contains(QLatin1String("system keychain, which could not be reached")) &&
                     unreachable.contains(QLatin1String("--password-env")) &&
                     unreachable.contains(QLatin1String("~/.pgpass")),
                 qPrintable(unreachable));
        QCOMPARE(countRows(target, QStringLiteral("copied")), 25);

        // Forgotten, it is gone for the next process too.
        runs << cli(w + QStringList{QStringLiteral("connection"), QStringLiteral("forget-password"),
                                    QStringLiteral("pg")});
        QVERIFY2(runs.last().exitCode == 0 && runs.last().out.contains(QLatin1String("removed")),
                 qPrintable(runs.last().describe()));
        runs << cli(w + QStringList{QStringLiteral("run")});
        QCOMPARE(runs.last().exitCode, 1);
        QCOMPARE(countRows(target, QStringLiteral("copied")), 25);

        // Set again from stdin, the next run catches up.
        runs << cli(w + QStringList{QStringLiteral("connection"), QStringLiteral("set-password"),
                                    QStringLiteral("pg"), QStringLiteral("--password-stdin")},
                    password.toUtf8() + "\n");
        QVERIFY2(runs.last().exitCode == 0, qPrintable(runs.last().describe()));
        runs << cli(w + QStringList{QStringLiteral("run")});
        QVERIFY2(runs.last().exitCode == 0, qPrintable(runs.last().describe()));
        QCOMPARE(countRows(target, QStringLiteral("copied")), 26);

        QVERIFY2(filesHolding(dir.path(), password.toUtf8()).isEmpty(),
                 qPrintable(filesHolding(dir.path(), password.toUtf8()).join(QLatin1String(", "))));
        for (const Run &run : runs)
            QVERIFY2(!run.out.contains(password) && !run.err.contains(password), qPrintable(run.describe()));
    }
};

int main(int argc, char **argv) {
    if (const int code = reRunInKeychainSession(argc, argv); code >= 0)
        return code;
    QCoreApplication app(argc, argv);
    TestCredentialStore test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_credentialstore.moc"
