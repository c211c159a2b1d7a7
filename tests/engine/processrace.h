// SPDX-License-Identifier: MIT
#pragma once

// Two `tidemark-cli run` processes on one workspace, the way a doubled window was once reproduced:
// the first stops itself (SIGSTOP at a fault point, a closed laptop lid) in the middle of its
// copy, holding an open target transaction; its lease (a test-only TTL of one second) expires;
// the second takes the lease over and starts the same window; then the first wakes up. Only the
// target's compare-and-set can keep the window from being written twice.

#include "tests/support/testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>
#include <QThread>
#include <csignal>
#include <functional>
#include <sys/types.h>

namespace tidemark::test {

constexpr int kRaceLeaseTtlMs = 1000;
// The fault points a racing process freezes at: inside its write transaction (after a push-down,
// after a batch is written, both before the commit), or just before that transaction begins.
inline const QString kRaceAfterPushDown = QStringLiteral("after_push_down");
inline const QString kRaceAfterBatch = QStringLiteral("after_batch_write");
inline const QString kRaceBeforeWrite = QStringLiteral("before_write_transaction");
// `table add` options for each path: push-down where the pairing has one (else streaming, one
// commit per window), streaming forced (a table allowing skipped rows never pushes down into
// PostgreSQL; into SQLite only while no row is refused, so a SQLite race also gives the target
// a column of another affinity), per batch.
inline const QStringList kPerWindow;
inline const QStringList kStreamingPerWindow{QStringLiteral("--max-skipped"), QStringLiteral("1")};
inline const QStringList kPerBatch{QStringLiteral("--commit-per-batch"), QStringLiteral("--batch-size"),
                                   QStringLiteral("100")};

struct RaceRun {
    int exitCode = -1;
    QString out;
    QString err;
    QJsonObject iteration; // the run's only iteration, from `run --json`
    qint64 runId = 0;
};

struct RaceOutcome {
    RaceRun frozen;   // stopped mid-copy, then resumed
    RaceRun takeover; // took the expired lease over
    bool tookOver = false;
    QString failure; // empty when both processes ran as planned
};

namespace detail {

inline bool waitFor(const std::function<bool()> &done, int timeoutMs) {
    for (int waited = 0; waited < timeoutMs; waited += 20) {
        if (done())
            return true;
        QThread::msleep(20);
    }
    return done();
}

// 'T' in /proc/<pid>/stat: stopped by a signal.
inline bool isStopped(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close > 0 && text.size() > close + 2 && text.at(close + 2) == 'T';
}

// QProcess learns that a child ended only while it waits on it.
inline bool exited(QProcess &process) {
    return process.state() == QProcess::NotRunning || process.waitForFinished(1);
}

inline void startRun(QProcess &process, const QString &workspace, const QString &stopAt) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    env.remove(QStringLiteral("TIDEMARK_FAULT_POINT"));
    env.insert(QStringLiteral("TIDEMARK_TEST_LEASE_TTL_MS"), QString::number(kRaceLeaseTtlMs));
    if (stopAt.isEmpty())
        env.remove(QStringLiteral("TIDEMARK_FAULT_STOP"));
    else
        env.insert(QStringLiteral("TIDEMARK_FAULT_STOP"), stopAt);
    process.setProcessEnvironment(env);
    process.start(cliPath(),
                  {QStringLiteral("-w"), workspace, QStringLiteral("run"), QStringLiteral("--json")});
}

inline RaceRun finish(QProcess &process) {
    RaceRun run;
    if (!process.waitForFinished(180000)) {
        process.kill();
        process.waitForFinished(5000);
    }
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err += QString::fromUtf8(process.readAllStandardError());
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    const QJsonObject json = parseJsonObject(run.out);
    run.runId = json.value(QStringLiteral("run_id")).toInteger();
    run.iteration = json.value(QStringLiteral("iterations")).toArray().at(0).toObject();
    return run;
}

inline bool waitStopped(QProcess &process) {
    const qint64 pid = process.processId();
    return waitFor([&] { return isStopped(pid) || exited(process); }, 120000) && isStopped(pid);
}

} // namespace detail

