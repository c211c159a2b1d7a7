// SPDX-License-Identifier: MIT
// The scheduler's policies on a fake clock: missed firings, overlap, retry back-off and which
// failures are retried, per-iteration timeouts, pause and resume, wall-clock steps.

#include "model/schedule/clock.h"
#include "model/schedule/firetimes.h"
#include "model/schedule/scheduler.h"
#include "model/schedule/transientfailure.h"

#include <QTest>

using namespace tidemark;

namespace {

// Fires every N seconds of the epoch, N being the schedule's "cron" text: the policies do not
// depend on cron, only on the instants it gives.
class EveryNSeconds : public FireTimes {
public:
    QDateTime nextAfter(const ScheduleSpec &schedule, const QDateTime &after) const override {
        const qint64 period = schedule.cron.toLongLong();
        const qint64 seconds = after.toSecsSinceEpoch();
        return QDateTime::fromSecsSinceEpoch((seconds / period + 1) * period, Qt::UTC);
    }
};

const QDateTime kStart = QDateTime(QDate(2026, 11, 30), QTime(12, 0), Qt::UTC);

ScheduleSpec every(const QString &name, int seconds) {
    ScheduleSpec spec;
    spec.id = 1;
    spec.name = name;
    spec.cron = QString::number(seconds);
    spec.timeZone = QStringLiteral("UTC");
    spec.createdAt = kStart;
    spec.lastFiredAt = kStart;
    return spec;
}

IterationRecord failedIteration(qint64 tableId, const QString &error) {
    IterationRecord record;
    record.id = tableId * 100;
    record.tableId = tableId;
    record.status = IterationStatus::Failed;
    record.error = error;
    return record;
}

RunRecord runOf(const QList<IterationRecord> &iterations, const QString &status) {
    RunRecord run;
    run.id = 9;
    run.status = status;
    run.iterations = iterations;
    return run;
}

const QString kRefused =
    QStringLiteral("connection to server at \"127.0.0.1\", port 1 failed: Connection refused");
const QString kMissingColumn = QStringLiteral("table 2 (src:orders): column \"updated_at\" does not exist");

} // namespace

class TestScheduler : public QObject {
    Q_OBJECT

private slots:
    void firesAtEachFireTime();
    void missedFiringsRunOnceAtStartUp();
    void neverFiredScheduleAnchorsOnCreation();
    void overlapSkipsAndLogs();
    void retriesTransientFailuresWithGrowingDelay();
    void validationErrorsNeverRetried();
    void regularFiringReplacesPendingRetry();
    void failureClassification_data();
    void failureClassification();
    void timeoutReportsOverdueIterationsOnce();
    void pausedFiresNothingAndResumeDoesNotCatchUp();
    void removedScheduleForgotten();
    void backwardStepNeitherStallsNorFiresTwice();
    void forwardStepFiresOnce();
    void lastFiringInTheFutureCountsAsNow();
    void backOffAndTimeoutIgnoreClockSteps();
    void failedFiringLeavesNothingRunning();
};

// An NTP correction steps the clock back an hour: the 2-second schedule fires again 2 s later
// on the new clock (it does not wait the hour out), and the instant it fired last is not fired
// again by the step.
void TestScheduler::backwardStepNeitherStallsNorFiresTwice() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    scheduler.update({every(QStringLiteral("s"), 2)});
    clock.advanceMs(2000);
    QList<Firing> due = scheduler.takeDue();
    QCOMPARE(due.size(), 1);
    QCOMPARE(due.first().at, kStart.addSecs(2));
    scheduler.runFinished(QStringLiteral("s"), runOf({}, QStringLiteral("succeeded")));

    clock.stepMs(-3600 * 1000);
    QVERIFY(scheduler.takeDue().isEmpty());
    QCOMPARE(scheduler.nextWakeUp(), kStart.addSecs(2 - 3600 + 2));
    clock.advanceMs(2000);
    due = scheduler.takeDue();
    QCOMPARE(due.size(), 1);
    QCOMPARE(due.first().at, kStart.addSecs(2 - 3600 + 2));
    scheduler.runFinished(QStringLiteral("s"), runOf({}, QStringLiteral("succeeded")));

    // A step back smaller than the period: the instant just fired is not due again.
    clock.stepMs(-1500);
    QVERIFY(scheduler.takeDue().isEmpty());
    clock.advanceMs(1000);
    QVERIFY(scheduler.takeDue().isEmpty());
    QCOMPARE(scheduler.nextWakeUp(), kStart.addSecs(2 - 3600 + 4));

    // A daily schedule stepped back an hour after its firing does not fire that day's time twice.
    FakeClock daily(kStart);
    Scheduler dailyScheduler(daily, fireTimes);
    dailyScheduler.update({every(QStringLiteral("d"), 86400)});
    const QDateTime midnight = QDateTime(kStart.date().addDays(1), QTime(0, 0), Qt::UTC);
    daily.set(midnight.addSecs(600));
    QCOMPARE(dailyScheduler.takeDue().size(), 1);
    dailyScheduler.runFinished(QStringLiteral("d"), runOf({}, QStringLiteral("succeeded")));
    daily.stepMs(-3600 * 1000);
    QVERIFY(dailyScheduler.takeDue().isEmpty());
    QCOMPARE(dailyScheduler.nextFireTime(QStringLiteral("d")), midnight.addDays(1));
}

