// SPDX-License-Identifier: MIT
#include "model/storage/stores/schedulestore.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/timestamp.h"
#include "model/storage/stores/controltablestore.h"
#include "model/storage/stores/storerows.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace tidemark {

namespace {

const QString kScheduleColumns =
    QStringLiteral("id, name, cron, tz, tables, concurrency, retries, timeout_seconds, active, created_at, "
                   "updated_at, last_fired_at, last_run_id, alerts");

ScheduleSpec readSchedule(const Statement &stmt) {
    ScheduleSpec spec;
    spec.id = stmt.columnInt64(0);
    spec.name = stmt.columnText(1);
    spec.cron = stmt.columnText(2);
    spec.timeZone = stmt.columnText(3);
    const QJsonArray tables = QJsonDocument::fromJson(stmt.columnText(4).toUtf8()).array();
    for (const QJsonValue &id : tables)
        spec.tableIds.append(id.toInteger());
    spec.concurrency = int(stmt.columnInt64(5));
    spec.retries = int(stmt.columnInt64(6));
    spec.timeoutSeconds = stmt.columnInt64(7);
    spec.active = stmt.columnInt64(8) != 0;
    spec.createdAt = readTime(stmt, 9);
    spec.updatedAt = readTime(stmt, 10);
    spec.lastFiredAt = readTime(stmt, 11);
    spec.lastRunId = stmt.columnInt64(12);
    if (const QString alerts = stmt.columnText(13); !alerts.isEmpty())
        spec.alerts = alertSettingsFromJson(QJsonDocument::fromJson(alerts.toUtf8()).object());
    return spec;
}

} // namespace

QList<ScheduleSpec> ScheduleStore::schedules() {
    Statement stmt(m_db, QStringLiteral("SELECT %1 FROM schedules ORDER BY name").arg(kScheduleColumns));
    QList<ScheduleSpec> result;
    while (stmt.step())
        result.append(readSchedule(stmt));
    return result;
}

std::optional<ScheduleSpec> ScheduleStore::schedule(const QString &name) {
    Statement stmt(m_db, QStringLiteral("SELECT %1 FROM schedules WHERE name = ?1").arg(kScheduleColumns));
    stmt.bind(1, name);
    if (!stmt.step())
        return std::nullopt;
    return readSchedule(stmt);
}

// A schedule's tables as stored (a JSON array of ids; [] = every active table), each checked
// to be a live table.
QString ScheduleStore::tablesJson(const ScheduleSpec &spec) {
    QJsonArray tables;
    for (const qint64 id : spec.tableIds) {
        if (!m_tables.table(id, false))
            throw ValidationError(QStringLiteral("schedule '%1': table %2 is not a table of workspace %3")
                                      .arg(spec.name)
                                      .arg(id)
                                      .arg(m_db.location()));
        tables.append(id);
    }
    return QString::fromUtf8(QJsonDocument(tables).toJson(QJsonDocument::Compact));
}

namespace {

// A schedule's alerts as stored: NULL when it has none; a webhook URL holding a secret in clear
// is refused (checkWebhookUrl) before anything is written.
QVariant scheduleAlertsJson(const ScheduleSpec &spec) {
    if (spec.alerts.isEmpty())
        return {};
    if (!spec.alerts.webhookUrl.isEmpty())
        checkWebhookUrl(spec.alerts.webhookUrl);
    return QString::fromUtf8(QJsonDocument(alertSettingsToJson(spec.alerts)).toJson(QJsonDocument::Compact));
}

// Binds what adding and editing a schedule both write: ?1 name, ?2 cron, ?3 zone, ?4 tables,
// ?5 concurrency, ?6 retries, ?7 timeout, ?8 now (the update time) and ?9 alerts. The tables and
// the alerts are checked here, so a refused schedule writes nothing.
Statement &bindSchedule(Statement &stmt, const QString &tablesJson, const ScheduleSpec &spec) {
    return stmt.bind(1, spec.name)
        .bind(2, spec.cron)
        .bind(3, spec.timeZone)
        .bind(4, tablesJson)
        .bind(5, spec.concurrency)
        .bind(6, spec.retries)
        .bind(7, spec.timeoutSeconds)
        .bind(8, nowText())
        .bind(9, scheduleAlertsJson(spec));
}

} // namespace

qint64 ScheduleStore::add(const ScheduleSpec &spec) {
    if (spec.name.trimmed().isEmpty())
        throw ValidationError(QStringLiteral("a schedule needs a name"));
    Transaction transaction(m_db);
    if (schedule(spec.name))
        throw ValidationError(QStringLiteral("schedule '%1' already exists").arg(spec.name));
    Statement insert(m_db,
                     QStringLiteral("INSERT INTO schedules (name, cron, tz, tables, concurrency, retries, "
                                    "timeout_seconds, created_at, updated_at, alerts, active) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10)"));
    bindSchedule(insert, tablesJson(spec), spec).bind(10, spec.active ? 1 : 0).run();
    const qint64 id = m_db.lastInsertId();
    transaction.commit();
    storageLog()->info("workspace {}: schedule '{}' added ({}, {})", str(m_db.location()), str(spec.name),
                       str(spec.cron), str(spec.timeZone));
    return id;
}

void ScheduleStore::edit(const ScheduleSpec &spec) {
    Statement update(m_db, QStringLiteral("UPDATE schedules SET cron = ?2, tz = ?3, tables = ?4, "
                                          "concurrency = ?5, retries = ?6, timeout_seconds = ?7, "
                                          "updated_at = ?8, alerts = ?9 WHERE name = ?1"));
    bindSchedule(update, tablesJson(spec), spec).run();
    if (m_db.changes() == 0)
        throw ValidationError(QStringLiteral("schedule '%1': no such schedule in workspace %2")
                                  .arg(spec.name, m_db.location()));
    storageLog()->info("workspace {}: schedule '{}' edited ({}, {})", str(m_db.location()), str(spec.name),
                       str(spec.cron), str(spec.timeZone));
}

void ScheduleStore::updateNamed(const QString &name, const QString &sql, const QVariantList &values) {
    Statement update(m_db, sql);
    update.bind(1, name);
    for (int i = 0; i < values.size(); ++i)
        update.bind(i + 2, values[i]);
    update.run();
    if (m_db.changes() == 0)
        throw ValidationError(
            QStringLiteral("schedule '%1': no such schedule in workspace %2").arg(name, m_db.location()));
}

void ScheduleStore::setActive(const QString &name, bool active) {
    updateNamed(name, QStringLiteral("UPDATE schedules SET active = ?2, updated_at = ?3 WHERE name = ?1"),
                {active ? 1 : 0, nowText()});
}

void ScheduleStore::remove(const QString &name) {
    updateNamed(name, QStringLiteral("DELETE FROM schedules WHERE name = ?1"));
    storageLog()->info("workspace {}: schedule '{}' removed", str(m_db.location()), str(name));
}

void ScheduleStore::recordFiring(const QString &name, const QDateTime &firedAt) {
    updateNamed(name, QStringLiteral("UPDATE schedules SET last_fired_at = ?2 WHERE name = ?1"),
                {isoUtc(firedAt)});
}

void ScheduleStore::setLastRun(const QString &name, qint64 runId) {
    updateNamed(name, QStringLiteral("UPDATE schedules SET last_run_id = ?2 WHERE name = ?1"), {runId});
}

} // namespace tidemark