// Runs the race on `workspace` (one active table). The first process freezes at `frozenAt`;
// once its lease expired the second starts. With `takeoverAt` the second freezes there too
// (kRaceBeforeWrite: it has read the position it expects and is about to write), then both
// wake up, the second first: with the first holding the target's write lock, the second waits
// for its commit. Without, the second runs to its end before the first wakes up.
inline RaceOutcome raceTwoRuns(const QString &workspace, const QString &frozenAt,
                               const QString &takeoverAt = QString()) {
    RaceOutcome outcome;
    QProcess frozen;
    detail::startRun(frozen, workspace, frozenAt);
    if (!detail::waitStopped(frozen)) {
        outcome.frozen = detail::finish(frozen);
        outcome.failure = QStringLiteral("first run never reached fault point %1").arg(frozenAt);
        return outcome;
    }
    // Frozen with its heartbeat: let its lease expire.
    QThread::msleep(kRaceLeaseTtlMs + 500);

    QProcess takeover;
    detail::startRun(takeover, workspace, takeoverAt);
    if (!takeoverAt.isEmpty()) {
        if (!detail::waitStopped(takeover))
            outcome.failure = QStringLiteral("second run never reached fault point %1").arg(takeoverAt);
        ::kill(pid_t(takeover.processId()), SIGCONT);
    } else {
        outcome.takeover = detail::finish(takeover);
    }
    ::kill(pid_t(frozen.processId()), SIGCONT); // wakes up, its transaction still open
    outcome.frozen = detail::finish(frozen);
    if (!takeoverAt.isEmpty())
        outcome.takeover = detail::finish(takeover);
    outcome.tookOver = outcome.takeover.err.contains(QLatin1String("took over the lease"));
    return outcome;
}

inline QString describe(const RaceOutcome &outcome) {
    const auto one = [](const char *name, const RaceRun &run) {
        return QStringLiteral("%1: exit %2, run %3, %4\n  stderr: %5")
            .arg(QLatin1String(name))
            .arg(run.exitCode)
            .arg(run.runId)
            .arg(QString::fromUtf8(QJsonDocument(run.iteration).toJson(QJsonDocument::Compact)),
                 run.err.right(1500));
    };
    return outcome.failure + QLatin1Char('\n') + one("frozen", outcome.frozen) + QLatin1Char('\n') +
           one("takeover", outcome.takeover);
}

// The outcome the contract allows: both processes exit 0, one iteration succeeded and wrote the
// window, the other ended skipped naming the winner's run and wrote nothing.
inline void verifyOneWinner(const RaceOutcome &outcome, qint64 windowRows) {
    const QString what = describe(outcome);
    QVERIFY2(outcome.failure.isEmpty(), qPrintable(what));
    QVERIFY2(outcome.tookOver,
             qPrintable(QStringLiteral("the second run never took the lease over\n") + what));
    QVERIFY2(outcome.frozen.exitCode == 0, qPrintable(what));
    QVERIFY2(outcome.takeover.exitCode == 0, qPrintable(what));
    const QString frozenStatus = outcome.frozen.iteration.value(QStringLiteral("status")).toString();
    const QString takeoverStatus = outcome.takeover.iteration.value(QStringLiteral("status")).toString();
    const bool frozenWon = frozenStatus == QLatin1String("succeeded");
    const RaceRun &winner = frozenWon ? outcome.frozen : outcome.takeover;
    const RaceRun &loser = frozenWon ? outcome.takeover : outcome.frozen;
    QVERIFY2(winner.iteration.value(QStringLiteral("status")).toString() == QLatin1String("succeeded"),
             qPrintable(what));
    QVERIFY2(loser.iteration.value(QStringLiteral("status")).toString() == QLatin1String("skipped"),
             qPrintable(what));
    QVERIFY2(frozenStatus != takeoverStatus, qPrintable(what));
    // The loser either finds the winner's commit, or (the frozen one, woken after the takeover)
    // finds its claim fenced out: the takeover raised the target's fence.
    const QString reason = loser.iteration.value(QStringLiteral("error")).toString();
    QVERIFY2(reason.contains(QStringLiteral("run %1 committed this table first").arg(winner.runId)) ||
                 (!frozenWon && reason.contains(QLatin1String("its lease was taken over"))),
             qPrintable(what));
    QCOMPARE(winner.iteration.value(QStringLiteral("rows_written")).toInteger(), windowRows);
    QCOMPARE(loser.iteration.value(QStringLiteral("rows_written")).toInteger(), 0);
}

} // namespace tidemark::test
