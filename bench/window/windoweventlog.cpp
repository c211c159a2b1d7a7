// SPDX-License-Identifier: MIT
#include "bench/window/windoweventlog.h"

#include "bench/window/latenessprobe.h"
#include "model/engine/runcoordinator.h"
#include "model/models/runhistorymodel.h"
#include "ui/common/workspacegateway.h"
#include "ui/history/historypanel.h"
#include "ui/mainwindow/mainwindow.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QEvent>
#include <QFile>

namespace tidemark {

WindowEventLog::WindowEventLog(MainWindow *window, const QString &path)
    : QObject(window) {
    auto *file = new QFile(path, this);
    if (!file->open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered))
        return;
    const auto note = [file](const QString &what) {
        file->write(QStringLiteral("%1 %2\n")
                        .arg(double(QDateTime::currentMSecsSinceEpoch()) / 1000.0, 0, 'f', 3)
                        .arg(what)
                        .toUtf8());
    };
    startLatenessProbe(this, note);
    m_note = note;
    m_sinceEvent.start();
    qApp->installEventFilter(this);
    // Quitting, in three marks: the close event taken, the event loop left, the window (and the
    // workspace connections it owns) gone.
    m_noteClose = [note] {
        note(QStringLiteral("close"));
    };
    connect(qApp, &QCoreApplication::aboutToQuit, this, [note] { note(QStringLiteral("left-loop")); });
    connect(this, &QObject::destroyed, [note] { note(QStringLiteral("closed")); });
    connect(window, &MainWindow::workspaceOpened, this, [window, note] {
        WorkspaceGateway *gateway = window->gateway();
        // Noted once the window has taken the reply in (its own slots run first). Only the count
        // is queued: a queued copy of the list could be its last holder, freed on this thread.
        QObject::connect(gateway, &WorkspaceGateway::tablesLoaded, window,
                         [note, window](const TablesRead &read) {
                             const qsizetype count = read.tables.size();
                             QMetaObject::invokeMethod(
                                 window, [note, count] { note(QStringLiteral("tables %1").arg(count)); },
                                 Qt::QueuedConnection);
                         });
        RunHistoryModel *history = window->historyPanel()->model();
        QObject::connect(
            history, &RunHistoryModel::pageArrived, window,
            [note, history] { note(QStringLiteral("history %1").arg(history->rowCount())); },
            Qt::QueuedConnection);
        QObject::connect(gateway, &WorkspaceGateway::runsLoaded, window,
                         [note](const QList<RunRecord> &runs) {
                             for (const RunRecord &run : runs)
                                 note(QStringLiteral("followed %1 %2").arg(run.id).arg(run.status));
                         });
        QObject::connect(window->coordinator(), &RunCoordinator::runStarted, window,
                         [note](qint64 runId, const QList<IterationRecord> &iterations) {
                             note(QStringLiteral("run-started %1 %2").arg(runId).arg(iterations.size()));
                         });
        QObject::connect(window->coordinator(), &RunCoordinator::runFinished, window,
                         [note](const RunRecord &run) {
                             note(QStringLiteral("run-finished %1 %2").arg(run.id).arg(run.status));
                         });
    });
}

bool WindowEventLog::eventFilter(QObject *watched, QEvent *event) {
    if (event->type() == QEvent::Close && watched == parent() && m_noteClose)
        m_noteClose();
    // An application's filter sees the GUI thread's events only.
    if (const qint64 gap = m_sinceEvent.restart(); gap > 20)
        m_note(QStringLiteral("busy %1 after %2 to %3 %4")
                   .arg(gap)
                   .arg(m_lastType)
                   .arg(QString::fromLatin1(m_lastClass), m_lastName));
    m_lastType = int(event->type());
    m_lastClass = watched->metaObject()->className();
    m_lastName = watched->objectName();
    return QObject::eventFilter(watched, event);
}

} // namespace tidemark
