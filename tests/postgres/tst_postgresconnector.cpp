// SPDX-License-Identifier: MIT
// The PostgreSQL connector against a real server: scripts/pgcluster.sh start, then export
// TIDEMARK_PG_PORT (scripts/test.sh does both). Each test works in its own schema.
#include "model/common/error.h"
#include "model/common/sqlquote.h"
#include "model/connectors/conninfo.h"
#include "model/connectors/postgresconnector.h"
#include "model/connectors/sqliteconnector.h"
#include "tests/support/testsupport.h"

#include <QTemporaryDir>
#include <QtTest>

#include <limits>

using namespace tidemark;
using tidemark::test::cellValue;
using tidemark::test::sqliteSpec;

namespace {

QString pgPort() {
    return QString::fromLocal8Bit(qgetenv("TIDEMARK_PG_PORT"));
}

ConnectionSpec pgSpec(const QString &name, const QString &extra = QString(),
                      const QString &dbname = QStringLiteral("tidemark")) {
    ConnectionSpec spec;
    spec.name = name;
    spec.kind = ConnectionKind::Postgres;
    spec.conninfo = QStringLiteral("host=127.0.0.1 port=%1 dbname=%2 user=tidemark").arg(pgPort(), dbname);
    if (!extra.isEmpty())
        spec.conninfo += QLatin1Char(' ') + extra;
    return spec;
}

QList<QVariantList> readAll(SourceCursor &cursor, int batchSize = 1000, QList<int> *batchSizes = nullptr) {
    QList<QVariantList> rows;
    RowBatch batch;
    while (cursor.fetch(batch, batchSize)) {
        if (batch.rowCount() > batchSize)
            throw Error(QStringLiteral("batch larger than asked"));
        if (batchSizes)
            *batchSizes << batch.rowCount();
        for (int r = 0; r < batch.rowCount(); ++r) {
            QVariantList row;
            for (int c = 0; c < batch.columnCount(); ++c)
                row << cellValue(batch, r, c);
            rows << row;
        }
    }
    return rows;
}

void fillBatch(RowBatch &batch, const QList<QVariantList> &rows, int columns) {
    batch.reset(columns);
    for (const QVariantList &row : rows) {
        for (const QVariant &value : row) {
            if (value.isNull()) {
                batch.appendNull();
            } else if (value.typeId() == QMetaType::Double) {
                batch.appendReal(value.toDouble());
            } else if (value.typeId() == QMetaType::QByteArray) {
                const QByteArray bytes = value.toByteArray();
                batch.appendBlob(bytes.constData(), std::size_t(bytes.size()));
            } else if (value.typeId() == QMetaType::QString) {
                const QByteArray bytes = value.toString().toUtf8();
                batch.appendText(bytes.constData(), std::size_t(bytes.size()));
            } else {
                batch.appendInteger(value.toLongLong());
            }
        }
    }
}

ColumnInfo column(const QString &name, LogicalType logical, const QString &native = QString(), int pk = 0) {
    ColumnInfo info;
    info.name = name;
    info.logical = logical;
    info.nativeType = native;
    info.primaryKeyOrdinal = pk;
    return info;
}

// Writes all batches of a cursor into a writer, returning the rejections.
std::vector<RowRejection> pump(SourceCursor &cursor, RowWriter &writer, int batchSize = 3) {
    std::vector<RowRejection> rejected;
    RowBatch batch;
    while (cursor.fetch(batch, batchSize))
        writer.writeBatch(batch, rejected);
    writer.finish(rejected);
    for (const RowRejection &rejection : rejected)
        qWarning("row %d rejected: %s", rejection.row, qPrintable(rejection.error));
    return rejected;
}

} // namespace

class TestPostgresConnector : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void parseTableName();
    void conninfoRefusesPassword();
    void badPasswordNeverShown();
    void passwordFromEnvironment();
    void describeAndDetect();
    void windowTimestampTzInOtherSessionZone();
    void windowTimestampAndDate();
    void keysetOrderAndTies();
    void lookbackIsInclusive();
    void nullWatermarksAreCounted();
    void appendMergeOverwrite();
    void mergeNeverReplacesNewerWithOlder();
    void mergeOrderIsTheSameInEveryEngine();
    void stateCommitsWithRows();
    void hostileNames();
    void rejectsRowsOneByOne();
    void roundTripPostgresSqlitePostgres();
    void roundTripSqlitePostgresSqlite();
    void numericExactThroughSqlite();
    void pushDownInsideOneDatabase();

private:
    std::unique_ptr<PostgresConnector> connect(const QString &extra = QString());
    QString qualified(const QString &table) const { return quoteQualified(m_schema, table); }

    std::unique_ptr<PostgresConnector> m_admin;
    QString m_schema;
};

std::unique_ptr<PostgresConnector> TestPostgresConnector::connect(const QString &extra) {
    return std::make_unique<PostgresConnector>(pgSpec(QStringLiteral("pg"), extra));
}

void TestPostgresConnector::initTestCase() {
    TIDEMARK_REQUIRE_POSTGRES();
}

