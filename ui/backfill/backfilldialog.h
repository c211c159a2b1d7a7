// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/tablespec.h"
#include "model/domain/watermarkrange.h"
#include "model/engine/backfill.h"
#include "model/engine/backfillpreview.h"

#include <QDialog>
#include <QTimeZone>
#include <optional>

class QCalendarWidget;
class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QMessageBox;
class QRadioButton;
class QTimer;

namespace tidemark {

// Resets a table's watermark: the new value (ISO-8601 typed or a date picked, for timestamps; a
// number for integers) and what happens to the target: keep its rows, delete the rows newer
// than the value, or empty it and reload from the beginning. Keeping the rows of an append
// table would copy them twice, so that choice says so plainly and OK stays disabled until the
// user confirms. What a choice will do ("N target rows will be deleted, about M source rows
// will be copied again") is counted off the GUI thread (BackfillPreviewer) and shown before
// OK can be pressed; a choice that deletes rows then asks once more, naming the table. The
// dialog only builds the request; the window runs the core's runBackfill off the GUI thread.
class BackfillDialog : public QDialog {
    Q_OBJECT
public:
    // Without a workspace path nothing is counted, and choices that delete rows cannot be
    // confirmed.
    explicit BackfillDialog(const TableSpec &spec, const QString &workspacePath = QString(),
                            QWidget *parent = nullptr);

    BackfillRequest request() const;
    // "Re-copy a range" (merge tables): the range typed, as `backfill ID --range` takes it; the
    // window runs it as a run of its own kind, and the watermark stays. None for the other choices.
    std::optional<WatermarkRangeText> range() const;
    void setRangeEndText(const QString &text); // with setValueText (the start) and setRangeChosen
    void setRangeChosen();
    // True when the current choices are valid (the value parses, duplicates are confirmed).
    bool canAccept() const;
    bool needsDuplicateConfirmation() const;
    // Deletes target rows: needs its preview counted and a second confirmation.
    bool isDestructive() const;
    // The user asked to run the table once the backfill is done.
    bool runAfterwards() const;

    void setAction(BackfillTargetAction action);
    void setConfirmDuplicates(bool confirmed);
    void setValueText(const QString &text); // ISO-8601 or an integer, as the CLI's --from
    // The zone a picked date and a typed time without zone are read in (at first, the one the
    // window shows times in: TimeConvention).
    void setZone(const QTimeZone &zone);
    // What a picked date means: midnight of `date` in the zone shown.
    void pickDate(const QDate &date);

    // "3,000,000 target rows will be deleted, about 3,000,000 source rows will be copied again."
    static QString describePreview(const BackfillPreview &preview);

private:
    void choicesChanged();
    void update();
    void askToConfirm();
    BackfillTargetAction action() const;
    QString valueText() const;
    QString rangeEndText() const;
    // A typed timestamp read in the zone shown (the core's text), or a number; empty when invalid.
    QString typedValue(const QLineEdit *edit) const;
    QTimeZone zone() const;

    TableSpec m_spec;
    QLineEdit *m_timestamp = nullptr;
    QComboBox *m_zone = nullptr;
    QCalendarWidget *m_calendar = nullptr;
    QLabel *m_resolved = nullptr;
    QLineEdit *m_number = nullptr;
    QRadioButton *m_keep;
    QRadioButton *m_deleteNewer;
    QRadioButton *m_truncate;
    QRadioButton *m_range;
    QLineEdit *m_rangeEnd = nullptr; // the range's end; the value field is its start
    QLabel *m_valueLabel = nullptr;
    QLabel *m_explanation;
    QLabel *m_previewLabel;
    QLabel *m_warning;
    QCheckBox *m_confirm;
    QCheckBox *m_runAfter;
    QDialogButtonBox *m_buttons;
    BackfillPreviewer *m_previewer = nullptr;
    QTimer *m_previewDelay;
    std::optional<BackfillPreview> m_preview;
    QString m_previewError;
};

} // namespace tidemark
