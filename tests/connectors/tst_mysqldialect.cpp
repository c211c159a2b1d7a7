// SPDX-License-Identifier: MIT
// The MySQL rendering of the contract SQL, without a server: numbered placeholders made
// positional, the binary tiebreak, the guarded ON DUPLICATE KEY UPDATE, the connection settings.
#include "model/common/error.h"
#include "model/connectors/contractsql.h"
#include "model/connectors/mariadbconnector.h"
#include "model/connectors/statetable.h"

#include <QtTest>

using namespace tidemark;

class TestMysqlDialect : public QObject {
    Q_OBJECT

private slots:
    void positional_data() {
        QTest::addColumn<QString>("numbered");
        QTest::addColumn<QString>("positional");
        QTest::addColumn<QList<int>>("order");
        QTest::newRow("in order") << QStringLiteral("a = ?1 AND b = ?2") << QStringLiteral("a = ? AND b = ?")
                                  << QList<int>{0, 1};
        QTest::newRow("repeated and reordered")
            << QStringLiteral("x = ?2 OR y = ?1 OR z = ?2") << QStringLiteral("x = ? OR y = ? OR z = ?")
            << QList<int>{1, 0, 1};
        QTest::newRow("two digits") << QStringLiteral("?12, ?3") << QStringLiteral("?, ?")
                                    << QList<int>{11, 2};
        QTest::newRow("quoted identifier kept")
            << QStringLiteral(R"("a?1""b" = ?1)") << QStringLiteral(R"("a?1""b" = ?)") << QList<int>{0};
        QTest::newRow("literal kept") << QStringLiteral("DATE_FORMAT(x, '%Y?1') = ?1")
                                      << QStringLiteral("DATE_FORMAT(x, '%Y?1') = ?") << QList<int>{0};
        QTest::newRow("backticks kept")
            << QStringLiteral("`c?2` = ?2") << QStringLiteral("`c?2` = ?") << QList<int>{1};
    }
    void positional() {
        QFETCH(QString, numbered);
        QFETCH(QString, positional);
        QFETCH(QList<int>, order);
        const PositionalSql result = mysqlPositional(numbered);
        QCOMPARE(result.sql, positional);
        QCOMPARE(result.order, order);
    }

    void windowComparesTiebreakInBinary() {
        WindowQuery window;
        window.table = {QStringLiteral("shop"), QStringLiteral("orders")};
        window.columns = {QStringLiteral("id"), QStringLiteral("code")};
        window.watermarkColumn = QStringLiteral("at");
        window.watermarkType = WatermarkType::Timestamp;
        window.tiebreakColumn = QStringLiteral("code");
        window.lower = Position(*Watermark::timestamp(QStringLiteral("2025-01-01T00:00:00.000001Z")),
                                QVariant(QStringLiteral("abc")));
        window.upper = *Watermark::timestamp(QStringLiteral("2025-02-01T00:00:00Z"));
        const BoundSql select =
            ContractSql(SqlDialect::Mysql, QStringLiteral("DATETIME(6)"), true).selectWindow(window);
        QVERIFY2(select.sql.contains(QLatin1String(R"(BINARY "code" > ?)")), qPrintable(select.sql));
        QVERIFY2(select.sql.contains(QLatin1String(R"("at" > CAST(?)")), qPrintable(select.sql));
        QVERIFY2(select.sql.endsWith(QLatin1String(R"(ORDER BY "at", BINARY "code")")),
                 qPrintable(select.sql));
        QVERIFY2(select.sql.contains(QLatin1String("MONTH(")), qPrintable(select.sql)); // zero dates left out
    }

    void mergeGuardAssignsVersionsLast() {
        WriteSpec spec;
        spec.mode = WriteMode::Merge;
        spec.keyColumns = {QStringLiteral("id")};
        spec.watermarkColumn = QStringLiteral("at");
        spec.tiebreakColumn = QStringLiteral("seq");
        const QString clause = ContractSql(SqlDialect::Mysql)
                                   .mergeConflict(spec,
                                                  {QStringLiteral("id"), QStringLiteral("at"),
                                                   QStringLiteral("seq"), QStringLiteral("v")},
                                                  QStringLiteral(R"("t")"));
        QVERIFY2(clause.startsWith(QLatin1String(R"( ON DUPLICATE KEY UPDATE "v" = IF()")),
                 qPrintable(clause));
        QVERIFY2(clause.indexOf(QLatin1String(R"("seq" = IF()")) <
                     clause.indexOf(QLatin1String(R"("at" = IF()")),
                 qPrintable(clause));
        QVERIFY2(clause.contains(QLatin1String(R"(VALUES("at") > "t"."at")")), qPrintable(clause));
        QVERIFY(!clause.contains(QLatin1String(R"("id" = )")));
    }

    void stateTableIsBinaryInnoDb() {
        const StateTableSql sql(StateDialect::Mysql);
        QVERIFY(sql.create().endsWith(
            QLatin1String("ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin")));
        QVERIFY(sql.updateIfAt().contains(QLatin1String(R"("watermark" <=> ?19)"))); // after 17 row values
        QVERIFY(!sql.insertIfAbsent().contains(QLatin1String("ON ")));
        QVERIFY(sql.upsert().contains(
            QLatin1String(R"(ON DUPLICATE KEY UPDATE "watermark_type" = VALUES("watermark_type"))")));
    }

    void settingsParse() {
        const MysqlParams params = parseMysqlConninfo(
            QStringLiteral("c"), QStringLiteral("host=db port=3307 user=u dbname='my db' sslmode=require"));
        QCOMPARE(params.host, QStringLiteral("db"));
        QCOMPARE(params.port, 3307u);
        QCOMPARE(params.database, QStringLiteral("my db"));
        QCOMPARE(params.sslMode, QStringLiteral("require"));
        for (const QString &bad : {QStringLiteral("host=db user=u"), QStringLiteral("dbname=d password=x"),
                                   QStringLiteral("dbname=d port=0"), QStringLiteral("dbname=d colour=red"),
                                   QStringLiteral("dbname=d sslmode=maybe")}) {
            QVERIFY_THROWS_EXCEPTION(ValidationError, parseMysqlConninfo(QStringLiteral("c"), bad));
        }
    }
};

QTEST_GUILESS_MAIN(TestMysqlDialect)
#include "tst_mysqldialect.moc"
