// SPDX-License-Identifier: MIT
// The copy contract through tidemark-cli in every pairing with MySQL/MariaDB, against a real server
// (TIDEMARK_MARIADB_PORT, see scripts/mariadbcluster.sh; the PostgreSQL pairings also need
// TIDEMARK_PG_PORT). Each test works in a database of its own, which also holds its tidemark_state.
#include "model/common/sqlquote.h"
#include "model/connectors/mariadbconnector.h"
#include "model/connectors/postgresconnector.h"
#include "tests/support/testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace tidemark;
using namespace tidemark::test;

namespace {

const QString kPasswordVariable = QStringLiteral("TIDEMARK_TEST_MARIADB_PASSWORD");

QString mariadbPort() {
    return QString::fromLocal8Bit(qgetenv("TIDEMARK_MARIADB_PORT"));
}

QString settings(const QString &database) {
    return QStringLiteral("host=127.0.0.1 port=%1 user=tidemark dbname=%2").arg(mariadbPort(), database);
}

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
    QJsonObject json() const { return QJsonDocument::fromJson(out.toUtf8()).object(); }
    QJsonObject iteration(int index = 0) const {
        return json().value(QStringLiteral("iterations")).toArray().at(index).toObject();
    }
    QString status() const { return iteration().value(QStringLiteral("status")).toString(); }
    int written() const { return iteration().value(QStringLiteral("rows_written")).toInt(); }
    QString all() const { return out + err; }
};

} // namespace

class TestMariadbCopy : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void sqliteToMariadbAppendWithTiebreak();
    void mariadbToSqliteExactTypes();
    void mariadbToMariadbMergeNeverOlder();
    void caseInsensitiveTiebreakKeepsBothKeys();
    void lookbackPerBatchAndBackfill();
    void overwriteAndDryRun();
    void mariadbWithPostgres();
    void killedMidCopyThenRerunIsExact();
    void droppedStreamFailsTheIteration();
    void connectionSettingsAreChecked();
    void loadedBatchesHideNoRefusedRow();
    void deletesReachAMariadbTarget();
    void naiveDatetimeAcrossFallBack();
    void lossyTargetColumnsAreRefused();

private:
    Run cli(const QStringList &args, const QString &faultPoint = QString());
    void addConnections();
    QStringList addTable(const QStringList &options);
    QString value(const QString &sql, const QVariantList &params = {});
    void exec(const QString &sql) { m_admin->execute(sql); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<MariadbConnector> m_admin;
    QString m_db;      // this test's source database (and the "my" connection's)
    QString m_otherDb; // a second database on the same server
    QString m_workspace;
    QString m_sqlitePath;
};

void TestMariadbCopy::initTestCase() {
    TIDEMARK_REQUIRE_MARIADB();
    qputenv(kPasswordVariable.toLocal8Bit(), "tidemark");
}

void TestMariadbCopy::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    m_workspace = m_dir->filePath(QStringLiteral("ws.tidemark"));
    m_sqlitePath = m_dir->filePath(QStringLiteral("lite.db"));
    m_db = QStringLiteral("t_%1").arg(QString::fromLatin1(QTest::currentTestFunction()));
    m_otherDb = m_db + QStringLiteral("_other");
    ConnectionSpec admin;
    admin.name = QStringLiteral("admin");
    admin.kind = ConnectionKind::Mysql;
    admin.conninfo = settings(QStringLiteral("tidemark"));
    admin.typedPassword = QStringLiteral("tidemark");
    m_admin = std::make_unique<MariadbConnector>(admin);
    for (const QString &db : {m_db, m_otherDb}) {
        exec(QStringLiteral("DROP DATABASE IF EXISTS %1").arg(quoteIdentifier(db)));
        exec(QStringLiteral("CREATE DATABASE %1 CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")
                 .arg(quoteIdentifier(db)));
    }
    QCOMPARE(cli({QStringLiteral("init")}).exitCode, 0);
    addConnections();
}

void TestMariadbCopy::cleanup() {
    if (m_admin) {
        for (const QString &db : {m_db, m_otherDb})
            exec(QStringLiteral("DROP DATABASE IF EXISTS %1").arg(quoteIdentifier(db)));
    }
    m_admin.reset();
    m_dir.reset();
}

Run TestMariadbCopy::cli(const QStringList &args, const QString &faultPoint) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    env.insert(QStringLiteral("TIDEMARK_NO_KEYCHAIN"), QStringLiteral("1"));
    if (!faultPoint.isEmpty())
        env.insert(QStringLiteral("TIDEMARK_FAULT_POINT"), faultPoint);
    process.setProcessEnvironment(env);
    process.start(cliPath(), QStringList{QStringLiteral("-w"), m_workspace} + args);
    process.waitForFinished(300000);
    Run result;
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

void TestMariadbCopy::addConnections() {
    for (const auto &[name, db] :
         {std::pair{QStringLiteral("my"), m_db}, std::pair{QStringLiteral("other"), m_otherDb}}) {
        const Run add =
            cli({QStringLiteral("connection"), QStringLiteral("add"), name, QStringLiteral("--mysql"),
                 settings(db), QStringLiteral("--password-env"), kPasswordVariable});
        QVERIFY2(add.exitCode == 0, qPrintable(add.all()));
    }
    const Run lite = cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("lite"),
                          QStringLiteral("--sqlite"), m_sqlitePath});
    QVERIFY2(lite.exitCode == 0, qPrintable(lite.all()));
}

QStringList TestMariadbCopy::addTable(const QStringList &options) {
    const Run add = cli(QStringList{QStringLiteral("table"), QStringLiteral("add")} + options);
    if (add.exitCode != 0)
        qWarning("table add failed: %s", qPrintable(add.all()));
    return {QString::number(add.exitCode), add.out.trimmed(), add.err};
}

QString TestMariadbCopy::value(const QString &sql, const QVariantList &params) {
    return m_admin->query(sql, params).value(0).value(0);
}