void TestPostgresConnector::init() {
    m_admin = connect();
    // A space and a quote in every schema name: quoting is exercised by every test.
    m_schema = QStringLiteral("tst \"%1\"").arg(QString::fromLatin1(QTest::currentTestFunction()));
    m_admin->execute(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
    m_admin->execute(QStringLiteral("CREATE SCHEMA %1").arg(quoteIdentifier(m_schema)));
    // Only a write creates public.tidemark_state (cleanup() deletes this suite's rows from it).
    m_admin->writeState({QStringLiteral("tst-none"), 0, Position(), 0});
}

void TestPostgresConnector::cleanup() {
    if (m_admin) {
        m_admin->execute(QStringLiteral("DROP SCHEMA IF EXISTS %1 CASCADE").arg(quoteIdentifier(m_schema)));
        m_admin->execute(QStringLiteral("DELETE FROM public.tidemark_state WHERE workspace_id LIKE 'tst-%'"));
    }
    m_admin.reset();
}

void TestPostgresConnector::parseTableName() {
    auto pg = connect();
    TableRef ref = pg->parseTableName(QStringLiteral("Sales Data.Order \"Lines\""));
    QCOMPARE(ref.schema, QStringLiteral("Sales Data"));
    QCOMPARE(ref.name, QStringLiteral("Order \"Lines\""));
    ref = pg->parseTableName(QStringLiteral("Orders"));
    QCOMPARE(ref.schema, QStringLiteral("public"));
    QCOMPARE(ref.name, QStringLiteral("Orders"));
    ref = pg->parseTableName(QStringLiteral("a.b.c"));
    QCOMPARE(ref.schema, QStringLiteral("a"));
    QCOMPARE(ref.name, QStringLiteral("b.c"));
}

void TestPostgresConnector::conninfoRefusesPassword() {
    const QString expected = QStringLiteral(
        "connection 'prod': a password inside CONNINFO is refused; use --password-env VAR or ~/.pgpass");
    for (const QString &conninfo : {QStringLiteral("host=db dbname=x password=s3cret"),
                                    QStringLiteral("postgresql://alice:s3cret@db:5432/x"),
                                    QStringLiteral("host=db password='with space'")}) {
        try {
            checkConninfo(QStringLiteral("prod"), conninfo);
            QFAIL(qPrintable(QStringLiteral("accepted: ") + conninfo));
        } catch (const ValidationError &error) {
            QCOMPARE(error.message(), expected);
        }
        QVERIFY(!redactConninfo(conninfo).contains(QLatin1String("s3cret")));
        QVERIFY(!redactConninfo(conninfo).contains(QLatin1String("with space")));
    }
    checkConninfo(QStringLiteral("prod"),
                  QStringLiteral("host=db port=5432 dbname=x user=alice sslmode=require"));
    checkConninfo(QStringLiteral("prod"), QStringLiteral("postgresql://alice@db/x"));
    QVERIFY_THROWS_EXCEPTION(ValidationError,
                             checkConninfo(QStringLiteral("prod"), QStringLiteral("host=db 'oops")));
    QCOMPARE(redactConninfo(QStringLiteral("host=db dbname='my db' password=s3cret")),
             QStringLiteral("dbname='my db' host=db"));
}

void TestPostgresConnector::badPasswordNeverShown() {
    const QByteArray secret = "wrong-Secret-4711";
    qputenv("TIDEMARK_TEST_PG_PASSWORD", secret);
    ConnectionSpec spec = pgSpec(QStringLiteral("pw"), QString(), QStringLiteral("tidemark_pw"));
    spec.passwordEnv = QStringLiteral("TIDEMARK_TEST_PG_PASSWORD");
    try {
        PostgresConnector connector(spec);
        QFAIL("connected with a wrong password");
    } catch (const Error &error) {
        QVERIFY2(!error.message().contains(QString::fromLatin1(secret)), qPrintable(error.message()));
        QVERIFY2(error.message().startsWith(QLatin1String("connection 'pw' (")), qPrintable(error.message()));
        QVERIFY2(error.message().contains(QLatin1String("dbname=tidemark_pw")), qPrintable(error.message()));
        QVERIFY2(error.message().contains(QLatin1String("password authentication failed")),
                 qPrintable(error.message()));
    }
    qunsetenv("TIDEMARK_TEST_PG_PASSWORD");
    spec.passwordEnv = QStringLiteral("TIDEMARK_TEST_PG_PASSWORD");
    try {
        PostgresConnector connector(spec);
        QFAIL("connected without the password variable");
    } catch (const Error &error) {
        QVERIFY2(error.message().contains(QLatin1String("TIDEMARK_TEST_PG_PASSWORD")),
                 qPrintable(error.message()));
    }
}

void TestPostgresConnector::passwordFromEnvironment() {
    qputenv("TIDEMARK_TEST_PG_PASSWORD", "tidemark");
    ConnectionSpec spec = pgSpec(QStringLiteral("pw"), QString(), QStringLiteral("tidemark_pw"));
    spec.passwordEnv = QStringLiteral("TIDEMARK_TEST_PG_PASSWORD");
    PostgresConnector connector(spec);
    QCOMPARE(connector.query(QStringLiteral("SELECT current_database()")).value(0).value(0),
             QStringLiteral("tidemark_pw"));
    qunsetenv("TIDEMARK_TEST_PG_PASSWORD");

    // ~/.pgpass works because libpq reads it itself.
    QTemporaryDir dir;
    const QString passfile = dir.filePath(QStringLiteral("pgpass"));
    QFile file(passfile);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QStringLiteral("127.0.0.1:%1:tidemark_pw:tidemark:tidemark\n").arg(pgPort()).toUtf8());
    file.close();
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    PostgresConnector viaPassfile(
        pgSpec(QStringLiteral("pw"), QStringLiteral("passfile=") + passfile, QStringLiteral("tidemark_pw")));
    QCOMPARE(viaPassfile.query(QStringLiteral("SELECT 1")).value(0).value(0), QStringLiteral("1"));
}

void TestPostgresConnector::describeAndDetect() {
    m_admin->execute(QStringLiteral("CREATE TABLE %1 (region text, id int4, small int2, big int8, amount "
                                    "numeric(38,10), r real, d double "
                                    "precision, name varchar(20), payload bytea, flag boolean NOT NULL "
                                    "DEFAULT false, day date, at timestamp, "
                                    "attz timestamptz, u uuid, j json, jb jsonb, PRIMARY KEY (region, id))")
                         .arg(qualified(QStringLiteral("all types"))));
    // Only an index's first column serves a range on it (the watermark suggestion ranks by it).
    m_admin->execute(QStringLiteral("CREATE INDEX ON %1 (attz)").arg(qualified(QStringLiteral("all types"))));
    m_admin->execute(
        QStringLiteral("CREATE INDEX ON %1 (big, at)").arg(qualified(QStringLiteral("all types"))));
    auto pg = connect();
    const TableRef ref{m_schema, QStringLiteral("all types")};
    QVERIFY(pg->tableExists(ref));
    QVERIFY(!pg->tableExists({m_schema, QStringLiteral("All Types")}));
    const TableSchema schema = pg->describeTable(ref);
    QCOMPARE(schema.primaryKey(), QStringList({QStringLiteral("region"), QStringLiteral("id")}));
    const QList<QPair<QString, LogicalType>> expected = {
        {QStringLiteral("region"), LogicalType::Text},      {QStringLiteral("id"), LogicalType::Integer},
        {QStringLiteral("small"), LogicalType::Integer},    {QStringLiteral("big"), LogicalType::Integer},
        {QStringLiteral("amount"), LogicalType::Numeric},   {QStringLiteral("r"), LogicalType::Real},
        {QStringLiteral("d"), LogicalType::Real},           {QStringLiteral("name"), LogicalType::Text},
        {QStringLiteral("payload"), LogicalType::Blob},     {QStringLiteral("flag"), LogicalType::Boolean},
        {QStringLiteral("day"), LogicalType::Date},         {QStringLiteral("at"), LogicalType::Timestamp},
        {QStringLiteral("attz"), LogicalType::TimestampTz}, {QStringLiteral("u"), LogicalType::Uuid},
        {QStringLiteral("j"), LogicalType::Json},           {QStringLiteral("jb"), LogicalType::Json},
    };
    QCOMPARE(schema.columns.size(), expected.size());
    for (int i = 0; i < expected.size(); ++i) {
        QCOMPARE(schema.columns[i].name, expected[i].first);
        QCOMPARE(int(schema.columns[i].logical), int(expected[i].second));
    }
    QCOMPARE(schema.column(QStringLiteral("amount"))->nativeType, QStringLiteral("numeric(38,10)"));
    QCOMPARE(schema.column(QStringLiteral("id"))->primaryKeyOrdinal, 2);
    QVERIFY(schema.column(QStringLiteral("flag"))->notNull);
    for (const QString &name : {QStringLiteral("region"), QStringLiteral("attz"), QStringLiteral("big")})
        QVERIFY2(schema.column(name)->indexed, qPrintable(name));
    for (const QString &name : {QStringLiteral("id"), QStringLiteral("at"), QStringLiteral("day")})
        QVERIFY2(!schema.column(name)->indexed, qPrintable(name));
    for (const QString &name : {QStringLiteral("day"), QStringLiteral("at"), QStringLiteral("attz")})
        QCOMPARE(pg->detectWatermarkType(ref, *schema.column(name)), WatermarkType::Timestamp);
    for (const QString &name : {QStringLiteral("id"), QStringLiteral("small"), QStringLiteral("big")})
        QCOMPARE(pg->detectWatermarkType(ref, *schema.column(name)), WatermarkType::Integer);
    for (const QString &name : {QStringLiteral("region"), QStringLiteral("amount"), QStringLiteral("r")})
        QCOMPARE(pg->detectWatermarkType(ref, *schema.column(name)), WatermarkType::None);
    QVERIFY_THROWS_EXCEPTION(Error, pg->describeTable({m_schema, QStringLiteral("missing")}));
    bool listed = false;
    for (const TableRef &table : pg->listTables())
        listed = listed || (table.schema == m_schema && table.name == ref.name);
    QVERIFY(listed);
}

