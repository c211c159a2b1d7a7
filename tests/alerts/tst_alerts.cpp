// SPDX-License-Identifier: MIT
// The alerts of a finished run (model/alerts): the hook fed the run's JSON on stdin, its time
// limit and exit code in the workspace log; the webhook POSTed to a local HTTP server started
// here, retried after a 5xx; secrets in the webhook URL refused in clear, resolved from the
// environment, and found neither in the workspace file nor in its log.

#include "model/alerts/alertdispatcher.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/domain/alertsettings.h"
#include "model/domain/secretreference.h"
#include "model/storage/workspace.h"
#include "model/storage/workspacelocation.h"
#include "tests/support/workspacebackend.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <memory>

using namespace tidemark;

namespace {

QByteArray fileBytes(const QString &path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A minimal HTTP/1.1 server on 127.0.0.1: records each request, answers each with the next
// status of a script (200 once the script is used up), one request per connection.
class LocalHttpServer : public QObject {
public:
    struct Request {
        QByteArray method;
        QByteArray target; // path and query as sent
        QByteArray contentType;
        QByteArray body;
    };

    explicit LocalHttpServer(QList<int> statuses)
        : m_statuses(std::move(statuses)) {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(this);
                connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onData(socket); });
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost); }
    QString url(const QString &pathAndQuery) const {
        return QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(pathAndQuery);
    }
    const QList<Request> &requests() const { return m_requests; }

private:
    void onData(QTcpSocket *socket) {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        const QList<QByteArray> lines = buffer.left(headerEnd).split('\n');
        Request request;
        const QList<QByteArray> first = lines.first().trimmed().split(' ');
        request.method = first.value(0);
        request.target = first.value(1);
        qsizetype length = 0;
        for (const QByteArray &line : lines.mid(1)) {
            const qsizetype colon = line.indexOf(':');
            const QByteArray name = line.left(colon).trimmed().toLower();
            const QByteArray value = line.mid(colon + 1).trimmed();
            if (name == "content-length")
                length = value.toLongLong();
            else if (name == "content-type")
                request.contentType = value;
        }
        if (buffer.size() < headerEnd + 4 + length)
            return;
        request.body = buffer.mid(headerEnd + 4, length);
        m_buffers.remove(socket);
        m_requests.append(request);
        const int status = m_statuses.isEmpty() ? 200 : m_statuses.takeFirst();
        socket->write(QStringLiteral("HTTP/1.1 %1 Status\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                          .arg(status)
                          .toLatin1());
        socket->disconnectFromHost();
    }

    QTcpServer m_server;
    QList<int> m_statuses;
    QList<Request> m_requests;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

} // namespace

class TestAlerts : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_ws;

    QString path(const QString &name) const { return m_dir->filePath(name); }
    QByteArray logBytes() const { return fileBytes(WorkspaceLocation::logFileFor(m_ws)); }

    void setSettings(const AlertSettings &settings) { Workspace::open(m_ws)->setAlertSettings(settings); }
    void setWebhook(const QString &url, int totalTimeoutMs = 60000) {
        AlertSettings settings;
        settings.webhookUrl = url;
        settings.webhookTimeoutMs = totalTimeoutMs;
        setSettings(settings);
    }
    // Retries after 50 ms, 100 ms, 200 ms...: the policy's shape, quickly.
    static constexpr WebhookPolicy kFastRetries{50, 200, 5000};

    static RunRecord failedRun(qint64 id = 41, const QString &status = QStringLiteral("failed")) {
        RunRecord run;
        run.id = id;
        run.trigger = QStringLiteral("schedule");
        run.host = QStringLiteral("testhost");
        run.pid = 4242;
        run.startedAt = QDateTime(QDate(2026, 11, 30), QTime(2, 0), Qt::UTC);
        run.finishedAt = run.startedAt.addSecs(3);
        run.status = status;
        IterationRecord iteration;
        iteration.id = 7;
        iteration.runId = id;
        iteration.tableId = 3;
        iteration.source = QStringLiteral("src:orders");
        iteration.target = QStringLiteral("dst:orders");
        iteration.status =
            status == QLatin1String("succeeded") ? IterationStatus::Succeeded : IterationStatus::Failed;
        iteration.error = QStringLiteral("source table orders is gone");
        run.iterations << iteration;
        return run;
    }

    // Sends and waits; returns the deliveries in the order they ended.
    QList<AlertDelivery> notify(AlertDispatcher &alerts, const RunRecord &run) {
        QList<AlertDelivery> deliveries;
        connect(&alerts, &AlertDispatcher::delivered, this,
                [&deliveries](const AlertDelivery &delivery) { deliveries << delivery; });
        alerts.notify(run);
        alerts.waitUntilIdle();
        disconnect(&alerts, &AlertDispatcher::delivered, this, nullptr);
        return deliveries;
    }