// SQLite → MariaDB, append with a tiebreak: rows tied on the watermark across batch boundaries,
// microseconds kept in the created DATETIME(6) column, the state row in the same database.
void TestMariadbCopy::sqliteToMariadbAppendWithTiebreak() {
    execSql(m_sqlitePath,
            QStringLiteral(
                "CREATE TABLE orders (id INTEGER PRIMARY KEY, updated_at TEXT NOT NULL, amount REAL, "
                "note TEXT);"
                "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 100) "
                "INSERT INTO orders SELECT i, '2025-01-01T00:00:0' || (i / 20) || '.00000' || (i % 3) || "
                "'Z', i / 3.0, 'note ' || char(9) || i || ' 🐳' FROM g;"));
    const QStringList add =
        addTable({QStringLiteral("--source"), QStringLiteral("lite:orders"), QStringLiteral("--target"),
                  QStringLiteral("my:Order Lines"), QStringLiteral("--watermark"),
                  QStringLiteral("updated_at"), QStringLiteral("--tiebreak"), QStringLiteral("id"),
                  QStringLiteral("--batch-size"), QStringLiteral("7")});
    QCOMPARE(add.value(0), QStringLiteral("0"));
    const QString target = quoteQualified(m_db, QStringLiteral("Order Lines"));

    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.status(), QStringLiteral("succeeded"));
    QCOMPARE(run.written(), 100);
    QCOMPARE(value(QStringLiteral("SELECT CONCAT(COUNT(DISTINCT id), '/', COUNT(*)) FROM %1").arg(target)),
             QStringLiteral("100/100"));
    QCOMPARE(
        value(QStringLiteral("SELECT DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ?1 AND "
                             "TABLE_NAME = 'Order Lines' AND COLUMN_NAME = 'updated_at'"),
              {m_db}),
        QStringLiteral("datetime"));
    QCOMPARE(
        value(QStringLiteral("SELECT DATE_FORMAT(updated_at, '%Y-%m-%d %H:%i:%s.%f') FROM %1 WHERE id = 41")
                  .arg(target)),
        QStringLiteral("2025-01-01 00:00:02.000002"));
    QCOMPARE(value(QStringLiteral("SELECT note FROM %1 WHERE id = 5").arg(target)),
             QStringLiteral("note \t5 🐳"));

    // Two new rows tied with the last watermark (the tiebreak orders them), one later.
    execSql(m_sqlitePath,
            QStringLiteral("INSERT INTO orders VALUES (101, '2025-01-01T00:00:05.000001Z', 1.5, 'tie'), "
                           "(102, '2025-01-01T00:00:05.000001Z', 2.5, 'tie'), "
                           "(103, '2025-01-01T00:00:06.000000Z', NULL, NULL)"));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.written(), 3);
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.status(), QStringLiteral("no_new_rows"));
    QCOMPARE(value(QStringLiteral("SELECT CONCAT(COUNT(DISTINCT id), '/', COUNT(*)) FROM %1").arg(target)),
             QStringLiteral("103/103"));
    QCOMPARE(value(QStringLiteral("SELECT watermark FROM %1.tidemark_state WHERE table_id = 1")
                       .arg(quoteIdentifier(m_db))),
             QStringLiteral("2025-01-01T00:00:06.000000Z"));
    const Run verify = cli({QStringLiteral("verify")});
    QVERIFY2(verify.exitCode == 0, qPrintable(verify.all()));
}

