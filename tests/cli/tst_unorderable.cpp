// SPDX-License-Identifier: MIT
// Watermarks no window can order: PostgreSQL's ±infinity, BC dates and years
// past 9999, and in SQLite values that are no timestamp (or no integer) in a watermark column.
// They used to stop a table for good (an 'infinity' maximum read as "no rows") or fail it; now
// they are handled like NULL watermarks: counted (`rows_unorderable_watermark`), named in the
// log, never the window's upper bound, and every other row is copied, on this run and later ones.
// Through the real binary, against the real PostgreSQL server and SQLite files.

#include "tests/support/clifixture.h"
#include "tests/support/pgsession.h"
#include "tests/support/testsupport.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTest>

#include <memory>

using namespace tidemark;
using namespace tidemark::test;

namespace {

// The finite watermark of row `id` (1 to 3599), as SQLite spells it and `run --json` shows it.
QString finiteTimestamp(int id) {
    return QStringLiteral("2025-01-01T00:%1:%2.000000Z")
        .arg(id / 60, 2, 10, QLatin1Char('0'))
        .arg(id % 60, 2, 10, QLatin1Char('0'));
}

// Row `id`'s finite value (1 to 28) in a PostgreSQL column of `type`, and how `run --json` shows it.
QString pgFinite(const QString &type, int id) {
    return type == QLatin1String("date") ? QStringLiteral("2025-01-%1").arg(id, 2, 10, QLatin1Char('0'))
                                         : finiteTimestamp(id);
}
QString pgShown(const QString &type, int id) {
    return type == QLatin1String("date") ? pgFinite(type, id) + QStringLiteral("T00:00:00Z")
                                         : finiteTimestamp(id);
}

} // namespace

class TestUnorderable : public QObject, protected CliFixture {
    Q_OBJECT

private:
    QStringList m_pgTables; // dropped in cleanup()
    int m_counter = 0;

    // init + SQLite connections "src" and "dst" and PostgreSQL connection "pg" (when reachable).
    void setupWorkspace(bool postgres) {
        setupConnections();
        if (postgres)
            CLI_EXIT(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                          QStringLiteral("--postgres"), pgConninfo()}),
                     0);
    }

    // A PostgreSQL table name of this process (the suites share one server).
    QString pgTable(const QString &stem) {
        const QString name = QStringLiteral("unord_%1_%2_%3")
                                 .arg(stem)
                                 .arg(QCoreApplication::applicationPid())
                                 .arg(++m_counter);
        m_pgTables << name;
        return name;
    }

    qint64 addTable(const QString &source, const QString &target, const QStringList &extra = {}) {
        return CliFixture::addTable(QStringList{QStringLiteral("--source"), source,
                                                QStringLiteral("--target"), target,
                                                QStringLiteral("--watermark"), QStringLiteral("ts")} +
                                    extra);
    }

    // `run --json`: exit 0 and the one iteration it ran.
    QJsonObject runOnce() {
        const CliResult result = cli({QStringLiteral("run"), QStringLiteral("--json")});
        bool ok = false;
        const QJsonObject run = parseJsonObject(result.out, &ok);
        if (result.exitCode != 0 || !ok || run.value(QStringLiteral("iterations")).toArray().size() != 1) {
            QTest::qFail(qPrintable(QStringLiteral("run --json: ") + result.describe()), __FILE__, __LINE__);
            return {};
        }
        return run.value(QStringLiteral("iterations")).toArray().first().toObject();
    }

    // Rows in the target "dst:ev" or "pg:<table>" (0 before a run created it).
    qint64 rowsIn(PgSession *pg, const QString &target) const {
        if (!pg)
            return QFileInfo::exists(m_dst) && tableExists(m_dst, QStringLiteral("ev"))
                       ? countRows(m_dst, QStringLiteral("ev"))
                       : 0;
        const QString table = QStringLiteral("public.") + target.mid(3);
        if (pg->value(QStringLiteral("SELECT to_regclass($1)"), {table}).isNull())
            return 0;
        return pg->value(QStringLiteral("SELECT count(*) FROM %1").arg(table)).toLongLong();
    }

    QString workspaceLog() const {
        QFile log(workspaceLogPath());
        return log.open(QIODevice::ReadOnly) ? QString::fromUtf8(log.readAll()) : QString();
    }

    // The run copied `written` rows, ended `warning` for `unorderable` rows, and its upper bound
    // is `upper` (the highest finite value), never one of them.
    static void expectIteration(const QJsonObject &iteration, qint64 written, qint64 unorderable,
                                const QString &upper) {
        const QString text = QString::fromUtf8(QJsonDocument(iteration).toJson(QJsonDocument::Compact));
        QVERIFY2(iteration.value(QStringLiteral("status")).toString() == QLatin1String("warning"),
                 qPrintable(text));
        QVERIFY2(iteration.value(QStringLiteral("rows_written")).toInteger() == written, qPrintable(text));
        QVERIFY2(iteration.value(QStringLiteral("rows_unorderable_watermark")).toInteger() == unorderable,
                 qPrintable(text));
        QVERIFY2(iteration.value(QStringLiteral("rows_null_watermark")).toInteger() == 0, qPrintable(text));
        QVERIFY2(iteration.value(QStringLiteral("window_upper")).toVariant().toString() == upper,
                 qPrintable(text));
        QVERIFY2(iteration.value(QStringLiteral("watermark_after")).toVariant().toString() == upper,
                 qPrintable(text));
    }

    // The log names the table, the column, the count and the values.
    void expectLogged(const QString &source, qint64 count, const QStringList &values) {
        const QString log = workspaceLog();
        const QString line =
            QStringLiteral("%1 rows of '%2' have a value in watermark column 'ts' that no window can order")
                .arg(count)
                .arg(source);
        QVERIFY2(log.contains(line), qPrintable(line + QStringLiteral(" not in: ") + log));
        for (const QString &value : values)
            QVERIFY2(log.contains(QLatin1Char('\'') + value + QLatin1Char('\'')),
                     qPrintable(value + QStringLiteral(" not in: ") + log));
    }

    // PostgreSQL source `table` (id, ts <type>) with finite rows first..last.
    static void addPostgresRows(PgSession &pg, const QString &table, const QString &type, int first,
                                int last) {
        for (int id = first; id <= last; ++id)
            pg.exec(QStringLiteral("INSERT INTO public.%1 VALUES ($1, $2::%2)").arg(table, type),
                    {id, pgFinite(type, id)});
    }

    // SQLite source "ev" (id INTEGER PRIMARY KEY, ts <declared>) with finite rows first..last.
    void addSqliteRows(int first, int last) {
        for (int id = first; id <= last; ++id)
            execSql(m_src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2)"), {id, finiteTimestamp(id)});
    }

