// SPDX-License-Identifier: MIT
#pragma once

#include "model/alerts/alertdelivery.h"
#include "model/domain/secretreference.h"

#include <QElapsedTimer>
#include <QObject>

class QNetworkAccessManager;
class QNetworkReply;

namespace tidemark {

// How a webhook insists: a failed attempt is retried after firstRetryDelayMs, each next delay
// doubled up to maxRetryDelayMs, while the whole send stays inside its total time.
struct WebhookPolicy {
    int firstRetryDelayMs = 1000;
    int maxRetryDelayMs = 16000;
    int attemptTimeoutMs = 10000;
};

// POSTs one alert's JSON to a webhook URL. Retried: connection errors (refused, reset, timed
// out, host not found) and HTTP 5xx and 429; anything else (4xx, TLS failure) is final.
// `${NAME}` references in the URL are resolved when the send starts; the values never reach
// the delivery's detail or the log (Qt's error texts quote the URL: they are redacted).
// Asynchronous: lives on a thread with an event loop; emits finished() exactly once.
class WebhookSender : public QObject {
    Q_OBJECT
public:
    WebhookSender(const WebhookPolicy &policy, QObject *parent = nullptr);

    void start(const QString &subject, const QString &urlTemplate, const QByteArray &body, int totalTimeoutMs,
               const SecretSource &secrets);

    // Whether a reply with this HTTP status (0 = none) and network error is worth another attempt.
    static bool isRetryable(int httpStatus, int networkError);

signals:
    void finished(const tidemark::AlertDelivery &delivery);
    // One failed attempt that will be retried (the log gets it too).
    void attemptFailed(const QString &detail);

private:
    void attempt();
    void onReply(QNetworkReply *reply);
    void finish(bool ok, const QString &detail);

    WebhookPolicy m_policy;
    QNetworkAccessManager *m_network;
    QElapsedTimer m_elapsed;
    AlertDelivery m_delivery;
    ResolvedSecrets m_url;
    QByteArray m_body;
    int m_totalTimeoutMs = 0;
    int m_attempts = 0;
    int m_nextDelayMs = 0;
    bool m_done = false;
};

} // namespace tidemark