// MariaDB → SQLite: every edge type arrives exact; DATETIME(6) rows one microsecond apart are
// each read once; zero dates and NULLs in the watermark column are counted, never selected.
void TestMariadbCopy::mariadbToSqliteExactTypes() {
    const QString source = quoteQualified(m_db, QStringLiteral("edge"));
    exec(QStringLiteral(
             "CREATE TABLE %1 (id BIGINT UNSIGNED PRIMARY KEY, updated_at DATETIME(6) NULL, "
             "big BIGINT UNSIGNED, amount DECIMAL(65,30), name VARCHAR(40), doc JSON, flags BIT(10), "
             "payload BLOB, happened TIMESTAMP(6) NULL, duration TIME(6), yr YEAR, kind ENUM('a','b'))")
             .arg(source));
    exec(QStringLiteral(
        "SET SESSION sql_mode = 'ANSI_QUOTES'")); // zero dates allowed, as old servers hold them
    exec(QStringLiteral(
             "INSERT INTO %1 VALUES "
             "(1, '2025-03-01 10:00:00.000001', 18446744073709551615, "
             "'12345678901234567890123456789012345.123456789012345678901234567891', '🐳 whale', "
             "'{\"a\": [1, 2.5, \"x\"]}', b'1000000001', x'00ff10', '2038-01-19 03:14:07.999999', "
             "'-838:59:59.000000', 2155, 'b'),"
             "(2, '2025-03-01 10:00:00.000002', 9223372036854775808, '-0.000000000000000000000000000001', "
             "'abc', NULL, b'0', '', '1970-01-01 00:00:01.000000', '25:00:00.5', 1901, 'a'),"
             "(3, '2025-03-01 10:00:00.000003', 0, 0, '', '[]', NULL, NULL, NULL, NULL, NULL, NULL),"
             "(4, NULL, 1, 1, 'null watermark', NULL, NULL, NULL, NULL, NULL, NULL, NULL),"
             "(5, '0000-00-00 00:00:00', 1, 1, 'zero watermark', NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
             .arg(source));
    const QStringList add =
        addTable({QStringLiteral("--source"), QStringLiteral("my:edge"), QStringLiteral("--target"),
                  QStringLiteral("lite:edge"), QStringLiteral("--watermark"), QStringLiteral("updated_at"),
                  QStringLiteral("--mode"), QStringLiteral("merge"), QStringLiteral("--batch-size"),
                  QStringLiteral("1")});
    QCOMPARE(add.value(0), QStringLiteral("0"));
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.written(), 3);
    QCOMPARE(run.status(), QStringLiteral("warning")); // the NULL and the zero watermark are reported
    QCOMPARE(run.iteration().value(QStringLiteral("watermark_after")).toString(),
             QStringLiteral("2025-03-01T10:00:00.000003Z"));
    const auto row = [&](int id) {
        return queryRows(m_sqlitePath,
                         QStringLiteral(
                             "SELECT id, updated_at, big, amount, name, doc, flags, hex(payload), happened, "
                             "duration, yr, kind, typeof(big), typeof(payload) FROM edge WHERE id = ?1"),
                         {id})
            .value(0);
    };
    QCOMPARE(row(1),
             (QStringList{
                 QStringLiteral("1"), QStringLiteral("2025-03-01T10:00:00.000001"),
                 QStringLiteral("18446744073709551615"),
                 QStringLiteral("12345678901234567890123456789012345.123456789012345678901234567891"),
                 QStringLiteral("🐳 whale"), QStringLiteral("{\"a\": [1, 2.5, \"x\"]}"), QStringLiteral("513"),
                 QStringLiteral("00FF10"), QStringLiteral("2038-01-19T03:14:07.999999Z"),
                 QStringLiteral("-838:59:59.000000"), QStringLiteral("2155"), QStringLiteral("b"),
                 QStringLiteral("text"), QStringLiteral("blob")}));
    QCOMPARE(row(2).value(2), QStringLiteral("9223372036854775808"));
    QCOMPARE(row(2).value(3), QStringLiteral("-0.000000000000000000000000000001"));
    QCOMPARE(row(2).value(9), QStringLiteral("25:00:00.500000"));
    QCOMPARE(row(3).value(2), QStringLiteral("0")); // a NUMERIC_TEXT column keeps the digits
    QCOMPARE(queryValue(m_sqlitePath, QStringLiteral("SELECT count(*) FROM edge")).toInt(), 3);

    // A row one microsecond after the position is new; the same run again copies nothing.
    exec(QStringLiteral(
             "INSERT INTO %1 (id, updated_at, name) VALUES (6, '2025-03-01 10:00:00.000004', 'later')")
             .arg(source));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.written(), 1);
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.written(), 0);
    QCOMPARE(queryValue(m_sqlitePath, QStringLiteral("SELECT count(*) FROM edge")).toInt(), 4);

    // A zero date outside the watermark column fails the iteration (--zero-dates fail, the
    // default) naming the column and the row's key.
    exec(QStringLiteral(
             "INSERT INTO %1 (id, updated_at, happened) VALUES (7, '2025-03-02', '0000-00-00 00:00:00')")
             .arg(source));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.all().contains(QLatin1String("column 'happened' holds the zero date 0000-00-00 in the row "
                                              "with id = 7")),
             qPrintable(run.all()));
    QCOMPARE(queryValue(m_sqlitePath, QStringLiteral("SELECT count(*) FROM edge")).toInt(), 4);

    // --zero-dates null copies it as NULL; the watermark's zero date stays unselected.
    Run edited = cli({QStringLiteral("table"), QStringLiteral("edit"), QStringLiteral("1"),
                      QStringLiteral("--zero-dates"), QStringLiteral("null")});
    QVERIFY2(edited.exitCode == 0, qPrintable(edited.all()));
    const Run listed = cli({QStringLiteral("table"), QStringLiteral("list"), QStringLiteral("--json")});
    QVERIFY2(listed.out.contains(QLatin1String("\"zero_dates\":\"null\"")), qPrintable(listed.out));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.written(), 1);
    QCOMPARE(queryValue(m_sqlitePath, QStringLiteral("SELECT count(*) FROM edge")).toInt(), 5);
    QCOMPARE(queryValue(m_sqlitePath, QStringLiteral("SELECT typeof(happened) FROM edge WHERE id = 7")),
             QVariant(QStringLiteral("null")));
    const Run verify = cli({QStringLiteral("verify")});
    QVERIFY2(verify.exitCode == 0, qPrintable(verify.all()));
    // Only a MySQL/MariaDB source holds zero dates.
    const Run refused =
        cli({QStringLiteral("table"), QStringLiteral("add"), QStringLiteral("--source"),
             QStringLiteral("lite:edge"), QStringLiteral("--target"), QStringLiteral("lite:edge_again"),
             QStringLiteral("--watermark"), QStringLiteral("updated_at"), QStringLiteral("--zero-dates"),
             QStringLiteral("null")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QLatin1String("only a MySQL/MariaDB source holds zero dates")),
             qPrintable(refused.err));
}

// MariaDB → MariaDB merge: INSERT … ON DUPLICATE KEY UPDATE keeps a newer stored version.
void TestMariadbCopy::mariadbToMariadbMergeNeverOlder() {
    const QString source = quoteQualified(m_db, QStringLiteral("items"));
    const QString target = quoteQualified(m_otherDb, QStringLiteral("items"));
    exec(QStringLiteral(
             "CREATE TABLE %1 (id INT PRIMARY KEY, updated_at DATETIME(6) NOT NULL, label VARCHAR(20), "
             "price DECIMAL(10,2))")
             .arg(source));
    exec(QStringLiteral("INSERT INTO %1 SELECT seq, TIMESTAMP'2025-01-01 00:00:00' + INTERVAL seq SECOND, "
                        "CONCAT('v1-', seq), seq / 4 FROM seq_1_to_300")
             .arg(source));
    const QStringList add =
        addTable({QStringLiteral("--source"), QStringLiteral("my:items"), QStringLiteral("--target"),
                  QStringLiteral("other:items"), QStringLiteral("--watermark"), QStringLiteral("updated_at"),
                  QStringLiteral("--mode"), QStringLiteral("merge"), QStringLiteral("--batch-size"),
                  QStringLiteral("50")});
    QCOMPARE(add.value(0), QStringLiteral("0"));
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.written(), 300);
    // Someone wrote a newer version of id 7 into the target; the source then changes id 7 and 8.
    exec(QStringLiteral("UPDATE %1 SET label = 'newer', updated_at = '2030-01-01' WHERE id = 7").arg(target));
    exec(QStringLiteral("UPDATE %1 SET label = 'v2', updated_at = '2026-01-01' WHERE id IN (7, 8)")
             .arg(source));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.iteration().value(QStringLiteral("rows_read")).toInt(), 2);
    QCOMPARE(value(QStringLiteral("SELECT label FROM %1 WHERE id = 7").arg(target)), QStringLiteral("newer"));
    QCOMPARE(value(QStringLiteral("SELECT CONCAT(label, ' ', updated_at) FROM %1 WHERE id = 8").arg(target)),
             QStringLiteral("v2 2026-01-01 00:00:00.000000"));
    QCOMPARE(value(QStringLiteral("SELECT COUNT(*) FROM %1").arg(target)), QStringLiteral("300"));
}

