// SPDX-License-Identifier: MIT
// The caps (docs/design.md, "Caps"): the workspace's max concurrency, a connection's max
// connections and a process's own slots hold across every run and process of the workspace. An
// iteration over a full cap stays queued, saying which cap it waits for, and starts once a slot
// frees; an expired lease or a dead process frees its slot. Checked on the store, through a run
// in this process, and with three `tidemark-cli run` processes whose iterations' start and finish
// times (from history) never overlap more than a cap allows. Runs on workspace files and on
// server workspaces (tests/CMakeLists.txt).
#include "model/engine/runcoordinator.h"
#include "tests/engine/enginefixture.h"
#include "tests/support/timespans.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QSysInfo>
#include <QtTest>

#include <algorithm>

using namespace tidemark;
using namespace tidemark::test;

class TestCaps : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void workspaceCapHoldsAnIterationBack();
    void connectionCapCountsSourceAndTarget();
    void expiredAndDeadLeasesFreeTheirSlots();
    void processSlotsCapThisProcessOnly();
    void queuedIterationSaysWhyAndStartsOnceASlotFrees();
    void capsHoldAcrossProcesses();

private:
    // orders<n> (`rows` rows) copied from src into `target` (dst or dst2).
    qint64 addOrders(int n, int rows = 200, const QString &target = QStringLiteral("dst"));
    // A queued iteration of `tableId` in run `runId`, recorded.
    IterationRecord queued(qint64 runId, qint64 tableId);
    LeaseAttempt start(IterationRecord &record, int processSlots = 0) {
        return m_fixture->ws->startIteration(record, std::chrono::seconds(60), processSlots);
    }
    void capConnection(const QString &name, int cap);

    std::unique_ptr<EngineFixture> m_fixture;
};

namespace {

QString thisRunner() {
    return QStringLiteral("%1:%2").arg(QSysInfo::machineHostName()).arg(QCoreApplication::applicationPid());
}

} // namespace

void TestCaps::initTestCase() {
    TIDEMARK_REQUIRE_WORKSPACE_BACKEND();
    // Read once per process, at the first fault point: every copy here lasts long enough for the
    // others to ask for its slot.
    qputenv("TIDEMARK_FAULT_DELAY", "before_write_transaction:150");
}

void TestCaps::init() {
    m_fixture = std::make_unique<EngineFixture>();
    ConnectionSpec second;
    second.name = QStringLiteral("dst2");
    second.path = m_fixture->filePath(QStringLiteral("target2.db"));
    m_fixture->ws->addConnection(second);
}

void TestCaps::cleanup() {
    m_fixture.reset();
}

qint64 TestCaps::addOrders(int n, int rows, const QString &target) {
    const QString table = QStringLiteral("orders%1").arg(n);
    makeOrders(m_fixture->src, rows, 1, table);
    TableDraft draft = EngineFixture::draft(table, QStringLiteral("updated_at"));
    draft.spec.targetConnection = target;
    return m_fixture->addTable(draft);
}

IterationRecord TestCaps::queued(qint64 runId, qint64 tableId) {
    IterationRecord record;
    record.runId = runId;
    record.tableId = tableId;
    record.id = m_fixture->ws->addIteration(record);
    return record;
}

void TestCaps::capConnection(const QString &name, int cap) {
    ConnectionSpec spec = m_fixture->ws->requireConnection(name);
    spec.maxConnections = cap;
    m_fixture->ws->updateConnection(spec);
    QCOMPARE(m_fixture->ws->requireConnection(name).maxConnections, cap);
}

