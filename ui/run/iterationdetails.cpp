// SPDX-License-Identifier: MIT
#include "ui/run/iterationdetails.h"

#include "model/models/displayformat.h"
#include "model/models/iterationgridmodel.h"
#include "model/models/timeconvention.h"

#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tidemark {

namespace {

QString logText(const LogLine &line) {
    return QStringLiteral("%1  %2  %3")
        .arg(toDisplayZone(line.at).toString(QStringLiteral("HH:mm:ss.zzz")), line.level.leftJustified(7),
             line.message);
}

QString orNone(const QString &text) {
    return text.isEmpty() ? QObject::tr("(none)") : text.toHtmlEscaped();
}

// A QLabel wraps only between words: a long path, SQL identifier or hash in an error would
// widen the pane instead. Zero-width spaces inside such runs let it wrap anywhere.
QString wrappable(const QString &text) {
    constexpr int kRun = 24;
    QString out;
    out.reserve(text.size() + text.size() / kRun);
    int run = 0;
    for (const QChar c : text) {
        run = c.isSpace() ? 0 : run + 1;
        if (run > kRun) {
            out += QChar(0x200B);
            run = 1;
        }
        out += c;
    }
    return out;
}

} // namespace

IterationDetails::IterationDetails(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_facts(new QLabel(this))
    , m_error(new QLabel(this))
    , m_log(new QPlainTextEdit(this))
    , m_logLabel(new QLabel(this))
    , m_rejects(new QPushButton(this)) {
    m_title->setWordWrap(true);
    m_facts->setWordWrap(true);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setObjectName(QStringLiteral("iterationError"));
    m_error->setWordWrap(true);
    m_error->setTextFormat(Qt::PlainText);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
    m_log->setObjectName(QStringLiteral("iterationLog"));
    m_log->setReadOnly(true);
    // Wrapped, anywhere in a long word too: at 1024 pixels the pane is a third of the window,
    // and a log line's end (the error, the row count) is what it is read for.
    m_log->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_log->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_log->setMaximumBlockCount(5000);
    m_log->setFont(QFont(QStringLiteral("monospace")));
    m_rejects->setObjectName(QStringLiteral("showRejectedRows"));
    connect(m_rejects, &QPushButton::clicked, this, [this] { emit rejectedRowsRequested(m_record); });
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_facts);
    layout->addWidget(m_error);
    layout->addWidget(m_rejects, 0, Qt::AlignLeft);
    layout->addWidget(m_logLabel);
    layout->addWidget(m_log, 1);
    clear();
    connect(&TimeConvention::current(), &TimeConvention::changed, this, [this] {
        if (!m_shown)
            return clear();
        m_logLines = -1; // every line's time is written anew
        showIteration(m_record);
    });
}

void IterationDetails::clear() {
    m_title->setText(tr("<i>Click an iteration to see its window, error and log.</i>"));
    m_facts->clear();
    m_error->clear();
    m_error->hide();
    m_log->clear();
    m_logLines = 0;
    m_record = IterationRecord();
    m_shown = false;
    m_rejects->hide();
    m_logLabel->setText(zonedLabel(tr("Log")) + QLatin1Char(':'));
}

void IterationDetails::showIteration(const IterationRecord &record) {
    // An iteration's log only grows: the iteration shown, come back without its lines (a
    // followed run's row that changed, its log being read again), keeps those shown meanwhile.
    const bool linesToCome = record.id > 0 && record.id == m_record.id && record.log.isEmpty();
    const QList<LogLine> shownLines = linesToCome ? m_record.log : QList<LogLine>();
    m_record = record;
    if (linesToCome)
        m_record.log = shownLines;
    m_shown = true;
    m_logLabel->setText(zonedLabel(tr("Log")) + QLatin1Char(':'));
    m_rejects->setText(tr("Rejected Rows (%1)…").arg(formatCount(record.rowsSkipped)));
    m_rejects->setVisible(record.rowsSkipped > 0);
    m_title->setText(
        QStringLiteral("<b>%1</b> → <b>%2</b> — %3")
            .arg(record.source.toHtmlEscaped(), record.target.toHtmlEscaped(), statusLabel(record.status)));
    QString facts =
        tr("Window: after %1, up to %2").arg(orNone(record.windowLower), orNone(record.windowUpper));
    facts += QStringLiteral("<br>") +
             tr("Watermark: %1 → %2").arg(orNone(record.watermarkBefore), orNone(record.watermarkAfter));
    if (record.status == IterationStatus::DryRun)
        facts += QStringLiteral("<br><b>") + dryRunText(record).toHtmlEscaped() + QStringLiteral("</b>");
    else
        facts += QStringLiteral("<br>") + tr("Rows: %1 read, %2 written, %3 skipped")
                                              .arg(formatCount(rowsShownRead(record)),
                                                   formatCount(record.rowsWritten),
                                                   formatCount(record.rowsSkipped));
    if (record.windowRows >= 0 && record.status != IterationStatus::DryRun)
        facts += tr(" of %1 in the window").arg(formatCount(record.windowRows));
    if (record.rowsNullWatermark > 0)
        facts +=
            QStringLiteral("<br>") + tr("<b>%1 rows have no watermark value and can never be copied.</b>")
                                         .arg(formatCount(record.rowsNullWatermark));
    if (record.rowsUnorderableWatermark > 0)
        facts += QStringLiteral("<br>") +
                 tr("<b>%1 rows have a watermark value no window can order (infinity, NaN, a BC date...) "
                    "and are not copied; the log names them.</b>")
                     .arg(formatCount(record.rowsUnorderableWatermark));
    if (record.startedAt.isValid())
        facts += QStringLiteral("<br>") + tr("Started %1").arg(formatTimeWithZone(record.startedAt));
    if (record.finishedAt.isValid())
        facts += tr(", finished %1 (%2)")
                     .arg(formatTimeWithZone(record.finishedAt), formatDuration(record.durationMs));
    m_facts->setText(facts);
    m_error->setText(wrappable(record.error));
    m_error->setToolTip(record.error);
    m_error->setVisible(!record.error.isEmpty());
    // Rewrite the log only when it changed size; appendLog keeps it current meanwhile.
    if (m_logLines != m_record.log.size() || m_record.log.isEmpty()) {
        QStringList lines;
        lines.reserve(m_record.log.size());
        for (const LogLine &line : std::as_const(m_record.log))
            lines << logText(line);
        m_log->setPlainText(lines.join(QLatin1Char('\n')));
        m_logLines = int(m_record.log.size());
    }
}

void IterationDetails::appendLog(const LogLine &line) {
    m_log->appendPlainText(logText(line));
    m_record.log.append(line); // so a change of time zone can write it again
    ++m_logLines;
}

} // namespace tidemark