// A _ci collation makes 'abc' = 'ABC'; the tiebreak compares in binary, so both keys are copied,
// each once, even with a batch boundary between them.
void TestMariadbCopy::caseInsensitiveTiebreakKeepsBothKeys() {
    const QString source = quoteQualified(m_db, QStringLiteral("codes"));
    exec(
        QStringLiteral("CREATE TABLE %1 (id INT PRIMARY KEY, code VARCHAR(10) COLLATE utf8mb4_general_ci NOT "
                       "NULL, changed DATETIME(6) NOT NULL) DEFAULT CHARSET=utf8mb4")
            .arg(source));
    exec(QStringLiteral("INSERT INTO %1 VALUES (1, 'abc', '2025-01-01'), (2, 'ABC', '2025-01-01'), "
                        "(3, 'abd', '2025-01-01'), (4, 'Abc', '2025-01-01'), (5, 'b', '2025-01-02')")
             .arg(source));
    const QStringList add =
        addTable({QStringLiteral("--source"), QStringLiteral("my:codes"), QStringLiteral("--target"),
                  QStringLiteral("lite:codes"), QStringLiteral("--watermark"), QStringLiteral("changed"),
                  QStringLiteral("--tiebreak"), QStringLiteral("code"), QStringLiteral("--batch-size"),
                  QStringLiteral("1"), QStringLiteral("--commit-per-batch")});
    QCOMPARE(add.value(0), QStringLiteral("0"));
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.written(), 5);
    QCOMPARE(queryRows(m_sqlitePath,
                       QStringLiteral(
                           "SELECT group_concat(code, ',') FROM (SELECT code FROM codes ORDER BY code)")),
             (QList<QStringList>{{QStringLiteral("ABC,Abc,abc,abd,b")}}));
    // Another row tied with 'ABC' at the same watermark but sorting after every copied one in binary.
    exec(QStringLiteral("INSERT INTO %1 VALUES (6, 'abe', '2025-01-01'), (7, 'ab', '2025-01-03')")
             .arg(source));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.written(), 1); // 'abe' is behind the position ('2025-01-02', 'b'): a late row, by design
    QCOMPARE(queryValue(m_sqlitePath, QStringLiteral("SELECT count(*) FROM codes")).toInt(), 6);
}

// Lookback with merge and per-batch commits into MariaDB, then backfill --delete-newer.
void TestMariadbCopy::lookbackPerBatchAndBackfill() {
    const QString source = quoteQualified(m_db, QStringLiteral("events"));
    const QString target = quoteQualified(m_otherDb, QStringLiteral("events"));
    exec(QStringLiteral("CREATE TABLE %1 (id BIGINT PRIMARY KEY, seq BIGINT NOT NULL, body TEXT)")
             .arg(source));
    exec(QStringLiteral("INSERT INTO %1 SELECT seq, seq * 10, REPEAT('x', seq) FROM seq_1_to_200")
             .arg(source));
    const QStringList add =
        addTable({QStringLiteral("--source"), QStringLiteral("my:events"), QStringLiteral("--target"),
                  QStringLiteral("other:events"), QStringLiteral("--watermark"), QStringLiteral("seq"),
                  QStringLiteral("--mode"), QStringLiteral("merge"), QStringLiteral("--lookback"),
                  QStringLiteral("100"), QStringLiteral("--batch-size"), QStringLiteral("30"),
                  QStringLiteral("--commit-per-batch")});
    QCOMPARE(add.value(0), QStringLiteral("0"));
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.written(), 200);
    exec(QStringLiteral("UPDATE %1 SET body = 'late' WHERE id = 195").arg(source)); // inside the lookback
    exec(QStringLiteral("INSERT INTO %1 VALUES (201, 2010, 'new')").arg(source));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.iteration().value(QStringLiteral("rows_read")).toInt(), 12); // seq 1900..2010
    QCOMPARE(value(QStringLiteral("SELECT body FROM %1 WHERE id = 195").arg(target)), QStringLiteral("late"));
    QCOMPARE(value(QStringLiteral("SELECT COUNT(*) FROM %1").arg(target)), QStringLiteral("201"));
    QCOMPARE(value(QStringLiteral("SELECT watermark FROM %1.tidemark_state WHERE table_id = 1")
                       .arg(quoteIdentifier(m_otherDb))),
             QStringLiteral("2010"));

    const Run backfill =
        cli({QStringLiteral("backfill"), QStringLiteral("1"), QStringLiteral("--from"),
             QStringLiteral("1000"), QStringLiteral("--delete-newer"), QStringLiteral("--yes")});
    QVERIFY2(backfill.exitCode == 0, qPrintable(backfill.all()));
    QCOMPARE(value(QStringLiteral("SELECT COUNT(*) FROM %1").arg(target)), QStringLiteral("100"));
    QCOMPARE(value(QStringLiteral(
                       "SELECT CONCAT(watermark, '/', generation) FROM %1.tidemark_state WHERE table_id = 1")
                       .arg(quoteIdentifier(m_otherDb))),
             QStringLiteral("1000/1"));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(value(QStringLiteral("SELECT COUNT(*) FROM %1").arg(target)), QStringLiteral("201"));
    const Run verify = cli({QStringLiteral("verify")});
    QVERIFY2(verify.exitCode == 0, qPrintable(verify.all()));
    exec(QStringLiteral("DELETE FROM %1 WHERE id = 3").arg(target));
    const Run drift = cli({QStringLiteral("verify")});
    QCOMPARE(drift.exitCode, 1);
}

void TestMariadbCopy::overwriteAndDryRun() {
    const QString source = quoteQualified(m_db, QStringLiteral("ref"));
    exec(QStringLiteral("CREATE TABLE %1 (code CHAR(3) PRIMARY KEY, label VARCHAR(50))").arg(source));
    exec(QStringLiteral("INSERT INTO %1 VALUES ('EUR', 'Euro'), ('USD', 'Dollar')").arg(source));
    const QStringList add =
        addTable({QStringLiteral("--source"), QStringLiteral("my:ref"), QStringLiteral("--target"),
                  QStringLiteral("other:ref"), QStringLiteral("--mode"), QStringLiteral("overwrite")});
    QCOMPARE(add.value(0), QStringLiteral("0"));
    Run dry = cli({QStringLiteral("run"), QStringLiteral("--dry-run"), QStringLiteral("--json")});
    QVERIFY2(dry.exitCode == 0, qPrintable(dry.all()));
    QCOMPARE(dry.status(), QStringLiteral("dry_run"));
    QCOMPARE(dry.iteration().value(QStringLiteral("rows_read")).toInt(), 2);
    // A dry run writes nothing to the target, not even DDL.
    QCOMPARE(value(QStringLiteral("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?1"),
                   {m_otherDb}),
             QStringLiteral("0"));
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    exec(QStringLiteral("DELETE FROM %1 WHERE code = 'USD'").arg(source));
    exec(QStringLiteral("INSERT INTO %1 VALUES ('GBP', 'Pound')").arg(source));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(value(QStringLiteral("SELECT GROUP_CONCAT(code ORDER BY code) FROM %1")
                       .arg(quoteQualified(m_otherDb, QStringLiteral("ref")))),
             QStringLiteral("EUR,GBP"));
}