void TestCaps::workspaceCapHoldsAnIterationBack() {
    Workspace &ws = *m_fixture->ws;
    const qint64 a = addOrders(1), b = addOrders(2), c = addOrders(3);
    ws.setMaxConcurrency(2);
    QCOMPARE(ws.maxConcurrency(), 2);
    const qint64 runId = ws.beginRun(QStringLiteral("cli"), 3, false);
    IterationRecord first = queued(runId, a), second = queued(runId, b), third = queued(runId, c);
    QVERIFY(start(first).acquired);
    QVERIFY(start(second).acquired);
    const LeaseAttempt refused = start(third);
    QVERIFY(!refused.acquired);
    QCOMPARE(refused.waiting, QStringLiteral("waiting: the workspace has 2 of 2 iterations running"));
    QVERIFY(!refused.holder);
    QCOMPARE(third.status, IterationStatus::Queued); // untouched: nothing was written
    QVERIFY(!third.startedAt.isValid());

    ws.releaseLease(a, runId);
    QVERIFY(start(third).acquired);
    QCOMPARE(third.status, IterationStatus::Running);
    QVERIFY(third.startedAt.isValid());
    QCOMPARE(third.runner, thisRunner());
    const QList<IterationRecord> recorded = ws.runs(0, runId).value(0).iterations;
    const auto stored = *std::find_if(recorded.begin(), recorded.end(),
                                      [&](const IterationRecord &each) { return each.id == third.id; });
    QCOMPARE(stored.status, IterationStatus::Running);
    QCOMPARE(stored.runner, thisRunner());

    ws.setMaxConcurrency(0);
    QCOMPARE(ws.maxConcurrency(), 0);
    QVERIFY_THROWS_EXCEPTION(ValidationError, ws.setMaxConcurrency(-1));
}

void TestCaps::connectionCapCountsSourceAndTarget() {
    Workspace &ws = *m_fixture->ws;
    const qint64 intoDst = addOrders(1), alsoIntoDst = addOrders(2),
                 intoDst2 = addOrders(3, 200, QStringLiteral("dst2"));
    capConnection(QStringLiteral("dst"), 1);
    const qint64 runId = ws.beginRun(QStringLiteral("cli"), 3, false);
    IterationRecord first = queued(runId, intoDst), second = queued(runId, alsoIntoDst),
                    other = queued(runId, intoDst2);
    QVERIFY(start(first).acquired);
    QCOMPARE(start(second).waiting, QStringLiteral("waiting: connection dst has 1 of 1 in use"));
    QVERIFY(start(other).acquired); // src is shared, but has no cap

    // src, which all three read, capped at 2: the two running fill it.
    capConnection(QStringLiteral("src"), 2);
    ws.releaseLease(intoDst, runId);
    QVERIFY(start(second).acquired);
    IterationRecord again = queued(runId, intoDst);
    QCOMPARE(start(again).waiting, QStringLiteral("waiting: connection dst has 1 of 1 in use"));
    capConnection(QStringLiteral("dst"), 0);
    QCOMPARE(start(again).waiting, QStringLiteral("waiting: connection src has 2 of 2 in use"));
}

void TestCaps::expiredAndDeadLeasesFreeTheirSlots() {
    Workspace &ws = *m_fixture->ws;
    const qint64 a = addOrders(1), b = addOrders(2), c = addOrders(3);
    ws.setMaxConcurrency(1);
    const qint64 runId = ws.beginRun(QStringLiteral("cli"), 3, false);
    IterationRecord first = queued(runId, a);
    QVERIFY(start(first).acquired);
    IterationRecord second = queued(runId, b);
    QVERIFY(!start(second).acquired);

    // Its lease expired: the slot is free (and so is its table, for whoever takes it over).
    execWorkspaceSql(m_fixture->wsPath,
                     QStringLiteral("UPDATE leases SET expires_at = ?1 WHERE table_id = ?2"),
                     {isoUtc(QDateTime::currentDateTimeUtc().addSecs(-1)), a});
    QVERIFY(start(second).acquired);

    // A process gone on this host frees its slot before its lease expires.
    execWorkspaceSql(m_fixture->wsPath, QStringLiteral("UPDATE leases SET pid = ?1 WHERE table_id = ?2"),
                     {qint64(2147483646), b});
    IterationRecord third = queued(runId, c);
    QVERIFY(start(third).acquired);
    // ...and a live one elsewhere holds it until it expires.
    execWorkspaceSql(m_fixture->wsPath, QStringLiteral("UPDATE leases SET host = ?1 WHERE table_id = ?2"),
                     {QStringLiteral("another-host.example"), c});
    IterationRecord fourth = queued(runId, a);
    QCOMPARE(start(fourth).waiting, QStringLiteral("waiting: the workspace has 1 of 1 iterations running"));
}

