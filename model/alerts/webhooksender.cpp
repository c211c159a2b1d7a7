// SPDX-License-Identifier: MIT
#include "model/alerts/webhooksender.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>
#include <QUrl>

#include <algorithm>

namespace tidemark {

WebhookSender::WebhookSender(const WebhookPolicy &policy, QObject *parent)
    : QObject(parent)
    , m_policy(policy)
    , m_network(new QNetworkAccessManager(this)) {}

bool WebhookSender::isRetryable(int httpStatus, int networkError) {
    if (httpStatus > 0)
        return httpStatus >= 500 || httpStatus == 429;
    switch (QNetworkReply::NetworkError(networkError)) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError: // the attempt's transfer timeout
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::UnknownNetworkError:
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::ProxyTimeoutError:
    case QNetworkReply::UnknownServerError:
        return true;
    default:
        return false;
    }
}

void WebhookSender::start(const QString &subject, const QString &urlTemplate, const QByteArray &body,
                          int totalTimeoutMs, const SecretSource &secrets) {
    m_delivery.channel = QStringLiteral("webhook");
    m_delivery.subject = subject;
    m_body = body;
    m_totalTimeoutMs = totalTimeoutMs;
    m_nextDelayMs = m_policy.firstRetryDelayMs;
    m_elapsed.start();
    m_url = resolveSecretReferences(urlTemplate, secrets);
    if (!m_url.complete()) {
        // Queued, so a caller connecting after start() still hears about it.
        const QString detail = QStringLiteral("not sent: environment variable %1 is not set")
                                   .arg(m_url.missing.join(QStringLiteral(", ")));
        QTimer::singleShot(0, this, [this, detail] { finish(false, detail); });
        return;
    }
    attempt();
}

void WebhookSender::attempt() {
    ++m_attempts;
    QNetworkRequest request{QUrl(m_url.text)};
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("Tidemark/" TIDEMARK_VERSION));
    const qint64 left = m_totalTimeoutMs - m_elapsed.elapsed();
    request.setTransferTimeout(int(std::clamp<qint64>(left, 1, m_policy.attemptTimeoutMs)));
    QNetworkReply *reply = m_network->post(request, m_body);
    connect(reply, &QNetworkReply::finished, this, [this, reply] { onReply(reply); });
}

void WebhookSender::onReply(QNetworkReply *reply) {
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const int error = int(reply->error());
    if (status >= 200 && status < 300) {
        finish(true, QStringLiteral("HTTP %1 after %2 attempt(s) in %3 ms")
                         .arg(status)
                         .arg(m_attempts)
                         .arg(m_elapsed.elapsed()));
        return;
    }
    const QString what =
        status > 0 ? QStringLiteral("HTTP %1").arg(status) : m_url.redact(reply->errorString());
    const qint64 retryAt = m_elapsed.elapsed() + m_nextDelayMs;
    if (!isRetryable(status, error) || retryAt >= m_totalTimeoutMs) {
        finish(false, QStringLiteral("%1 after %2 attempt(s) in %3 ms; giving up")
                          .arg(what)
                          .arg(m_attempts)
                          .arg(m_elapsed.elapsed()));
        return;
    }
    emit attemptFailed(
        QStringLiteral("attempt %1: %2; retrying in %3 ms").arg(m_attempts).arg(what).arg(m_nextDelayMs));
    QTimer::singleShot(m_nextDelayMs, this, &WebhookSender::attempt);
    m_nextDelayMs = std::min(m_nextDelayMs * 2, m_policy.maxRetryDelayMs);
}

void WebhookSender::finish(bool ok, const QString &detail) {
    if (m_done)
        return;
    m_done = true;
    m_delivery.ok = ok;
    m_delivery.detail = detail;
    m_delivery.elapsedMs = m_elapsed.elapsed();
    emit finished(m_delivery);
}

} // namespace tidemark