// MariaDB ↔ PostgreSQL, both ways, with microseconds and exact decimals.
void TestMariadbCopy::mariadbWithPostgres() {
    TIDEMARK_REQUIRE_POSTGRES();
    const QString pgConninfo = QStringLiteral("host=127.0.0.1 port=%1 dbname=tidemark user=tidemark")
                                   .arg(QString::fromLocal8Bit(qgetenv("TIDEMARK_PG_PORT")));
    ConnectionSpec pgSpec;
    pgSpec.name = QStringLiteral("pgadmin");
    pgSpec.kind = ConnectionKind::Postgres;
    pgSpec.conninfo = pgConninfo;
    PostgresConnector pg(pgSpec);
    const QString schema = m_db;
    pg.execute(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(schema)));
    pg.execute(QStringLiteral("CREATE SCHEMA %1").arg(quoteIdentifier(schema)));
    const auto dropSchema = qScopeGuard([&] {
        pg.execute(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(schema)));
        pg.execute(QStringLiteral("DELETE FROM public.tidemark_state WHERE starts_with(target_table, $1)"),
                   {quoteIdentifier(schema) + QLatin1Char('.')});
    });
    QCOMPARE(cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("pg"),
                  QStringLiteral("--postgres"), pgConninfo})
                 .exitCode,
             0);
    exec(
        QStringLiteral("CREATE TABLE %1 (id INT PRIMARY KEY, at DATETIME(6) NOT NULL, amount DECIMAL(30,10), "
                       "label VARCHAR(20))")
            .arg(quoteQualified(m_db, QStringLiteral("m2p"))));
    exec(QStringLiteral(
             "INSERT INTO %1 SELECT seq, TIMESTAMP'2025-05-05 05:05:05' + INTERVAL seq MICROSECOND, "
             "seq / 7, CONCAT('ü', seq) FROM seq_1_to_120")
             .arg(quoteQualified(m_db, QStringLiteral("m2p"))));
    pg.execute(
        QStringLiteral("CREATE TABLE %1 (id int8 PRIMARY KEY, at timestamptz NOT NULL, amount numeric(20,5), "
                       "payload bytea)")
            .arg(quoteQualified(schema, QStringLiteral("p2m"))));
    pg.execute(QStringLiteral("INSERT INTO %1 SELECT g, '2025-01-01 00:00:00+00'::timestamptz + g * interval "
                              "'1 microsecond', g / 3.0, '\\x00ff'::bytea FROM generate_series(1, 90) g")
                   .arg(quoteQualified(schema, QStringLiteral("p2m"))));
    QCOMPARE(addTable({QStringLiteral("--source"), QStringLiteral("my:m2p"), QStringLiteral("--target"),
                       QStringLiteral("pg:%1.m2p").arg(schema), QStringLiteral("--watermark"),
                       QStringLiteral("at"), QStringLiteral("--mode"), QStringLiteral("merge"),
                       QStringLiteral("--batch-size"), QStringLiteral("25")})
                 .value(0),
             QStringLiteral("0"));
    QCOMPARE(addTable({QStringLiteral("--source"), QStringLiteral("pg:%1.p2m").arg(schema),
                       QStringLiteral("--target"), QStringLiteral("my:p2m"), QStringLiteral("--watermark"),
                       QStringLiteral("at"), QStringLiteral("--batch-size"), QStringLiteral("25")})
                 .value(0),
             QStringLiteral("0"));
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.iteration(0).value(QStringLiteral("rows_written")).toInt(), 120);
    QCOMPARE(run.iteration(1).value(QStringLiteral("rows_written")).toInt(), 90);
    const QString amount = value(QStringLiteral("SELECT amount FROM %1 WHERE id = 120")
                                     .arg(quoteQualified(m_db, QStringLiteral("m2p"))));
    QCOMPARE(pg.query(QStringLiteral(
                          "SELECT amount::text || ' ' || label || ' ' || at::text FROM %1 WHERE id = 120")
                          .arg(quoteQualified(schema, QStringLiteral("m2p"))))
                 .value(0)
                 .value(0),
             amount + QStringLiteral(" ü120 2025-05-05 05:05:05.00012"));
    QCOMPARE(
        value(
            QStringLiteral(
                "SELECT CONCAT(amount, ' ', HEX(payload), ' ', DATE_FORMAT(at, '%f')) FROM %1 WHERE id = 89")
                .arg(quoteQualified(m_db, QStringLiteral("p2m")))),
        QStringLiteral("29.66667 00FF 000089"));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.iteration(0).value(QStringLiteral("status")).toString(), QStringLiteral("no_new_rows"));
    QCOMPARE(run.iteration(1).value(QStringLiteral("status")).toString(), QStringLiteral("no_new_rows"));
    const Run verify = cli({QStringLiteral("verify")});
    QVERIFY2(verify.exitCode == 0, qPrintable(verify.all()));
}

