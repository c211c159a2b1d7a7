// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>
#include <functional>
#include <optional>

class QProcess;

namespace tidemark {

// What "Set up runner…" did.
struct RunnerSetupResult {
    enum class Outcome {
        Enabled,   // the unit is enabled and started
        Failed,    // systemctl refused (no user manager, a bad unit, ...): see the transcript
        NoSystemd, // no systemctl on this machine: nothing was run
    };
    Outcome outcome = Outcome::Failed;
    QString transcript; // each command as a shell line, then what it printed
    QString howTo;      // on failure: what to run by hand, and where
};

// Makes `tidemark-cli serve` on one workspace a systemd user service (docs/design.md, "Schedules and
// the runner"; packaging/systemd/user): the instance is the workspace path as `systemd-escape
// --path` spells it. When no packaged unit is installed (the window runs from a build or a
// tarball), the unit is first written into the user's unit folder ($XDG_CONFIG_HOME, else
// ~/.config, /systemd/user/) from the packaged template with ExecStart naming `cliPath`, and
// the user manager is reloaded. Then `systemctl --user enable --now tidemark-runner@….service`.
// plan() says all of that before start() does it. A setup that fails leaves nothing behind: the
// unit file it wrote is put back as it was (removed when there was none), and an enable that
// failed half-way is undone with `systemctl --user disable`.
// Processes are started asynchronously (QProcess, found through PATH); finished() comes once.
// Lives on a thread with an event loop (the GUI thread).
class RunnerServiceSetup : public QObject {
    Q_OBJECT
public:
    RunnerServiceSetup(const QString &workspacePath, const QString &cliPath, QObject *parent = nullptr);
    ~RunnerServiceSetup() override;

    // systemd-escape --path: "/srv/a b/shop-1.tidemark" -> "srv-a\x20b-shop\x2d1.tidemark".
    static QString escapePath(const QString &path);
    // systemd-escape (a server workspace's URI): "postgresql://a@db/w" -> "postgresql:--a\x40db-w".
    static QString escapeName(const QString &name);
    // tidemark-runner@<escaped workspace path>.service, or for a server workspace
    // tidemark-runner-server@<escaped URI>.service (its instance is no path: %I, not %f)
    QString unitName() const;
    // Where a unit installed by the package is looked for (tests point it elsewhere).
    void setPackagedUnitDirs(const QStringList &dirs) { m_packagedUnitDirs = dirs; }
    // The unit file this setup writes when no packaged one is there.
    QString userUnitPath() const;
    // The template with its placeholder filled in: ExecStart runs `cliPath`.
    QString userUnitText() const;
    // The commands that enable the runner by hand, one shell line each.
    QStringList manualCommands() const;
    // What start() will do, one line each: the file it writes, then each command as a shell line.
    // Empty when there is no systemctl (start() then only says how to do it by hand).
    QStringList plan() const;
    // start() writes userUnitPath() (no packaged unit is installed).
    bool writesUnitFile() const { return !packagedUnitInstalled(); }

    void start();

signals:
    // A line of the transcript as it happens (the command, then its output).
    void progress(const QString &text);
    void finished(const tidemark::RunnerSetupResult &result);

private:
    // `next` after systemctl succeeded; a failure finishes the setup as failed, unless it need not
    // succeed (then `next` either way).
    void runSystemctl(const QStringList &arguments, std::function<void()> next, bool mustSucceed = true);
    void finish(RunnerSetupResult::Outcome outcome, const QString &why = {});
    void restoreUnitFile(); // after a failure: the unit file as it was before start()
    void report(RunnerSetupResult::Outcome outcome);
    void append(const QString &text);
    bool packagedUnitInstalled() const;

    QString templateName() const;
    QString instanceSpecifier() const { return m_server ? QStringLiteral("%I") : QStringLiteral("%f"); }

    QString m_workspacePath;
    bool m_server;
    QString m_cliPath;
    QStringList m_packagedUnitDirs;
    QString m_systemctl;
    QString m_transcript;
    QProcess *m_process = nullptr;
    bool m_done = false;
    bool m_wroteUnit = false;
    std::optional<QByteArray> m_unitBefore; // the unit file's text before it was written; none: absent
    bool m_enableTried = false;
};

} // namespace tidemark

Q_DECLARE_METATYPE(tidemark::RunnerSetupResult)
