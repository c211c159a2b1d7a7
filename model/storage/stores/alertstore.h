// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/alertsettings.h"

#include <QDateTime>
#include <QList>
#include <QSet>

namespace tidemark {

class StoreDb;

// The workspace's alert settings: one row at most. Workspace::alertSettings states the contract.
class AlertStore {
public:
    explicit AlertStore(StoreDb &db)
        : m_db(db) {}
    AlertSettings settings();
    void setSettings(const AlertSettings &settings);
    // Workspace::raiseStalledAlarms.
    QList<qint64> raiseStalledAlarms(const QSet<qint64> &stalled, const QDateTime &now);

private:
    QSet<qint64> raisedAlarms(); // the tables whose alarm was raised and not forgotten
    StoreDb &m_db;
};

} // namespace tidemark