// SIGKILL mid-copy into a MariaDB target (after a written batch, and right before the commit): the
// rerun leaves the target exactly as one clean run would.
void TestMariadbCopy::killedMidCopyThenRerunIsExact() {
    execSql(m_sqlitePath,
            QStringLiteral("CREATE TABLE big (id INTEGER PRIMARY KEY, at TEXT NOT NULL, v TEXT);"
                           "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 2000) "
                           "INSERT INTO big SELECT i, '2025-02-01T00:00:00.' || printf('%06d', i) || 'Z', "
                           "hex(randomblob(20)) FROM g;"));
    for (const auto &[table, perBatch] :
         {std::pair{QStringLiteral("one"), false}, std::pair{QStringLiteral("each"), true}}) {
        QStringList options{QStringLiteral("--source"),     QStringLiteral("lite:big"),
                            QStringLiteral("--target"),     QStringLiteral("my:") + table,
                            QStringLiteral("--watermark"),  QStringLiteral("at"),
                            QStringLiteral("--batch-size"), QStringLiteral("300")};
        if (perBatch)
            options << QStringLiteral("--commit-per-batch");
        QCOMPARE(addTable(options).value(0), QStringLiteral("0"));
    }
    for (const QString &table : {QStringLiteral("1"), QStringLiteral("2")}) {
        for (const QString &point :
             {QStringLiteral("after_batch_write"), QStringLiteral("before_target_commit"),
              QStringLiteral("after_target_commit")}) {
            const Run killed = cli(
                {QStringLiteral("run"), QStringLiteral("--json"), QStringLiteral("--table"), table}, point);
            QVERIFY2(killed.exitCode == -1,
                     qPrintable(table + QLatin1Char(' ') + point + QStringLiteral(": ") + killed.all()));
        }
    }
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    for (const QString &table : {QStringLiteral("one"), QStringLiteral("each")}) {
        QCOMPARE(
            value(QStringLiteral("SELECT CONCAT(COUNT(DISTINCT id), '/', COUNT(*), '/', MAX(id)) FROM %1")
                      .arg(quoteQualified(m_db, table))),
            QStringLiteral("2000/2000/2000"));
    }
    const Run verify = cli({QStringLiteral("verify")});
    QVERIFY2(verify.exitCode == 0, qPrintable(verify.all()));
}

// The server drops the streaming read (as net_write_timeout would a slow reader): the iteration
// fails and the position stays, never a short "succeeded".
void TestMariadbCopy::droppedStreamFailsTheIteration() {
    const QString source = quoteQualified(m_db, QStringLiteral("wide"));
    exec(QStringLiteral("CREATE TABLE %1 (id INT PRIMARY KEY, at INT NOT NULL, pad VARCHAR(400))")
             .arg(source));
    exec(QStringLiteral("INSERT INTO %1 SELECT seq, seq, REPEAT('p', 400) FROM seq_1_to_120000").arg(source));
    QCOMPARE(addTable({QStringLiteral("--source"), QStringLiteral("my:wide"), QStringLiteral("--target"),
                       QStringLiteral("lite:wide"), QStringLiteral("--watermark"), QStringLiteral("at"),
                       QStringLiteral("--batch-size"), QStringLiteral("100")})
                 .value(0),
             QStringLiteral("0"));
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    env.insert(QStringLiteral("TIDEMARK_FAULT_STOP"), QStringLiteral("after_batch_write"));
    process.setProcessEnvironment(env);
    process.start(cliPath(),
                  {QStringLiteral("-w"), m_workspace, QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY(process.waitForStarted());
    QTRY_VERIFY_WITH_TIMEOUT(processState(process.processId()) == QLatin1Char('T') ||
                                 process.state() == QProcess::NotRunning,
                             120000);
    QVERIFY(process.state() == QProcess::Running);
    const QString reader =
        value(QStringLiteral("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ?1 AND INFO "
                             "LIKE 'SELECT%wide%' AND ID <> CONNECTION_ID()"),
              {m_db});
    QVERIFY2(!reader.isEmpty(), "no streaming reader found");
    m_admin->execute(QStringLiteral("KILL CONNECTION ?1"), {reader.toLongLong()});
    ::kill(pid_t(process.processId()), SIGCONT);
    QVERIFY(process.waitForFinished(300000));
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    const QJsonObject iteration = QJsonDocument::fromJson(out.toUtf8())
                                      .object()
                                      .value(QStringLiteral("iterations"))
                                      .toArray()
                                      .at(0)
                                      .toObject();
    QCOMPARE(process.exitCode(), 1);
    QCOMPARE(iteration.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
    QVERIFY2(iteration.value(QStringLiteral("error")).toString().contains(QLatin1String("reading window")),
             qPrintable(out));
    QVERIFY(!tableExists(m_sqlitePath, QStringLiteral("wide"))); // rolled back with its rows
    const Run rerun = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.all()));
    QCOMPARE(rerun.written(), 120000);
}

void TestMariadbCopy::connectionSettingsAreChecked() {
    Run add = cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("bad"),
                   QStringLiteral("--mysql"), QStringLiteral("host=h user=u dbname=d password=secret")});
    QCOMPARE(add.exitCode, 2);
    QVERIFY2(add.err.contains(QLatin1String("password")) && !add.err.contains(QLatin1String("secret")),
             qPrintable(add.err));
    add = cli({QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("bad"),
               QStringLiteral("--mysql"), QStringLiteral("host=h user=u")});
    QCOMPARE(add.exitCode, 2);
    QVERIFY2(add.err.contains(QLatin1String("dbname")), qPrintable(add.err));
    const Run test = cli({QStringLiteral("connection"), QStringLiteral("test"), QStringLiteral("my")});
    QVERIFY2(test.exitCode == 0 && test.out.startsWith(QLatin1String("ok:")), qPrintable(test.all()));
    const Run list = cli({QStringLiteral("connection"), QStringLiteral("list")});
    QVERIFY2(list.out.contains(QLatin1String("mysql")), qPrintable(list.all()));
}

