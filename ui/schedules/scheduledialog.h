// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/schedulespec.h"
#include "model/domain/tablespec.h"

#include <QDateTime>
#include <QDialog>

class QButtonGroup;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QRadioButton;
class QSpinBox;

namespace tidemark {

class RunnerBanner;

// Adds or edits one schedule. The cron field explains itself as it is typed ("every weekday
// at 09:00 in Europe/Paris", or the parse error naming the field) and lists the next five fire
// times in the chosen zone; OK is enabled only for a schedule the workspace would accept
// (name, cron, zone, duration). Editing keeps the name: it is how the runner and the CLI know
// the schedule.
class ScheduleDialog : public QDialog {
    Q_OBJECT
public:
    // `tables`: the workspace's live tables, for the checked list.
    ScheduleDialog(const QList<TableSpec> &tables, QWidget *parent = nullptr);

    void setSchedule(const ScheduleSpec &spec); // edit mode
    // The names the workspace's schedules already have: a new schedule may take none of them.
    void setTakenNames(const QStringList &names);
    ScheduleSpec schedule() const;
    // The instant the next fire times are counted from (tests; default: now when shown).
    void setReferenceTime(const QDateTime &utc);
    // "No runner: schedules do not fire" at the top while the workspace has no live runner.
    RunnerBanner *runnerBanner() const { return m_runnerBanner; }

public slots:
    // Closes only for a schedule the workspace would take; else keeps the input, says why and
    // puts the focus on the field at fault.
    void accept() override;

private:
    void refresh();
    // The field at fault and why, for the first problem in the form's order; null when none.
    QWidget *firstProblem(QString *why) const;
    void selectZone(const QString &id);
    bool timeoutValid(qint64 *seconds) const;

    ScheduleSpec m_original;
    QStringList m_takenNames;
    QDateTime m_reference;
    QLineEdit *m_name;
    QLineEdit *m_cron;
    QLabel *m_explanation;
    QComboBox *m_zone;
    QListWidget *m_nextFires;
    QRadioButton *m_allTables;
    QRadioButton *m_someTables;
    QListWidget *m_tables;
    QSpinBox *m_concurrency;
    QSpinBox *m_retries;
    QLineEdit *m_timeout;
    QDialogButtonBox *m_buttons;
    QLabel *m_problem; // why OK was refused
    RunnerBanner *m_runnerBanner;
};

} // namespace tidemark
