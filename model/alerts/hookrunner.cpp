// SPDX-License-Identifier: MIT
#include "model/alerts/hookrunner.h"

#include <QProcess>
#include <QTimer>

#include <signal.h>
#include <unistd.h>

namespace tidemark {
namespace {

constexpr qsizetype kOutputKept = 400;

} // namespace

QProcessEnvironment hookEnvironment(const QProcessEnvironment &inherited, const QStringList &requested,
                                    const QStringList &withheld) {
    QProcessEnvironment environment;
    for (const QString &name : inherited.keys()) {
        const bool basic = name == QLatin1String("PATH") || name == QLatin1String("HOME") ||
                           name == QLatin1String("LANG") || name == QLatin1String("TZ") ||
                           name.startsWith(QLatin1String("LC_"));
        if ((basic || requested.contains(name)) && !withheld.contains(name))
            environment.insert(name, inherited.value(name));
    }
    return environment;
}

HookRunner::HookRunner(const QString &command, int timeoutMs, QObject *parent)
    : QObject(parent)
    , m_command(command)
    , m_timeoutMs(timeoutMs)
    , m_process(new QProcess(this))
    , m_timer(new QTimer(this)) {
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    // A group of its own: the time limit then reaches the command's children too (a shell
    // running `curl …; sleep …`), which would otherwise outlive the kill of /bin/sh.
    m_process->setChildProcessModifier([] { ::setsid(); });
    m_timer->setSingleShot(true);

    connect(m_timer, &QTimer::timeout, this, [this] {
        m_timedOut = true;
        killGroup();
    });
    connect(m_process, &QProcess::started, this, [this] { m_pid = m_process->processId(); });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            finish(false, QStringLiteral("could not start: %1").arg(m_process->errorString()));
    });
    connect(m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        const qint64 ms = m_elapsed.elapsed();
        if (m_timedOut)
            finish(false, QStringLiteral("killed after its %1 ms time limit").arg(m_timeoutMs));
        else if (status == QProcess::CrashExit)
            finish(false, QStringLiteral("killed by a signal after %1 ms").arg(ms));
        else
            finish(exitCode == 0, QStringLiteral("exit code %1 in %2 ms").arg(exitCode).arg(ms));
    });
}

void HookRunner::start(const QString &subject, const QByteArray &stdinBytes,
                       const QProcessEnvironment &environment) {
    m_delivery.channel = QStringLiteral("hook");
    m_delivery.subject = subject;
    m_process->setProcessEnvironment(environment);
    m_elapsed.start();
    m_process->start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), m_command});
    if (m_done)
        return;
    // A hook that never reads stdin must not block us: QProcess writes from its buffer as the
    // pipe drains, and a closed pipe is an error on the write, not a SIGPIPE.
    m_process->write(stdinBytes);
    m_process->closeWriteChannel();
    m_timer->start(m_timeoutMs);
}

void HookRunner::killGroup() {
    // The shell leads the group (setsid), so its pid names the group.
    if (m_pid > 0)
        ::kill(-pid_t(m_pid), SIGKILL);
}

void HookRunner::finish(bool ok, const QString &detail) {
    if (m_done)
        return;
    m_done = true;
    m_timer->stop();
    QString output = QString::fromLocal8Bit(m_process->readAll()).simplified();
    if (output.size() > kOutputKept)
        output = output.left(kOutputKept) + QStringLiteral("…");
    m_output = output;
    m_delivery.ok = ok;
    m_delivery.detail = detail;
    m_delivery.elapsedMs = m_elapsed.isValid() ? m_elapsed.elapsed() : 0;
    emit finished(m_delivery);
}

} // namespace tidemark