private slots:
    void init() {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_ws = tidemark::test::testWorkspaceLocation(*m_dir, QStringLiteral("w.tidemark"));
        Workspace::create(m_ws);
        installLogSinks(WorkspaceLocation::logFileFor(m_ws), false);
    }
    void cleanup() {
        installLogSinks(QString(), false);
        m_dir.reset();
    }

    void hookGetsTheRunJsonOnStdin() {
        const QString out = path(QStringLiteral("stdin.json"));
        AlertSettings settings;
        settings.hookCommand =
            QStringLiteral("cat > '%1'; echo \"$TIDEMARK_RUN_ID $TIDEMARK_RUN_STATUS\" > '%1.env'").arg(out);
        setSettings(settings);

        AlertDispatcher alerts(m_ws);
        const QList<AlertDelivery> deliveries = notify(alerts, failedRun());
        QCOMPARE(deliveries.size(), 1);
        QVERIFY2(deliveries[0].ok, qPrintable(deliveries[0].detail));

        QJsonParseError error;
        const QJsonObject json = QJsonDocument::fromJson(fileBytes(out), &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(fileBytes(out)));
        // The shape of `history --json`, plus the workspace.
        QCOMPARE(json.value(QStringLiteral("run_id")).toInteger(), 41);
        QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QCOMPARE(json.value(QStringLiteral("trigger")).toString(), QStringLiteral("schedule"));
        QCOMPARE(json.value(QStringLiteral("host")).toString(), QStringLiteral("testhost"));
        QCOMPARE(json.value(QStringLiteral("started_at")).toString(),
                 QStringLiteral("2026-11-30T02:00:00.000Z"));
        QCOMPARE(json.value(QStringLiteral("workspace")).toString(), m_ws);
        const QJsonObject iteration = json.value(QStringLiteral("iterations")).toArray().at(0).toObject();
        QCOMPARE(iteration.value(QStringLiteral("table_id")).toInteger(), 3);
        QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QCOMPARE(iteration.value(QStringLiteral("error")).toString(),
                 QStringLiteral("source table orders is gone"));
        QCOMPARE(fileBytes(out + QStringLiteral(".env")).trimmed(), QByteArray("41 failed"));

        const QByteArray log = logBytes();
        QVERIFY2(log.contains("run 41: hook") && log.contains("exit code 0 in "), log.constData());
    }

    void hookExitCodeAndOutputAreLogged() {
        AlertSettings settings;
        settings.hookCommand = QStringLiteral("echo paging the on-call; exit 7");
        setSettings(settings);
        AlertDispatcher alerts(m_ws);
        const QList<AlertDelivery> deliveries = notify(alerts, failedRun());
        QCOMPARE(deliveries.size(), 1);
        QVERIFY(!deliveries[0].ok);
        QVERIFY2(deliveries[0].detail.startsWith(QStringLiteral("exit code 7 in ")),
                 qPrintable(deliveries[0].detail));
        const QByteArray log = logBytes();
        QVERIFY2(log.contains("exit code 7 in ") && log.contains("paging the on-call"), log.constData());
    }

    // The limit kills the hook's whole process group: the shell and what it started.
    void hangingHookIsKilledAtItsTimeLimit() {
        const QString pidFile = path(QStringLiteral("child.pid"));
        AlertSettings settings;
        settings.hookCommand = QStringLiteral("sleep 300 & echo $! > '%1'; wait").arg(pidFile);
        settings.hookTimeoutMs = 3000;
        setSettings(settings);
        AlertDispatcher alerts(m_ws);
        const QList<AlertDelivery> deliveries = notify(alerts, failedRun());
        QCOMPARE(deliveries.size(), 1);
        QVERIFY(!deliveries[0].ok);
        QCOMPARE(deliveries[0].detail, QStringLiteral("killed after its 3000 ms time limit"));
        QVERIFY2(logBytes().contains("hook 'sleep 300 &"), logBytes().constData());
        QVERIFY2(logBytes().contains("killed after its 3000 ms time limit"), logBytes().constData());

        const qint64 child = fileBytes(pidFile).trimmed().toLongLong();
        QVERIFY(child > 0);
        // Gone, or a zombie waiting for a reaper: either way no longer sleeping.
        const auto running = [child] {
            const QByteArray stat = fileBytes(QStringLiteral("/proc/%1/stat").arg(child));
            const qsizetype close = stat.lastIndexOf(')');
            return close >= 0 && stat.mid(close + 2, 1) != "Z";
        };
        QTRY_VERIFY_WITH_TIMEOUT(!running(), 20000);
    }

    void nothingFiresOnSuccessOrUnlistedStatus() {
        const QString out = path(QStringLiteral("fired"));
        AlertSettings settings;
        settings.hookCommand = QStringLiteral("touch '%1'").arg(out);
        setSettings(settings);
        AlertDispatcher alerts(m_ws);
        for (const char *status : {"succeeded", "no_new_rows", "dry_run", "running", "cancelled"})
            QCOMPARE(alerts.notify(failedRun(5, QString::fromLatin1(status))), 0);
        QVERIFY(alerts.isIdle());
        QVERIFY(!QFile::exists(out));

        settings.on = parseAlertStatuses(QStringLiteral("cancelled"));
        setSettings(settings);
        QCOMPARE(alerts.notify(failedRun(5, QStringLiteral("failed"))), 0);
        QCOMPARE(alerts.notify(failedRun(5, QStringLiteral("cancelled"))), 1);
        alerts.waitUntilIdle();
        QVERIFY(QFile::exists(out));
    }

    void webhookRetriedAfter500ThenDelivered() {
        LocalHttpServer server({500, 503});
        QVERIFY(server.listen());
        setWebhook(server.url(QStringLiteral("/alerts/tidemark")));
        AlertDispatcher alerts(m_ws);
        alerts.setWebhookPolicy(kFastRetries);
        const RunRecord run = failedRun(9, QStringLiteral("warning"));
        const QList<AlertDelivery> deliveries = notify(alerts, run);
        QCOMPARE(deliveries.size(), 1);
        QVERIFY2(deliveries[0].ok, qPrintable(deliveries[0].detail));
        QVERIFY2(deliveries[0].detail.startsWith(QStringLiteral("HTTP 200 after 3 attempt(s)")),
                 qPrintable(deliveries[0].detail));
        QCOMPARE(server.requests().size(), 3);
        for (const LocalHttpServer::Request &request : server.requests()) {
            QCOMPARE(request.method, QByteArray("POST"));
            QCOMPARE(request.target, QByteArray("/alerts/tidemark"));
            QCOMPARE(request.contentType, QByteArray("application/json"));
            QCOMPARE(request.body, alerts.payload(run));
        }
        const QJsonObject json = QJsonDocument::fromJson(server.requests().last().body).object();
        QCOMPARE(json.value(QStringLiteral("run_id")).toInteger(), 9);
        QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("warning"));
        const QByteArray log = logBytes();
        QVERIFY2(log.contains("attempt 1: HTTP 500; retrying in 50 ms"), log.constData());
        QVERIFY2(log.contains("attempt 2: HTTP 503; retrying in 100 ms"), log.constData());
        QVERIFY2(log.contains("HTTP 200 after 3 attempt(s)"), log.constData());
    }

    void webhookClientErrorIsNotRetried() {
        LocalHttpServer server({404});
        QVERIFY(server.listen());
        setWebhook(server.url(QStringLiteral("/nowhere")));
        AlertDispatcher alerts(m_ws);
        alerts.setWebhookPolicy(kFastRetries);
        const QList<AlertDelivery> deliveries = notify(alerts, failedRun());
        QCOMPARE(deliveries.size(), 1);
        QVERIFY(!deliveries[0].ok);
        QVERIFY2(deliveries[0].detail.startsWith(QStringLiteral("HTTP 404 after 1 attempt(s)")),
                 qPrintable(deliveries[0].detail));
        QCOMPARE(server.requests().size(), 1);
    }

    // Connection refused is retried with growing delay until the total time is spent.
    void webhookRefusedConnectionGivesUpWithinItsTotalTime() {
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost));
            port = probe.serverPort();
        }
        setWebhook(QStringLiteral("http://127.0.0.1:%1/hook").arg(port), 1500);
        AlertDispatcher alerts(m_ws);
        alerts.setWebhookPolicy({100, 400, 500});
        const QList<AlertDelivery> deliveries = notify(alerts, failedRun());
        QCOMPARE(deliveries.size(), 1);
        QVERIFY(!deliveries[0].ok);
        QVERIFY2(deliveries[0].detail.contains(QStringLiteral("giving up")),
                 qPrintable(deliveries[0].detail));
        QVERIFY2(logBytes().contains("attempt 2:"), logBytes().constData());
        QVERIFY2(logBytes().contains("retrying in 200 ms"), logBytes().constData());
    }

    void webhookUrlSecretsAreRefused_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("plain") << QStringLiteral("https://alerts.example.com/tidemark") << true;
        QTest::newRow("port and short id")
            << QStringLiteral("http://127.0.0.1:8080/hooks/42?team=data") << true;
        QTest::newRow("token from env")
            << QStringLiteral("https://h.example.com/n?token=${HOOK_TOKEN}") << true;
        QTest::newRow("path from env")
            << QStringLiteral("https://hooks.slack.com/services/${SLACK_HOOK}") << true;
        QTest::newRow("password from env")
            << QStringLiteral("https://ops:${HOOK_PASSWORD}@h.example.com/") << true;
        QTest::newRow("password") << QStringLiteral("https://ops:hunter2@h.example.com/") << false;
        QTest::newRow("token as user") << QStringLiteral("https://abcdef123456@h.example.com/") << false;
        QTest::newRow("token query") << QStringLiteral("https://h.example.com/n?token=abc") << false;
        QTest::newRow("api_key query") << QStringLiteral("https://h.example.com/n?x=1&api_key=zz") << false;
        QTest::newRow("token-looking value")
            << QStringLiteral("https://h.example.com/n?x=9f8e7d6c5b4a39281706f5e4") << false;
        QTest::newRow("slack path")
            << QStringLiteral("https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXX12") << false;
        QTest::newRow("not http") << QStringLiteral("ftp://h.example.com/x") << false;
        QTest::newRow("no host") << QStringLiteral("https:///x") << false;
    }

    void webhookUrlSecretsAreRefused() {
        QFETCH(QString, url);
        QFETCH(bool, accepted);
        AlertSettings settings;
        settings.webhookUrl = url;
        auto workspace = Workspace::open(m_ws);
        try {
            workspace->setAlertSettings(settings);
            QVERIFY2(accepted, "a secret in clear was stored");
            QCOMPARE(workspace->alertSettings().webhookUrl, url);
        } catch (const ValidationError &error) {
            QVERIFY2(!accepted, qPrintable(error.message()));
            QVERIFY(workspace->alertSettings().isEmpty());
            if (url.startsWith(QLatin1String("https://h")) || url.contains(QLatin1String("slack")))
                QVERIFY2(error.message().contains(QStringLiteral("environment variable")),
                         qPrintable(error.message()));
        }
    }

    void redactHidesResolvedValues() {
        qputenv("TIDEMARK_TEST_A", "s3cret-value");
        const ResolvedSecrets resolved = resolveSecretReferences(
            QStringLiteral("https://h/x?a=${TIDEMARK_TEST_A}&b=${TIDEMARK_TEST_UNSET_B}"),
            EnvironmentSecretSource());
        QCOMPARE(resolved.text, QStringLiteral("https://h/x?a=s3cret-value&b=${TIDEMARK_TEST_UNSET_B}"));
        QCOMPARE(resolved.missing, QStringList{QStringLiteral("TIDEMARK_TEST_UNSET_B")});
        QCOMPARE(resolved.redact(QStringLiteral("Error transferring https://h/x?a=s3cret-value - refused")),
                 QStringLiteral("Error transferring https://h/x?a=*** - refused"));
        qunsetenv("TIDEMARK_TEST_A");
    }

    // The secret reaches the server (resolved at send time) and nothing else: not the workspace
    // file, its WAL, nor the log, even across failed attempts.
    void webhookSecretComesFromTheEnvironmentOnly() {
        const QByteArray secret = "tok" + QUuid::createUuid().toByteArray(QUuid::Id128);
        qputenv("TIDEMARK_TEST_WEBHOOK_TOKEN", secret);
        LocalHttpServer server({500});
        QVERIFY(server.listen());
        setWebhook(server.url(QStringLiteral("/hook?token=${TIDEMARK_TEST_WEBHOOK_TOKEN}")));
        AlertDispatcher alerts(m_ws);
        alerts.setWebhookPolicy(kFastRetries);
        const QList<AlertDelivery> deliveries = notify(alerts, failedRun());
        qunsetenv("TIDEMARK_TEST_WEBHOOK_TOKEN");
        QCOMPARE(deliveries.size(), 1);
        QVERIFY2(deliveries[0].ok, qPrintable(deliveries[0].detail));
        QCOMPARE(server.requests().size(), 2);
        QCOMPARE(server.requests().last().target, QByteArray("/hook?token=") + secret);

        for (const QString &file :
             {m_ws, m_ws + QStringLiteral("-wal"), WorkspaceLocation::logFileFor(m_ws)}) {
            QVERIFY2(!fileBytes(file).contains(secret), qPrintable(file));
        }
        if (tidemark::test::serverWorkspaces())
            QVERIFY(!tidemark::test::serverWorkspaceHolds(m_ws, QString::fromUtf8(secret)));
        QVERIFY(logBytes().contains("${TIDEMARK_TEST_WEBHOOK_TOKEN}"));

        // Unset, it is not sent at all, and the log names the variable.
        const QList<AlertDelivery> unset = notify(alerts, failedRun(12));
        QCOMPARE(unset.size(), 1);
        QVERIFY(!unset[0].ok);
        QCOMPARE(unset[0].detail,
                 QStringLiteral("not sent: environment variable TIDEMARK_TEST_WEBHOOK_TOKEN is not set"));
        QCOMPARE(server.requests().size(), 2);
    }

    // The runner's and the CLI's way to learn of a dead process's run: closing it alerts it,
    // once, however often the workspace is looked after.
    void closingADeadRunAlertsItOnce() {
        const QString out = path(QStringLiteral("interrupted.json"));
        AlertSettings settings;
        settings.hookCommand = QStringLiteral("cat >> '%1'").arg(out);
        setSettings(settings);
        auto workspace = Workspace::open(m_ws);
        const qint64 runId = workspace->beginRun(QStringLiteral("schedule"), 2, false);
        QProcess gone;
        gone.start(QStringLiteral("true"), {});
        QVERIFY(gone.waitForStarted());
        const qint64 gonePid = gone.processId();
        QVERIFY(gone.waitForFinished());
        tidemark::test::execWorkspaceSql(m_ws, QStringLiteral("UPDATE runs SET pid = ?1 WHERE id = ?2"),
                                         {gonePid, runId});

        AlertDispatcher alerts(m_ws);
        QCOMPARE(alerts.closeInterruptedRuns(*workspace), 1);
        alerts.waitUntilIdle();
        QCOMPARE(alerts.closeInterruptedRuns(*workspace), 0);
        QVERIFY(alerts.isIdle());
        const QList<QByteArray> lines = fileBytes(out).split('\n');
        QCOMPARE(lines.size(), 2); // one JSON line and the empty rest
        const QJsonObject json = QJsonDocument::fromJson(lines.first()).object();
        QCOMPARE(json.value(QStringLiteral("run_id")).toInteger(), runId);
        QCOMPARE(json.value(QStringLiteral("status")).toString(), QStringLiteral("interrupted"));
        QCOMPARE(json.value(QStringLiteral("trigger")).toString(), QStringLiteral("schedule"));
    }

    void hookAndWebhookBothFire() {
        LocalHttpServer server({});
        QVERIFY(server.listen());
        const QString out = path(QStringLiteral("hook.json"));
        AlertSettings settings;
        settings.hookCommand = QStringLiteral("cat > '%1'").arg(out);
        settings.webhookUrl = server.url(QStringLiteral("/x"));
        setSettings(settings);
        AlertDispatcher alerts(m_ws);
        QSignalSpy idle(&alerts, &AlertDispatcher::idle);
        const QList<AlertDelivery> deliveries = notify(alerts, failedRun(3, QStringLiteral("interrupted")));
        QCOMPARE(deliveries.size(), 2);
        QCOMPARE(idle.size(), 1);
        QCOMPARE(server.requests().size(), 1);
        QCOMPARE(fileBytes(out), server.requests().first().body);
    }
};

QTEST_GUILESS_MAIN(TestAlerts)
#include "tst_alerts.moc"