private slots:
    void init() {
        startFixture();
        m_pgTables.clear();
    }

    void cleanup() {
        stopFixture();
        if (m_pgTables.isEmpty() || qEnvironmentVariableIsEmpty("TIDEMARK_PG_PORT"))
            return;
        PgSession pg;
        for (const QString &table : std::as_const(m_pgTables))
            pg.exec(QStringLiteral("DROP TABLE IF EXISTS public.%1").arg(table));
    }

    // PostgreSQL ±infinity, BC dates and years past 9999 in a timestamptz, timestamp or date
    // watermark, copied into PostgreSQL or SQLite.
    void postgresSource_data() {
        QTest::addColumn<QString>("type");
        QTest::addColumn<bool>("intoPostgres");
        for (const QString &type :
             {QStringLiteral("timestamptz"), QStringLiteral("timestamp"), QStringLiteral("date")}) {
            QTest::addRow("%s into postgres", qPrintable(type)) << type << true;
            QTest::addRow("%s into sqlite", qPrintable(type)) << type << false;
        }
    }
    void postgresSource() {
        TIDEMARK_REQUIRE_POSTGRES();
        QFETCH(QString, type);
        QFETCH(bool, intoPostgres);
        setupWorkspace(true);
        PgSession pg;
        const QString source = pgTable(QStringLiteral("src"));
        const QString bc = type == QLatin1String("date") ? QStringLiteral("0044-03-15 BC")
                                                         : QStringLiteral("0044-03-15 12:00:00 BC");
        pg.exec(QStringLiteral("CREATE TABLE public.%1 (id int PRIMARY KEY, ts %2)").arg(source, type));
        const int rows = 20;
        addPostgresRows(pg, source, type, 1, rows);
        int id = 1000;
        for (const QString &value :
             {QStringLiteral("infinity"), QStringLiteral("-infinity"), bc, QStringLiteral("10000-01-01")})
            pg.exec(QStringLiteral("INSERT INTO public.%1 VALUES ($1, $2::%2)").arg(source, type),
                    {++id, value});
        const QString target =
            intoPostgres ? QStringLiteral("pg:") + pgTable(QStringLiteral("dst")) : QStringLiteral("dst:ev");
        addTable(QStringLiteral("pg:") + source, target);
        const auto targetRows = [&] {
            return rowsIn(intoPostgres ? &pg : nullptr, target);
        };

        expectIteration(runOnce(), rows, 4, pgShown(type, rows));
        QCOMPARE(targetRows(), qint64(rows));
        expectLogged(QStringLiteral("pg:") + source, 4,
                     {QStringLiteral("-infinity"), QStringLiteral("infinity")});

        // Rows that land later are copied by the next run; the unorderable ones are still counted.
        addPostgresRows(pg, source, type, rows + 1, rows + 5);
        expectIteration(runOnce(), 5, 4, pgShown(type, rows + 5));
        QCOMPARE(targetRows(), qint64(rows + 5));
    }

    // SQLite text that is no timestamp (infinity, a BC date or a year past 9999 spelled in
    // ISO-8601's extended form, a date that does not exist, a number) in a timestamp watermark.
    void sqliteSource_data() {
        QTest::addColumn<bool>("intoPostgres");
        QTest::addColumn<QString>("maxSkipped"); // "0": the database copies by itself when it can
        QTest::addRow("into sqlite, in the database") << false << QStringLiteral("0");
        QTest::addRow("into sqlite, row by row") << false << QStringLiteral("5");
        QTest::addRow("into postgres") << true << QStringLiteral("0");
    }
    void sqliteSource() {
        QFETCH(bool, intoPostgres);
        QFETCH(QString, maxSkipped);
        if (intoPostgres)
            TIDEMARK_REQUIRE_POSTGRES();
        setupWorkspace(intoPostgres);
        execSql(m_src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, ts TIMESTAMP)"));
        addSqliteRows(1, 100);
        const QVariantList unorderable{QStringLiteral("infinity"),
                                       QStringLiteral("-infinity"),
                                       QStringLiteral("+10000-01-01T00:00:00.000000Z"),
                                       QStringLiteral("10000-01-01T00:00:00.000000Z"),
                                       QStringLiteral("-0043-03-15T00:00:00.000000Z"),
                                       QStringLiteral("2025-02-30T00:00:00.000000Z"),
                                       qint64(1735689600)};
        int id = 1000;
        for (const QVariant &value : unorderable)
            execSql(m_src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2)"), {++id, value});
        QString target = QStringLiteral("dst:ev");
        std::unique_ptr<PgSession> pg;
        if (intoPostgres) {
            pg = std::make_unique<PgSession>();
            target = QStringLiteral("pg:") + pgTable(QStringLiteral("dst"));
        }
        const auto targetRows = [&] {
            return rowsIn(pg.get(), target);
        };
        addTable(QStringLiteral("src:ev"), target, {QStringLiteral("--max-skipped"), maxSkipped});

        expectIteration(runOnce(), 100, 7, finiteTimestamp(100));
        QCOMPARE(targetRows(), qint64(100));
        expectLogged(QStringLiteral("src:ev"), 7, {QStringLiteral("1735689600"), QStringLiteral("infinity")});

        addSqliteRows(101, 103);
        expectIteration(runOnce(), 3, 7, finiteTimestamp(103));
        QCOMPARE(targetRows(), qint64(103));
    }

    // SQLite reals (±Inf; NaN is stored as NULL) and text in an integer watermark.
    void sqliteIntegerWatermark() {
        setupWorkspace(false);
        execSql(m_src, QStringLiteral("CREATE TABLE ev (id INTEGER PRIMARY KEY, ts INTEGER)"));
        for (int id = 1; id <= 30; ++id)
            execSql(m_src, QStringLiteral("INSERT INTO ev VALUES (?1, ?2)"), {id, id * 10});
        addTable(QStringLiteral("src:ev"), QStringLiteral("dst:ev"));
        // After `table add`, which would take the column for no watermark at all.
        execSql(m_src, QStringLiteral("INSERT INTO ev VALUES (101, 9e999), (102, -9e999), (103, 2.5), "
                                      "(104, 'n/a')"));

        expectIteration(runOnce(), 30, 4, QStringLiteral("300"));
        QCOMPARE(rowsIn(nullptr, QStringLiteral("dst:ev")), qint64(30));
        expectLogged(QStringLiteral("src:ev"), 4, {QStringLiteral("-Inf"), QStringLiteral("n/a")});

        execSql(m_src, QStringLiteral("INSERT INTO ev VALUES (31, 310)"));
        expectIteration(runOnce(), 1, 4, QStringLiteral("310"));
        QCOMPARE(rowsIn(nullptr, QStringLiteral("dst:ev")), qint64(31));
    }
};

QTEST_GUILESS_MAIN(TestUnorderable)
#include "tst_unorderable.moc"
