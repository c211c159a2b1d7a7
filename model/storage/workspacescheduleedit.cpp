// SPDX-License-Identifier: MIT
// Kept apart from workspace.cpp: the window's schedule editing, added beside the schedule API.
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/domain/runrecord.h"
#include "model/storage/sqlitedb.h"
#include "model/storage/workspace.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace tidemark {

void Workspace::editSchedule(const ScheduleSpec &spec) {
    QJsonArray tables;
    for (const qint64 id : spec.tableIds) {
        if (!table(id))
            throw ValidationError(QStringLiteral("schedule '%1': table %2 is not a table of workspace %3")
                                      .arg(spec.name)
                                      .arg(id)
                                      .arg(m_path));
        tables.append(id);
    }
    SqliteStatement update(*m_db, QStringLiteral("UPDATE schedules SET cron = ?2, tz = ?3, tables = ?4, "
                                                 "concurrency = ?5, retries = ?6, timeout_seconds = ?7, "
                                                 "updated_at = ?8 WHERE name = ?1"));
    update.bind(1, spec.name)
        .bind(2, spec.cron)
        .bind(3, spec.timeZone)
        .bind(4, QString::fromUtf8(QJsonDocument(tables).toJson(QJsonDocument::Compact)))
        .bind(5, spec.concurrency)
        .bind(6, spec.retries)
        .bind(7, spec.timeoutSeconds)
        .bind(8, isoUtc(QDateTime::currentDateTimeUtc()))
        .run();
    if (m_db->changes() == 0)
        throw ValidationError(
            QStringLiteral("schedule '%1': no such schedule in workspace %2").arg(spec.name, m_path));
    logger("core.storage")
        ->info("workspace {}: schedule '{}' edited ({}, {})", str(m_path), str(spec.name), str(spec.cron),
               str(spec.timeZone));
}

} // namespace tidemark
