// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace tidemark {

// What one iteration did: its window's bounds, its watermarks, its error and its log lines.
// Shows a copy of the record; the run panel refreshes it as the grid row changes.
class IterationDetails : public QWidget {
    Q_OBJECT
public:
    explicit IterationDetails(QWidget *parent = nullptr);

    void showIteration(const IterationRecord &record);
    void appendLog(const LogLine &line);
    void clear();

signals:
    // "Rejected Rows…" was clicked for the iteration shown.
    void rejectedRowsRequested(const tidemark::IterationRecord &record);

private:
    QLabel *m_title;
    QLabel *m_facts;
    QLabel *m_error;
    QPlainTextEdit *m_log;
    QLabel *m_logLabel; // names the zone the lines' times are in
    QPushButton *m_rejects;
    IterationRecord m_record;
    bool m_shown = false;
    int m_logLines = 0;
};

} // namespace tidemark
