// SPDX-License-Identifier: MIT
#include "model/schedule/runnerservicesetup.h"

#include "model/common/logging.h"
#include "model/schedule/userunittemplate.h"
#include "model/storage/workspacelocation.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

namespace tidemark {

namespace {

const QString kUnitTemplateName = QStringLiteral("tidemark-runner@.service");

QString shellQuote(const QString &word) {
    static const QRegularExpression plain(QStringLiteral(R"(^[A-Za-z0-9_@%+=:,./-]+$)"));
    if (plain.match(word).hasMatch())
        return word;
    return QLatin1Char('\'') + QString(word).replace(QLatin1Char('\''), QStringLiteral("'\\''")) +
           QLatin1Char('\'');
}

QString shellLine(const QString &program, const QStringList &arguments) {
    QStringList words{program};
    for (const QString &argument : arguments)
        words << shellQuote(argument);
    return words.join(QLatin1Char(' '));
}

auto setupLog() {
    return logger("core.schedule");
}

} // namespace

RunnerServiceSetup::RunnerServiceSetup(const QString &workspacePath, const QString &cliPath, QObject *parent)
    : QObject(parent)
    , m_workspacePath(WorkspaceLocation::isServer(workspacePath)
                          ? workspacePath
                          : QFileInfo(workspacePath).absoluteFilePath())
    , m_server(WorkspaceLocation::isServer(workspacePath))
    , m_cliPath(cliPath)
    , m_packagedUnitDirs({QStringLiteral("/usr/lib/systemd/user"),
                          QStringLiteral("/usr/local/lib/systemd/user"),
                          QStringLiteral("/lib/systemd/user")}) {
    qRegisterMetaType<tidemark::RunnerSetupResult>();
}

RunnerServiceSetup::~RunnerServiceSetup() {
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

QString RunnerServiceSetup::escapePath(const QString &path) {
    // systemd's unit_name_path_escape: simplify, drop the outer slashes, then escapeName().
    QString simplified = QDir::cleanPath(path);
    while (simplified.startsWith(QLatin1Char('/')))
        simplified.remove(0, 1);
    while (simplified.endsWith(QLatin1Char('/')))
        simplified.chop(1);
    if (simplified.isEmpty())
        return QStringLiteral("-");
    return escapeName(simplified);
}

QString RunnerServiceSetup::escapeName(const QString &name) {
    // systemd's unit_name_escape: '/' becomes '-', every byte outside [A-Za-z0-9:_.] (and a
    // leading '.') becomes \xNN.
    const QByteArray bytes = name.toUtf8();
    QString escaped;
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const char c = bytes.at(i);
        const bool valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                           c == ':' || c == '_' || (c == '.' && i > 0);
        if (c == '/')
            escaped += QLatin1Char('-');
        else if (valid)
            escaped += QLatin1Char(c);
        else
            escaped += QStringLiteral("\\x%1").arg(uint(uchar(c)), 2, 16, QLatin1Char('0'));
    }
    return escaped;
}

QString RunnerServiceSetup::templateName() const {
    return m_server ? QStringLiteral("tidemark-runner-server@.service") : kUnitTemplateName;
}

QString RunnerServiceSetup::unitName() const {
    return m_server ? QStringLiteral("tidemark-runner-server@%1.service").arg(escapeName(m_workspacePath))
                    : QStringLiteral("tidemark-runner@%1.service").arg(escapePath(m_workspacePath));
}

QString RunnerServiceSetup::userUnitPath() const {
    QString config = qEnvironmentVariable("XDG_CONFIG_HOME");
    if (config.isEmpty())
        config = QDir::homePath() + QStringLiteral("/.config");
    return config + QStringLiteral("/systemd/user/") + templateName();
}

QString RunnerServiceSetup::userUnitText() const {
    QString text = QString::fromUtf8(m_server ? kUserServerUnitTemplate : kUserUnitTemplate);
    // systemd splits ExecStart at spaces unless the word is quoted.
    const QString program =
        m_cliPath.contains(QLatin1Char(' ')) ? QLatin1Char('"') + m_cliPath + QLatin1Char('"') : m_cliPath;
    text.replace(QStringLiteral("@TIDEMARK_BINDIR@/tidemark-cli"), program);
    return text;
}

QStringList RunnerServiceSetup::manualCommands() const {
    return {
        (m_server
             ? QStringLiteral("systemctl --user enable --now \"tidemark-runner-server@$(systemd-escape %1)."
                              "service\"")
             : QStringLiteral("systemctl --user enable --now \"tidemark-runner@$(systemd-escape --path %1)."
                              "service\""))
            .arg(shellQuote(m_workspacePath)),
        QStringLiteral("loginctl enable-linger \"$USER\"")};
}

QStringList RunnerServiceSetup::plan() const {
    if (QStandardPaths::findExecutable(QStringLiteral("systemctl")).isEmpty())
        return {};
    QStringList steps;
    if (writesUnitFile()) {
        steps << tr("Write %1, with ExecStart=%2 --workspace %3 serve")
                     .arg(userUnitPath(), m_cliPath, instanceSpecifier())
              << QStringLiteral("$ systemctl --user daemon-reload");
    }
    steps << QStringLiteral("$ ") +
                 shellLine(QStringLiteral("systemctl"), {QStringLiteral("--user"), QStringLiteral("enable"),
                                                         QStringLiteral("--now"), unitName()});
    return steps;
}

bool RunnerServiceSetup::packagedUnitInstalled() const {
    for (const QString &dir : m_packagedUnitDirs)
        if (QFileInfo::exists(dir + QLatin1Char('/') + templateName()))
            return true;
    return false;
}

void RunnerServiceSetup::append(const QString &text) {
    m_transcript += text;
    if (!text.endsWith(QLatin1Char('\n')))
        m_transcript += QLatin1Char('\n');
    emit progress(text);
}

void RunnerServiceSetup::start() {
    m_systemctl = QStandardPaths::findExecutable(QStringLiteral("systemctl"));
    if (m_systemctl.isEmpty())
        return finish(RunnerSetupResult::Outcome::NoSystemd,
                      tr("There is no systemctl on this machine, so systemd cannot keep a runner going."));

    const QStringList enable{QStringLiteral("--user"), QStringLiteral("enable"), QStringLiteral("--now"),
                             unitName()};
    const auto enableThenFinish = [this, enable] {
        m_enableTried = true;
        runSystemctl(enable, [this] { finish(RunnerSetupResult::Outcome::Enabled); });
    };
    if (packagedUnitInstalled())
        return enableThenFinish();
    // The unit file is this program's to write: rewritten, so ExecStart follows the binary.
    const QString path = userUnitPath();
    QDir().mkpath(QFileInfo(path).path());
    if (QFile before(path); before.open(QIODevice::ReadOnly))
        m_unitBefore = before.readAll();
    m_wroteUnit = true;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(userUnitText().toUtf8()) < 0 || !file.commit())
        return finish(RunnerSetupResult::Outcome::Failed,
                      tr("Cannot write %1: %2").arg(path, file.errorString()));
    append(tr("Wrote %1 (ExecStart: %2 --workspace %3 serve)").arg(path, m_cliPath, instanceSpecifier()));
    runSystemctl({QStringLiteral("--user"), QStringLiteral("daemon-reload")}, enableThenFinish);
}

