// SPDX-License-Identifier: MIT
#pragma once

#include "model/alerts/alertdelivery.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcessEnvironment>

class QProcess;
class QTimer;

namespace tidemark {

// The environment a hook starts from: PATH, HOME, LANG, LC_* and TZ of `inherited` (what a shell
// command needs to find programs and to print text and times as its operator reads them), and
// the variables `requested` names (AlertSettings::hookEnv) that `inherited` has, except those in
// `withheld`. Nothing else: Tidemark's environment holds database passwords (--password-env),
// webhook tokens and whatever its service unit was given, none of it the hook's business. The
// caller adds the TIDEMARK_* variables of the hook contract.
QProcessEnvironment hookEnvironment(const QProcessEnvironment &inherited, const QStringList &requested,
                                    const QStringList &withheld);

// Runs one alert hook: `/bin/sh -c COMMAND` with the run's JSON on stdin, in a process group of
// its own so that the time limit kills whatever the command started, not just the shell. Its
// output is captured (it must not mix into the CLI's stdout) and kept for the log. Asynchronous:
// lives on a thread with an event loop; emits finished() exactly once.
class HookRunner : public QObject {
    Q_OBJECT
public:
    HookRunner(const QString &command, int timeoutMs, QObject *parent = nullptr);

    void start(const QString &subject, const QByteArray &stdinBytes, const QProcessEnvironment &environment);
    // What the hook printed (stdout and stderr merged), trimmed to a few hundred characters.
    QString output() const { return m_output; }

signals:
    void finished(const tidemark::AlertDelivery &delivery);

private:
    void finish(bool ok, const QString &detail);
    void killGroup();

    QString m_command;
    int m_timeoutMs;
    QProcess *m_process;
    QTimer *m_timer;
    QElapsedTimer m_elapsed;
    AlertDelivery m_delivery;
    QString m_output;
    qint64 m_pid = 0;
    bool m_timedOut = false;
    bool m_done = false;
};

} // namespace tidemark
