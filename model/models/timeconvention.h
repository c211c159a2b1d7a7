// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QObject>
#include <QTimeZone>
#include <atomic>

class QAbstractItemModel;

namespace tidemark {

// The zone every time the window shows is in: the machine's own zone or UTC. One choice for
// the whole process, so the grid, the history, the details, the dialogs, the chart and CSV
// exports can never disagree. The window sets it from its settings at start-up and when the
// user changes it (GUI thread); formatters read it from any thread (a CSV export on a worker).
class TimeConvention : public QObject {
    Q_OBJECT
public:
    static TimeConvention &current();

    bool isUtc() const { return m_utc.load(); }
    void setUtc(bool utc); // emits changed() when it differs
    QTimeZone zone() const;
    QString zoneName() const; // "UTC", "Europe/Paris"
    // The machine's zone, whatever is chosen (the menu names it).
    static QString localZoneName();

    // Keeps `model`'s time columns in step with the choice: on each change it signals every
    // horizontal header (they name the zone) and `columns` of every row as changed. The model
    // asks for it once, from its constructor; the connection ends with the model.
    static void follow(QAbstractItemModel *model, const QList<int> &columns);

signals:
    void changed();

private:
    std::atomic_bool m_utc{false};
};

} // namespace tidemark