void RunnerServiceSetup::runSystemctl(const QStringList &arguments, std::function<void()> next,
                                      bool mustSucceed) {
    append(QStringLiteral("$ ") + shellLine(QStringLiteral("systemctl"), arguments));
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_process, &QProcess::finished, this,
            [this, next, mustSucceed](int exitCode, QProcess::ExitStatus status) {
                const QString output = QString::fromLocal8Bit(m_process->readAll()).trimmed();
                m_process->deleteLater();
                m_process = nullptr;
                if (!output.isEmpty())
                    append(output);
                if (mustSucceed && (status != QProcess::NormalExit || exitCode != 0))
                    return finish(RunnerSetupResult::Outcome::Failed,
                                  tr("systemctl --user failed (exit code %1).").arg(exitCode));
                next();
            });
    connect(m_process, &QProcess::errorOccurred, this,
            [this, next, mustSucceed](QProcess::ProcessError error) {
                if (error != QProcess::FailedToStart)
                    return;
                m_process->deleteLater();
                m_process = nullptr;
                if (!mustSucceed)
                    return next();
                finish(RunnerSetupResult::Outcome::Failed, tr("systemctl could not be started."));
            });
    m_process->start(m_systemctl, arguments);
}

void RunnerServiceSetup::restoreUnitFile() {
    if (!m_wroteUnit)
        return;
    const QString path = userUnitPath();
    if (!m_unitBefore) {
        if (QFile::remove(path))
            append(tr("Removed %1 again.").arg(path));
        return;
    }
    QSaveFile file(path);
    if (file.open(QIODevice::WriteOnly) && file.write(*m_unitBefore) >= 0 && file.commit())
        append(tr("Put %1 back as it was.").arg(path));
}

void RunnerServiceSetup::finish(RunnerSetupResult::Outcome outcome, const QString &why) {
    if (m_done)
        return;
    m_done = true;
    if (!why.isEmpty())
        append(why);
    if (outcome != RunnerSetupResult::Outcome::Failed)
        return report(outcome);
    // Nothing left behind: the unit file as it was, and an enable that went half-way undone (best
    // effort: a user manager that refused the enable may refuse this too).
    restoreUnitFile();
    if (!m_enableTried)
        return report(outcome);
    runSystemctl(
        {QStringLiteral("--user"), QStringLiteral("disable"), unitName()},
        [this, outcome] { report(outcome); }, false);
}

void RunnerServiceSetup::report(RunnerSetupResult::Outcome outcome) {
    RunnerSetupResult result;
    result.outcome = outcome;
    if (outcome == RunnerSetupResult::Outcome::Enabled) {
        append(tr("The runner is enabled: it starts now and with your session."));
        result.howTo = tr("To keep it running while you are logged out: %1").arg(manualCommands().at(1));
    } else {
        result.howTo =
            tr("Run these two commands where systemd --user is available (a login session "
               "on this machine):\n  %1\n  %2\nWithout systemd, keep \"%3 --workspace %4 serve\" "
               "running some other way (e.g. an @reboot crontab line).")
                .arg(manualCommands().at(0), manualCommands().at(1), m_cliPath, shellQuote(m_workspacePath));
    }
    result.transcript = m_transcript;
    setupLog()->info("runner setup for {}: {}", str(m_workspacePath), str(m_transcript.trimmed()));
    emit finished(result);
}

} // namespace tidemark
