// SPDX-License-Identifier: MIT
// The Promela models of the copy protocol (copy_protocol.pml) and of the runner fleet with fencing
// tokens (fleet_protocol.pml), explained in docs/protocol.md, checked exhaustively with spin: each
// protocol holds every invariant in every interleaving, and each deliberately broken variant is
// caught with the counterexample it exists for.

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString copyModel = QStringLiteral("copy_protocol.pml");
const QString fleetModel = QStringLiteral("fleet_protocol.pml");

struct Tool {
    QString path;
    QString output; // stdout + stderr
    int exitCode = -1;
};

Tool runTool(const QString &program, const QStringList &args, const QString &dir) {
    QProcess process;
    process.setWorkingDirectory(dir);
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, args);
    process.waitForFinished(-1); // CTest's timeout bounds a hang; no timed assertion here
    Tool result;
    result.path = program;
    result.output = QString::fromLocal8Bit(process.readAll());
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return result;
}

// What pan reports about one exhaustive search.
struct Verification {
    QString report;
    int errors = -1;
    qint64 statesStored = -1;
    double memoryMb = -1;
    double seconds = -1;
    QString violated; // the first assertion pan found violated, empty when none

    QString summary() const {
        return QStringLiteral("%1 states stored, %2 MB, %3 s, errors: %4%5")
            .arg(statesStored)
            .arg(memoryMb)
            .arg(seconds)
            .arg(errors)
            .arg(violated.isEmpty() ? QString() : QStringLiteral(", violated: ") + violated);
    }

    bool exhaustive() const {
        return report.contains(QStringLiteral("Full statespace search for")) &&
               !report.contains(QStringLiteral("Search not completed"), Qt::CaseInsensitive) &&
               !report.contains(QStringLiteral("max search depth too small")) &&
               !report.contains(QStringLiteral("MEMLIM"));
    }
};

QString firstCapture(const QString &text, const QString &pattern) {
    return QRegularExpression(pattern, QRegularExpression::MultilineOption).match(text).captured(1);
}

Verification parsePanReport(const QString &report) {
    Verification v;
    v.report = report;
    bool ok = false;
    const int errors = firstCapture(report, QStringLiteral("errors: (\\d+)")).toInt(&ok);
    v.errors = ok ? errors : -1;
    const qint64 states = firstCapture(report, QStringLiteral("^\\s*(\\d+) states, stored")).toLongLong(&ok);
    v.statesStored = ok ? states : -1;
    const double memory =
        firstCapture(report, QStringLiteral("^\\s*([\\d.]+)\\s+total actual memory usage")).toDouble(&ok);
    v.memoryMb = ok ? memory : -1;
    const double seconds =
        firstCapture(report, QStringLiteral("elapsed time ([\\d.e+]+) seconds")).toDouble(&ok);
    v.seconds = ok ? seconds : -1;
    v.violated = firstCapture(report, QStringLiteral("assertion violated (.*) \\(at depth"));
    return v;
}

} // namespace

class TestProtocol : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void protocolHoldsEveryInvariant_data();
    void protocolHoldsEveryInvariant();
    void fleetProtocolHoldsEveryInvariant();
    void brokenVariantIsCaught_data();
    void brokenVariantIsCaught();

private:
    // Generates, compiles and runs the verifier for `model` (a file name in tests/protocol/) with
    // `defines`, in a fresh directory.
    Verification verify(const QString &model, const QStringList &defines);
    // Checks that the search covered the whole state space and found nothing.
    static void expectHolds(const Verification &v);

    QString m_spin;
    QString m_gcc;
    QString m_modelDir;
};

void TestProtocol::initTestCase() {
    m_modelDir = QStringLiteral(TIDEMARK_SOURCE_DIR "/tests/protocol");
    for (const QString &model : {copyModel, fleetModel}) {
        const QString path = m_modelDir + QLatin1Char('/') + model;
        QVERIFY2(QFileInfo::exists(path), qPrintable(path + QStringLiteral(" not found")));
    }
    m_spin = QStandardPaths::findExecutable(QStringLiteral("spin"));
    m_gcc = QStandardPaths::findExecutable(QStringLiteral("gcc"));
    if (m_spin.isEmpty() || m_gcc.isEmpty()) {
        const QByteArray missing = m_spin.isEmpty() ? "spin" : "gcc";
        if (qEnvironmentVariable("CI") == QLatin1String("true"))
            QFAIL(missing + " is not installed; CI must check the protocol model (scripts/deps.sh)");
        QSKIP(missing + " is not installed: the protocol model is not checked (scripts/deps.sh installs it)");
    }
}