// Append batches go in as LOAD DATA LOCAL, which turns a refused row into a warning: the batch is
// undone and written again as INSERTs, so the refused row is reported, never silently dropped.
// Escapes survive the text form; a server that refuses LOCAL gets INSERTs.
void TestMariadbCopy::loadedBatchesHideNoRefusedRow() {
    execSql(
        m_sqlitePath,
        QStringLiteral("CREATE TABLE orders (id INTEGER PRIMARY KEY, updated_at TEXT NOT NULL, note TEXT, "
                       "raw BLOB, amount REAL);"
                       "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < 40) "
                       "INSERT INTO orders SELECT i, '2025-01-01T00:00:' || printf('%02d', i) || '.000001Z', "
                       "'n' || i, NULL, i / 7.0 FROM g;"
                       "UPDATE orders SET note = 'back\\slash \\N tab' || char(9) || 'line' || char(10) || "
                       "'cr' || char(13) || 'end', raw = x'00095c4e0a' WHERE id = 3;"
                       "UPDATE orders SET note = '\\N' WHERE id = 4;"
                       "UPDATE orders SET note = NULL WHERE id = 5;"));
    const QString target = quoteQualified(m_db, QStringLiteral("orders"));
    exec(QStringLiteral("CREATE TABLE %1 (id BIGINT PRIMARY KEY, updated_at DATETIME(6) NOT NULL, note TEXT, "
                        "raw VARBINARY(16), amount DOUBLE)")
             .arg(target));
    exec(QStringLiteral("INSERT INTO %1 VALUES (7, '2024-01-01 00:00:00', 'already here', NULL, 0)")
             .arg(target));
    const QStringList add =
        addTable({QStringLiteral("--source"), QStringLiteral("lite:orders"), QStringLiteral("--target"),
                  QStringLiteral("my:orders"), QStringLiteral("--watermark"), QStringLiteral("updated_at"),
                  QStringLiteral("--max-skipped"), QStringLiteral("5"), QStringLiteral("--batch-size"),
                  QStringLiteral("16")});
    QCOMPARE(add.value(0), QStringLiteral("0"));

    const auto loads = [this] {
        return m_admin->query(QStringLiteral("SHOW GLOBAL STATUS LIKE 'Com_load'")).value(0).value(1).toInt();
    };
    const int loadsBefore = loads();
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.status() == QStringLiteral("warning"), qPrintable(run.all()));
    QVERIFY(loads() >= loadsBefore + 3); // a LOAD DATA for each batch of 16
    QCOMPARE(run.written(), 39);
    QCOMPARE(run.iteration().value(QStringLiteral("rows_skipped")).toInt(), 1);
    QCOMPARE(value(QStringLiteral("SELECT note FROM %1 WHERE id = 7").arg(target)),
             QStringLiteral("already here"));
    QCOMPARE(value(QStringLiteral("SELECT COUNT(*) FROM %1").arg(target)), QStringLiteral("40"));
    QCOMPARE(value(QStringLiteral("SELECT note FROM %1 WHERE id = 3").arg(target)),
             QStringLiteral("back\\slash \\N tab\tline\ncr\rend"));
    QCOMPARE(value(QStringLiteral("SELECT HEX(raw) FROM %1 WHERE id = 3").arg(target)),
             QStringLiteral("00095C4E0A"));
    QCOMPARE(value(QStringLiteral("SELECT note FROM %1 WHERE id = 4").arg(target)), QStringLiteral("\\N"));
    QCOMPARE(value(QStringLiteral("SELECT note IS NULL FROM %1 WHERE id = 5").arg(target)),
             QStringLiteral("1"));
    QCOMPARE(value(QStringLiteral("SELECT amount = 8 / 7.0e0 FROM %1 WHERE id = 8").arg(target)),
             QStringLiteral("1"));
    QCOMPARE(
        value(QStringLiteral("SELECT DATE_FORMAT(updated_at, '%Y-%m-%d %H:%i:%s.%f') FROM %1 WHERE id = 40")
                  .arg(target)),
        QStringLiteral("2025-01-01 00:00:40.000001"));

    // A server that refuses LOCAL: the rows go in as INSERTs, all of them.
    exec(QStringLiteral("SET GLOBAL local_infile = 0"));
    const auto restore = qScopeGuard([this] { exec(QStringLiteral("SET GLOBAL local_infile = 1")); });
    execSql(m_sqlitePath,
            QStringLiteral(
                "WITH RECURSIVE g(i) AS (SELECT 41 UNION ALL SELECT i + 1 FROM g WHERE i < 60) "
                "INSERT INTO orders SELECT i, '2025-01-01T00:01:' || printf('%02d', i - 1) || '.000001Z', "
                "'m' || char(9) || i, NULL, i FROM g;"));
    const int refusedBefore = loads();
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.status(), QStringLiteral("succeeded"));
    QCOMPARE(run.written(), 20);
    QVERIFY(loads() <= refusedBefore + 1); // refused once, then INSERTs
    QCOMPARE(value(QStringLiteral("SELECT COUNT(*) FROM %1").arg(target)), QStringLiteral("60"));
    QCOMPARE(value(QStringLiteral("SELECT note FROM %1 WHERE id = 60").arg(target)), QStringLiteral("m\t60"));
}

// Reconcile into MariaDB (it reads every key: no bucket sums there yet): marked with a DATETIME(6)
// stamp, then removed by the copy's own iterations, every second one (--delete-check 2).
void TestMariadbCopy::deletesReachAMariadbTarget() {
    makeOrders(m_sqlitePath, 200);
    const QStringList add =
        addTable({QStringLiteral("--source"), QStringLiteral("lite:orders"), QStringLiteral("--target"),
                  QStringLiteral("my:orders"), QStringLiteral("--watermark"), QStringLiteral("updated_at")});
    QCOMPARE(add.value(0), QStringLiteral("0"));
    const QString id = add.value(1);
    const QString target = quoteQualified(m_db, QStringLiteral("orders"));
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    exec(QStringLiteral("ALTER TABLE %1 ADD COLUMN deleted_at DATETIME(6) NULL").arg(target));
    execSql(m_sqlitePath, QStringLiteral("DELETE FROM orders WHERE id IN (3, 50, 51, 120, 199)"));
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("edit"), id, QStringLiteral("--deletes"),
                  QStringLiteral("mark:deleted_at"), QStringLiteral("--delete-grace"), QStringLiteral("0s"),
                  QStringLiteral("--delete-check"), QStringLiteral("2")})
                 .exitCode,
             0);

    const Run reconciled =
        cli({QStringLiteral("reconcile"), id, QStringLiteral("--apply"), QStringLiteral("--json")});
    QVERIFY2(reconciled.exitCode == 0, qPrintable(reconciled.all()));
    QCOMPARE(reconciled.json().value(QStringLiteral("method")).toString(), QStringLiteral("rows"));
    QCOMPARE(reconciled.json().value(QStringLiteral("removed")).toInt(), 5);
    QCOMPARE(value(QStringLiteral("SELECT GROUP_CONCAT(id ORDER BY id) FROM %1 WHERE deleted_at IS NOT NULL")
                       .arg(target)),
             QStringLiteral("3,50,51,120,199"));

    // The table's second copy does not look (one finished before it), its third does.
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("edit"), id, QStringLiteral("--deletes"),
                  QStringLiteral("remove")})
                 .exitCode,
             0);
    execSql(m_sqlitePath, QStringLiteral("DELETE FROM orders WHERE id IN (7, 8)"));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.iteration().value(QStringLiteral("rows_deleted")).toInt(), 0);
    execSql(m_sqlitePath, QStringLiteral("DELETE FROM orders WHERE id = 9"));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.iteration().value(QStringLiteral("rows_deleted")).toInt(), 8);
    QCOMPARE(value(QStringLiteral("SELECT COUNT(*) FROM %1").arg(target)), QStringLiteral("192"));
}

