// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "model/engine/backfill.h"

#include <QDialog>

class QCheckBox;
class QDateTimeEdit;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QRadioButton;

namespace tidemark {

// Resets a table's watermark: the new value (a date-time picker for timestamps, a number for
// integers) and what happens to the target: keep its rows, delete the rows newer than the
// value, or truncate it. Keeping the rows of an append table would copy them twice, so that
// choice says so plainly and OK stays disabled until the user confirms. The dialog only
// builds the request; the window runs the core's runBackfill off the GUI thread.
class BackfillDialog : public QDialog {
    Q_OBJECT
public:
    explicit BackfillDialog(const TableSpec &spec, QWidget *parent = nullptr);

    BackfillRequest request() const;
    // True when the current choices may be submitted.
    bool canAccept() const;
    bool needsDuplicateConfirmation() const;

    void setAction(BackfillTargetAction action);
    void setConfirmDuplicates(bool confirmed);
    void setValueText(const QString &text); // ISO-8601 or an integer, as the CLI's --from

private:
    void update();
    BackfillTargetAction action() const;
    QString valueText() const;

    TableSpec m_spec;
    QDateTimeEdit *m_dateTime = nullptr;
    QLineEdit *m_number = nullptr;
    QRadioButton *m_keep;
    QRadioButton *m_deleteNewer;
    QRadioButton *m_truncate;
    QLabel *m_explanation;
    QLabel *m_warning;
    QCheckBox *m_confirm;
    QDialogButtonBox *m_buttons;
};

} // namespace tidemark
