// SPDX-License-Identifier: MIT
#include "ui/backfill/backfilldialog.h"

#include "model/common/timestamp.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QRegularExpressionValidator>
#include <QTimeZone>
#include <QVBoxLayout>

namespace tidemark {

BackfillDialog::BackfillDialog(const TableSpec &spec, QWidget *parent)
    : QDialog(parent)
    , m_spec(spec)
    , m_keep(new QRadioButton(tr("Keep the target's rows"), this))
    , m_deleteNewer(new QRadioButton(tr("Delete the target's rows newer than the new watermark"), this))
    , m_truncate(new QRadioButton(tr("Truncate the target (full reload on the next run)"), this))
    , m_explanation(new QLabel(this))
    , m_warning(new QLabel(this))
    , m_confirm(new QCheckBox(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this)) {
    setWindowTitle(tr("Backfill %1").arg(spec.sourceDisplay()));
    m_keep->setObjectName(QStringLiteral("keep"));
    m_deleteNewer->setObjectName(QStringLiteral("deleteNewer"));
    m_truncate->setObjectName(QStringLiteral("truncate"));
    m_warning->setObjectName(QStringLiteral("duplicateWarning"));
    m_confirm->setObjectName(QStringLiteral("confirmDuplicates"));

    auto *form = new QFormLayout;
    form->addRow(tr("Table:"),
                 new QLabel(QStringLiteral("%1 → %2 (%3)")
                                .arg(spec.sourceDisplay(), spec.targetDisplay(), writeModeName(spec.mode)),
                            this));
    form->addRow(tr("Current watermark:"),
                 new QLabel(spec.lastWatermark.isNull() ? tr("(none)") : spec.lastWatermark.display(), this));
    if (spec.watermarkType == WatermarkType::Timestamp) {
        m_dateTime = new QDateTimeEdit(this);
        m_dateTime->setObjectName(QStringLiteral("watermarkDateTime"));
        m_dateTime->setTimeSpec(Qt::UTC);
        m_dateTime->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz 'UTC'"));
        m_dateTime->setCalendarPopup(true);
        QDateTime initial = QDateTime::currentDateTimeUtc();
        if (!spec.lastWatermark.isNull())
            initial = QDateTime::fromMSecsSinceEpoch(spec.lastWatermark.micros() / 1000, QTimeZone::utc());
        m_dateTime->setDateTime(initial);
        form->addRow(tr("New watermark:"), m_dateTime);
        connect(m_dateTime, &QDateTimeEdit::dateTimeChanged, this, &BackfillDialog::update);
    } else {
        m_number = new QLineEdit(this);
        m_number->setObjectName(QStringLiteral("watermarkNumber"));
        m_number->setValidator(
            new QRegularExpressionValidator(QRegularExpression(QStringLiteral("-?[0-9]{1,19}")), m_number));
        m_number->setText(spec.lastWatermark.isNull() ? QStringLiteral("0") : spec.lastWatermark.display());
        m_number->setEnabled(spec.watermarkType == WatermarkType::Integer);
        form->addRow(tr("New watermark:"), m_number);
        connect(m_number, &QLineEdit::textChanged, this, &BackfillDialog::update);
    }

    auto *group = new QButtonGroup(this);
    for (QRadioButton *button : {m_keep, m_deleteNewer, m_truncate}) {
        group->addButton(button);
        connect(button, &QRadioButton::toggled, this, &BackfillDialog::update);
    }
    // The safe default: merge tolerates a re-read, append needs the newer rows gone.
    (spec.mode == WriteMode::Merge ? m_keep : m_deleteNewer)->setChecked(true);

    m_explanation->setWordWrap(true);
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
    m_warning->setText(
        tr("%1 appends rows. Keeping its rows and moving the watermark back copies every row after "
           "the new watermark again: the target will hold those rows twice.")
            .arg(spec.targetDisplay()));
    m_confirm->setText(tr("I understand: the target will contain duplicate rows"));
    connect(m_confirm, &QCheckBox::toggled, this, &BackfillDialog::update);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (canAccept())
            accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(new QLabel(tr("What happens to the target:"), this));
    layout->addWidget(m_keep);
    layout->addWidget(m_deleteNewer);
    layout->addWidget(m_truncate);
    layout->addWidget(m_explanation);
    layout->addWidget(m_warning);
    layout->addWidget(m_confirm);
    layout->addWidget(m_buttons);
    update();
}

BackfillTargetAction BackfillDialog::action() const {
    if (m_keep->isChecked())
        return BackfillTargetAction::Keep;
    if (m_truncate->isChecked())
        return BackfillTargetAction::Truncate;
    return BackfillTargetAction::DeleteNewer;
}

QString BackfillDialog::valueText() const {
    if (m_dateTime)
        return m_dateTime->dateTime().toUTC().toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzzZ"));
    return m_number ? m_number->text() : QString();
}

bool BackfillDialog::needsDuplicateConfirmation() const {
    return action() == BackfillTargetAction::Keep && m_spec.mode == WriteMode::Append;
}

bool BackfillDialog::canAccept() const {
    if (m_spec.watermarkType == WatermarkType::None)
        return false; // nothing to reset: the table has no watermark
    if (m_number && !m_number->hasAcceptableInput())
        return false;
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
    if (m_number) {
        m_number->setText(text);
    } else if (m_dateTime) {
        if (const auto parsed = parseTimestamp(text))
            m_dateTime->setDateTime(QDateTime::fromMSecsSinceEpoch(parsed->micros / 1000, QTimeZone::utc()));
    }
}

void BackfillDialog::update() {
    switch (action()) {
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
        m_explanation->setText(
            tr("Every row of %1 is deleted; the next run copies everything again, from the "
               "table's initial watermark (the value above is not used).")
                .arg(m_spec.targetDisplay()));
        break;
    }
    const bool duplicates = needsDuplicateConfirmation();
    m_warning->setVisible(duplicates);
    m_confirm->setVisible(duplicates);
    if (m_spec.watermarkType == WatermarkType::None)
        m_explanation->setText(
            tr("%1 has no watermark column: there is nothing to reset.").arg(m_spec.sourceDisplay()));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(canAccept());
}

} // namespace tidemark
