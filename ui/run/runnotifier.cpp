// SPDX-License-Identifier: MIT
#include "ui/run/runnotifier.h"

#include <QGuiApplication>
#include <QSystemTrayIcon>

#include <algorithm>

namespace tidemark {

namespace {

// A cancelled table is reported as cancelled, not failed (isFailure counts it).
bool failedOrInterrupted(IterationStatus status) {
    return status == IterationStatus::Failed || status == IterationStatus::Interrupted;
}

// The first few names, then how many more: a cancelled run of 10,000 tables is one line in
// the status bar and the tray, not 150,000 characters to lay out.
QString nameList(const QStringList &names) {
    constexpr int kShown = 10;
    const QString shown = names.mid(0, kShown).join(QStringLiteral(", "));
    if (names.size() <= kShown)
        return shown;
    return RunNotifier::tr("%1 and %n more", nullptr, int(names.size() - kShown)).arg(shown);
}

} // namespace

RunNotifier::RunNotifier(QObject *parent)
    : QObject(parent) {}

std::pair<QString, QString> RunNotifier::describe(const RunRecord &run) {
    // Each table under what happened to it: a cancelled run is not a failed one, and a paused
    // table that was passed over is skipped, not cancelled.
    QStringList failed;
    QStringList cancelled;
    QStringList warned;
    QStringList skipped;
    for (const IterationRecord &it : run.iterations) {
        if (failedOrInterrupted(it.status))
            failed << it.source;
        else if (it.status == IterationStatus::Cancelled)
            cancelled << it.source;
        else if (it.status == IterationStatus::Warning)
            warned << it.source;
        else if (it.status == IterationStatus::Skipped)
            skipped << it.source;
    }
    // A run whose process died (closed by whoever opened the workspace next) says so.
    const bool interrupted = run.status == iterationStatusName(IterationStatus::Interrupted);
    if (failed.isEmpty() && cancelled.isEmpty() && warned.isEmpty() && !interrupted)
        return {};
    const QString title = interrupted            ? tr("Tidemark run %1 interrupted").arg(run.id)
                          : !failed.isEmpty()    ? tr("Tidemark run %1 failed").arg(run.id)
                          : !cancelled.isEmpty() ? tr("Tidemark run %1 cancelled").arg(run.id)
                                                 : tr("Tidemark run %1: warnings").arg(run.id);
    QStringList lines;
    if (!failed.isEmpty())
        lines << tr("Failed: %1").arg(nameList(failed));
    if (!cancelled.isEmpty())
        lines << tr("Cancelled: %1").arg(nameList(cancelled));
    if (!warned.isEmpty())
        lines << tr("Warning: %1").arg(nameList(warned));
    if (!skipped.isEmpty())
        lines << tr("Skipped: %1").arg(nameList(skipped));
    return {title, lines.join(QLatin1Char('\n'))};
}

void RunNotifier::runFinished(const RunRecord &run) {
    const auto [title, message] = describe(run);
    if (title.isEmpty())
        return;
    if (QSystemTrayIcon::isSystemTrayAvailable() && QSystemTrayIcon::supportsMessages()) {
        if (!m_tray) {
            m_tray = new QSystemTrayIcon(QGuiApplication::windowIcon(), this);
            m_tray->setToolTip(QStringLiteral("Tidemark"));
        }
        if (!m_tray->isVisible())
            m_tray->show();
        const bool warningOnly = run.status == iterationStatusName(IterationStatus::Warning);
        const bool failure =
            std::any_of(run.iterations.cbegin(), run.iterations.cend(),
                        [](const IterationRecord &it) { return failedOrInterrupted(it.status); });
        const QSystemTrayIcon::MessageIcon icon =
            failure || run.status == iterationStatusName(IterationStatus::Interrupted)
                ? QSystemTrayIcon::Critical
            : warningOnly ? QSystemTrayIcon::Warning
                          : QSystemTrayIcon::Information;
        m_tray->showMessage(title, message, icon, 10000);
    }
    emit notified(title, message);
}

} // namespace tidemark