// A DATETIME watermark holds Europe/Berlin's wall clock (--source-timezone): rows stamped every
// five minutes across the night summer time ends, a run every twenty minutes, and no row of the
// hour that happens twice is lost (docs/design.md, "Naive timestamps").
void TestMariadbCopy::naiveDatetimeAcrossFallBack() {
    const QString source = quoteQualified(m_db, QStringLiteral("events"));
    exec(QStringLiteral("CREATE TABLE %1 (id INT PRIMARY KEY, at DATETIME(6) NOT NULL, payload VARCHAR(20))")
             .arg(source));
    // 2026-10-25T01:00Z: 03:00 CEST becomes 02:00 CET.
    const QDateTime fallBack(QDate(2026, 10, 25), QTime(1, 0), QTimeZone::utc());
    const auto wall = [&](int minutesFromStart) {
        const QDateTime now = fallBack.addSecs((minutesFromStart - 60) * 60);
        return now.addSecs(now < fallBack ? 7200 : 3600).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    };
    const auto insert = [&](int id) {
        m_admin->execute(QStringLiteral("INSERT INTO %1 VALUES (?1, ?2, ?3)").arg(source),
                         {id, wall(id * 5), QStringLiteral("row %1").arg(id)});
    };
    insert(0);
    const QStringList add =
        addTable({QStringLiteral("--source"), QStringLiteral("my:events"), QStringLiteral("--target"),
                  QStringLiteral("lite:events"), QStringLiteral("--watermark"), QStringLiteral("at"),
                  QStringLiteral("--mode"), QStringLiteral("merge"), QStringLiteral("--source-timezone"),
                  QStringLiteral("Europe/Berlin")});
    QCOMPARE(add.value(0), QStringLiteral("0"));
    for (int id = 1; id <= 36; ++id) {
        insert(id);
        if (id % 4 != 3)
            continue;
        const Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    }
    QCOMPARE(cli({QStringLiteral("run")}).exitCode, 0);
    QCOMPARE(countRows(m_sqlitePath, QStringLiteral("events")), 37);
    const Run verified = cli({QStringLiteral("verify"), QStringLiteral("--table"), QStringLiteral("1")});
    QVERIFY2(verified.exitCode == 0, qPrintable(verified.all()));
}

QTEST_GUILESS_MAIN(TestMariadbCopy)
#include "tst_mariadbcopy.moc"

// An existing target column that would cut what the source holds (fraction digits of a DATETIME(6),
// digits of a DECIMAL) is refused at table add, naming it; one narrowed after the add fails the
// run, and the position stays where it was.
void TestMariadbCopy::lossyTargetColumnsAreRefused() {
    const QString source = quoteQualified(m_db, QStringLiteral("lossy"));
    const QString target = quoteQualified(m_otherDb, QStringLiteral("lossy"));
    exec(QStringLiteral("CREATE TABLE %1 (id INT PRIMARY KEY, at DATETIME(6) NOT NULL, amount DECIMAL(12,4))")
             .arg(source));
    exec(QStringLiteral("INSERT INTO %1 VALUES (1, '2025-01-01 00:00:00.000001', 1.2345), "
                        "(2, '2025-01-01 00:00:00.000002', 2.5)")
             .arg(source));
    exec(QStringLiteral("CREATE TABLE %1 (id INT PRIMARY KEY, at DATETIME NOT NULL, amount DECIMAL(12,4))")
             .arg(target));
    const QStringList options{QStringLiteral("--source"),    QStringLiteral("my:lossy"),
                              QStringLiteral("--target"),    QStringLiteral("other:lossy"),
                              QStringLiteral("--watermark"), QStringLiteral("at")};
    QStringList add = addTable(options);
    QCOMPARE(add.value(0), QStringLiteral("2"));
    QVERIFY2(add.value(2).contains(QLatin1String("target column 'at' of 'other:lossy' (datetime)")) &&
                 add.value(2).contains(
                     QLatin1String("keeps 0 fraction digits of a second where the source has 6")),
             qPrintable(add.value(2)));
    QCOMPARE(cli({QStringLiteral("table"), QStringLiteral("list")}).out.count(QLatin1String("my:lossy")), 0);

    exec(QStringLiteral("ALTER TABLE %1 MODIFY at DATETIME(6) NOT NULL").arg(target));
    add = addTable(options);
    QCOMPARE(add.value(0), QStringLiteral("0"));
    Run run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, qPrintable(run.all()));
    QCOMPARE(run.written(), 2);

    exec(QStringLiteral("ALTER TABLE %1 MODIFY amount DECIMAL(12,2)").arg(target));
    exec(QStringLiteral("INSERT INTO %1 VALUES (3, '2025-01-01 00:00:00.000003', 3.3333)").arg(source));
    run = cli({QStringLiteral("run"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.status(), QStringLiteral("failed"));
    const QString error = run.iteration().value(QStringLiteral("error")).toString();
    QVERIFY2(error.contains(QLatin1String("target column 'amount'")) &&
                 error.contains(QLatin1String("keeps 2 digits after the point where the source has 4")),
             qPrintable(error));
    QCOMPARE(value(QStringLiteral("SELECT COUNT(*) FROM %1").arg(target)), QStringLiteral("2"));
    const QString watermark =
        value(QStringLiteral("SELECT watermark FROM %1.tidemark_state WHERE table_id = 1")
                  .arg(quoteIdentifier(m_otherDb)));
    QVERIFY2(watermark.startsWith(QLatin1String("2025-01-01T00:00:00.000002")), qPrintable(watermark));
}
