// SPDX-License-Identifier: MIT
#include "ui/backfill/backfilldialog.h"

#include "model/common/timestamp.h"
#include "model/domain/sourcezone.h"
#include "model/models/displayformat.h"
#include "model/models/timeconvention.h"
#include "ui/common/tablenaming.h"

#include <QButtonGroup>
#include <QCalendarWidget>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpressionValidator>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWidgetAction>

namespace tidemark {

namespace {

constexpr qint64 kMicrosPerSecond = 1'000'000;

QString rows(qint64 count) {
    return count == 1 ? QObject::tr("1 row") : QObject::tr("%1 rows").arg(formatCount(count));
}

// The instant typed text means: as written when it names a zone, else in `zone`. Returns the
// text to hand the core (which reads a time without zone as UTC), or nullopt when it does
// not parse.
std::optional<QString> resolveTimestamp(const QString &typed, const QTimeZone &zone, qint64 *micros) {
    const QString text = typed.trimmed();
    const auto parsed = parseTimestamp(text);
    if (!parsed)
        return std::nullopt;
    if (!parsed->spelling.zone.isEmpty()) {
        *micros = parsed->micros;
        return text;
    }
    // Parsed as if UTC: that is the wall-clock time; find the zone's offset at it.
    const QDateTime wall = QDateTime::fromMSecsSinceEpoch(parsed->micros / 1000, QTimeZone::utc());
    const QDateTime there(wall.date(), wall.time(), zone);
    const qint64 offset = there.isValid() ? there.offsetFromUtc() : 0;
    *micros = parsed->micros - offset * kMicrosPerSecond;
    TimestampSpelling utc;
    utc.zone = QStringLiteral("Z");
    utc.fractionDigits = parsed->spelling.dateOnly ? 0 : parsed->spelling.fractionDigits;
    return formatTimestamp(*micros, utc, parsed->subMicros);
}

} // namespace

BackfillDialog::BackfillDialog(const TableSpec &spec, const QString &workspacePath, QWidget *parent)
    : QDialog(parent)
    , m_spec(spec)
    , m_keep(new QRadioButton(tr("Keep the target's rows"), this))
    , m_deleteNewer(new QRadioButton(tr("Delete the target's rows newer than the new watermark"), this))
    , m_truncate(new QRadioButton(this))
    , m_range(new QRadioButton(tr("Re-copy a range and keep the watermark"), this))
    , m_explanation(new QLabel(this))
    , m_previewLabel(new QLabel(this))
    , m_warning(new QLabel(this))
    , m_confirm(new QCheckBox(this))
    , m_runAfter(new QCheckBox(tr("Run this table when the backfill is done"), this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
    , m_previewDelay(new QTimer(this)) {
    setWindowTitle(tr("Backfill table %1 (%2)").arg(spec.id).arg(tableName(spec)));
    m_keep->setObjectName(QStringLiteral("keep"));
    m_deleteNewer->setObjectName(QStringLiteral("deleteNewer"));
    m_truncate->setObjectName(QStringLiteral("truncate"));
    m_range->setObjectName(QStringLiteral("recopyRange"));
    // Only a merge table: its rule keeps the newer version of each key, whichever copy writes last.
    const QString rangeRefusal = rangeBackfillRefusal(spec);
    m_range->setEnabled(rangeRefusal.isEmpty() && spec.watermarkType != WatermarkType::None);
    m_range->setToolTip(rangeRefusal.isEmpty()
                            ? tr("Copies the rows of a range again beside the table's runs, merged on their "
                                 "keys; the watermark stays (backfill --range)")
                            : rangeRefusal);
    m_truncate->setText(spec.initialWatermark.isNull()
                            ? tr("Empty the target and reload it from the beginning")
                            : tr("Empty the target and reload it from the initial watermark (%1)")
                                  .arg(shownWatermark(spec.initialWatermark, spec.sourceTimezone)));
    m_warning->setObjectName(QStringLiteral("duplicateWarning"));
    m_confirm->setObjectName(QStringLiteral("confirmDuplicates"));
    m_previewLabel->setObjectName(QStringLiteral("backfillPreview"));
    m_runAfter->setObjectName(QStringLiteral("runAfterBackfill"));

    auto *form = new QFormLayout;
    form->addRow(tr("Table:"),
                 new QLabel(QStringLiteral("%1 → %2 (%3)")
                                .arg(spec.sourceDisplay(), spec.targetDisplay(), writeModeName(spec.mode)),
                            this));
    form->addRow(tr("Current watermark:"),
                 new QLabel(spec.lastWatermark.isNull()
                                ? tr("(none)")
                                : shownWatermark(spec.lastWatermark, spec.sourceTimezone),
                            this));
    if (spec.watermarkType == WatermarkType::Timestamp) {
        m_timestamp = new QLineEdit(this);
        m_timestamp->setObjectName(QStringLiteral("watermarkTimestamp"));
        m_timestamp->setPlaceholderText(QStringLiteral("2025-07-01, 2025-07-01T08:30:00.000001+02:00"));
        m_timestamp->setToolTip(tr("ISO-8601, as the command line takes it: a date (midnight), a date and "
                                   "time, to the microsecond, with or without a zone (without one, the "
                                   "zone shown beside it)"));
        m_timestamp->setText(spec.lastWatermark.isNull()
                                 ? QString()
                                 : shownWatermark(spec.lastWatermark, spec.sourceTimezone));
        m_zone = new QComboBox(this);
        m_zone->setObjectName(QStringLiteral("watermarkZone"));
        m_zone->addItem(tr("UTC"), QByteArray("UTC"));
        const QTimeZone local = QTimeZone::systemTimeZone();
        m_zone->addItem(tr("Local (%1)").arg(QString::fromUtf8(local.id())), local.id());
        setZone(TimeConvention::current().zone()); // the zone the window shows times in
        m_calendar = new QCalendarWidget(this);
        m_calendar->setObjectName(QStringLiteral("watermarkCalendar"));
        auto *pick = new QToolButton(this);
        pick->setObjectName(QStringLiteral("pickDate"));
        pick->setText(tr("Pick a date…"));
        pick->setToolTip(tr("A picked date means midnight in the zone shown"));
        pick->setPopupMode(QToolButton::InstantPopup);
        auto *menu = new QMenu(pick);
        auto *calendarAction = new QWidgetAction(menu);
        calendarAction->setDefaultWidget(m_calendar);
        menu->addAction(calendarAction);
        pick->setMenu(menu);
        connect(m_calendar, &QCalendarWidget::clicked, this, [this, menu](const QDate &date) {
            pickDate(date);
            menu->hide();
        });
        connect(m_calendar, &QCalendarWidget::activated, this, [this, menu](const QDate &date) {
            pickDate(date);
            menu->hide();
        });
        auto *row = new QHBoxLayout;
        row->addWidget(m_timestamp, 1);
        row->addWidget(m_zone);
        row->addWidget(pick);
        m_valueLabel = new QLabel(tr("New watermark:"), this);
        form->addRow(m_valueLabel, row);
        m_resolved = new QLabel(this);
        m_resolved->setObjectName(QStringLiteral("watermarkResolved"));
        form->addRow(QString(), m_resolved);
        connect(m_timestamp, &QLineEdit::textChanged, this, &BackfillDialog::choicesChanged);
        connect(m_zone, &QComboBox::currentIndexChanged, this, &BackfillDialog::choicesChanged);
    } else {
        m_number = new QLineEdit(this);
        m_number->setObjectName(QStringLiteral("watermarkNumber"));
        m_number->setValidator(
            new QRegularExpressionValidator(QRegularExpression(QStringLiteral("-?[0-9]{1,19}")), m_number));
        m_number->setText(spec.lastWatermark.isNull() ? QStringLiteral("0") : spec.lastWatermark.display());
        m_number->setEnabled(spec.watermarkType == WatermarkType::Integer);
        m_valueLabel = new QLabel(tr("New watermark:"), this);
        form->addRow(m_valueLabel, m_number);
        connect(m_number, &QLineEdit::textChanged, this, &BackfillDialog::choicesChanged);
    }

    m_rangeEnd = new QLineEdit(this);
    m_rangeEnd->setObjectName(QStringLiteral("rangeEnd"));
    if (m_timestamp) {
        m_rangeEnd->setPlaceholderText(tr("the range's last watermark, read in the zone shown above"));
    } else {
        m_rangeEnd->setValidator(
            new QRegularExpressionValidator(QRegularExpression(QStringLiteral("-?[0-9]{1,19}")), m_rangeEnd));
        m_rangeEnd->setPlaceholderText(tr("the range's last watermark"));
    }
    m_rangeEnd->setText(m_timestamp ? m_timestamp->text() : m_number->text());
    form->addRow(tr("Range end:"), m_rangeEnd);
    form->setRowVisible(m_rangeEnd, false);
    connect(m_rangeEnd, &QLineEdit::textChanged, this, &BackfillDialog::choicesChanged);
    connect(m_range, &QRadioButton::toggled, this, [this, form](bool chosen) {
        form->setRowVisible(m_rangeEnd, chosen);
        m_valueLabel->setText(chosen ? tr("Range start:") : tr("New watermark:"));
    });

    auto *group = new QButtonGroup(this);
    for (QRadioButton *button : {m_keep, m_deleteNewer, m_truncate, m_range}) {
        group->addButton(button);
        connect(button, &QRadioButton::toggled, this, [this](bool checked) {
            if (checked)
                choicesChanged();
        });
    }
    // The safe default: merge tolerates a re-read, append needs the newer rows gone.
    (spec.mode == WriteMode::Merge ? m_keep : m_deleteNewer)->setChecked(true);

    m_explanation->setWordWrap(true);
    m_previewLabel->setWordWrap(true);
    m_previewLabel->setStyleSheet(QStringLiteral("font-weight: bold;"));
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
    m_warning->setText(
        tr("%1 appends rows. Keeping its rows and moving the watermark back copies every row after "
           "the new watermark again: the target will hold those rows twice.")
            .arg(spec.targetDisplay()));
    m_confirm->setText(tr("I understand: the target will contain duplicate rows"));
    connect(m_confirm, &QCheckBox::toggled, this, &BackfillDialog::choicesChanged);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (!canAccept())
            return;
        if (isDestructive())
            askToConfirm();
        else
            accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    if (!workspacePath.isEmpty()) {
        m_previewer = new BackfillPreviewer(workspacePath, this);
        connect(m_previewer, &BackfillPreviewer::previewReady, this, [this](const BackfillPreview &preview) {
            m_preview = preview;
            m_previewError.clear();
            update();
        });
        connect(m_previewer, &BackfillPreviewer::previewFailed, this, [this](const QString &error) {
            m_previewError = error;
            update();
        });
    }
    // Typing must not start a count per keystroke.
    m_previewDelay->setSingleShot(true);
    m_previewDelay->setInterval(300);
    connect(m_previewDelay, &QTimer::timeout, this, [this] {
        if (m_previewer && canAccept() && !m_range->isChecked())
            m_previewer->request(request());
    });
    connect(this, &QDialog::finished, this, [this] {
        if (m_previewer)
            m_previewer->cancel();
    });

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(new QLabel(tr("What happens to the target:"), this));
    layout->addWidget(m_keep);
    layout->addWidget(m_deleteNewer);
    layout->addWidget(m_truncate);
    layout->addWidget(m_range);
    layout->addWidget(m_explanation);
    layout->addWidget(m_previewLabel);
    layout->addWidget(m_warning);
    layout->addWidget(m_confirm);
    layout->addWidget(m_runAfter);
    layout->addWidget(m_buttons);
    choicesChanged();
}

BackfillTargetAction BackfillDialog::action() const {
    if (m_keep->isChecked())
        return BackfillTargetAction::Keep;
    if (m_truncate->isChecked())
        return BackfillTargetAction::Truncate;
    return BackfillTargetAction::DeleteNewer;
}

QTimeZone BackfillDialog::zone() const {
    if (!m_zone)
        return QTimeZone::utc();
    const QTimeZone zone(m_zone->currentData().toByteArray());
    return zone.isValid() ? zone : QTimeZone::utc();
}

QString BackfillDialog::typedValue(const QLineEdit *edit) const {
    if (m_timestamp) {
        qint64 micros = 0;
        return resolveTimestamp(edit->text(), zone(), &micros).value_or(QString());
    }
    return edit->hasAcceptableInput() ? edit->text() : QString();
}

QString BackfillDialog::valueText() const {
    if (action() == BackfillTargetAction::Truncate)
        return m_spec.initialWatermark.isNull() ? QString() : m_spec.initialWatermark.nativeText();
    if (m_timestamp)
        return typedValue(m_timestamp);
    return m_number ? m_number->text() : QString();
}

QString BackfillDialog::rangeEndText() const {
    return typedValue(m_rangeEnd);
}

std::optional<WatermarkRangeText> BackfillDialog::range() const {
    if (!m_range->isChecked())
        return std::nullopt;
    return WatermarkRangeText{valueText(), rangeEndText()};
}

void BackfillDialog::setRangeEndText(const QString &text) {
    m_rangeEnd->setText(text);
}

void BackfillDialog::setRangeChosen() {
    m_range->setChecked(true);
}

bool BackfillDialog::needsDuplicateConfirmation() const {
    return !m_range->isChecked() && action() == BackfillTargetAction::Keep &&
           m_spec.mode == WriteMode::Append;
}

bool BackfillDialog::isDestructive() const {
    return !m_range->isChecked() && action() != BackfillTargetAction::Keep;
}

bool BackfillDialog::runAfterwards() const {
    return m_runAfter->isChecked();
}

bool BackfillDialog::canAccept() const {
    if (m_spec.watermarkType == WatermarkType::None)
        return false; // nothing to reset: the table has no watermark
    if (m_range->isChecked())
        return (m_number ? m_number->hasAcceptableInput() : !valueText().isEmpty()) &&
               !rangeEndText().isEmpty();
    if (action() != BackfillTargetAction::Truncate) {
        if (m_number && !m_number->hasAcceptableInput())
            return false;
        if (m_timestamp && valueText().isEmpty())
            return false;
    }
    return !needsDuplicateConfirmation() || m_confirm->isChecked();
}

BackfillRequest BackfillDialog::request() const {
    BackfillRequest request;
    request.tableId = m_spec.id;
    request.fromText = valueText();
    request.action = action();
    request.confirmDuplicates = needsDuplicateConfirmation() && m_confirm->isChecked();
    return request;
}

void BackfillDialog::setAction(BackfillTargetAction action) {
    (action == BackfillTargetAction::Keep          ? m_keep
     : action == BackfillTargetAction::DeleteNewer ? m_deleteNewer
                                                   : m_truncate)
        ->setChecked(true);
}

void BackfillDialog::setConfirmDuplicates(bool confirmed) {
    m_confirm->setChecked(confirmed);
}

void BackfillDialog::setValueText(const QString &text) {
    if (m_number)
        m_number->setText(text);
    else if (m_timestamp)
        m_timestamp->setText(text);
}

void BackfillDialog::setZone(const QTimeZone &zone) {
    if (!m_zone)
        return;
    const int index = m_zone->findData(zone.id());
    if (index >= 0)
        m_zone->setCurrentIndex(index);
    else {
        m_zone->addItem(QString::fromUtf8(zone.id()), zone.id());
        m_zone->setCurrentIndex(m_zone->count() - 1);
    }
}

void BackfillDialog::pickDate(const QDate &date) {
    if (m_timestamp && date.isValid())
        m_timestamp->setText(date.toString(Qt::ISODate) + QStringLiteral("T00:00:00"));
}

QString BackfillDialog::describePreview(const BackfillPreview &preview) {
    const QString from =
        preview.from.isNull() ? tr("from the beginning") : tr("after %1").arg(preview.from.display());
    if (preview.action == BackfillTargetAction::Keep)
        return tr("No target row is deleted; about %1 of %2 will be copied again (%3).")
            .arg(rows(preview.sourceRowsToCopy), preview.source, from);
    if (!preview.targetExists)
        return tr("%1 does not exist yet: nothing is deleted; about %2 will be copied (%3).")
            .arg(preview.target, rows(preview.sourceRowsToCopy), from);
    const QString deleted =
        preview.targetRowsDeleted == 1
            ? tr("1 target row will be deleted")
            : tr("%1 target rows will be deleted").arg(formatCount(preview.targetRowsDeleted));
    const QString copied =
        preview.sourceRowsToCopy == 1
            ? tr("about 1 source row will be copied again")
            : tr("about %1 source rows will be copied again").arg(formatCount(preview.sourceRowsToCopy));
    return tr("%1, %2 (%3).").arg(deleted, copied, from);
}

void BackfillDialog::askToConfirm() {
    if (!m_preview)
        return;
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Backfill table %1").arg(m_spec.id), QString(),
                                QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("backfillConfirmation"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setText(action() == BackfillTargetAction::Truncate
                     ? tr("Empty %1 and reload table %2 (%3) from the beginning?")
                           .arg(m_spec.targetDisplay())
                           .arg(m_spec.id)
                           .arg(m_spec.sourceDisplay())
                     : tr("Delete rows of %1 and reload table %2 (%3) after %4?")
                           .arg(m_spec.targetDisplay())
                           .arg(m_spec.id)
                           .arg(m_spec.sourceDisplay(), m_preview->from.display()));
    box->setInformativeText(describePreview(*m_preview) + QLatin1Char(' ') + tr("This cannot be undone."));
    QPushButton *confirm =
        box->addButton(m_preview->targetRowsDeleted == 1
                           ? tr("Delete 1 row and backfill")
                           : tr("Delete %1 rows and backfill").arg(formatCount(m_preview->targetRowsDeleted)),
                       QMessageBox::DestructiveRole);
    confirm->setObjectName(QStringLiteral("confirmBackfill"));
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::buttonClicked, this, [this, confirm](QAbstractButton *button) {
        if (button == confirm)
            accept();
    });
    box->open();
}

void BackfillDialog::choicesChanged() {
    // What was counted no longer applies.
    m_preview.reset();
    m_previewError.clear();
    if (m_previewer) {
        m_previewer->cancel();
        m_previewDelay->start();
    }
    update();
}

void BackfillDialog::update() {
    const BackfillRequest current = request();
    if (m_timestamp) {
        m_timestamp->setEnabled(current.action != BackfillTargetAction::Truncate);
        qint64 micros = 0;
        const bool valid = resolveTimestamp(m_timestamp->text(), zone(), &micros).has_value();
        m_resolved->setText(current.action == BackfillTargetAction::Truncate ? QString()
                            : valid ? tr("= %1").arg(canonicalTimestamp(micros))
                                    : tr("Not an ISO-8601 date or time (e.g. 2025-07-01 or "
                                         "2025-07-01T08:30:00Z)"));
    }
    switch (current.action) {
    case BackfillTargetAction::Keep:
        m_explanation->setText(
            m_spec.mode == WriteMode::Merge
                ? tr("Rows after the new watermark are copied again and merged on their keys: "
                     "nothing is duplicated.")
                : tr("Rows after the new watermark are copied again."));
        break;
    case BackfillTargetAction::DeleteNewer:
        m_explanation->setText(tr("Target rows whose %1 is after the new watermark are deleted, in the same "
                                  "transaction that moves the watermark; the next run copies them again.")
                                   .arg(m_spec.watermarkColumn));
        break;
    case BackfillTargetAction::Truncate:
        m_explanation->setText(tr("Every row of %1 is deleted and the watermark goes back to %2; the next "
                                  "run copies the whole table again.")
                                   .arg(m_spec.targetDisplay(), m_spec.initialWatermark.isNull()
                                                                    ? tr("the beginning")
                                                                    : shownWatermark(m_spec.initialWatermark,
                                                                                     m_spec.sourceTimezone)));
        break;
    }
    if (m_range->isChecked())
        m_explanation->setText(
            tr("The rows whose %1 lies in the range, both ends included and up to the current watermark, are "
               "copied again beside the table's runs and merged on their keys: a newer version a run wrote "
               "stays. Nothing is deleted, and the watermark stays where it is. History shows it as a range "
               "backfill.")
                .arg(m_spec.watermarkColumn));
    m_runAfter->setVisible(!m_range->isChecked());
    const bool duplicates = needsDuplicateConfirmation();
    m_warning->setVisible(duplicates);
    m_confirm->setVisible(duplicates);
    if (m_spec.watermarkType == WatermarkType::None)
        m_explanation->setText(
            tr("%1 has no watermark column: there is nothing to reset.").arg(m_spec.sourceDisplay()));

    if (m_range->isChecked())
        m_previewLabel->clear();
    else if (!m_previewer)
        m_previewLabel->setText(isDestructive() ? tr("Cannot count the rows this deletes (no workspace).")
                                                : QString());
    else if (!canAccept())
        m_previewLabel->clear();
    else if (m_preview)
        m_previewLabel->setText(describePreview(*m_preview));
    else if (!m_previewError.isEmpty())
        m_previewLabel->setText(tr("Could not count the rows: %1").arg(m_previewError));
    else
        m_previewLabel->setText(tr("Counting the rows this changes…"));

    // A choice that deletes rows is only offered once what it deletes has been counted.
    const bool counted = m_preview.has_value();
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(canAccept() && (!isDestructive() || counted));
    m_buttons->button(QDialogButtonBox::Ok)
        ->setText(m_range->isChecked() ? tr("Re-copy")
                  : isDestructive()    ? tr("Backfill…")
                                       : tr("Backfill"));
}

} // namespace tidemark
