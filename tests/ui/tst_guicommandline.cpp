// SPDX-License-Identifier: MIT
// The window's binary answers --help and --version without a display: a newcomer on an SSH
// session, or a package check, asks before there is any window system (QApplication aborted).

#include <QProcess>
#include <QtTest>

namespace {

struct Outcome {
    bool finished = false;
    QProcess::ExitStatus status = QProcess::CrashExit;
    int exitCode = -1;
    QString out;
    QString err;

    QByteArray describe() const {
        return QStringLiteral("finished %1, %2, exit %3; stdout: %4; stderr: %5")
            .arg(finished)
            .arg(status == QProcess::NormalExit ? QStringLiteral("normal") : QStringLiteral("crash"))
            .arg(exitCode)
            .arg(out, err)
            .toUtf8();
    }
};

// Runs the GUI binary with no display at all: neither X, nor Wayland, nor a platform chosen.
Outcome runWithoutDisplay(const QStringList &args) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY", "TIDEMARK_WORKSPACE"})
        env.remove(QString::fromLatin1(name));
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(TIDEMARK_GUI_PATH), args);
    Outcome outcome;
    if (!process.waitForStarted(30000)) {
        outcome.err = process.errorString();
        return outcome;
    }
    process.closeWriteChannel();
    outcome.finished = process.waitForFinished(30000);
    if (!outcome.finished) {
        process.kill();
        process.waitForFinished(5000);
    }
    outcome.status = process.exitStatus();
    outcome.exitCode = process.exitCode();
    outcome.out = QString::fromUtf8(process.readAllStandardOutput());
    outcome.err = QString::fromUtf8(process.readAllStandardError());
    return outcome;
}

} // namespace

class TestGuiCommandLine : public QObject {
    Q_OBJECT

private slots:
    void helpWithoutADisplay_data() {
        QTest::addColumn<QString>("option");
        QTest::newRow("--help") << QStringLiteral("--help");
        QTest::newRow("-h") << QStringLiteral("-h");
    }

    void helpWithoutADisplay() {
        QFETCH(QString, option);
        const Outcome outcome = runWithoutDisplay({option});
        QVERIFY2(outcome.finished && outcome.status == QProcess::NormalExit && outcome.exitCode == 0,
                 outcome.describe().constData());
        QVERIFY2(outcome.out.contains(QLatin1String("Usage:")), outcome.describe().constData());
        QVERIFY2(outcome.out.contains(QLatin1String("--workspace <WORKSPACE>")), outcome.describe().constData());
        QVERIFY2(outcome.out.contains(QLatin1String("--version")), outcome.describe().constData());
    }

    void versionWithoutADisplay() {
        const Outcome outcome = runWithoutDisplay({QStringLiteral("--version")});
        QVERIFY2(outcome.finished && outcome.status == QProcess::NormalExit && outcome.exitCode == 0,
                 outcome.describe().constData());
        QCOMPARE(outcome.out.trimmed(), QStringLiteral("Tidemark %1").arg(QStringLiteral(TIDEMARK_VERSION)));
    }
};

QTEST_GUILESS_MAIN(TestGuiCommandLine)
#include "tst_guicommandline.moc"