Verification TestProtocol::verify(const QString &model, const QStringList &defines) {
    QTemporaryDir dir;
    if (!dir.isValid()) {
        QTest::qFail("no temporary directory", __FILE__, __LINE__);
        return {};
    }
    // pan writes its trail next to the model it was generated from: keep both in the temp dir.
    QFile::copy(m_modelDir + QLatin1Char('/') + model, dir.filePath(model));

    const Tool spin = runTool(m_spin, defines + QStringList{QStringLiteral("-a"), model}, dir.path());
    if (spin.exitCode != 0 || !QFile::exists(dir.filePath(QStringLiteral("pan.c")))) {
        QTest::qFail(qPrintable(QStringLiteral("spin -a failed: ") + spin.output), __FILE__, __LINE__);
        return {};
    }
    // SAFETY: assertions and end states only (no never claim); COLLAPSE: exact but compressed
    // state storage; MEMLIM (MB): stop rather than exhaust a shared machine.
    const Tool gcc = runTool(m_gcc,
                             {QStringLiteral("-O2"), QStringLiteral("-DSAFETY"), QStringLiteral("-DCOLLAPSE"),
                              QStringLiteral("-DMEMLIM=3072"), QStringLiteral("-o"), QStringLiteral("pan"),
                              QStringLiteral("pan.c")},
                             dir.path());
    if (gcc.exitCode != 0) {
        QTest::qFail(qPrintable(QStringLiteral("compiling pan failed: ") + gcc.output), __FILE__, __LINE__);
        return {};
    }
    // -m: search depth bound, well above the deepest path of either model (under 400 steps).
    const Tool pan = runTool(dir.filePath(QStringLiteral("pan")), {QStringLiteral("-m10000")}, dir.path());
    return parsePanReport(pan.output);
}

void TestProtocol::protocolHoldsEveryInvariant_data() {
    QTest::addColumn<QStringList>("defines");
    QTest::newRow("append") << QStringList{};
    QTest::newRow("merge") << QStringList{QStringLiteral("-DMERGE")};
}

void TestProtocol::expectHolds(const Verification &v) {
    qInfo().noquote() << v.summary();
    QVERIFY2(v.exhaustive(),
             qPrintable(QStringLiteral("the search did not cover the whole state space:\n") + v.report));
    QVERIFY2(v.errors == 0, qPrintable(QStringLiteral("spin found a counterexample:\n") + v.report));
    QVERIFY2(v.statesStored > 0, qPrintable(v.report));
}

void TestProtocol::protocolHoldsEveryInvariant() {
    QFETCH(QStringList, defines);
    const Verification v = verify(copyModel, defines);
    if (QTest::currentTestFailed())
        return;
    expectHolds(v);
}

// Three runners share a queue of two iterations of one table: one freezes past its heartbeat and
// lease and wakes, one crashes; claims, requeues, takeovers and fencing tokens in every order.
void TestProtocol::fleetProtocolHoldsEveryInvariant() {
    const Verification v = verify(fleetModel, {});
    if (QTest::currentTestFailed())
        return;
    expectHolds(v);
}

void TestProtocol::brokenVariantIsCaught_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QStringList>("defines");
    QTest::addColumn<QString>("expectedViolation"); // the assertion that must fail, as pan prints it

    // Today's blind state write: two runners that started from the same position both commit.
    QTest::newRow("blind state write, append: a row twice")
        << copyModel << QStringList{QStringLiteral("-DBLIND_WRITE")} << QStringLiteral("(tcount[i]<=1)");
    QTest::newRow("blind state write, merge: state row moves back")
        << copyModel << QStringList{QStringLiteral("-DMERGE"), QStringLiteral("-DBLIND_WRITE")}
        << QStringLiteral("(readPos>tpos)");
    // The workspace following the target without a backfill generation (a rule without generations):
    // a stale reconcile moves the workspace watermark backwards although no backfill happened.
    QTest::newRow("workspace follows without generation: watermark moves back")
        << copyModel << QStringList{QStringLiteral("-DPLAIN_FOLLOW")}
        << QStringLiteral("((g>wsGen)||((g==wsGen)&&(expected>=wsPos)))");
    // A merge upsert without "never older over newer" (after a backfill that keeps the rows).
    QTest::newRow("merge without the version rule: older over newer")
        << copyModel << QStringList{QStringLiteral("-DMERGE"), QStringLiteral("-DNO_MERGE_RULE")}
        << QStringLiteral("((tver[0]==hiVer[0])&&(tver[1]==hiVer[1]))");
    // A compare-and-set without the fence: a claim whose lease was taken over while it was frozen
    // wakes and commits where the position still matches, after the target saw a newer token.
    QTest::newRow("fleet without the fence check: a replaced claim commits")
        << fleetModel << QStringList{QStringLiteral("-DNO_FENCE")}
        << QStringLiteral("((fencedOut&(1<<tok))==0)");
    // A queued iteration's record written WHERE runner IN ('', me): a runner woken after its claim
    // was put back in the queue closes an iteration that another runner's claim now stands for.
    QTest::newRow("fleet record without the holder check: a superseded claim writes it")
        << fleetModel << QStringList{QStringLiteral("-DLAX_RECORD")} << QStringLiteral("(latest[it]==me)");
}

void TestProtocol::brokenVariantIsCaught() {
    QFETCH(QString, model);
    QFETCH(QStringList, defines);
    QFETCH(QString, expectedViolation);
    const Verification v = verify(model, defines);
    if (QTest::currentTestFailed())
        return;
    qInfo().noquote() << v.summary();
    QVERIFY2(v.errors > 0, qPrintable(QStringLiteral("spin found no counterexample:\n") + v.report));
    QCOMPARE(v.violated, expectedViolation);
}

QTEST_GUILESS_MAIN(TestProtocol)
#include "tst_protocol.moc"
