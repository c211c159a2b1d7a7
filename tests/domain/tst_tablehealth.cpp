// SPDX-License-Identifier: MIT
#include "model/common/error.h"
#include "model/domain/tablehealth.h"

#include <QTest>

using namespace tidemark;

Q_DECLARE_METATYPE(tidemark::IterationRecord)

class TestTableHealth : public QObject {
    Q_OBJECT

private slots:
    void health_data();
    void health();
    void parseStaleAfterAcceptsOneMinuteToTenYears();
};

namespace {

const QDateTime kNow(QDate(2026, 12, 6), QTime(12, 0), Qt::UTC);

QDateTime hoursAgo(int hours) {
    return kNow.addSecs(-3600LL * hours);
}

// The last finished iteration: at `finished`, position `after`, source maximum `upper`.
IterationRecord iteration(IterationStatus status, const QDateTime &finished, const QString &after,
                          const QString &upper) {
    IterationRecord record;
    record.id = 7;
    record.status = status;
    record.finishedAt = finished;
    record.watermarkAfter = after;
    record.windowUpper = upper;
    return record;
}

} // namespace

void TestTableHealth::health_data() {
    QTest::addColumn<QString>("staleAfter");
    QTest::addColumn<bool>("active");
    QTest::addColumn<IterationRecord>("last");
    QTest::addColumn<QDateTime>("movedAt");
    QTest::addColumn<QString>("health");
    QTest::addColumn<QString>("reasonHas");

    const IterationRecord caughtUp = iteration(IterationStatus::NoNewRows, hoursAgo(1), "500", "500");
    const IterationRecord rowsWaiting = iteration(IterationStatus::Cancelled, hoursAgo(1), "500", "900");
    const IterationRecord longAgo = iteration(IterationStatus::Succeeded, hoursAgo(50), "500", "500");
    IterationRecord failed = iteration(IterationStatus::Failed, hoursAgo(1), "500", "900");
    failed.error = "connection refused";

    QTest::newRow("no stale-after: never stalled") << "" << true << longAgo << hoursAgo(50) << "ok"
                                                   << "";
    QTest::newRow("moved within stale-after") << "1d" << true << longAgo << hoursAgo(3) << "ok"
                                              << "";
    QTest::newRow("still, but a recent run found nothing new: a quiet source")
        << "1d" << true << caughtUp << hoursAgo(50) << "ok"
        << "";
    QTest::newRow("still while rows wait above the position")
        << "1d" << true << rowsWaiting << hoursAgo(50) << "stalled"
        << "holds rows up to 900";
    QTest::newRow("still, and no run for longer than stale-after")
        << "1d" << true << longAgo << hoursAgo(50) << "stalled"
        << "no run has copied it since";
    QTest::newRow("still, and never run since it was added")
        << "1h" << true << IterationRecord() << hoursAgo(2) << "stalled"
        << "since it was added";
    QTest::newRow("a paused table stands still on purpose")
        << "1h" << false << IterationRecord() << hoursAgo(2) << "ok"
        << "";
    QTest::newRow("failing is worse than stalled") << "1h" << true << failed << hoursAgo(50) << "failing"
                                                   << "connection refused";
}

void TestTableHealth::health() {
    QFETCH(QString, staleAfter);
    QFETCH(bool, active);
    QFETCH(IterationRecord, last);
    QFETCH(QDateTime, movedAt);
    QFETCH(QString, health);
    QFETCH(QString, reasonHas);
    TableSpec spec;
    spec.staleAfter = staleAfter;
    spec.active = active;
    const TableHealth found = tableHealth(spec, last, movedAt, kNow);
    QCOMPARE(found.name, health);
    QVERIFY2(found.reason.contains(reasonHas), qPrintable(found.reason));
    if (health == QLatin1String("ok"))
        QVERIFY(found.reason.isEmpty());
    if (health == QLatin1String("stalled"))
        QVERIFY2(found.reason.contains(QStringLiteral("stale after %1").arg(staleAfter)),
                 qPrintable(found.reason));
}

void TestTableHealth::parseStaleAfterAcceptsOneMinuteToTenYears() {
    QCOMPARE(parseStaleAfter(QStringLiteral("90m"), QStringLiteral("--stale-after")), QStringLiteral("90m"));
    QCOMPARE(parseStaleAfter(QStringLiteral("86400"), QStringLiteral("--stale-after")), QStringLiteral("1d"));
    QCOMPARE(parseStaleAfter(QStringLiteral("none"), QStringLiteral("--stale-after")), QString());
    QCOMPARE(parseStaleAfter(QString(), QStringLiteral("--stale-after")), QString());
    for (const char *refused : {"30s", "3651d", "soon", "-1h"}) {
        try {
            parseStaleAfter(QString::fromLatin1(refused), QStringLiteral("table add: --stale-after"));
            QFAIL(refused);
        } catch (const ValidationError &error) {
            QVERIFY2(error.message().startsWith(QStringLiteral("table add: --stale-after")),
                     qPrintable(error.message()));
        }
    }
}

QTEST_GUILESS_MAIN(TestTableHealth)
#include "tst_tablehealth.moc"