// A step forward of a day: the firings it jumped over run once, then the schedule goes on.
void TestScheduler::forwardStepFiresOnce() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    scheduler.update({every(QStringLiteral("s"), 10)});
    clock.stepMs(86400 * 1000);
    QCOMPARE(scheduler.takeDue().size(), 1);
    scheduler.runFinished(QStringLiteral("s"), runOf({}, QStringLiteral("succeeded")));
    QVERIFY(scheduler.takeDue().isEmpty());
    // And back again: no day-long stall either (the instant the catch-up fired for, 10 s after
    // the start, is not fired a second time; the one after it is).
    clock.stepMs(-86400 * 1000);
    QVERIFY(scheduler.takeDue().isEmpty());
    clock.advanceMs(10000);
    QVERIFY(scheduler.takeDue().isEmpty());
    clock.advanceMs(10000);
    QCOMPARE(scheduler.takeDue().size(), 1);
}

// A standby whose clock is right takes over a workspace whose last firing was written a day
// ahead: it fires at the schedule's next time, not a day later.
void TestScheduler::lastFiringInTheFutureCountsAsNow() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    ScheduleSpec spec = every(QStringLiteral("s"), 10);
    spec.lastFiredAt = kStart.addDays(1);
    scheduler.update({spec});
    QCOMPARE(scheduler.nextFireTime(QStringLiteral("s")), kStart.addSecs(10));
    clock.advanceMs(10000);
    QCOMPARE(scheduler.takeDue().size(), 1);
}

// Durations are measured on the monotonic clock: a step back does not delay a retry or a
// timeout, a step forward does not bring them early.
void TestScheduler::backOffAndTimeoutIgnoreClockSteps() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes,
                        Scheduler::Options{std::chrono::seconds(5), std::chrono::minutes(10)});
    ScheduleSpec spec = every(QStringLiteral("s"), 3600);
    spec.retries = 1;
    spec.timeoutSeconds = 30;
    scheduler.update({spec});
    clock.advanceMs(3600 * 1000);
    QCOMPARE(scheduler.takeDue().size(), 1);
    scheduler.iterationStarted(QStringLiteral("s"), 7);
    clock.stepMs(86400 * 1000); // forward a day: no timeout yet
    QVERIFY(scheduler.takeOverdue().isEmpty());
    clock.stepMs(-2 * 86400 * 1000); // back two days: the timeout still comes after 30 s
    clock.advanceMs(30000);
    QCOMPARE(scheduler.takeOverdue(), QList<qint64>{7});

    QVERIFY(scheduler.runFinished(QStringLiteral("s"),
                                  runOf({failedIteration(1, kRefused)}, QStringLiteral("failed"))));
    clock.stepMs(-3600 * 1000);
    clock.advanceMs(5000);
    const QList<Firing> due = scheduler.takeDue();
    QCOMPARE(due.size(), 1);
    QCOMPARE(due.first().attempt, 1);
}

// A firing whose run never came to exist (the runner records it as failed) leaves its schedule
// free: the next due time fires, never "skipped: its run is still running".
void TestScheduler::failedFiringLeavesNothingRunning() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    scheduler.update({every(QStringLiteral("s"), 2)});
    clock.advanceMs(2000);
    QCOMPARE(scheduler.takeDue().size(), 1);
    QVERIFY(scheduler.isRunning(QStringLiteral("s")));
    QVERIFY(!scheduler.runFinished(QStringLiteral("s"), RunRecord()));
    QVERIFY(!scheduler.isRunning(QStringLiteral("s")));
    clock.advanceMs(2000);
    QCOMPARE(scheduler.takeDue().size(), 1);
    QVERIFY(scheduler.takeSkipped().isEmpty());
}

