// SPDX-License-Identifier: MIT
// One workspace shared the way it is in production: a long CLI run with several iterations at
// once, CLI readers started again and again beside it (what cron and a terminal do), and the
// window's own run in this process. A process that closes any descriptor of the workspace file
// outside SQLite drops its locks, and then another process deletes the live WAL under it
// ("database disk image is malformed", "disk I/O error", iterations left queued).

#include "model/common/error.h"
#include "model/engine/runcoordinator.h"
#include "model/models/controltablemodel.h"
#include "model/sqlite/sqlitedb.h"
#include "tests/ui/uifixture.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/mainwindow/mainwindow.h"

#include <QProcess>
#include <QSignalSpy>
#include <QtTest>

#include <memory>

using namespace tidemark;
using namespace tidemark::test;

namespace {

constexpr int kCliTables = 10;
constexpr int kWindowTables = 3;
constexpr int kRows = 40000;

QProcessEnvironment cliEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    return env;
}

// Runs read-only CLI commands one after another until stopped; remembers every failure.
class ReaderLoop : public QObject {
public:
    ReaderLoop(const QString &workspace, int offset)
        : m_workspace(workspace)
        , m_next(offset) {
        m_process.setProcessEnvironment(cliEnvironment());
        connect(&m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
            ++m_runs;
            const QString out = QString::fromUtf8(m_process.readAllStandardOutput());
            const QString err = QString::fromUtf8(m_process.readAllStandardError());
            bool parsed = true;
            if (exitCode == 0 && m_args.contains(QStringLiteral("--json")))
                parseJsonArray(out, &parsed);
            if (status != QProcess::NormalExit || exitCode != 0 || !parsed)
                m_failures << QStringLiteral("%1 -> exit %2: %3")
                                  .arg(m_args.join(QLatin1Char(' ')))
                                  .arg(exitCode)
                                  .arg(err.trimmed());
            startNext();
        });
        startNext();
    }

    void stop() { m_stopping = true; }
    bool idle() const { return m_stopping && m_process.state() == QProcess::NotRunning; }
    int runs() const { return m_runs; }
    QStringList failures() const { return m_failures; }

private:
    void startNext() {
        if (m_stopping)
            return;
        static const QList<QStringList> commands = {
            {QStringLiteral("table"), QStringLiteral("list")},
            {QStringLiteral("history"), QStringLiteral("--limit"), QStringLiteral("5")},
            {QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")},
            {QStringLiteral("history"), QStringLiteral("--json"), QStringLiteral("--limit"),
             QStringLiteral("5")},
        };
        m_args = commands.at(m_next++ % commands.size());
        m_process.start(cliPath(), QStringList{QStringLiteral("-w"), m_workspace} + m_args);
    }

    QString m_workspace;
    QProcess m_process;
    QStringList m_args;
    int m_next = 0;
    int m_runs = 0;
    bool m_stopping = false;
    QStringList m_failures;
};

// "ok", or what is wrong (a file too damaged to check says so instead of throwing).
// SQLite's own check of a file two processes wrote at once; a server keeps its own house.
QString integrityCheck(const QString &path) {
    if (tidemark::test::serverWorkspaces())
        return QStringLiteral("ok");
    try {
        SqliteDb db(path, SqliteDb::Mode::ReadOnly);
        SqliteStatement stmt(db, QStringLiteral("PRAGMA integrity_check"));
        QStringList lines;
        while (stmt.step())
            lines << stmt.columnText(0);
        return lines.join(QLatin1Char('\n'));
    } catch (const Error &error) {
        return error.message();
    }
}

} // namespace

