// SPDX-License-Identifier: MIT
// The window's view of unattended runs: the control table's "Next run" column, the runner's
// state in the status bar and "Set up runner…", and the alerts of the window's own runs.
#include "model/alerts/alertdispatcher.h"
#include "model/engine/runcoordinator.h"
#include "model/models/displayformat.h"
#include "model/models/nextruncolumn.h"
#include "model/models/schedulelistmodel.h"
#include "model/schedule/firetimes.h"
#include "model/schedule/runnerservicesetup.h"
#include "model/sqlite/sqlitedb.h"
#include "tests/ui/uifixture.h"
#include "ui/run/runalerts.h"
#include "ui/schedules/runnersetupdialog.h"
#include "ui/schedules/runnerstatuswidget.h"
#include "ui/schedules/schedulespanel.h"

#include <QAction>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSysInfo>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

using namespace tidemark;
using namespace tidemark::test;

namespace {

QString cell(const ControlTableModel *model, qint64 tableId, int role = Qt::DisplayRole) {
    return model->index(model->rowOfId(tableId), ControlTableModel::NextRun).data(role).toString();
}

QString expectedNext(const QString &cron, const QString &zone) {
    ScheduleSpec spec;
    spec.name = QStringLiteral("expected");
    spec.cron = cron;
    spec.timeZone = zone;
    return formatTimeWithZone(CronFireTimes().nextAfter(spec, QDateTime::currentDateTimeUtc()));
}

QString readFile(const QString &path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// A script standing in for systemctl: records its arguments, one call a line, prints `output`
// and exits with `exitCode`.
void writeFakeSystemctl(const QString &dir, const QString &log, int exitCode, const QString &output) {
    const QString path = dir + QStringLiteral("/systemctl");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QStringLiteral("#!/bin/sh\necho \"$*\" >> '%1'\necho '%2'\nexit %3\n")
                   .arg(log, output)
                   .arg(exitCode)
                   .toUtf8());
    file.close();
    QVERIFY(file.setPermissions(file.permissions() | QFileDevice::ExeOwner));
}

// Sets an environment variable for one test; puts the old value back after it.
class ScopedEnv {
public:
    ScopedEnv(const char *name, const QByteArray &value)
        : m_name(name)
        , m_had(qEnvironmentVariableIsSet(name))
        , m_old(qgetenv(name)) {
        qputenv(name, value);
    }
    ~ScopedEnv() {
        if (m_had)
            qputenv(m_name, m_old);
        else
            qunsetenv(m_name);
    }

private:
    const char *m_name;
    bool m_had;
    QByteArray m_old;
};

// Counts the Show and Hide events of the widgets it watches.
class ShowHideCounter : public QObject {
public:
    int count = 0;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override {
        if (event->type() == QEvent::Show || event->type() == QEvent::Hide)
            ++count;
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

class TestWindowSchedules : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    // Each table shows its earliest next run among the active schedules that run it; "—" when
    // none does. Schedules added, paused or removed anywhere (the CLI here) move it.
    void nextRunColumnFollowsTheSchedules() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        makeOrders(fixture.src, 5, 1, QStringLiteral("customers"));
        const qint64 orders =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        const qint64 customers =
            fixture.addTable(UiFixture::draft(QStringLiteral("customers"), QStringLiteral("updated_at")));
        MainWindow window;
        openInWindow(fixture, window, 2);
        const ControlTableModel *model = window.controlTable()->model();
        QCOMPARE(model->headerData(ControlTableModel::NextRun, Qt::Horizontal).toString(),
                 QStringLiteral("Next run"));
        QCOMPARE(cell(model, orders), QStringLiteral("—"));
        QVERIFY(!window.controlTable()->nextRunColumn()->timer().isActive());

        // A schedule of one table, added by another process.
        CliResult added = runCli({QStringLiteral("-w"), fixture.wsPath, QStringLiteral("schedule"),
                                  QStringLiteral("add"), QStringLiteral("newyear"), QStringLiteral("--cron"),
                                  QStringLiteral("0 0 1 1 *"), QStringLiteral("--tz"), QStringLiteral("UTC"),
                                  QStringLiteral("--table"), QString::number(orders)});
        QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
        const QString newYear = expectedNext(QStringLiteral("0 0 1 1 *"), QStringLiteral("UTC"));
        QTRY_COMPARE_WITH_TIMEOUT(cell(model, orders), newYear, 20000);
        QCOMPARE(cell(model, customers), QStringLiteral("—"));
        QVERIFY(cell(model, orders, Qt::ToolTipRole).contains(QStringLiteral("newyear")));
        QVERIFY(window.controlTable()->nextRunColumn()->timer().isActive());

        // A schedule of every active table, firing sooner: the earliest wins, and names itself.
        added =
            runCli({QStringLiteral("-w"), fixture.wsPath, QStringLiteral("schedule"), QStringLiteral("add"),
                    QStringLiteral("nightly"), QStringLiteral("--cron"), QStringLiteral("30 2 * * *"),
                    QStringLiteral("--tz"), QStringLiteral("Europe/Paris")});
        QVERIFY2(added.exitCode == 0, qPrintable(added.describe()));
        const QString nightly = expectedNext(QStringLiteral("30 2 * * *"), QStringLiteral("Europe/Paris"));
        QTRY_COMPARE_WITH_TIMEOUT(cell(model, customers), nightly, 20000);
        QCOMPARE(cell(model, orders), nightly);
        QVERIFY(cell(model, orders, Qt::ToolTipRole).contains(QStringLiteral("nightly")));

        // A paused table is run by no schedule.
        fixture.open()->setActive(customers, false);
        QTRY_COMPARE_WITH_TIMEOUT(cell(model, customers), QStringLiteral("—"), 20000);
        QVERIFY(cell(model, customers, Qt::ToolTipRole).contains(QStringLiteral("Paused")));

        // Pausing a schedule from the dock: the table falls back to the other one.
        SchedulesPanel *panel = window.schedulesPanel();
        panel->view()->selectRow(panel->model()->rowOfSchedule(QStringLiteral("nightly")));
        panel->findChild<QAction *>(QStringLiteral("actionPauseSchedule"))->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(cell(model, orders), newYear, 20000);
    }