void TestScheduler::firesAtEachFireTime() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    scheduler.update({every(QStringLiteral("s"), 10)});
    QVERIFY(scheduler.takeDue().isEmpty());
    QCOMPARE(scheduler.nextWakeUp(), kStart.addSecs(10));

    clock.advanceMs(9999);
    QVERIFY(scheduler.takeDue().isEmpty());
    clock.advanceMs(1);
    const QList<Firing> due = scheduler.takeDue();
    QCOMPARE(due.size(), 1);
    QCOMPARE(due.first().schedule, QStringLiteral("s"));
    QCOMPARE(due.first().at, kStart.addSecs(10));
    QCOMPARE(due.first().attempt, 0);
    QVERIFY(due.first().tableIds.isEmpty());
    QVERIFY(scheduler.isRunning(QStringLiteral("s")));
    QVERIFY(scheduler.takeDue().isEmpty()); // each firing once

    scheduler.runFinished(QStringLiteral("s"), runOf({}, QStringLiteral("succeeded")));
    clock.advanceMs(10000);
    QCOMPARE(scheduler.takeDue().size(), 1);
}

void TestScheduler::missedFiringsRunOnceAtStartUp() {
    // The runner was down for an hour: 60 fire times passed; one firing makes up for them.
    FakeClock clock(kStart.addSecs(3600 + 30));
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    scheduler.update({every(QStringLiteral("s"), 60)});
    const QList<Firing> due = scheduler.takeDue();
    QCOMPARE(due.size(), 1);
    QCOMPARE(due.first().at, kStart.addSecs(60)); // the first one it missed
    scheduler.runFinished(QStringLiteral("s"), runOf({}, QStringLiteral("succeeded")));
    QVERIFY(scheduler.takeDue().isEmpty());
    QVERIFY(scheduler.takeSkipped().isEmpty());
    QCOMPARE(scheduler.nextWakeUp(), kStart.addSecs(3600 + 60)); // counted from now
}

void TestScheduler::neverFiredScheduleAnchorsOnCreation() {
    ScheduleSpec spec = every(QStringLiteral("s"), 60);
    spec.lastFiredAt = QDateTime();
    spec.createdAt = kStart.addSecs(-30);
    FakeClock clock(kStart.addSecs(10)); // created before the 12:00 fire time, runner starts after it
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    scheduler.update({spec});
    QCOMPARE(scheduler.takeDue().size(), 1);

    // Made after its last fire time: nothing missed.
    spec.name = QStringLiteral("fresh");
    spec.createdAt = kStart.addSecs(5);
    scheduler.update({spec});
    QVERIFY(scheduler.takeDue().isEmpty());
    QCOMPARE(scheduler.nextFireTime(QStringLiteral("fresh")), kStart.addSecs(60));
}

void TestScheduler::overlapSkipsAndLogs() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    scheduler.update({every(QStringLiteral("s"), 10)});
    clock.advanceMs(10000);
    QCOMPARE(scheduler.takeDue().size(), 1);
    scheduler.runStarted(QStringLiteral("s"), 7);

    // The run outlives two more fire times: neither starts a second run; both are reported.
    clock.advanceMs(10000);
    QVERIFY(scheduler.takeDue().isEmpty());
    clock.advanceMs(10000);
    scheduler.update({every(QStringLiteral("s"), 10)}); // reloading changes nothing
    QVERIFY(scheduler.takeDue().isEmpty());
    const QList<SkippedFiring> skipped = scheduler.takeSkipped();
    QCOMPARE(skipped.size(), 2);
    QCOMPARE(skipped.at(0).at, kStart.addSecs(20));
    QCOMPARE(skipped.at(0).runningRunId, qint64(7));
    QCOMPARE(skipped.at(1).at, kStart.addSecs(30));
    QVERIFY(scheduler.takeSkipped().isEmpty());

    // Once it ends, the next fire time starts a run again (no catch-up of the skipped ones).
    scheduler.runFinished(QStringLiteral("s"), runOf({}, QStringLiteral("succeeded")));
    QVERIFY(scheduler.takeDue().isEmpty());
    clock.advanceMs(10000);
    QCOMPARE(scheduler.takeDue().size(), 1);
}

