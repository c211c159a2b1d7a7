// SPDX-License-Identifier: MIT
// What the window's tray says about a finished run (RunNotifier::describe): failed, warning and
// interrupted runs are told, naming the tables; a clean run is not.

#include "ui/run/runnotifier.h"

#include <QSignalSpy>
#include <QTest>

using namespace tidemark;

namespace {

// Run 5 with one iteration per status name, on tables src:t1, src:t2, ...
RunRecord runWith(const QString &status, const QString &iterationStatuses) {
    RunRecord run;
    run.id = 5;
    run.status = status;
    int n = 0;
    for (const QString &name : iterationStatuses.split(QLatin1Char(','))) {
        IterationRecord record;
        record.tableId = ++n;
        record.source = QStringLiteral("src:t%1").arg(n);
        record.status = iterationStatusFromName(name).value();
        run.iterations << record;
    }
    return run;
}

} // namespace

class TestRunNotifier : public QObject {
    Q_OBJECT

private slots:
    void describe_data() {
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("iterations");
        QTest::addColumn<QString>("title");
        QTest::addColumn<QString>("message");
        QTest::newRow("succeeded") << QStringLiteral("succeeded") << QStringLiteral("succeeded,no_new_rows")
                                   << QString() << QString();
        QTest::newRow("failed") << QStringLiteral("failed") << QStringLiteral("succeeded,failed")
                                << QStringLiteral("Tidemark run 5 failed")
                                << QStringLiteral("Failed: src:t2");
        QTest::newRow("warning") << QStringLiteral("warning") << QStringLiteral("warning")
                                 << QStringLiteral("Tidemark run 5: warnings")
                                 << QStringLiteral("Warning: src:t1");
        QTest::newRow("interrupted") << QStringLiteral("interrupted")
                                     << QStringLiteral("succeeded,interrupted")
                                     << QStringLiteral("Tidemark run 5 interrupted")
                                     << QStringLiteral("Failed: src:t2");
    }

    void describe() {
        QFETCH(QString, status);
        QFETCH(QString, iterations);
        QFETCH(QString, title);
        QFETCH(QString, message);
        const RunRecord run = runWith(status, iterations);
        const auto [describedTitle, describedMessage] = RunNotifier::describe(run);
        QCOMPARE(describedTitle, title);
        QCOMPARE(describedMessage, message);

        RunNotifier notifier;
        QSignalSpy notified(&notifier, &RunNotifier::notified);
        notifier.runFinished(run);
        QCOMPARE(notified.size(), title.isEmpty() ? 0 : 1);
    }
};

QTEST_MAIN(TestRunNotifier)
#include "tst_runnotifier.moc"