class TestSharedWorkspace : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { isolateSettings(); }

    void runsAndReadersShareTheWorkspace() {
        UiFixture fixture;
        QVERIFY(fixture.isValid());
        QList<qint64> cliIds;
        QList<qint64> windowIds;
        for (int t = 0; t < kCliTables + kWindowTables; ++t) {
            const QString table = QStringLiteral("orders_%1").arg(t);
            makeOrders(fixture.src, kRows, 1, table);
            TableDraft draft = UiFixture::draft(table, QStringLiteral("updated_at"));
            // Many small commits: the run writes the workspace and the target all along.
            draft.spec.commitPerBatch = true;
            draft.spec.batchSize = 2000;
            (t < kCliTables ? cliIds : windowIds) << fixture.addTable(draft);
        }

        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy opened(&window, &MainWindow::workspaceOpened);
        window.openWorkspace(fixture.wsPath);
        QTRY_COMPARE(opened.size(), 1);
        QTRY_COMPARE(window.controlTable()->model()->rowCount(), kCliTables + kWindowTables);

        // The long CLI run, three iterations at a time.
        QProcess cliRun;
        cliRun.setProcessEnvironment(cliEnvironment());
        QStringList args{QStringLiteral("-w"),  fixture.wsPath,
                         QStringLiteral("run"), QStringLiteral("--concurrency"),
                         QStringLiteral("3"),   QStringLiteral("--json")};
        for (const qint64 id : std::as_const(cliIds))
            args << QStringLiteral("--table") << QString::number(id);
        cliRun.start(cliPath(), args);
        QVERIFY(cliRun.waitForStarted());

        // Readers beside it, as cron and a terminal would start them.
        std::vector<std::unique_ptr<ReaderLoop>> readers;
        for (int r = 0; r < 3; ++r)
            readers.push_back(std::make_unique<ReaderLoop>(fixture.wsPath, r));

        // The window's own run, on its own tables (leases keep two runs off one table).
        QSignalSpy windowFinished(window.coordinator(), &RunCoordinator::runFinished);
        RunRequest request;
        request.tableIds = windowIds;
        request.concurrency = 2;
        QVERIFY(window.coordinator()->start(request));

        QTRY_VERIFY_WITH_TIMEOUT(cliRun.state() == QProcess::NotRunning && windowFinished.size() == 1,
                                 600000);
        for (auto &reader : readers)
            reader->stop();
        QTRY_VERIFY_WITH_TIMEOUT(
            std::all_of(readers.begin(), readers.end(), [](const auto &r) { return r->idle(); }), 120000);

        QStringList readerFailures;
        int readerRuns = 0;
        for (const auto &reader : readers) {
            readerFailures << reader->failures();
            readerRuns += reader->runs();
        }
        qInfo("%d reader processes ran beside the two runs", readerRuns);

        // The window's run: every iteration succeeded.
        const RunRecord windowRun = windowFinished.first().at(0).value<RunRecord>();
        QStringList problems;
        for (const IterationRecord &it : windowRun.iterations) {
            if (it.status != IterationStatus::Succeeded)
                problems << QStringLiteral("window run, table %1: %2 %3")
                                .arg(it.tableId)
                                .arg(iterationStatusName(it.status), it.error);
        }
        // The CLI run: exit 0 and every iteration succeeded.
        const QString cliOut = QString::fromUtf8(cliRun.readAllStandardOutput());
        const QString cliErr = QString::fromUtf8(cliRun.readAllStandardError());
        if (cliRun.exitStatus() != QProcess::NormalExit || cliRun.exitCode() != 0)
            problems << QStringLiteral("cli run exit %1: %2").arg(cliRun.exitCode()).arg(cliErr.trimmed());
        bool ok = false;
        const QJsonObject cliJson = parseJsonObject(cliOut, &ok);
        if (!ok)
            problems << QStringLiteral("cli run printed no JSON: %1").arg(cliOut);
        for (const QJsonValue &value : cliJson.value(QStringLiteral("iterations")).toArray()) {
            const QJsonObject it = value.toObject();
            if (it.value(QStringLiteral("status")).toString() != QLatin1String("succeeded"))
                problems << QStringLiteral("cli run, table %1: %2 %3")
                                .arg(it.value(QStringLiteral("table_id")).toInteger())
                                .arg(it.value(QStringLiteral("status")).toString(),
                                     it.value(QStringLiteral("error")).toString());
        }
        if (cliJson.value(QStringLiteral("iterations")).toArray().size() != kCliTables)
            problems << QStringLiteral("cli run reported %1 iterations")
                            .arg(cliJson.value(QStringLiteral("iterations")).toArray().size());

        const QString integrity = integrityCheck(fixture.wsPath);
        QVERIFY2(problems.isEmpty() && readerFailures.isEmpty() && integrity == QLatin1String("ok"),
                 qPrintable(QStringLiteral("integrity_check: %1\n%2\nreaders:\n%3")
                                .arg(integrity, problems.join(QLatin1Char('\n')),
                                     readerFailures.mid(0, 10).join(QLatin1Char('\n')))));

        // What the workspace recorded agrees: both runs succeeded, nothing is left running.
        const QList<RunRecord> runs = fixture.open()->runs();
        QCOMPARE(runs.size(), 2);
        for (const RunRecord &run : runs) {
            QCOMPARE(run.status, QStringLiteral("succeeded"));
            for (const IterationRecord &it : run.iterations)
                QCOMPARE(it.status, IterationStatus::Succeeded);
        }
        for (int t = 0; t < kCliTables + kWindowTables; ++t)
            QCOMPARE(countRows(fixture.dst, QStringLiteral("orders_%1").arg(t)), qint64(kRows));
        QVERIFY(window.close());
    }
};

QTEST_MAIN(TestSharedWorkspace)
#include "tst_sharedworkspace.moc"