void TestScheduler::retriesTransientFailuresWithGrowingDelay() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes,
                        Scheduler::Options{std::chrono::seconds(5), std::chrono::minutes(10)});
    ScheduleSpec spec = every(QStringLiteral("s"), 3600);
    spec.retries = 2;
    scheduler.update({spec});
    clock.advanceMs(3600 * 1000);
    QCOMPARE(scheduler.takeDue().size(), 1);

    // Table 1 lost its connection, table 2 has a missing column: only table 1 is retried.
    std::optional<Firing> retry = scheduler.runFinished(
        QStringLiteral("s"),
        runOf({failedIteration(1, kRefused), failedIteration(2, kMissingColumn)}, QStringLiteral("failed")));
    QVERIFY(retry);
    QCOMPARE(retry->tableIds, QList<qint64>{1});
    QCOMPARE(retry->attempt, 1);
    const QDateTime firstFailure = clock.now();
    QCOMPARE(retry->at, firstFailure.addSecs(5));
    QVERIFY(!scheduler.isRunning(QStringLiteral("s")));
    QCOMPARE(scheduler.nextWakeUp(), firstFailure.addSecs(5));

    clock.advanceMs(4999);
    QVERIFY(scheduler.takeDue().isEmpty());
    clock.advanceMs(1);
    QList<Firing> due = scheduler.takeDue();
    QCOMPARE(due.size(), 1);
    QCOMPARE(due.first().tableIds, QList<qint64>{1});
    QCOMPARE(due.first().attempt, 1);

    // Fails again: the second delay is twice the first.
    retry = scheduler.runFinished(QStringLiteral("s"),
                                  runOf({failedIteration(1, kRefused)}, QStringLiteral("failed")));
    QVERIFY(retry);
    QCOMPARE(retry->attempt, 2);
    QCOMPARE(retry->at, clock.now().addSecs(10));
    clock.advanceMs(10000);
    due = scheduler.takeDue();
    QCOMPARE(due.size(), 1);
    QCOMPARE(due.first().attempt, 2);

    // Retries used up: no third.
    QVERIFY(!scheduler.runFinished(QStringLiteral("s"),
                                   runOf({failedIteration(1, kRefused)}, QStringLiteral("failed"))));
    clock.advanceMs(60000);
    QVERIFY(scheduler.takeDue().isEmpty());

    QCOMPARE(scheduler.retryDelay(1), std::chrono::milliseconds(5000));
    QCOMPARE(scheduler.retryDelay(3), std::chrono::milliseconds(20000));
    QCOMPARE(scheduler.retryDelay(30), std::chrono::milliseconds(600000)); // capped
}

void TestScheduler::validationErrorsNeverRetried() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    ScheduleSpec spec = every(QStringLiteral("s"), 10);
    spec.retries = 5;
    scheduler.update({spec});
    clock.advanceMs(10000);
    QCOMPARE(scheduler.takeDue().size(), 1);
    QVERIFY(!scheduler.runFinished(QStringLiteral("s"),
                                   runOf({failedIteration(2, kMissingColumn)}, QStringLiteral("failed"))));
    // A cancelled iteration (a timeout, a shutdown) is not a transient failure either.
    clock.advanceMs(10000);
    QCOMPARE(scheduler.takeDue().size(), 1);
    IterationRecord cancelled = failedIteration(1, QStringLiteral("cancelled by the user"));
    cancelled.status = IterationStatus::Cancelled;
    QVERIFY(!scheduler.runFinished(QStringLiteral("s"), runOf({cancelled}, QStringLiteral("cancelled"))));
}

void TestScheduler::regularFiringReplacesPendingRetry() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes,
                        Scheduler::Options{std::chrono::seconds(30), std::chrono::minutes(10)});
    ScheduleSpec spec = every(QStringLiteral("s"), 10);
    spec.retries = 3;
    scheduler.update({spec});
    clock.advanceMs(10000);
    QCOMPARE(scheduler.takeDue().size(), 1);
    QVERIFY(scheduler.runFinished(QStringLiteral("s"),
                                  runOf({failedIteration(1, kRefused)}, QStringLiteral("failed"))));
    clock.advanceMs(10000); // the next fire time comes before the 30 s back-off ends
    const QList<Firing> due = scheduler.takeDue();
    QCOMPARE(due.size(), 1);
    QCOMPARE(due.first().attempt, 0);
    QVERIFY(due.first().tableIds.isEmpty()); // all its tables, the failed one included
    scheduler.runFinished(QStringLiteral("s"), runOf({}, QStringLiteral("succeeded")));
    clock.advanceMs(25000);
    const QList<Firing> later = scheduler.takeDue();
    QCOMPARE(later.size(), 1);
    QCOMPARE(later.first().attempt, 0); // the old retry is gone
}

