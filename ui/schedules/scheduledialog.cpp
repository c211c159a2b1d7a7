// SPDX-License-Identifier: MIT
#include "ui/schedules/scheduledialog.h"

#include "model/common/duration.h"
#include "model/common/error.h"
#include "model/schedule/cronexpression.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTimeZone>
#include <QVBoxLayout>

#include "ui/schedules/runnerbanner.h"

namespace tidemark {

namespace {

constexpr int kShownFireTimes = 5;

QString tableLabel(const TableSpec &table) {
    return QStringLiteral("%1  %2.%3 → %4.%5")
        .arg(table.id)
        .arg(table.sourceConnection, table.sourceTable, table.targetConnection, table.targetTable);
}

} // namespace

ScheduleDialog::ScheduleDialog(const QList<TableSpec> &tables, QWidget *parent)
    : QDialog(parent)
    , m_name(new QLineEdit(this))
    , m_cron(new QLineEdit(this))
    , m_explanation(new QLabel(this))
    , m_zone(new QComboBox(this))
    , m_nextFires(new QListWidget(this))
    , m_allTables(new QRadioButton(tr("All active tables"), this))
    , m_someTables(new QRadioButton(tr("These tables:"), this))
    , m_tables(new QListWidget(this))
    , m_concurrency(new QSpinBox(this))
    , m_retries(new QSpinBox(this))
    , m_timeout(new QLineEdit(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
    , m_problem(new QLabel(this))
    , m_runnerBanner(new RunnerBanner(this)) {
    m_problem->setObjectName(QStringLiteral("scheduleProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020;"));
    setWindowTitle(tr("Add Schedule"));
    m_name->setObjectName(QStringLiteral("scheduleName"));
    m_cron->setObjectName(QStringLiteral("scheduleCron"));
    m_cron->setPlaceholderText(QStringLiteral("0 9 * * mon-fri"));
    m_explanation->setObjectName(QStringLiteral("cronExplanation"));
    m_explanation->setWordWrap(true);
    m_zone->setObjectName(QStringLiteral("scheduleZone"));
    for (const QByteArray &id : QTimeZone::availableTimeZoneIds())
        m_zone->addItem(QString::fromUtf8(id));
    selectZone(QString::fromUtf8(QTimeZone::systemTimeZoneId()));
    m_nextFires->setObjectName(QStringLiteral("nextFireTimes"));
    m_nextFires->setMaximumHeight(m_nextFires->fontMetrics().height() * (kShownFireTimes + 1) + 8);
    m_allTables->setObjectName(QStringLiteral("allTables"));
    m_someTables->setObjectName(QStringLiteral("someTables"));
    m_tables->setObjectName(QStringLiteral("scheduleTables"));
    for (const TableSpec &table : tables) {
        auto *item = new QListWidgetItem(tableLabel(table), m_tables);
        item->setData(Qt::UserRole, table.id);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    m_allTables->setChecked(true);
    m_tables->setEnabled(false);
    m_concurrency->setObjectName(QStringLiteral("scheduleConcurrency"));
    m_concurrency->setRange(1, 64);
    m_concurrency->setValue(ScheduleSpec().concurrency);
    m_retries->setObjectName(QStringLiteral("scheduleRetries"));
    m_retries->setRange(0, 20);
    m_timeout->setObjectName(QStringLiteral("scheduleTimeout"));
    m_timeout->setPlaceholderText(tr("none (e.g. 30s, 15m, 2h)"));

    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Cron:"), m_cron);
    form->addRow(QString(), m_explanation);
    form->addRow(tr("&Zone:"), m_zone);
    form->addRow(tr("Next runs:"), m_nextFires);
    form->addRow(tr("Tables:"), m_allTables);
    form->addRow(QString(), m_someTables);
    form->addRow(QString(), m_tables);
    form->addRow(tr("C&oncurrency:"), m_concurrency);
    form->addRow(tr("&Retries:"), m_retries);
    form->addRow(tr("&Timeout per table:"), m_timeout);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_runnerBanner);
    layout->addLayout(form);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &ScheduleDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_someTables, &QRadioButton::toggled, m_tables, &QWidget::setEnabled);
    for (QLineEdit *edit : {m_name, m_cron, m_timeout})
        connect(edit, &QLineEdit::textChanged, this, &ScheduleDialog::refresh);
    connect(m_zone, &QComboBox::currentTextChanged, this, &ScheduleDialog::refresh);
    connect(m_someTables, &QRadioButton::toggled, this, &ScheduleDialog::refresh);
    connect(m_tables, &QListWidget::itemChanged, this, &ScheduleDialog::refresh);
    refresh();
}

void ScheduleDialog::setSchedule(const ScheduleSpec &spec) {
    m_original = spec;
    setWindowTitle(tr("Edit Schedule %1").arg(spec.name));
    m_name->setText(spec.name);
    m_name->setReadOnly(true);
    m_cron->setText(spec.cron);
    selectZone(spec.timeZone);
    m_someTables->setChecked(!spec.tableIds.isEmpty());
    m_allTables->setChecked(spec.tableIds.isEmpty());
    for (int row = 0; row < m_tables->count(); ++row) {
        QListWidgetItem *item = m_tables->item(row);
        item->setCheckState(spec.tableIds.contains(item->data(Qt::UserRole).toLongLong()) ? Qt::Checked
                                                                                          : Qt::Unchecked);
    }
    m_concurrency->setValue(spec.concurrency);
    m_retries->setValue(spec.retries);
    m_timeout->setText(spec.timeoutSeconds > 0 ? durationText(spec.timeoutSeconds * 1000) : QString());
    refresh();
}

// The machine's zone or a stored one may be an alias the list lacks ("Etc/UTC"): offer it too.
void ScheduleDialog::selectZone(const QString &id) {
    if (m_zone->findText(id) < 0)
        m_zone->insertItem(0, id);
    m_zone->setCurrentText(id);
}

void ScheduleDialog::setReferenceTime(const QDateTime &utc) {
    m_reference = utc;
    refresh();
}

ScheduleSpec ScheduleDialog::schedule() const {
    ScheduleSpec spec = m_original;
    spec.name = m_name->text().trimmed();
    spec.cron = m_cron->text().trimmed();
    spec.timeZone = m_zone->currentText();
    spec.tableIds.clear();
    if (m_someTables->isChecked()) {
        for (int row = 0; row < m_tables->count(); ++row)
            if (m_tables->item(row)->checkState() == Qt::Checked)
                spec.tableIds << m_tables->item(row)->data(Qt::UserRole).toLongLong();
    }
    spec.concurrency = m_concurrency->value();
    spec.retries = m_retries->value();
    qint64 timeout = 0;
    spec.timeoutSeconds = timeoutValid(&timeout) ? timeout : 0;
    return spec;
}

bool ScheduleDialog::timeoutValid(qint64 *seconds) const {
    const QString text = m_timeout->text().trimmed();
    *seconds = 0;
    if (text.isEmpty())
        return true;
    try {
        *seconds = parseDurationSeconds(text, tr("timeout"));
        return true;
    } catch (const Error &) {
        return false;
    }
}

void ScheduleDialog::setTakenNames(const QStringList &names) {
    m_takenNames = names;
    refresh();
}

QWidget *ScheduleDialog::firstProblem(QString *why) const {
    const QString name = m_name->text().trimmed();
    if (name.isEmpty()) {
        *why = tr("Name the schedule.");
        return m_name;
    }
    if (!m_name->isReadOnly() && m_takenNames.contains(name)) {
        *why = tr("A schedule named %1 exists already: choose another name.").arg(name);
        return m_name;
    }
    try {
        CronExpression::parse(m_cron->text().trimmed());
    } catch (const Error &) {
        *why = tr("The schedule needs a valid cron expression.");
        return m_cron;
    }
    if (!QTimeZone(m_zone->currentText().toUtf8()).isValid()) {
        *why = tr("Choose a known time zone.");
        return m_zone;
    }
    if (m_someTables->isChecked() && schedule().tableIds.isEmpty()) {
        *why = tr("Tick the tables to run, or choose all active tables.");
        return m_tables;
    }
    qint64 timeout = 0;
    if (!timeoutValid(&timeout)) {
        *why = tr("The timeout must be a duration such as 30m or 2h.");
        return m_timeout;
    }
    why->clear();
    return nullptr;
}

void ScheduleDialog::accept() {
    QString why;
    if (QWidget *field = firstProblem(&why)) {
        m_problem->setText(why);
        field->setFocus(Qt::OtherFocusReason);
        return;
    }
    QDialog::accept();
}

void ScheduleDialog::refresh() {
    m_nextFires->clear();
    const QTimeZone zone(m_zone->currentText().toUtf8());
    bool cronValid = false;
    const QString cronText = m_cron->text().trimmed();
    if (cronText.isEmpty()) {
        m_explanation->setText(tr("Five fields (minute hour day-of-month month day-of-week), or six with "
                                  "leading seconds, or @hourly, @daily…"));
    } else {
        try {
            const CronExpression cron = CronExpression::parse(cronText);
            cronValid = true;
            if (!zone.isValid()) {
                m_explanation->setText(tr("Unknown time zone '%1'").arg(m_zone->currentText()));
            } else {
                m_explanation->setText(tr("%1 in %2").arg(cron.describe(), m_zone->currentText()));
                QDateTime after = m_reference.isValid() ? m_reference : QDateTime::currentDateTimeUtc();
                for (int i = 0; i < kShownFireTimes; ++i) {
                    after = cron.nextAfter(after, zone);
                    if (!after.isValid())
                        break;
                    m_nextFires->addItem(after.toTimeZone(zone).toString(
                        cron.hasSeconds() ? QStringLiteral("ddd yyyy-MM-dd HH:mm:ss t")
                                          : QStringLiteral("ddd yyyy-MM-dd HH:mm t")));
                }
                if (m_nextFires->count() == 0)
                    m_nextFires->addItem(tr("never fires"));
            }
        } catch (const Error &error) {
            m_explanation->setText(error.message());
        }
    }
    m_explanation->setProperty("error", !cronText.isEmpty() && !cronValid);
    m_explanation->setStyleSheet(!cronText.isEmpty() && !cronValid ? QStringLiteral("color: #b00020;")
                                                                   : QString());
    qint64 timeout = 0;
    const bool tablesChosen = !m_someTables->isChecked() || !schedule().tableIds.isEmpty();
    m_timeout->setStyleSheet(timeoutValid(&timeout) ? QString() : QStringLiteral("color: #b00020;"));
    m_buttons->button(QDialogButtonBox::Ok)
        ->setEnabled(!m_name->text().trimmed().isEmpty() && cronValid && zone.isValid() && tablesChosen &&
                     timeoutValid(&timeout));
    // A taken name is said at once (the other problems have their own lines): OK stays enabled,
    // and pressing it keeps the input and goes to the name.
    const QString name = m_name->text().trimmed();
    m_problem->setText(!m_name->isReadOnly() && m_takenNames.contains(name)
                           ? tr("A schedule named %1 exists already: choose another name.").arg(name)
                           : QString());
}

} // namespace tidemark