void TestPostgresConnector::windowTimestampTzInOtherSessionZone() {
    // Rows written by a session in another zone; read by a session whose user asks for a third.
    m_admin->execute(QStringLiteral("SET TimeZone = 'Asia/Kolkata'"));
    m_admin->execute(
        QStringLiteral("CREATE TABLE %1 (id int PRIMARY KEY, at timestamptz)").arg(qualified("events")));
    m_admin->execute(
        QStringLiteral("INSERT INTO %1 VALUES (1, '2025-01-01 05:30:00'), (2, '2025-01-01 05:30:00.000001'), "
                       "(3, '2025-01-01 10:00:00.123456'), (4, NULL), (5, '2025-07-30 23:05:18+00')")
            .arg(qualified("events")));
    auto pg = connect(QStringLiteral("options='-c TimeZone=America/New_York'"));
    const TableRef ref{m_schema, QStringLiteral("events")};
    const WatermarkProbe probe = pg->probeWatermark(ref, QStringLiteral("at"), WatermarkType::Timestamp);
    QCOMPARE(probe.maximum.nativeText(), QStringLiteral("2025-07-30T23:05:18.000000Z"));
    QCOMPARE(probe.nullCount, qint64(1));
    const Watermark sample = pg->sampleWatermark(ref, QStringLiteral("at"), WatermarkType::Timestamp);
    QVERIFY(sample.nativeText().endsWith(QLatin1String("Z")));

    WindowQuery query;
    query.table = ref;
    query.columns = {QStringLiteral("id"), QStringLiteral("at")};
    query.watermarkColumn = QStringLiteral("at");
    query.lower =
        Position(*Watermark::timestamp(QStringLiteral("2025-01-01T00:00:00Z"))); // = 05:30 in Kolkata
    query.upper = *Watermark::timestamp(QStringLiteral("2025-01-01T04:30:00.123456Z"));
    QCOMPARE(pg->countWindow(query), qint64(2));
    auto cursor = pg->openWindow(query);
    const auto rows = readAll(*cursor);
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0], QVariantList({qint64(2), QStringLiteral("2025-01-01T00:00:00.000001Z")}));
    QCOMPARE(rows[1], QVariantList({qint64(3), QStringLiteral("2025-01-01T04:30:00.123456Z")}));
    cursor.reset();

    // A bound spelled with an offset means the same instant.
    query.lower = Position(*Watermark::timestamp(QStringLiteral("2025-01-01T05:30:00.000001+05:30")));
    QCOMPARE(pg->countWindow(query), qint64(1));
}

void TestPostgresConnector::windowTimestampAndDate() {
    m_admin->execute(
        QStringLiteral("CREATE TABLE %1 (id int PRIMARY KEY, at timestamp, day date)").arg(qualified("t")));
    m_admin->execute(
        QStringLiteral("INSERT INTO %1 VALUES (1, '2025-03-01 10:00:00', '2025-03-01'), "
                       "(2, '2025-03-01 10:00:00.5', '2025-03-02'), (3, '2025-03-02 00:00:00', '2025-03-03')")
            .arg(qualified("t")));
    auto pg = connect(QStringLiteral("options='-c TimeZone=Pacific/Auckland'"));
    const TableRef ref{m_schema, QStringLiteral("t")};
    QCOMPARE(pg->probeWatermark(ref, QStringLiteral("at"), WatermarkType::Timestamp).maximum.nativeText(),
             QStringLiteral("2025-03-02T00:00:00.000000"));
    QCOMPARE(pg->probeWatermark(ref, QStringLiteral("day"), WatermarkType::Timestamp).maximum.nativeText(),
             QStringLiteral("2025-03-03"));
    WindowQuery query;
    query.table = ref;
    query.columns = {QStringLiteral("id"), QStringLiteral("at"), QStringLiteral("day")};
    query.watermarkColumn = QStringLiteral("at");
    query.lower = Position(*Watermark::timestamp(QStringLiteral("2025-03-01T10:00:00.000000")));
    query.upper = *Watermark::timestamp(QStringLiteral("2025-03-02T00:00:00.000000"));
    auto cursor = pg->openWindow(query);
    auto rows = readAll(*cursor);
    cursor.reset();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0], QVariantList({qint64(2), QStringLiteral("2025-03-01T10:00:00.500000"),
                                    QStringLiteral("2025-03-02")}));
    query.watermarkColumn = QStringLiteral("day");
    query.lower = Position(*Watermark::timestamp(QStringLiteral("2025-03-01")));
    query.upper = *Watermark::timestamp(QStringLiteral("2025-03-03"));
    QCOMPARE(pg->countWindow(query), qint64(2));
    query.lowerInclusive = true;
    QCOMPARE(pg->countWindow(query), qint64(3));
}

void TestPostgresConnector::keysetOrderAndTies() {
    m_admin->execute(
        QStringLiteral("CREATE TABLE %1 (id int8 PRIMARY KEY, version int8 NOT NULL)").arg(qualified("k")));
    // Inserted out of order; five rows share version 10.
    m_admin->execute(
        QStringLiteral("INSERT INTO %1 VALUES (7, 10), (3, 10), (9, 20), (1, 5), (5, 10), (2, 10), (8, 10), "
                       "(4, 9223372036854775807)")
            .arg(qualified("k")));
    auto pg = connect();
    const TableRef ref{m_schema, QStringLiteral("k")};
    QCOMPARE(pg->probeWatermark(ref, QStringLiteral("version"), WatermarkType::Integer).maximum.toInteger(),
             std::numeric_limits<qint64>::max());
    WindowQuery query;
    query.table = ref;
    query.columns = {QStringLiteral("id"), QStringLiteral("version")};
    query.watermarkColumn = QStringLiteral("version");
    query.tiebreakColumn = QStringLiteral("id");
    query.upper = Watermark::integer(20);
    QList<int> sizes;
    auto cursor = pg->openWindow(query);
    const auto all = readAll(*cursor, 3, &sizes);
    cursor.reset();
    QCOMPARE(sizes, QList<int>({3, 3, 1}));
    QList<qint64> ids;
    for (const auto &row : all)
        ids << row[0].toLongLong();
    QCOMPARE(ids, QList<qint64>({1, 2, 3, 5, 7, 8, 9}));

    // Resume inside the run of equal versions: strictly after (10, 3).
    query.lower = Position(Watermark::integer(10), qint64(3));
    cursor = pg->openWindow(query);
    const auto rest = readAll(*cursor, 100);
    cursor.reset();
    ids.clear();
    for (const auto &row : rest)
        ids << row[0].toLongLong();
    QCOMPARE(ids, QList<qint64>({5, 7, 8, 9}));
    QCOMPARE(pg->countWindow(query), qint64(4));

    // Without a tiebreak the bound is exclusive on the watermark alone.
    query.tiebreakColumn.clear();
    query.lower = Position(query.lower.watermark());
    QCOMPARE(pg->countWindow(query), qint64(1));
    query.upper = Watermark();
    QCOMPARE(pg->countWindow(query), qint64(2));
}