    // Time passing moves the column on by itself (its timer), with nothing read again.
    void nextRunMovesOnAsTimePasses() {
        UiFixture fixture;
        makeOrders(fixture.src, 5);
        const qint64 orders =
            fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        ScheduleSpec everySecond;
        everySecond.name = QStringLiteral("fast");
        everySecond.cron = QStringLiteral("* * * * * *");
        everySecond.timeZone = QStringLiteral("UTC");
        fixture.open()->addSchedule(everySecond);
        MainWindow window;
        openInWindow(fixture, window, 1);
        const ControlTableModel *model = window.controlTable()->model();
        QTRY_VERIFY_WITH_TIMEOUT(cell(model, orders) != QStringLiteral("—"), 20000);
        const QString first = cell(model, orders);
        QSignalSpy reloaded(panelOf(window), &SchedulesPanel::reloaded);
        QTRY_VERIFY_WITH_TIMEOUT(cell(model, orders) != first, 20000);
        QCOMPARE(reloaded.size(), 0); // the schedules were not read again
        QVERIFY(window.controlTable()->nextRunColumn()->timer().remainingTime() <= 1001);
    }

    // The runner's word changes with no widget shown or hidden: in a window under the mouse that
    // would wait on the X server for where the pointer is (up to 75 ms while the window opens).
    void runnerStatusShowsAndHidesNoWidget() {
        UiFixture fixture;
        MainWindow window;
        openInWindow(fixture, window, 0);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        RunnerStatusWidget *status = window.runnerStatus();
        QTRY_COMPARE(status->label()->text(), QStringLiteral("No runner"));
        ShowHideCounter counter;
        for (QWidget *child : status->findChildren<QWidget *>())
            child->installEventFilter(&counter);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        RunnerHeartbeat beat;
        beat.host = QSysInfo::machineHostName();
        beat.pid = QCoreApplication::applicationPid();
        beat.version = QStringLiteral("test");
        beat.startedAt = now;
        beat.lastBeatAt = now;
        beat.expiresAt = now.addSecs(60);
        status->setHeartbeat(beat);
        QCOMPARE(status->status().state, RunnerStatus::State::Running);
        QVERIFY(status->setupLink()->text().isEmpty());
        status->setHeartbeat(std::nullopt);
        QVERIFY(!status->setupLink()->text().isEmpty());
        QCoreApplication::processEvents();
        QCOMPARE(counter.count, 0);
    }