void TestCaps::processSlotsCapThisProcessOnly() {
    Workspace &ws = *m_fixture->ws;
    const qint64 a = addOrders(1), b = addOrders(2);
    const qint64 runId = ws.beginRun(QStringLiteral("cli"), 2, false);
    IterationRecord first = queued(runId, a), second = queued(runId, b);
    QVERIFY(start(first, 1).acquired);
    QCOMPARE(start(second, 1).waiting, QStringLiteral("waiting: this process has 1 of 1 slots in use"));
    // Another process's slots are its own: without a limit of its own, this one is not held back.
    QVERIFY(start(second, 0).acquired);
}

void TestCaps::queuedIterationSaysWhyAndStartsOnceASlotFrees() {
    Workspace &ws = *m_fixture->ws;
    QList<qint64> ids;
    for (int n = 1; n <= 3; ++n)
        ids << addOrders(n, 2000);
    ws.setMaxConcurrency(1);
    RunCoordinator coordinator(m_fixture->wsPath);
    QSignalSpy changed(&coordinator, &RunCoordinator::iterationChanged);
    QSignalSpy finished(&coordinator, &RunCoordinator::runFinished);
    RunRequest request;
    request.concurrency = 3;
    QVERIFY(coordinator.start(request));
    QVERIFY(finished.wait(120000));
    const RunRecord run = finished.takeFirst().at(0).value<RunRecord>();

    QStringList waits;
    for (const QList<QVariant> &signal : std::as_const(changed)) {
        const auto record = signal.at(0).value<IterationRecord>();
        if (record.status == IterationStatus::Queued && !record.waiting.isEmpty())
            waits << record.waiting;
    }
    QVERIFY2(!waits.isEmpty(), "two of three iterations must have waited for the one slot");
    QCOMPARE(waits.first(), QStringLiteral("waiting: the workspace has 1 of 1 iterations running"));

    QList<Span> spans;
    const QList<RunRecord> runs = ws.runs();
    QCOMPARE(runs.size(), 1);
    for (const IterationRecord &iteration : runs.first().iterations) {
        QCOMPARE(iteration.status, IterationStatus::Succeeded);
        QCOMPARE(iteration.runner, thisRunner());
        QVERIFY(iteration.waiting.isEmpty());
        spans.append({iteration.startedAt, iteration.finishedAt, iteration.target});
    }
    QCOMPARE(spans.size(), 3);
    QCOMPARE(mostAtOnce(spans), 1);
    for (int n = 1; n <= 3; ++n)
        QCOMPARE(countRows(m_fixture->dst, QStringLiteral("orders%1").arg(n)), qint64(2000));
    QCOMPARE(run.status, QStringLiteral("succeeded"));
}