void TestScheduler::failureClassification_data() {
    QTest::addColumn<QString>("error");
    QTest::addColumn<bool>("transient");
    QTest::newRow("pg refused") << kRefused << true;
    QTest::newRow("pg old refused") << QStringLiteral("could not connect to server: Connection refused")
                                    << true;
    QTest::newRow("pg lost") << QStringLiteral("server closed the connection unexpectedly") << true;
    QTest::newRow("pg admin shutdown")
        << QStringLiteral("terminating connection due to administrator command") << true;
    QTest::newRow("pg serialization")
        << QStringLiteral("could not serialize access due to concurrent update") << true;
    QTest::newRow("pg deadlock") << QStringLiteral("deadlock detected") << true;
    QTest::newRow("pg lock timeout") << QStringLiteral("canceling statement due to lock timeout") << true;
    QTest::newRow("sqlite busy") << QStringLiteral("dst.db: database is locked") << true;
    QTest::newRow("missing column") << kMissingColumn << false;
    QTest::newRow("auth") << QStringLiteral(
                                 "connection to server at \"x\" failed: FATAL: password authentication "
                                 "failed for user \"u\"")
                          << false;
    QTest::newRow("constraint") << QStringLiteral("UNIQUE constraint failed: orders.id") << false;
    QTest::newRow("validation") << QStringLiteral(
                                       "table 3: lookback 2h with mode append is refused; use merge")
                                << false;
    QTest::newRow("empty") << QString() << false;
}

void TestScheduler::failureClassification() {
    QFETCH(QString, error);
    QFETCH(bool, transient);
    QCOMPARE(isTransientFailure(error), transient);
}

void TestScheduler::timeoutReportsOverdueIterationsOnce() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    ScheduleSpec spec = every(QStringLiteral("s"), 3600);
    spec.timeoutSeconds = 30;
    ScheduleSpec untimed = every(QStringLiteral("u"), 3600);
    scheduler.update({spec, untimed});
    clock.advanceMs(3600 * 1000);
    QCOMPARE(scheduler.takeDue().size(), 2);
    scheduler.iterationStarted(QStringLiteral("s"), 5);
    scheduler.iterationStarted(QStringLiteral("u"), 6);
    clock.advanceMs(10000);
    scheduler.iterationStarted(QStringLiteral("s"), 8);
    QCOMPARE(scheduler.nextWakeUp(), kStart.addSecs(3600 + 30));
    clock.advanceMs(19999);
    QVERIFY(scheduler.takeOverdue().isEmpty());
    clock.advanceMs(1);
    QCOMPARE(scheduler.takeOverdue(), QList<qint64>{5});
    QVERIFY(scheduler.takeOverdue().isEmpty()); // reported once
    scheduler.iterationEnded(8);                // ended in time
    clock.advanceMs(3600 * 1000);
    QVERIFY(scheduler.takeOverdue().isEmpty()); // 6 has no timeout
}

void TestScheduler::pausedFiresNothingAndResumeDoesNotCatchUp() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    ScheduleSpec spec = every(QStringLiteral("s"), 10);
    spec.active = false;
    scheduler.update({spec});
    clock.advanceMs(60000);
    QVERIFY(scheduler.takeDue().isEmpty());
    QVERIFY(!scheduler.nextWakeUp().isValid());
    QVERIFY(!scheduler.nextFireTime(QStringLiteral("s")).isValid());

    spec.active = true;
    scheduler.update({spec});
    QVERIFY(scheduler.takeDue().isEmpty()); // the firings missed while paused are not made up
    QCOMPARE(scheduler.nextFireTime(QStringLiteral("s")), kStart.addSecs(70));
}

void TestScheduler::removedScheduleForgotten() {
    FakeClock clock(kStart);
    EveryNSeconds fireTimes;
    Scheduler scheduler(clock, fireTimes);
    scheduler.update({every(QStringLiteral("s"), 10)});
    scheduler.update({});
    clock.advanceMs(60000);
    QVERIFY(scheduler.takeDue().isEmpty());
    QVERIFY(!scheduler.runFinished(QStringLiteral("s"),
                                   runOf({failedIteration(1, kRefused)}, QStringLiteral("failed"))));
}

QTEST_GUILESS_MAIN(TestScheduler)
#include "tst_scheduler.moc"
