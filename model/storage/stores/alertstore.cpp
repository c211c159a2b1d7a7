// SPDX-License-Identifier: MIT
#include "model/storage/stores/alertstore.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/timestamp.h"
#include "model/storage/stores/storerows.h"

#include <algorithm>

namespace tidemark {

AlertSettings AlertStore::settings() {
    Statement select(m_db, QStringLiteral("SELECT hook_command, hook_timeout_ms, webhook_url, "
                                          "webhook_timeout_ms, on_statuses, hook_env FROM alert_settings"));
    AlertSettings settings = AlertSettings::workspaceDefaults();
    if (!select.step())
        return settings;
    settings.hookCommand = select.columnText(0);
    settings.hookTimeoutMs = int(select.columnInt64(1));
    settings.webhookUrl = select.columnText(2);
    settings.webhookTimeoutMs = int(select.columnInt64(3));
    settings.on = select.columnText(4).split(QLatin1Char(','), Qt::SkipEmptyParts);
    settings.hookEnv = select.columnText(5).split(QLatin1Char(','), Qt::SkipEmptyParts);
    return settings;
}

void AlertStore::setSettings(const AlertSettings &settings) {
    if (!settings.webhookUrl.isEmpty())
        checkWebhookUrl(settings.webhookUrl);
    Transaction transaction(m_db);
    m_db.exec(QStringLiteral("DELETE FROM alert_settings"));
    if (!settings.isEmpty()) {
        Statement insert(m_db, QStringLiteral("INSERT INTO alert_settings (id, hook_command, "
                                              "hook_timeout_ms, webhook_url, webhook_timeout_ms, "
                                              "on_statuses, hook_env) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)"));
        insert.bind(1, textOrNull(settings.hookCommand))
            .bind(2, settings.hookTimeoutMs)
            .bind(3, textOrNull(settings.webhookUrl))
            .bind(4, settings.webhookTimeoutMs)
            .bind(5, settings.on.join(QLatin1Char(',')))
            .bind(6,
                  settings.hookEnv.isEmpty() ? QStringLiteral("") : settings.hookEnv.join(QLatin1Char(',')))
            .run();
    }
    transaction.commit();
    storageLog()->info("workspace {}: alerts {}", str(m_db.location()),
                       settings.isEmpty() ? std::string("cleared") : str(settings.on.join(QLatin1Char(','))));
}

QSet<qint64> AlertStore::raisedAlarms() {
    Statement select(m_db, QStringLiteral("SELECT table_id FROM table_alarms"));
    QSet<qint64> raised;
    while (select.step())
        raised.insert(select.columnInt64(0));
    return raised;
}

QList<qint64> AlertStore::raiseStalledAlarms(const QSet<qint64> &stalled, const QDateTime &now) {
    // Nothing to raise or forget (the usual look): no write transaction at all.
    if (raisedAlarms() == stalled)
        return {};
    Transaction transaction(m_db);
    QList<qint64> over;
    for (const qint64 id : raisedAlarms()) {
        if (!stalled.contains(id))
            over.append(id);
    }
    Statement forget(m_db, QStringLiteral("DELETE FROM table_alarms WHERE table_id = ?1"));
    for (const qint64 id : std::as_const(over)) {
        forget.bind(1, id).run();
        forget.reset();
    }
    // Whoever inserts the row raises the alarm: a second process (or a second look) finds it.
    Statement raise(m_db, QStringLiteral("INSERT INTO table_alarms (table_id, health, raised_at) "
                                         "VALUES (?1, 'stalled', ?2) ON CONFLICT (table_id) DO NOTHING"));
    QList<qint64> raised;
    for (const qint64 id : stalled) {
        raise.bind(1, id).bind(2, timeText(now)).run();
        if (m_db.changes() == 1)
            raised.append(id);
        raise.reset();
    }
    transaction.commit();
    std::sort(raised.begin(), raised.end());
    return raised;
}

} // namespace tidemark