void TestPostgresConnector::lookbackIsInclusive() {
    m_admin->execute(QStringLiteral("CREATE TABLE %1 (id int PRIMARY KEY, v int)").arg(qualified("l")));
    m_admin->execute(
        QStringLiteral("INSERT INTO %1 SELECT g, g FROM generate_series(1, 10) g").arg(qualified("l")));
    auto pg = connect();
    WindowQuery query;
    query.table = {m_schema, QStringLiteral("l")};
    query.columns = {QStringLiteral("id")};
    query.watermarkColumn = QStringLiteral("v");
    query.lower = Position(Watermark::integer(4));
    query.lowerInclusive = true;
    query.upper = Watermark::integer(8);
    QCOMPARE(pg->countWindow(query), qint64(5));
}

void TestPostgresConnector::nullWatermarksAreCounted() {
    m_admin->execute(QStringLiteral("CREATE TABLE %1 (id int PRIMARY KEY, v int)").arg(qualified("n")));
    m_admin->execute(
        QStringLiteral("INSERT INTO %1 VALUES (1, NULL), (2, 3), (3, NULL)").arg(qualified("n")));
    auto pg = connect();
    const TableRef ref{m_schema, QStringLiteral("n")};
    const auto probe = pg->probeWatermark(ref, QStringLiteral("v"), WatermarkType::Integer);
    QCOMPARE(probe.nullCount, qint64(2));
    QCOMPARE(probe.maximum.toInteger(), qint64(3));
    WindowQuery query;
    query.table = ref;
    query.columns = {QStringLiteral("id")};
    query.watermarkColumn = QStringLiteral("v");
    query.upper = probe.maximum;
    QCOMPARE(pg->countWindow(query), qint64(1));
    m_admin->execute(QStringLiteral("DELETE FROM %1 WHERE v IS NOT NULL").arg(qualified("n")));
    QVERIFY(pg->probeWatermark(ref, QStringLiteral("v"), WatermarkType::Integer).maximum.isNull());
}

void TestPostgresConnector::appendMergeOverwrite() {
    auto pg = connect();
    const TableRef ref{m_schema, QStringLiteral("target")};
    const QList<ColumnInfo> columns = {column(QStringLiteral("id"), LogicalType::Integer, QString(), 1),
                                       column(QStringLiteral("v"), LogicalType::Integer),
                                       column(QStringLiteral("note"), LogicalType::Text)};
    pg->createTable(ref, columns, {QStringLiteral("id")});
    QVERIFY(pg->tableExists(ref));
    QCOMPARE(pg->describeTable(ref).primaryKey(), QStringList({QStringLiteral("id")}));

    WriteSpec spec;
    spec.table = ref;
    spec.columns = columns;
    RowBatch batch;
    std::vector<RowRejection> rejected;
    pg->begin();
    auto writer = pg->openWriter(spec);
    fillBatch(batch,
              {{1, 1, QStringLiteral("a\tb")}, {2, 1, QStringLiteral("line\nbreak\\")}, {3, 1, QVariant()}},
              3);
    writer->writeBatch(batch, rejected);
    writer->finish(rejected);
    pg->commit();
    QVERIFY(rejected.empty());
    QCOMPARE(
        m_admin->query(QStringLiteral("SELECT id, v, note FROM %1 ORDER BY id").arg(qualified("target"))),
        QList<QStringList>({{"1", "1", "a\tb"}, {"2", "1", "line\nbreak\\"}, {"3", "1", QString()}}));

    // Merge: two batches, a key repeated within and across them; the latest version wins.
    spec.mode = WriteMode::Merge;
    spec.keyColumns = {QStringLiteral("id")};
    spec.watermarkColumn = QStringLiteral("v");
    pg->begin();
    writer = pg->openWriter(spec);
    fillBatch(
        batch,
        {{2, 2, QStringLiteral("two@2")}, {4, 2, QStringLiteral("four@2")}, {2, 3, QStringLiteral("two@3")}},
        3);
    writer->writeBatch(batch, rejected);
    fillBatch(batch, {{4, 4, QStringLiteral("four@4")}, {5, 4, QStringLiteral("five@4")}}, 3);
    writer->writeBatch(batch, rejected);
    writer->finish(rejected);
    pg->commit();
    QVERIFY(rejected.empty());
    QCOMPARE(
        m_admin->query(QStringLiteral("SELECT id, v, note FROM %1 ORDER BY id").arg(qualified("target"))),
        QList<QStringList>({{"1", "1", "a\tb"},
                            {"2", "3", "two@3"},
                            {"3", "1", QString()},
                            {"4", "4", "four@4"},
                            {"5", "4", "five@4"}}));

    // A rerun of the same merge window changes nothing.
    pg->begin();
    writer = pg->openWriter(spec);
    fillBatch(batch, {{4, 4, QStringLiteral("four@4")}, {5, 4, QStringLiteral("five@4")}}, 3);
    writer->writeBatch(batch, rejected);
    pg->commit();
    QCOMPARE(
        m_admin->query(QStringLiteral("SELECT count(*) FROM %1").arg(qualified("target"))).value(0).value(0),
        QStringLiteral("5"));

    // Overwrite: delete everything and write, in one transaction; readers see old or new only.
    spec.mode = WriteMode::Overwrite;
    pg->begin();
    pg->deleteAll(ref);
    writer = pg->openWriter(spec);
    fillBatch(batch, {{9, 9, QStringLiteral("only")}}, 3);
    writer->writeBatch(batch, rejected);
    QCOMPARE(
        m_admin->query(QStringLiteral("SELECT count(*) FROM %1").arg(qualified("target"))).value(0).value(0),
        QStringLiteral("5"));
    pg->commit();
    QCOMPARE(m_admin->query(QStringLiteral("SELECT id, note FROM %1").arg(qualified("target"))),
             QList<QStringList>({{"9", "only"}}));

    // deleteNewerThan for backfill.
    spec.mode = WriteMode::Append;
    pg->begin();
    writer = pg->openWriter(spec);
    fillBatch(batch, {{10, 10, QVariant()}, {11, 11, QVariant()}}, 3);
    writer->writeBatch(batch, rejected);
    QCOMPARE(pg->deleteNewerThan(ref, QStringLiteral("v"), Watermark::integer(9)), qint64(2));
    pg->commit();
}

void TestPostgresConnector::mergeNeverReplacesNewerWithOlder() {
    auto pg = connect();
    const TableRef ref{m_schema, QStringLiteral("m")};
    const QList<ColumnInfo> columns = {column(QStringLiteral("id"), LogicalType::Integer, QString(), 1),
                                       column(QStringLiteral("at"), LogicalType::TimestampTz),
                                       column(QStringLiteral("seq"), LogicalType::Integer),
                                       column(QStringLiteral("note"), LogicalType::Text)};
    pg->createTable(ref, columns, {QStringLiteral("id")});
    WriteSpec spec;
    spec.table = ref;
    spec.columns = columns;
    spec.mode = WriteMode::Merge;
    spec.keyColumns = {QStringLiteral("id")};
    spec.watermarkColumn = QStringLiteral("at");
    spec.tiebreakColumn = QStringLiteral("seq");
    RowBatch batch;
    std::vector<RowRejection> rejected;
    pg->begin();
    auto writer = pg->openWriter(spec);
    fillBatch(batch,
              {{1, QStringLiteral("2025-01-02T00:00:00.000000Z"), 5, QStringLiteral("new")},
               {2, QStringLiteral("2025-01-02T00:00:00.000000Z"), 5, QStringLiteral("same")}},
              4);
    writer->writeBatch(batch, rejected);
    pg->commit();
    // Older (earlier watermark; same watermark with lower tiebreak) never replaces; equal does.
    pg->begin();
    writer = pg->openWriter(spec);
    fillBatch(batch,
              {{1, QStringLiteral("2025-01-01T23:59:59.999999Z"), 9, QStringLiteral("older")},
               {1, QStringLiteral("2025-01-02T00:00:00.000000Z"), 4, QStringLiteral("older tiebreak")},
               {2, QStringLiteral("2025-01-02T00:00:00.000000Z"), 5, QStringLiteral("same again")}},
              4);
    writer->writeBatch(batch, rejected);
    pg->commit();
    QVERIFY(rejected.empty());
    QCOMPARE(m_admin->query(QStringLiteral("SELECT id, note FROM %1 ORDER BY id").arg(qualified("m"))),
             QList<QStringList>({{"1", "new"}, {"2", "same again"}}));
}

