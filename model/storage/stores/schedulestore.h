// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"

#include <QList>
#include <optional>

namespace tidemark {

class ControlTableStore;
class StoreDb;

// The workspace's schedules (Workspace's "schedules" part states the contract).
class ScheduleStore {
public:
    ScheduleStore(StoreDb &db, ControlTableStore &tables)
        : m_db(db)
        , m_tables(tables) {}
    QList<ScheduleSpec> schedules();
    std::optional<ScheduleSpec> schedule(const QString &name);
    qint64 add(const ScheduleSpec &spec);
    void edit(const ScheduleSpec &spec);
    void setActive(const QString &name, bool active);
    void remove(const QString &name);
    void recordFiring(const QString &name, const QDateTime &firedAt);
    void setLastRun(const QString &name, qint64 runId);

private:
    QString tablesJson(const ScheduleSpec &spec);
    // Runs `sql` with ?1 = the schedule's name and `values` from ?2 on; ValidationError when no
    // schedule has that name.
    void updateNamed(const QString &name, const QString &sql, const QVariantList &values = {});

    StoreDb &m_db;
    ControlTableStore &m_tables;
};

} // namespace tidemark
