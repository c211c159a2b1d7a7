// SPDX-License-Identifier: MIT
#include "tests/support/historyfill.h"

#include "model/common/timestamp.h"
#include "model/domain/runrecord.h"
#include "model/storage/storedb.h"
#include "model/storage/storeopen.h"

namespace tidemark::test {

QDateTime historyRunStart(int run) {
    const QDateTime base(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);
    if (run % 10 == 0)
        return base.addSecs(60 * (run - 10) - 3600);
    return base.addSecs(60 * run);
}

bool historyCopies(int run, int table) {
    return table == 1 || (run + table) % 3 != 0;
}

qint64 historyRowsWritten(int run, int table) {
    return qint64(run) * 10 + table;
}

QString historyIterationStatus(int run, int table) {
    if (table == 1 && run % 7 == 0)
        return QStringLiteral("failed");
    if (table == 2 && run % 5 == 0)
        return QStringLiteral("no_new_rows");
    return QStringLiteral("succeeded");
}

void fillHistory(const QString &workspacePath, int runs, int tables) {
    const std::unique_ptr<StoreDb> store = openStoreDb(workspacePath);
    StoreDb &db = *store;
    Transaction transaction(db);
    Statement run(db, QStringLiteral(R"(INSERT INTO runs (id, "trigger", host, pid, started_at, )"
                                     "finished_at, status, concurrency, dry_run) VALUES "
                                     "(?1, 'cli', 'bench', 1, ?2, ?3, ?4, 2, 0)"));
    Statement iteration(
        db, QStringLiteral("INSERT INTO iterations (run_id, table_id, source, target, status, started_at, "
                           "finished_at, duration_ms, rows_read, rows_written, rows_skipped) VALUES "
                           "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"));
    Statement log(db, QStringLiteral("INSERT INTO iteration_logs (iteration_id, at, level, message) "
                                     "VALUES (?1, ?2, 'info', ?3)"));
    for (int r = 1; r <= runs; ++r) {
        const QDateTime started = historyRunStart(r);
        bool failed = false;
        for (int t = 1; t <= tables; ++t) {
            if (!historyCopies(r, t))
                continue;
            const QString status = historyIterationStatus(r, t);
            failed = failed || status == QLatin1String("failed");
            iteration.reset();
            iteration.bind(1, qint64(r))
                .bind(2, qint64(t))
                .bind(3, QStringLiteral("src:t%1").arg(t))
                .bind(4, QStringLiteral("dst:t%1").arg(t))
                .bind(5, status)
                .bind(6, isoUtc(started))
                .bind(7, isoUtc(started.addMSecs(100 * t)))
                .bind(8, qint64(100 * t))
                .bind(9, historyRowsWritten(r, t) + t)
                .bind(10, historyRowsWritten(r, t))
                .bind(11, qint64(t))
                .run();
            log.reset();
            log.bind(1, db.lastInsertId())
                .bind(2, isoUtc(started))
                .bind(3, QStringLiteral("run %1 table %2").arg(r).arg(t))
                .run();
        }
        run.reset();
        run.bind(1, qint64(r))
            .bind(2, isoUtc(started))
            .bind(3, isoUtc(started.addSecs(30)))
            .bind(4, failed ? QStringLiteral("failed") : QStringLiteral("succeeded"))
            .run();
    }
    // Ids given by hand: a server's sequence is moved past them, as SQLite's rowid moves itself.
    if (db.dialect() == StoreDialect::Postgres)
        Statement(db, QStringLiteral("SELECT setval(pg_get_serial_sequence('runs', 'id'), ?1)"))
            .bind(1, qint64(runs))
            .run();
    transaction.commit();
}

} // namespace tidemark::test
