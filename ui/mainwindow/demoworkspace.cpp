// SPDX-License-Identifier: MIT
#include "ui/mainwindow/demoworkspace.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>

namespace tidemark {

DemoWorkspace::DemoWorkspace(QObject *parent)
    : QObject(parent) {
    const QDir programDir(QCoreApplication::applicationDirPath());
    for (const QString &root : {QStringLiteral("../.."), QStringLiteral("..")}) {
        const QString script =
            QDir::cleanPath(programDir.filePath(root + QStringLiteral("/scripts/make-demo.sh")));
        if (QFileInfo::exists(script)) {
            m_script = script;
            m_demoDir = QDir::cleanPath(QFileInfo(script).path() + QStringLiteral("/../demo"));
            break;
        }
    }
    // Beside this program (build/app, an install), or beside the shipped one (build/bench's).
    m_cli = programDir.filePath(QStringLiteral("tidemark-cli"));
    if (const QString sibling = QDir::cleanPath(programDir.filePath(QStringLiteral("../app/tidemark-cli")));
        !QFileInfo::exists(m_cli) && QFileInfo::exists(sibling))
        m_cli = sibling;
}

QString DemoWorkspace::unavailableReason() const {
    return tr("The demo is made by scripts/make-demo.sh of a Tidemark source checkout; none was found "
              "beside %1.")
        .arg(QDir::toNativeSeparators(QCoreApplication::applicationDirPath()));
}

QString DemoWorkspace::workspacePath() const {
    return m_demoDir.isEmpty() ? QString() : m_demoDir + QStringLiteral("/demo.tidemark");
}

bool DemoWorkspace::isMade() const {
    return !m_demoDir.isEmpty() && QFileInfo::exists(m_demoDir + QStringLiteral("/.complete")) &&
           QFileInfo::exists(workspacePath());
}

void DemoWorkspace::make() {
    if (m_process || !isAvailable())
        return;
    m_process = new QProcess(this);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("TIDEMARK_CLI"), m_cli);
    environment.insert(QStringLiteral("DEMO_DIR"), m_demoDir);
    m_process->setProcessEnvironment(environment);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        const QString output = QString::fromLocal8Bit(m_process->readAll()).trimmed();
        m_process->deleteLater();
        m_process = nullptr;
        if (status == QProcess::NormalExit && exitCode == 0 && isMade())
            emit made(workspacePath());
        else
            emit failed(
                tr("%1 failed (exit code %2): %3").arg(m_script).arg(exitCode).arg(output.right(600)));
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        m_process->deleteLater();
        m_process = nullptr;
        emit failed(tr("bash could not be started to run %1.").arg(m_script));
    });
    m_process->start(QStringLiteral("bash"), {m_script});
}

} // namespace tidemark
