// SPDX-License-Identifier: MIT
// The catalog service the window browses sources with, the watermark suggestion built on it, and
// the remote-work queue they run on: superseded jobs are dropped, a cancel interrupts a running
// statement.

#include "model/common/error.h"
#include "model/domain/connectionspec.h"
#include "model/engine/remotework.h"
#include "model/engine/sourcecatalog.h"
#include "model/engine/tablesetup.h"
#include "model/engine/watermarksuggestion.h"
#include "tests/support/testsupport.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

using namespace tidemark;

namespace {

// A view whose rows never end: describing it scans a column forever unless interrupted.
const QString kEndlessView =
    QStringLiteral("CREATE VIEW endless AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                   "SELECT x AS id, x AS n FROM c");

} // namespace

class TestSourceCatalog : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir{test::fastTempTemplate()};
    QString m_db;

    ConnectionSpec source() const { return test::sqliteSpec(QStringLiteral("src"), m_db); }

    QList<SourceColumn> describe(const QString &table) {
        RemoteTask task;
        return describeSourceColumns(source(), table, task);
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("source.db"));
        for (const char *sql : {
                 // The ideal: indexed, never null, a timestamp that follows changes.
                 "CREATE TABLE orders (id INTEGER PRIMARY KEY, created_at TIMESTAMP, "
                 "updated_at TIMESTAMP NOT NULL, note TEXT)",
                 "CREATE INDEX orders_updated ON orders (updated_at)",
                 // Never null beats indexed: a NULL watermark is a row never copied.
                 "CREATE TABLE events (seen_at TIMESTAMP NOT NULL, logged_at TIMESTAMP)",
                 "CREATE INDEX events_logged ON events (logged_at)",
                 // An indexed, non-null integer beats a timestamp without an index.
                 "CREATE TABLE ledger (entry_no INTEGER NOT NULL, booked_at TIMESTAMP NOT NULL, "
                 "amount REAL)",
                 "CREATE UNIQUE INDEX ledger_entry ON ledger (entry_no)",
                 // Only an index's first column counts as indexed.
                 "CREATE TABLE pairs (k TEXT NOT NULL, changed_at TIMESTAMP NOT NULL, "
                 "made_at TIMESTAMP NOT NULL)",
                 "CREATE INDEX pairs_k ON pairs (k, changed_at)",
                 // Nothing can order a watermark.
                 "CREATE TABLE notes (title TEXT, body TEXT)",
             })
            test::execSql(m_db, QString::fromLatin1(sql));
        test::execSql(m_db, kEndlessView);
    }

    void indexAndNullabilityComeFromTheCatalog() {
        const QList<SourceColumn> columns = describe(QStringLiteral("orders"));
        QCOMPARE(columns.size(), 4);
        QVERIFY(columns.at(0).column.indexed); // INTEGER PRIMARY KEY: the rowid itself
        QVERIFY(columns.at(0).column.notNull); // ... which is never null
        QVERIFY(!columns.at(1).column.indexed);
        QVERIFY(columns.at(2).column.indexed);
        QVERIFY(columns.at(2).column.notNull);
        QVERIFY(!columns.at(1).column.notNull);
        QCOMPARE(columns.at(2).watermarkType, WatermarkType::Timestamp);
        QCOMPARE(columns.at(3).watermarkType, WatermarkType::None);

        const QList<SourceColumn> pairs = describe(QStringLiteral("pairs"));
        QVERIFY(pairs.at(0).column.indexed);
        QVERIFY(!pairs.at(1).column.indexed); // second column of pairs_k
    }

    void suggestsTheBestWatermark_data() {
        QTest::addColumn<QString>("table");
        QTest::addColumn<QString>("column");
        QTest::addColumn<QString>("reason");
        QTest::newRow("indexed non-null timestamp")
            << QStringLiteral("orders") << QStringLiteral("updated_at")
            << QStringLiteral("updated_at: indexed timestamp, never null");
        QTest::newRow("never null before indexed")
            << QStringLiteral("events") << QStringLiteral("seen_at")
            << QStringLiteral("seen_at: timestamp, never null, not indexed (each run scans the table)");
        QTest::newRow("indexed integer before unindexed timestamp")
            << QStringLiteral("ledger") << QStringLiteral("entry_no")
            << QStringLiteral("entry_no: indexed integer, never null");
        QTest::newRow("a name that says it changed")
            << QStringLiteral("pairs") << QStringLiteral("changed_at")
            << QStringLiteral("changed_at: timestamp, never null, not indexed (each run scans the table)");
        QTest::newRow("nothing orders") << QStringLiteral("notes") << QString() << QString();
    }

    void suggestsTheBestWatermark() {
        QFETCH(QString, table);
        QFETCH(QString, column);
        QFETCH(QString, reason);
        const std::optional<WatermarkSuggestion> suggestion = suggestWatermark(describe(table));
        QCOMPARE(suggestion.has_value(), !column.isEmpty());
        if (!suggestion)
            return;
        QCOMPARE(suggestion->column, column);
        QCOMPARE(suggestion->reason, reason);
    }

    void nullableColumnsSayWhatTheyCost() {
        const QList<SourceColumn> columns = describe(QStringLiteral("events"));
        QCOMPARE(watermarkQualities(columns.at(1)),
                 QStringLiteral("indexed timestamp, may be null (rows with no value are never copied)"));
    }

    void missingSqliteFileIsSaidPlainly() {
        const QString missing = m_dir.filePath(QStringLiteral("missing.db"));
        RemoteTask task;
        try {
            testConnection(test::sqliteSpec(QStringLiteral("gone"), missing), task);
            QFAIL("a missing file was tested as working");
        } catch (const Error &error) {
            QVERIFY2(error.message().contains(QLatin1String("does not exist")), qPrintable(error.message()));
        }
        QVERIFY(!QFile::exists(missing));
        QCOMPARE(testConnection(source(), task).tables, 6);
    }

    void cliWordingIsUnchangedAndTheWindowSpeaksPlainly() {
        TableSpec empty;
        QCOMPARE(checkTableRules(empty).value(0), QStringLiteral("--source must be CONN:TABLE"));
        const QString window = checkTableRules(empty, Wording::Window).join(QLatin1Char('\n'));
        QVERIFY2(window.contains(QLatin1String("Choose a source table.")), qPrintable(window));
        QVERIFY2(!window.contains(QLatin1String("--")), qPrintable(window));
    }

    void supersededJobsAreDropped() {
        RemoteWorkQueue queue;
        QStringList replies;
        for (const QString &table :
             {QStringLiteral("orders"), QStringLiteral("events"), QStringLiteral("ledger")}) {
            queue.submit(
                QStringLiteral("columns"),
                [spec = source(), table](RemoteTask &task) {
                    return describeSourceColumns(spec, table, task);
                },
                [&replies, table](const QList<SourceColumn> &) { replies << table; });
        }
        QCOMPARE(queue.pendingCount(), 1);
        QTRY_COMPARE(queue.pendingCount(), 0);
        QCOMPARE(replies, QStringList{QStringLiteral("ledger")});
    }

    void cancelInterruptsARunningStatement() {
        RemoteWorkQueue queue;
        auto started = std::make_shared<std::atomic_bool>(false);
        bool answered = false;
        queue.submit(
            QStringLiteral("columns"),
            [spec = source(), started](RemoteTask &task) {
                *started = true;
                return describeSourceColumns(spec, QStringLiteral("endless"), task);
            },
            [&answered](const QList<SourceColumn> &) { answered = true; },
            [&answered](const QString &) { answered = true; });
        QTRY_VERIFY(started->load());
        QTest::qWait(50); // into the endless scan
        QCOMPARE(RemoteWorkQueue::pool().activeThreadCount(), 1);
        queue.cancel(QStringLiteral("columns"));
        QCOMPARE(queue.pendingCount(), 0);
        // Only an interrupted statement lets the thread go: the scan never ends by itself.
        QTRY_COMPARE(RemoteWorkQueue::pool().activeThreadCount(), 0);
        QCoreApplication::processEvents();
        QVERIFY(!answered);
    }

    void destroyingTheQueueCancelsWithoutWaiting() {
        auto started = std::make_shared<std::atomic_bool>(false);
        {
            RemoteWorkQueue queue;
            queue.submit(
                QString(),
                [spec = source(), started](RemoteTask &task) {
                    *started = true;
                    return describeSourceColumns(spec, QStringLiteral("endless"), task);
                },
                [](const QList<SourceColumn> &) { QFAIL("a destroyed queue answered"); });
            QTRY_VERIFY(started->load());
        }
        QTRY_COMPARE(RemoteWorkQueue::pool().activeThreadCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestSourceCatalog)
#include "tst_sourcecatalog.moc"