    // The status bar says whether a runner is alive: none, a real `serve` (host, pid, its last
    // beat), and none again once it has stopped.
    void statusBarShowsTheRunner() {
        UiFixture fixture;
        MainWindow window;
        openInWindow(fixture, window, 0);
        RunnerStatusWidget *status = window.runnerStatus();
        QTRY_COMPARE(status->label()->text(), QStringLiteral("No runner"));
        QCOMPARE(status->setupLink()->text(), QStringLiteral("<a href=\"setup\">Set Up Runner…</a>"));
        QAction *setUp = window.findChild<QAction *>(QStringLiteral("actionSetUpRunner"));
        QVERIFY(setUp);
        // Where the link leads, without the dialog (it would set a service up for real).
        QObject::disconnect(setUp, &QAction::triggered, &window, nullptr);
        QSignalSpy triggered(setUp, &QAction::triggered);
        emit status->setupLink()->linkActivated(QStringLiteral("setup"));
        QCOMPARE(triggered.size(), 1);

        QProcess serve;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TIDEMARK_TEST_RUNNER_HEARTBEAT_MS"), QStringLiteral("300"));
        serve.setProcessEnvironment(env);
        serve.start(cliPath(), {QStringLiteral("--workspace"), fixture.wsPath, QStringLiteral("serve")});
        QVERIFY(serve.waitForStarted());
        const QString running = QStringLiteral("Runner: running on %1 (pid %2), last beat ")
                                    .arg(QSysInfo::machineHostName())
                                    .arg(serve.processId());
        QTRY_VERIFY_WITH_TIMEOUT(status->label()->text().startsWith(running), 20000);
        QVERIFY(status->label()->text().endsWith(QStringLiteral("s ago")));
        QVERIFY(status->setupLink()->text().isEmpty());

        // Killed: its row stays, its heartbeat expires, and the window says so by itself.
        serve.kill();
        QVERIFY(serve.waitForFinished());
        QTRY_VERIFY_WITH_TIMEOUT(
            status->label()->text().startsWith(QStringLiteral("Runner: stopped (last beat ")), 20000);
        QVERIFY(!status->setupLink()->text().isEmpty());

        // Stopped cleanly (SIGTERM): it releases its row.
        serve.start(cliPath(), {QStringLiteral("--workspace"), fixture.wsPath, QStringLiteral("serve")});
        QVERIFY(serve.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(status->label()->text().startsWith(QStringLiteral("Runner: running on")),
                                 20000);
        serve.terminate();
        QVERIFY(serve.waitForFinished(15000));
        QTRY_COMPARE_WITH_TIMEOUT(status->label()->text(), QStringLiteral("No runner"), 20000);
    }

    // "Set up runner…" from the menu: the unit file written for the user (no packaged one),
    // the user manager reloaded, the workspace's instance enabled and started; the dialog shows
    // the commands and what they printed. systemctl is a fake on PATH recording its arguments.
    void setUpRunnerWritesAndEnablesTheUserUnit() {
        QTemporaryDir tools;
        const QString log = tools.filePath(QStringLiteral("systemctl.log"));
        writeFakeSystemctl(tools.path(), log, 0, QStringLiteral("Created symlink for the runner."));
        const ScopedEnv path("PATH", (tools.path() + QLatin1Char(':') + QFileInfo(cliPath()).path() +
                                      QLatin1Char(':') + qEnvironmentVariable("PATH"))
                                         .toUtf8());
        const ScopedEnv config("XDG_CONFIG_HOME", tools.filePath(QStringLiteral("config")).toUtf8());

        UiFixture fixture;
        // A server workspace's instance is its URI, not a path: a unit of its own, %I for %f.
        const bool server = serverWorkspaces();
        const QString templateName = server ? QStringLiteral("tidemark-runner-server@.service")
                                            : QStringLiteral("tidemark-runner@.service");
        const QString specifier = server ? QStringLiteral("%I") : QStringLiteral("%f");
        MainWindow window;
        openInWindow(fixture, window, 0);
        QAction *action = window.findChild<QAction *>(QStringLiteral("actionSetUpRunner"));
        QVERIFY(action && action->isEnabled());
        action->trigger();
        RunnerSetupDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<RunnerSetupDialog *>()) != nullptr);
        QSignalSpy done(dialog, &RunnerSetupDialog::setupFinished);
        // First only what it will do: nothing run, nothing written.
        QTest::qWait(300);
        QVERIFY(!QFileInfo::exists(log));
        QVERIFY(!QFileInfo::exists(tools.filePath(QStringLiteral("config/systemd/user/") + templateName)));
        const QString preview = dialog->transcript()->toPlainText();
        QVERIFY2(preview.contains(QStringLiteral("$ systemctl --user enable --now ")), qPrintable(preview));
        auto *start = dialog->findChild<QPushButton *>(QStringLiteral("runnerSetupStart"));
        QVERIFY(start);
        start->click();
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 20000);
        const auto result = done.first().at(0).value<RunnerSetupResult>();
        QCOMPARE(result.outcome, RunnerSetupResult::Outcome::Enabled);