void TestPostgresConnector::mergeOrderIsTheSameInEveryEngine() {
    // One merge rule for every engine (model/connectors/contractsql.h), ordered like Position: at
    // an equal watermark a row without a tiebreak sorts before a row with one, so it never
    // replaces it, and a row with a tiebreak replaces a stored row without one.
    QTemporaryDir dir;
    SqliteConnector lite(sqliteSpec(QStringLiteral("lite"), dir.filePath(QStringLiteral("m.db"))));
    auto pg = connect();
    const QList<ColumnInfo> columns = {column(QStringLiteral("id"), LogicalType::Integer, QString(), 1),
                                       column(QStringLiteral("v"), LogicalType::Integer),
                                       column(QStringLiteral("seq"), LogicalType::Integer),
                                       column(QStringLiteral("note"), LogicalType::Text)};
    const QList<QVariantList> stored = {{1, 10, 5, QStringLiteral("stored")},
                                        {2, 10, QVariant(), QStringLiteral("stored")}};
    const QList<QVariantList> incoming = {{1, 10, QVariant(), QStringLiteral("no tiebreak")},
                                          {2, 10, 3, QStringLiteral("tiebreak")}};
    const QList<QVariantList> expected = {{qint64(1), qint64(10), qint64(5), QStringLiteral("stored")},
                                          {qint64(2), qint64(10), qint64(3), QStringLiteral("tiebreak")}};
    for (Connector *target : std::initializer_list<Connector *>{&lite, pg.get()}) {
        const TableRef ref{target == pg.get() ? m_schema : QString(), QStringLiteral("m")};
        target->createTable(ref, columns, {QStringLiteral("id")});
        WriteSpec spec;
        spec.table = ref;
        spec.columns = columns;
        spec.mode = WriteMode::Merge;
        spec.keyColumns = {QStringLiteral("id")};
        spec.watermarkColumn = QStringLiteral("v");
        spec.tiebreakColumn = QStringLiteral("seq");
        for (const QList<QVariantList> &rows : {stored, incoming}) {
            RowBatch batch;
            std::vector<RowRejection> rejected;
            target->begin();
            auto writer = target->openWriter(spec);
            fillBatch(batch, rows, 4);
            writer->writeBatch(batch, rejected);
            writer->finish(rejected);
            writer.reset();
            target->commit();
            QVERIFY(rejected.empty());
        }
        auto cursor = target->openScan(ref, {"id", "v", "seq", "note"}, {"id"});
        QCOMPARE(readAll(*cursor), expected);
    }
}

void TestPostgresConnector::stateCommitsWithRows() {
    auto pg = connect();
    const TableRef ref{m_schema, QStringLiteral("s")};
    const QList<ColumnInfo> columns = {column(QStringLiteral("id"), LogicalType::Integer, QString(), 1)};
    pg->createTable(ref, columns, {QStringLiteral("id")});
    WriteSpec spec;
    spec.table = ref;
    spec.columns = columns;
    const QString workspace = QStringLiteral("tst-state");
    QVERIFY(!pg->readState(workspace, 7).has_value());
    RowBatch batch;
    std::vector<RowRejection> rejected;

    pg->begin();
    auto writer = pg->openWriter(spec);
    fillBatch(batch, {{1}, {2}}, 1);
    writer->writeBatch(batch, rejected);
    pg->writeState({workspace, 7,
                    Position(*Watermark::timestamp(QStringLiteral("2025-01-01T00:00:00.000001Z")), qint64(2)),
                    11});
    QVERIFY(pg->readState(workspace, 7).has_value()); // visible inside the transaction
    pg->rollback();
    QVERIFY(!pg->readState(workspace, 7).has_value());
    QCOMPARE(m_admin->query(QStringLiteral("SELECT count(*) FROM %1").arg(qualified("s"))).value(0).value(0),
             QStringLiteral("0"));

    pg->begin();
    writer = pg->openWriter(spec);
    writer->writeBatch(batch, rejected);
    pg->writeState({workspace, 7,
                    Position(*Watermark::timestamp(QStringLiteral("2025-01-01T00:00:00.000001Z")), qint64(2)),
                    11});
    pg->commit();
    const auto state = pg->readState(workspace, 7);
    QVERIFY(state.has_value());
    QCOMPARE(state->position.watermark().nativeText(), QStringLiteral("2025-01-01T00:00:00.000001Z"));
    QCOMPARE(state->position.tiebreak(), QVariant(qint64(2)));
    QCOMPARE(state->runId, qint64(11));
    QCOMPARE(m_admin->query(QStringLiteral("SELECT count(*) FROM %1").arg(qualified("s"))).value(0).value(0),
             QStringLiteral("2"));

    pg->writeState({workspace, 7, Position(Watermark::integer(-5), QStringLiteral("tab\there")), 12});
    QCOMPARE(pg->readState(workspace, 7)->position.watermark(), Watermark::integer(-5));
    QCOMPARE(pg->readState(workspace, 7)->position.tiebreak(), QVariant(QStringLiteral("tab\there")));
    pg->clearState(workspace, 7);
    QVERIFY(!pg->readState(workspace, 7).has_value());
}

void TestPostgresConnector::hostileNames() {
    auto pg = connect();
    const TableRef source = pg->parseTableName(m_schema + QStringLiteral(".Order \"Lines\"; DROP TABLE x"));
    QCOMPARE(source.schema, m_schema);
    const QList<ColumnInfo> columns = {
        column(QStringLiteral("Id \"key\""), LogicalType::Integer, QString(), 1),
        column(QStringLiteral("at;when"), LogicalType::Integer),
        column(QStringLiteral("Wert ü"), LogicalType::Text)};
    pg->createTable(source, columns, {QStringLiteral("Id \"key\"")});
    WriteSpec spec;
    spec.table = source;
    spec.columns = columns;
    spec.mode = WriteMode::Merge;
    spec.keyColumns = {QStringLiteral("Id \"key\"")};
    spec.watermarkColumn = QStringLiteral("at;when");
    RowBatch batch;
    std::vector<RowRejection> rejected;
    pg->begin();
    auto writer = pg->openWriter(spec);
    fillBatch(batch, {{1, 1, QStringLiteral("x")}, {2, 2, QStringLiteral("y")}, {1, 3, QStringLiteral("z")}},
              3);
    writer->writeBatch(batch, rejected);
    pg->commit();
    QVERIFY(rejected.empty());
    const TableSchema schema = pg->describeTable(source);
    QCOMPARE(schema.columnNames(), QStringList({QStringLiteral("Id \"key\""), QStringLiteral("at;when"),
                                                QStringLiteral("Wert ü")}));
    QCOMPARE(pg->detectWatermarkType(source, columns[1]), WatermarkType::Integer);
    WindowQuery query;
    query.table = source;
    query.columns = schema.columnNames();
    query.watermarkColumn = QStringLiteral("at;when");
    query.tiebreakColumn = QStringLiteral("Id \"key\"");
    query.lower = Position(Watermark::integer(1), qint64(0));
    query.upper = pg->probeWatermark(source, QStringLiteral("at;when"), WatermarkType::Integer).maximum;
    auto cursor = pg->openWindow(query);
    QCOMPARE(readAll(*cursor), QList<QVariantList>({{qint64(2), qint64(2), QStringLiteral("y")},
                                                    {qint64(1), qint64(3), QStringLiteral("z")}}));
}

