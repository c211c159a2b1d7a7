// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;

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

private:
    QLabel *m_title;
    QLabel *m_facts;
    QLabel *m_error;
    QPlainTextEdit *m_log;
    int m_logLines = 0;
};

} // namespace tidemark
