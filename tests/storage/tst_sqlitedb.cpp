// SPDX-License-Identifier: MIT
#include "model/common/error.h"
#include "model/sqlite/sqlitedb.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <thread>

using namespace tidemark;

class TestSqliteDb : public QObject {
    Q_OBJECT
private slots:
    // Iterations writing into one target file queue behind each other's commits for minutes if
    // need be; a Cancel must still end such a wait at once (sqlite3_interrupt alone does not).
    void interruptEndsAWaitForAnotherWritersLock() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("target.db"));
        SqliteDb holder(path, SqliteDb::Mode::ReadWriteCreate);
        holder.exec(QStringLiteral("CREATE TABLE t (x INTEGER)"));
        holder.exec(QStringLiteral("BEGIN IMMEDIATE"));

        constexpr int kWaitMs = 10 * 60 * 1000;
        SqliteDb waiter(path, SqliteDb::Mode::ReadWrite, kWaitMs);
        QString failure;
        QElapsedTimer clock;
        clock.start();
        std::thread writer([&] {
            try {
                waiter.exec(QStringLiteral("BEGIN IMMEDIATE"));
            } catch (const Error &error) {
                failure = error.message();
            }
        });
        QTest::qWait(300);
        waiter.interrupt();
        writer.join();
        QVERIFY2(!failure.isEmpty(), "the wait ended without an error");
        QVERIFY2(clock.elapsed() < kWaitMs / 2,
                 qPrintable(QStringLiteral("waited %1 ms").arg(clock.elapsed())));
        holder.exec(QStringLiteral("COMMIT"));
    }

    // Without an interrupt the wait lasts until the other writer commits.
    void aWriterWaitsForTheOtherWritersCommit() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("target.db"));
        SqliteDb holder(path, SqliteDb::Mode::ReadWriteCreate);
        holder.exec(QStringLiteral("CREATE TABLE t (x INTEGER)"));
        holder.exec(QStringLiteral("BEGIN IMMEDIATE"));
        SqliteDb waiter(path, SqliteDb::Mode::ReadWrite, 10 * 60 * 1000);
        QString failure;
        std::thread writer([&] {
            try {
                waiter.exec(QStringLiteral("BEGIN IMMEDIATE; INSERT INTO t VALUES (2); COMMIT"));
            } catch (const Error &error) {
                failure = error.message();
            }
        });
        QTest::qWait(300);
        holder.exec(QStringLiteral("INSERT INTO t VALUES (1); COMMIT"));
        writer.join();
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        SqliteDb reader(path, SqliteDb::Mode::ReadOnly);
        SqliteStatement count(reader, QStringLiteral("SELECT count(*) FROM t"));
        QVERIFY(count.step());
        QCOMPARE(count.columnInt64(0), qint64(2));
    }
};

QTEST_GUILESS_MAIN(TestSqliteDb)
#include "tst_sqlitedb.moc"