        const QString unit = server ? QStringLiteral("tidemark-runner-server@%1.service")
                                          .arg(RunnerServiceSetup::escapeName(fixture.wsPath))
                                    : QStringLiteral("tidemark-runner@%1.service")
                                          .arg(RunnerServiceSetup::escapePath(fixture.wsPath));
        const bool packaged =
            QFileInfo::exists(QStringLiteral("/usr/lib/systemd/user/") + templateName) ||
            QFileInfo::exists(QStringLiteral("/usr/local/lib/systemd/user/") + templateName) ||
            QFileInfo::exists(QStringLiteral("/lib/systemd/user/") + templateName);
        QStringList expected;
        if (!packaged)
            expected << QStringLiteral("--user daemon-reload");
        expected << QStringLiteral("--user enable --now ") + unit;
        QCOMPARE(readFile(log).split(QLatin1Char('\n'), Qt::SkipEmptyParts), expected);
        const QString written =
            readFile(tools.filePath(QStringLiteral("config/systemd/user/") + templateName));
        if (!packaged) {
            QVERIFY2(
                written.contains(QStringLiteral("\nExecStart=%1 --workspace %2 serve\n")
                                     .arg(QFileInfo(cliPath()).canonicalFilePath(), specifier)) ||
                    written.contains(
                        QStringLiteral("\nExecStart=%1 --workspace %2 serve\n").arg(cliPath(), specifier)),
                qPrintable(written));
            QVERIFY(!written.contains(QStringLiteral("@TIDEMARK_BINDIR@")));
            QVERIFY(written.contains(QStringLiteral("[Install]\nWantedBy=default.target")));
        }
        const QString transcript = dialog->transcript()->toPlainText();
        // The unit name is shell-quoted when it holds backslashes (systemd-escape's \x2d).
        QVERIFY2(transcript.contains(QStringLiteral("$ systemctl --user enable --now ")) &&
                     transcript.contains(unit),
                 qPrintable(transcript));
        QVERIFY(transcript.contains(QStringLiteral("Created symlink for the runner.")));
        QVERIFY(dialog->outcome()->text().startsWith(QStringLiteral("Done.")));
    }

    // With a packaged unit: nothing written, no reload, only the enable. A user manager that
    // fails: its output shown, and the two commands to run by hand. No systemctl at all: said so.
    void setUpRunnerCases() {
        QTemporaryDir tools;
        const QString log = tools.filePath(QStringLiteral("systemctl.log"));
        const ScopedEnv config("XDG_CONFIG_HOME", tools.filePath(QStringLiteral("config")).toUtf8());
        const QString workspace = QStringLiteral("/srv/my data/shop-1.tidemark");
        QCOMPARE(RunnerServiceSetup::escapePath(workspace),
                 QStringLiteral("srv-my\\x20data-shop\\x2d1.tidemark"));
        QCOMPARE(RunnerServiceSetup::escapePath(QStringLiteral("/home/a/.x/é_b:c.tidemark")),
                 QStringLiteral("home-a-.x-\\xc3\\xa9_b:c.tidemark"));
        QCOMPARE(RunnerServiceSetup::escapePath(QStringLiteral("/.hidden//ws.tidemark/")),
                 QStringLiteral("\\x2ehidden-ws.tidemark"));
        // As systemd-escape 'postgresql://ana@db/etl?schema=team' writes it.
        QCOMPARE(RunnerServiceSetup::escapeName(QStringLiteral("postgresql://ana@db/etl?schema=team")),
                 QStringLiteral("postgresql:--ana\\x40db-etl\\x3fschema\\x3dteam"));
        {
            writeFakeSystemctl(tools.path(), log, 0, QString());
            const ScopedEnv path("PATH", tools.path().toUtf8());
            RunnerServiceSetup setup(workspace, QStringLiteral("/opt/tidemark/bin/tidemark-cli"));
            QTemporaryDir packagedDir;
            QFile packagedUnit(packagedDir.filePath(QStringLiteral("tidemark-runner@.service")));
            QVERIFY(packagedUnit.open(QIODevice::WriteOnly));
            packagedUnit.close();
            setup.setPackagedUnitDirs({packagedDir.path()});
            QSignalSpy done(&setup, &RunnerServiceSetup::finished);
            setup.start();
            QTRY_COMPARE(done.size(), 1);
            QCOMPARE(done.first().at(0).value<RunnerSetupResult>().outcome,
                     RunnerSetupResult::Outcome::Enabled);
            QCOMPARE(
                readFile(log),
                QStringLiteral(
                    "--user enable --now tidemark-runner@srv-my\\x20data-shop\\x2d1.tidemark.service\n"));
            QVERIFY(!QFileInfo::exists(setup.userUnitPath()));
        }
        QFile::remove(log);
        {
            writeFakeSystemctl(tools.path(), log, 1,
                               QStringLiteral("Failed to connect to bus: No medium found"));
            const ScopedEnv path("PATH", tools.path().toUtf8());
            RunnerServiceSetup setup(workspace, QStringLiteral("/opt/tidemark/bin/tidemark-cli"));
            setup.setPackagedUnitDirs({});
            QSignalSpy done(&setup, &RunnerServiceSetup::finished);
            setup.start();
            QTRY_COMPARE(done.size(), 1);
            const auto result = done.first().at(0).value<RunnerSetupResult>();
            QCOMPARE(result.outcome, RunnerSetupResult::Outcome::Failed);
            QCOMPARE(readFile(log), QStringLiteral("--user daemon-reload\n")); // stopped at the first failure
            QVERIFY(result.transcript.contains(QStringLiteral("Failed to connect to bus")));
            QVERIFY2(result.howTo.contains(
                         QStringLiteral("systemctl --user enable --now \"tidemark-runner@$(systemd-escape "
                                        "--path '/srv/my data/shop-1.tidemark').service\"")),
                     qPrintable(result.howTo));
            QVERIFY(result.howTo.contains(QStringLiteral("loginctl enable-linger \"$USER\"")));
            // The unit file it wrote for the failed setup is gone again.
            QVERIFY(!QFileInfo::exists(setup.userUnitPath()));
            QVERIFY2(
                result.transcript.contains(QStringLiteral("Removed %1 again.").arg(setup.userUnitPath())),
                qPrintable(result.transcript));
        }
        QFile::remove(log);
        {
            // Failing at the enable, over a unit file that was there before: the enable undone,
            // the file put back.
            const QString unitPath =
                tools.filePath(QStringLiteral("config/systemd/user/tidemark-runner@.service"));
            QDir().mkpath(QFileInfo(unitPath).path());
            QFile before(unitPath);
            QVERIFY(before.open(QIODevice::WriteOnly));
            before.write("# the user's own unit\n");
            before.close();
            const QString script = tools.filePath(QStringLiteral("systemctl"));
            QFile fake(script);
            QVERIFY(fake.open(QIODevice::WriteOnly));
            fake.write(
                QStringLiteral("#!/bin/sh\necho \"$*\" >> '%1'\ncase \"$*\" in *enable*) echo 'Job failed'; "
                               "exit 1;; esac\nexit 0\n")
                    .arg(log)
                    .toUtf8());
            fake.close();
            QVERIFY(fake.setPermissions(fake.permissions() | QFileDevice::ExeOwner));
            const ScopedEnv path("PATH", tools.path().toUtf8());
            RunnerServiceSetup setup(workspace, QStringLiteral("/opt/tidemark/bin/tidemark-cli"));
            setup.setPackagedUnitDirs({});
            QCOMPARE(setup.plan().size(), 3);
            QSignalSpy done(&setup, &RunnerServiceSetup::finished);
            setup.start();
            QTRY_COMPARE(done.size(), 1);
            QCOMPARE(done.first().at(0).value<RunnerSetupResult>().outcome,
                     RunnerSetupResult::Outcome::Failed);
            QCOMPARE(readFile(log),
                     QStringLiteral(
                         "--user daemon-reload\n"
                         "--user enable --now tidemark-runner@srv-my\\x20data-shop\\x2d1.tidemark.service\n"
                         "--user disable tidemark-runner@srv-my\\x20data-shop\\x2d1.tidemark.service\n"));
            QCOMPARE(readFile(unitPath), QStringLiteral("# the user's own unit\n"));
        }
        {
            const ScopedEnv path("PATH", tools.filePath(QStringLiteral("nothing-here")).toUtf8());
            RunnerServiceSetup setup(workspace, QStringLiteral("/opt/tidemark/bin/tidemark-cli"));
            QSignalSpy done(&setup, &RunnerServiceSetup::finished);
            setup.start();
            QTRY_COMPARE(done.size(), 1);
            const auto result = done.first().at(0).value<RunnerSetupResult>();
            QCOMPARE(result.outcome, RunnerSetupResult::Outcome::NoSystemd);
            QVERIFY(result.howTo.contains(QStringLiteral("loginctl enable-linger")));
        }
    }

    // A run started from the window alerts like a CLI or runner run: the workspace's hook gets
    // the failed run's JSON. So does a run of a dead process that the window closes on opening.
    void windowRunsSendAlerts() {
        UiFixture fixture;
        makeOrders(fixture.src, 20);
        makeOrders(fixture.src, 20, 1, QStringLiteral("gone"));
        fixture.addTable(UiFixture::draft(QStringLiteral("orders"), QStringLiteral("updated_at")));
        fixture.addTable(UiFixture::draft(QStringLiteral("gone"), QStringLiteral("updated_at")));
        execSql(fixture.src, QStringLiteral("DROP TABLE gone"));
        const QString received = fixture.filePath(QStringLiteral("alerts.jsonl"));
        AlertSettings alerts;
        alerts.hookCommand = QStringLiteral("cat >> '%1'; echo >> '%1'").arg(received);
        fixture.open()->setAlertSettings(alerts);
        // A run whose process died (a pid that cannot exist) is closed as interrupted on opening.
        qint64 deadRun = 0;
        {
            auto ws = fixture.open();
            deadRun = ws->beginRun(QStringLiteral("cli"), 1, false);
        }
        execSql(fixture.wsPath, QStringLiteral("UPDATE runs SET pid = 99999999 WHERE id = ?1"), {deadRun});

        MainWindow window;
        openInWindow(fixture, window, 2);
        QTRY_VERIFY_WITH_TIMEOUT(readFile(received).contains(QStringLiteral("\"status\":\"interrupted\"")),
                                 20000);
        QSignalSpy finished(window.coordinator(), &RunCoordinator::runFinished);
        window.runAll();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        const RunRecord run = finished.first().at(0).value<RunRecord>();
        QCOMPARE(run.status, QStringLiteral("failed"));
        QTRY_VERIFY_WITH_TIMEOUT(readFile(received).contains(QStringLiteral("\"run_id\":%1").arg(run.id)),
                                 20000);
        QTRY_VERIFY(window.runAlerts()->dispatcher()->isIdle());
        const QStringList lines = readFile(received).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2); // each run alerted once
        QVERIFY(lines.at(1).contains(QStringLiteral("\"trigger\":\"gui\"")));
        QVERIFY(lines.at(1).contains(QStringLiteral("\"status\":\"failed\"")));
    }

private:
    static SchedulesPanel *panelOf(MainWindow &window) { return window.schedulesPanel(); }
};

QTEST_MAIN(TestWindowSchedules)
#include "tst_windowschedules.moc"