void TestPostgresConnector::rejectsRowsOneByOne() {
    m_admin->execute(
        QStringLiteral("CREATE TABLE %1 (id int PRIMARY KEY, qty int CHECK (qty >= 0), day date)")
            .arg(qualified("r")));
    auto pg = connect();
    const TableRef ref{m_schema, QStringLiteral("r")};
    WriteSpec spec;
    spec.table = ref;
    spec.columns = pg->describeTable(ref).columns;
    RowBatch batch;
    std::vector<RowRejection> rejected;
    pg->begin();
    auto writer = pg->openWriter(spec);
    fillBatch(batch,
              {{1, 1, QStringLiteral("2025-01-01")},
               {2, -1, QStringLiteral("2025-01-01")},    // check constraint
               {3, 3, QStringLiteral("not a date")},     // bad value
               {4, QStringLiteral("12abc"), QVariant()}, // bad integer
               {5, 5, QVariant()}},
              3);
    writer->writeBatch(batch, rejected);
    pg->commit();
    QCOMPARE(int(rejected.size()), 3);
    QCOMPARE(rejected[0].row, 1);
    QVERIFY2(rejected[0].error.contains(QLatin1String("check constraint")), qPrintable(rejected[0].error));
    QCOMPARE(rejected[1].row, 2);
    QVERIFY2(rejected[1].error.contains(QLatin1String("date")), qPrintable(rejected[1].error));
    QCOMPARE(rejected[2].row, 3);
    QCOMPARE(m_admin->query(
                 QStringLiteral("SELECT string_agg(id::text, ',' ORDER BY id) FROM %1").arg(qualified("r"))),
             QList<QStringList>({{"1,5"}}));

    // Merge: a bad row is found both at staging (bad value) and at the final insert (constraint).
    spec.mode = WriteMode::Merge;
    spec.keyColumns = {QStringLiteral("id")};
    rejected.clear();
    pg->begin();
    writer = pg->openWriter(spec);
    fillBatch(
        batch,
        {{1, 10, QVariant()}, {6, -6, QVariant()}, {7, 7, QStringLiteral("2025-02-30")}, {8, 8, QVariant()}},
        3);
    writer->writeBatch(batch, rejected);
    pg->commit();
    QCOMPARE(int(rejected.size()), 2);
    QCOMPARE(rejected[0].row, 2); // staging finds the impossible date first
    QCOMPARE(rejected[1].row, 1);
    QCOMPARE(m_admin->query(QStringLiteral("SELECT string_agg(id || ':' || qty, ',' ORDER BY id) FROM %1")
                                .arg(qualified("r"))),
             QList<QStringList>({{"1:10,5:5,8:8"}}));

    // Not a row's fault: a missing column fails the whole write.
    spec.columns << column(QStringLiteral("missing"), LogicalType::Text);
    spec.mode = WriteMode::Append;
    pg->begin();
    writer = pg->openWriter(spec);
    fillBatch(batch, {{9, 9, QVariant(), QStringLiteral("x")}}, 4);
    QVERIFY_THROWS_EXCEPTION(Error, writer->writeBatch(batch, rejected));
    pg->rollback();
}

void TestPostgresConnector::roundTripPostgresSqlitePostgres() {
    m_admin->execute(QStringLiteral("CREATE TABLE %1 (id int PRIMARY KEY, i2 int2, i4 int4, i8 int8, amount "
                                    "numeric(38,10), r real, d double "
                                    "precision, t text, vc varchar(20), b bytea, flag boolean, day date, at "
                                    "timestamp, attz timestamptz, u uuid, "
                                    "j json, jb jsonb)")
                         .arg(qualified("types")));
    m_admin->execute(
        QStringLiteral(
            "INSERT INTO %1 VALUES "
            "(1, -32768, -2147483648, -9223372036854775808, '-12.5', '-3.4028235e38', "
            "'-1.7976931348623157e308', E'tab\\there\\nnew line \\\\ back ünïcødé 🌊', 'varchar', "
            "'\\x00ff00', false, "
            "'0001-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00', "
            "'00000000-0000-0000-0000-000000000000', "
            "'{\"a\": [1, 2]}', '{\"b\": {\"c\": null}}'),"
            "(2, 32767, 2147483647, 9223372036854775807, '0.1', '1.1', '0.1', "
            "'', '', '\\x', true, '9999-12-31', '2025-07-30 23:05:18.123456', '2025-07-30 "
            "23:05:18.000001+02', "
            "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '[]', '[1, \"x\"]'),"
            "(3, 0, 0, 0, '0', '1.5e-45', '5e-324', E'\\\\N', NULL, '\\x5c0a09', NULL, NULL, NULL, NULL, "
            "NULL, 'null', 'true'),"
            "(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
            "NULL)")
            .arg(qualified("types")));
    QTemporaryDir dir;
    auto pg = connect();
    SqliteConnector lite(sqliteSpec(QStringLiteral("lite"), dir.filePath(QStringLiteral("mid.db"))));
    const TableRef pgSource{m_schema, QStringLiteral("types")};
    const TableRef liteTable{QString(), QStringLiteral("types")};
    const TableRef pgBack{m_schema, QStringLiteral("types back")};

    const TableSchema sourceSchema = pg->describeTable(pgSource);
    const QStringList names = sourceSchema.columnNames();
    lite.createTable(liteTable, sourceSchema.columns, {QStringLiteral("id")});
    {
        WriteSpec spec;
        spec.table = liteTable;
        spec.columns = sourceSchema.columns;
        lite.begin();
        auto writer = lite.openWriter(spec);
        auto cursor = pg->openScan(pgSource, names, {QStringLiteral("id")});
        QVERIFY(pump(*cursor, *writer).empty());
        lite.commit();
    }
    // In SQLite: timestamps with zone as ISO UTC text, blobs as blobs, booleans as 0/1.
    {
        auto cursor = lite.openScan(liteTable,
                                    {QStringLiteral("attz"), QStringLiteral("b"), QStringLiteral("flag"),
                                     QStringLiteral("at"), QStringLiteral("amount")},
                                    {QStringLiteral("id")});
        const auto rows = readAll(*cursor);
        QCOMPARE(rows[1][0], QVariant(QStringLiteral("2025-07-30T21:05:18.000001Z")));
        QCOMPARE(rows[0][1], QVariant(QByteArray("\x00\xff\x00", 3)));
        QCOMPARE(rows[1][2], QVariant(qint64(1)));
        QCOMPARE(rows[1][3], QVariant(QStringLiteral("2025-07-30T23:05:18.123456")));
    }
    const TableSchema liteSchema = lite.describeTable(liteTable);
    pg->createTable(pgBack, liteSchema.columns, {QStringLiteral("id")});
    {
        WriteSpec spec;
        spec.table = pgBack;
        spec.columns = liteSchema.columns;
        pg->begin();
        auto writer = pg->openWriter(spec);
        auto cursor = lite.openScan(liteTable, liteSchema.columnNames(), {QStringLiteral("id")});
        QVERIFY(pump(*cursor, *writer).empty());
        pg->commit();
    }
    // Compare as the server spells each value; floats by their exact binary value.
    QStringList expressions;
    for (const ColumnInfo &info : sourceSchema.columns) {
        if (info.logical == LogicalType::Real)
            expressions << quoteIdentifier(info.name) + QStringLiteral("::float8::text");
        else
            expressions << quoteIdentifier(info.name) + QStringLiteral("::text");
    }
    const QString select =
        QStringLiteral("SELECT %1 FROM %2 ORDER BY id").arg(expressions.join(QStringLiteral(", ")));
    const auto original = m_admin->query(select.arg(qualified("types")));
    const auto back = m_admin->query(select.arg(qualified("types back")));
    QCOMPARE(back.size(), original.size());
    for (int row = 0; row < original.size(); ++row) {
        for (int col = 0; col < names.size(); ++col)
            QVERIFY2(original[row][col] == back[row][col] &&
                         original[row][col].isNull() == back[row][col].isNull(),
                     qPrintable(QStringLiteral("row %1 column %2: '%3' became '%4'")
                                    .arg(row)
                                    .arg(names[col], original[row][col], back[row][col])));
    }
    // Types survive too, where the mapping is unambiguous.
    const TableSchema backSchema = pg->describeTable(pgBack);
    QCOMPARE(backSchema.column(QStringLiteral("amount"))->nativeType, QStringLiteral("numeric(38,10)"));
    QCOMPARE(backSchema.column(QStringLiteral("attz"))->logical, LogicalType::TimestampTz);
    QCOMPARE(backSchema.column(QStringLiteral("b"))->logical, LogicalType::Blob);
}

