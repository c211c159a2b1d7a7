// SPDX-License-Identifier: MIT
#include "ui/run/runnotifier.h"

#include <QGuiApplication>
#include <QSystemTrayIcon>

namespace tidemark {

RunNotifier::RunNotifier(QObject *parent)
    : QObject(parent) {}

std::pair<QString, QString> RunNotifier::describe(const RunRecord &run) {
    QStringList failed;
    QStringList warned;
    for (const IterationRecord &it : run.iterations) {
        if (isFailure(it.status))
            failed << it.source;
        else if (it.status == IterationStatus::Warning)
            warned << it.source;
    }
    // A run whose process died (closed by whoever opened the workspace next) says so.
    const bool interrupted = run.status == iterationStatusName(IterationStatus::Interrupted);
    if (failed.isEmpty() && warned.isEmpty() && !interrupted)
        return {};
    QString title = interrupted        ? tr("Tidemark run %1 interrupted").arg(run.id)
                    : failed.isEmpty() ? tr("Tidemark run %1: warnings").arg(run.id)
                                       : tr("Tidemark run %1 failed").arg(run.id);
    QStringList lines;
    if (!failed.isEmpty())
        lines << tr("Failed: %1").arg(failed.join(QStringLiteral(", ")));
    if (!warned.isEmpty())
        lines << tr("Warning: %1").arg(warned.join(QStringLiteral(", ")));
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
        m_tray->show();
        const bool warningOnly = run.status == iterationStatusName(IterationStatus::Warning);
        m_tray->showMessage(title, message,
                            warningOnly ? QSystemTrayIcon::Warning : QSystemTrayIcon::Critical, 10000);
    }
    emit notified(title, message);
}

} // namespace tidemark