void TestCaps::capsHoldAcrossProcesses() {
    constexpr int kTables = 9;
    constexpr int kRows = 3000;
    QList<qint64> ids;
    for (int n = 1; n <= kTables; ++n)
        ids << addOrders(n, kRows, n <= 5 ? QStringLiteral("dst") : QStringLiteral("dst2"));
    const auto cli = [this](const QStringList &args) {
        return runCli(QStringList{QStringLiteral("-w"), m_fixture->wsPath} + args);
    };
    QCOMPARE(cli({QStringLiteral("workspace"), QStringLiteral("set"), QStringLiteral("--max-concurrency"),
                  QStringLiteral("3")})
                 .out,
             QStringLiteral("max concurrency: 3 iteration(s) at once across the workspace\n"));
    const CliResult capped = cli({QStringLiteral("connection"), QStringLiteral("set"), QStringLiteral("dst"),
                                  QStringLiteral("--max-connections"), QStringLiteral("1")});
    QVERIFY2(capped.exitCode == 0, qPrintable(capped.describe()));

    // Three processes, three tables each, all at once: nine iterations asking for three slots,
    // the five into dst for one.
    QList<QProcess *> processes;
    for (int p = 0; p < 3; ++p) {
        auto *process = new QProcess(this);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
        env.insert(QStringLiteral("TIDEMARK_FAULT_DELAY"), QStringLiteral("before_write_transaction:200"));
        process->setProcessEnvironment(env);
        QStringList args{QStringLiteral("-w"),
                         m_fixture->wsPath,
                         QStringLiteral("run"),
                         QStringLiteral("--json"),
                         QStringLiteral("--concurrency"),
                         QStringLiteral("3")};
        for (int t = p; t < kTables; t += 3)
            args << QStringLiteral("--table") << QString::number(ids.at(t));
        process->start(cliPath(), args);
        processes << process;
    }
    QStringList runners;
    for (QProcess *process : std::as_const(processes)) {
        QVERIFY(process->waitForFinished(180000));
        QVERIFY2(process->exitCode() == 0, process->readAllStandardError().constData());
        const QJsonObject run = parseJsonObject(QString::fromUtf8(process->readAllStandardOutput()));
        for (const QJsonValue &iteration : run.value(QStringLiteral("iterations")).toArray())
            runners << iteration.toObject().value(QStringLiteral("runner")).toString();
        delete process;
    }
    runners.removeDuplicates();
    QCOMPARE(runners.size(), 3); // each process recorded itself as its iterations' runner

    const CliResult history = cli({QStringLiteral("history"), QStringLiteral("--json")});
    QVERIFY2(history.exitCode == 0, qPrintable(history.describe()));
    QList<Span> all;
    QList<Span> intoDst;
    for (const QJsonValue &runValue : parseJsonArray(history.out)) {
        for (const QJsonValue &value : runValue.toObject().value(QStringLiteral("iterations")).toArray()) {
            const QJsonObject iteration = value.toObject();
            QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
            const Span span{QDateTime::fromString(iteration.value(QStringLiteral("started_at")).toString(),
                                                  Qt::ISODateWithMs),
                            QDateTime::fromString(iteration.value(QStringLiteral("finished_at")).toString(),
                                                  Qt::ISODateWithMs),
                            iteration.value(QStringLiteral("target")).toString()};
            QVERIFY(span.start.isValid() && span.finish.isValid() && span.start <= span.finish);
            all << span;
            if (span.target.startsWith(QLatin1String("dst:")))
                intoDst << span;
        }
    }
    QCOMPARE(all.size(), kTables);
    QCOMPARE(intoDst.size(), 5);
    QVERIFY2(mostAtOnce(all) <= 3, qPrintable(QString::number(mostAtOnce(all))));
    QCOMPARE(mostAtOnce(intoDst), 1);
    // The caps held something back (the waits are logged), and the work still overlapped.
    QVERIFY(execWorkspaceSql(m_fixture->wsPath,
                             QStringLiteral("SELECT count(*) FROM iteration_logs WHERE message LIKE ?1"),
                             {QStringLiteral("waiting: %")})
                .toInt() > 0);
    QVERIFY(mostAtOnce(all) >= 2);
    for (int n = 1; n <= kTables; ++n)
        QCOMPARE(countRows(n <= 5 ? m_fixture->dst : m_fixture->filePath(QStringLiteral("target2.db")),
                           QStringLiteral("orders%1").arg(n)),
                 qint64(kRows));
}

QTEST_GUILESS_MAIN(TestCaps)
#include "tst_caps.moc"