void TestPostgresConnector::roundTripSqlitePostgresSqlite() {
    QTemporaryDir dir;
    SqliteConnector lite(sqliteSpec(QStringLiteral("lite"), dir.filePath(QStringLiteral("src.db"))));
    const TableRef source{QString(), QStringLiteral("Sales Data")};
    const TableRef back{QString(), QStringLiteral("Sales Data back")};
    const QList<ColumnInfo> columns = {
        column(QStringLiteral("id"), LogicalType::Integer, QStringLiteral("INTEGER"), 1),
        column(QStringLiteral("i"), LogicalType::Integer, QStringLiteral("INTEGER")),
        column(QStringLiteral("r"), LogicalType::Real, QStringLiteral("REAL")),
        column(QStringLiteral("t"), LogicalType::Text, QStringLiteral("TEXT")),
        column(QStringLiteral("b"), LogicalType::Blob, QStringLiteral("BLOB")),
        column(QStringLiteral("flag"), LogicalType::Boolean, QStringLiteral("BOOLEAN")),
        column(QStringLiteral("day"), LogicalType::Date, QStringLiteral("DATE")),
        column(QStringLiteral("at"), LogicalType::Timestamp, QStringLiteral("TIMESTAMP")),
        column(QStringLiteral("attz"), LogicalType::TimestampTz, QStringLiteral("TIMESTAMPTZ")),
        column(QStringLiteral("u"), LogicalType::Uuid, QStringLiteral("UUID")),
        column(QStringLiteral("j"), LogicalType::Json, QStringLiteral("JSON")),
    };
    lite.createTable(source, columns, {QStringLiteral("id")});
    const QList<QVariantList> rows = {
        {1, std::numeric_limits<qint64>::min(), -1.7976931348623157e308,
         QStringLiteral("tab\there\nnl\r\\ ünï 🌊"), QByteArray("\x00\x01\x00\\", 4), 0,
         QStringLiteral("2025-01-01"), QStringLiteral("2025-01-01T10:00:00.000000"),
         QStringLiteral("2025-01-01T10:00:00.000001Z"),
         QStringLiteral("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), QStringLiteral("{\"a\": [1, 2.5, \"x\"]}")},
        {2, std::numeric_limits<qint64>::max(), 0.1, QString(""), QByteArray(""), 1,
         QStringLiteral("9999-12-31"), QStringLiteral("1970-01-01T00:00:00.000000"),
         QStringLiteral("1970-01-01T00:00:00.000000Z"),
         QStringLiteral("00000000-0000-0000-0000-000000000000"), QStringLiteral("[]")},
        {3, 0, 5e-324, QStringLiteral("\\N"), QByteArray("\n\t", 2), QVariant(), QVariant(), QVariant(),
         QVariant(), QVariant(), QVariant()},
        {4, QVariant(), QVariant(), QVariant(), QVariant(), QVariant(), QVariant(), QVariant(), QVariant(),
         QVariant(), QVariant()},
    };
    RowBatch batch;
    std::vector<RowRejection> rejected;
    WriteSpec liteSpec;
    liteSpec.table = source;
    liteSpec.columns = columns;
    lite.begin();
    auto liteWriter = lite.openWriter(liteSpec);
    fillBatch(batch, rows, int(columns.size()));
    liteWriter->writeBatch(batch, rejected);
    liteWriter.reset();
    lite.commit();
    QVERIFY(rejected.empty());

    auto pg = connect();
    const TableRef middle{m_schema, QStringLiteral("Sales Data")};
    const TableSchema sourceSchema = lite.describeTable(source);
    pg->createTable(middle, sourceSchema.columns, {QStringLiteral("id")});
    {
        WriteSpec spec;
        spec.table = middle;
        spec.columns = sourceSchema.columns;
        pg->begin();
        auto writer = pg->openWriter(spec);
        auto cursor = lite.openScan(source, sourceSchema.columnNames(), {QStringLiteral("id")});
        QVERIFY(pump(*cursor, *writer).empty());
        pg->commit();
    }
    const TableSchema middleSchema = pg->describeTable(middle);
    QCOMPARE(middleSchema.column(QStringLiteral("i"))->nativeType, QStringLiteral("bigint"));
    QCOMPARE(middleSchema.column(QStringLiteral("r"))->nativeType, QStringLiteral("double precision"));
    QCOMPARE(middleSchema.column(QStringLiteral("b"))->nativeType, QStringLiteral("bytea"));
    QCOMPARE(middleSchema.column(QStringLiteral("attz"))->nativeType,
             QStringLiteral("timestamp with time zone"));
    QCOMPARE(middleSchema.column(QStringLiteral("flag"))->nativeType, QStringLiteral("boolean"));
    QCOMPARE(m_admin->query(QStringLiteral("SELECT octet_length(b), flag::text FROM %1 WHERE id = 1")
                                .arg(qualified("Sales Data"))),
             QList<QStringList>({{"4", "false"}}));

    lite.createTable(back, middleSchema.columns, {QStringLiteral("id")});
    {
        WriteSpec spec;
        spec.table = back;
        spec.columns = middleSchema.columns;
        lite.begin();
        auto writer = lite.openWriter(spec);
        auto cursor = pg->openScan(middle, middleSchema.columnNames(), {QStringLiteral("id")});
        QVERIFY(pump(*cursor, *writer).empty());
        writer.reset();
        lite.commit();
    }
    auto original = lite.openScan(source, sourceSchema.columnNames(), {QStringLiteral("id")});
    const auto before = readAll(*original);
    original.reset();
    auto copied = lite.openScan(back, sourceSchema.columnNames(), {QStringLiteral("id")});
    const auto after = readAll(*copied);
    QCOMPARE(after.size(), before.size());
    for (int row = 0; row < before.size(); ++row) {
        for (int col = 0; col < before[row].size(); ++col) {
            const QVariant &a = before[row][col];
            const QVariant &b = after[row][col];
            QVERIFY2(a.typeId() == b.typeId() && a == b,
                     qPrintable(QStringLiteral("row %1 column %2: %3 became %4")
                                    .arg(row)
                                    .arg(columns[col].name, a.toString(), b.toString())));
        }
    }
}

// numeric(38,10) values beyond a double's 15 digits must arrive in SQLite as exact text and
// come back unchanged: no float rounding, ever.
void TestPostgresConnector::numericExactThroughSqlite() {
    m_admin->execute(
        QStringLiteral("CREATE TABLE %1 (id int PRIMARY KEY, amount numeric(38,10))").arg(qualified("n")));
    m_admin->execute(QStringLiteral("INSERT INTO %1 VALUES (1, '-1234567890123456789012345678.1234567890'), "
                                    "(2, '9999999999999999999999999999.9999999999'), (3, '0.0000000001'), "
                                    "(4, '12.3000000000')")
                         .arg(qualified("n")));
    QTemporaryDir dir;
    auto pg = connect();
    SqliteConnector lite(sqliteSpec(QStringLiteral("lite"), dir.filePath(QStringLiteral("n.db"))));
    const TableRef source{m_schema, QStringLiteral("n")};
    const TableRef liteTable{QString(), QStringLiteral("n")};
    const TableRef back{m_schema, QStringLiteral("n back")};
    const TableSchema schema = pg->describeTable(source);
    lite.createTable(liteTable, schema.columns, {QStringLiteral("id")});
    WriteSpec spec;
    spec.table = liteTable;
    spec.columns = schema.columns;
    lite.begin();
    {
        auto writer = lite.openWriter(spec);
        auto cursor = pg->openScan(source, schema.columnNames(), {QStringLiteral("id")});
        QVERIFY(pump(*cursor, *writer).empty());
    }
    lite.commit();
    {
        auto cursor = lite.openScan(liteTable, {QStringLiteral("amount")}, {QStringLiteral("id")});
        const auto rows = readAll(*cursor);
        // Compared as typed values: QVariant would call the double 1e28 equal to the text.
        QCOMPARE(rows.value(0).value(0).typeId(), int(QMetaType::QString));
        QCOMPARE(rows.value(0).value(0).toString(),
                 QStringLiteral("-1234567890123456789012345678.1234567890"));
        QCOMPARE(rows.value(1).value(0).typeId(), int(QMetaType::QString));
        QCOMPARE(rows.value(1).value(0).toString(),
                 QStringLiteral("9999999999999999999999999999.9999999999"));
    }
    const TableSchema liteSchema = lite.describeTable(liteTable);
    pg->createTable(back, liteSchema.columns, {QStringLiteral("id")});
    spec.table = back;
    spec.columns = liteSchema.columns;
    pg->begin();
    {
        auto writer = pg->openWriter(spec);
        auto cursor = lite.openScan(liteTable, liteSchema.columnNames(), {QStringLiteral("id")});
        QVERIFY(pump(*cursor, *writer).empty());
    }
    pg->commit();
    const QString select = QStringLiteral("SELECT id, amount::text FROM %1 ORDER BY id");
    QCOMPARE(m_admin->query(select.arg(qualified("n back"))), m_admin->query(select.arg(qualified("n"))));
}

void TestPostgresConnector::pushDownInsideOneDatabase() {
    m_admin->execute(
        QStringLiteral("CREATE TABLE %1 (id int PRIMARY KEY, at timestamptz NOT NULL, note text)")
            .arg(qualified("src")));
    m_admin->execute(
        QStringLiteral(
            "INSERT INTO %1 SELECT g, '2025-01-01 00:00:00+00'::timestamptz + (g / 2) * interval '1 "
            "second', 'v1' FROM generate_series(1, 100) g")
            .arg(qualified("src")));
    auto source = connect();
    auto target = connect();
    const TableRef src{m_schema, QStringLiteral("src")};
    const TableRef dst{m_schema, QStringLiteral("dst")};
    const TableSchema schema = source->describeTable(src);
    target->createTable(dst, schema.columns, {QStringLiteral("id")});

    WindowQuery window;
    window.table = src;
    window.columns = schema.columnNames();
    window.watermarkColumn = QStringLiteral("at");
    window.tiebreakColumn = QStringLiteral("id");
    window.upper = source->probeWatermark(src, QStringLiteral("at"), WatermarkType::Timestamp).maximum;
    window.lower = Position(*Watermark::timestamp(QStringLiteral("2025-01-01T00:00:10.000000Z")), qint64(20));
    WriteSpec write;
    write.table = dst;
    write.columns = schema.columns;

    // Outside a transaction, or from another engine or database: not possible.
    QVERIFY(!target->pushDown(*source, window, write).has_value());
    QTemporaryDir dir;
    SqliteConnector lite(sqliteSpec(QStringLiteral("lite"), dir.filePath(QStringLiteral("x.db"))));
    target->begin();
    QVERIFY(!target->pushDown(lite, window, write).has_value());
    PostgresConnector otherDatabase(pgSpec(QStringLiteral("other"), QString(), QStringLiteral("postgres")));
    QVERIFY(!target->pushDown(otherDatabase, window, write).has_value());
    // A table that may skip rows streams: one refused row would fail the whole statement.
    QVERIFY(write.tolerateRejects);
    QVERIFY(!target->pushDown(*source, window, write).has_value());

    write.tolerateRejects = false;
    auto result = target->pushDown(*source, window, write);
    QVERIFY(result.has_value());
    QCOMPARE(result->rowsRead, qint64(80)); // (10 s, id 20) exclusive: ids 21..100
    QCOMPARE(result->rowsWritten, qint64(80));
    QCOMPARE(result->reached.watermark().nativeText(), QStringLiteral("2025-01-01T00:00:50.000000Z"));
    QCOMPARE(result->reached.tiebreak(), QVariant(qint64(100)));
    target->writeState({QStringLiteral("tst-push"), 1, result->reached, 1});
    target->commit();
    QCOMPARE(m_admin->query(QStringLiteral("SELECT count(*), min(id) FROM %1").arg(qualified("dst"))),
             QList<QStringList>({{"80", "21"}}));

    // Merge: updated rows replace, older versions do not.
    m_admin->execute(QStringLiteral("UPDATE %1 SET note = 'v2', at = at + interval '1 hour' WHERE id > 90")
                         .arg(qualified("src")));
    m_admin->execute(
        QStringLiteral("UPDATE %1 SET note = 'newer' , at = at + interval '2 hours' WHERE id = 95")
            .arg(qualified("dst")));
    write.mode = WriteMode::Merge;
    write.keyColumns = {QStringLiteral("id")};
    write.watermarkColumn = QStringLiteral("at");
    write.tiebreakColumn = QStringLiteral("id");
    window.lower = result->reached;
    window.upper = source->probeWatermark(src, QStringLiteral("at"), WatermarkType::Timestamp).maximum;
    target->begin();
    result = target->pushDown(*source, window, write);
    target->commit();
    QVERIFY(result.has_value());
    QCOMPARE(result->rowsRead, qint64(10));
    QCOMPARE(m_admin->query(
                 QStringLiteral("SELECT count(*) FILTER (WHERE note = 'v2'), count(*) FILTER (WHERE note = "
                                "'newer'), count(*) FROM %1")
                     .arg(qualified("dst"))),
             QList<QStringList>({{"9", "1", "80"}}));
}

QTEST_GUILESS_MAIN(TestPostgresConnector)
#include "tst_postgresconnector.moc"
