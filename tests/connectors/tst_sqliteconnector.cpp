// SPDX-License-Identifier: MIT
#include "model/common/error.h"
#include "model/common/sqlquote.h"
#include "model/common/timestamp.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/sqliteconnector.h"
#include "model/sqlite/sqlitedb.h"
#include "tests/support/testsupport.h"

#include <QDir>
#include <QFile>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>

#include <limits>

#include <sys/stat.h>

using namespace tidemark;
using tidemark::test::cellValue;
using tidemark::test::sqliteSpec;

namespace {

// A column described by hand rather than reported by an engine: its origin stays empty.
ColumnInfo column(const QString &name, const QString &nativeType, LogicalType logical = LogicalType::Unknown,
                  bool notNull = false, int primaryKeyOrdinal = 0) {
    ColumnInfo info;
    info.name = name;
    info.nativeType = nativeType;
    info.logical = logical;
    info.notNull = notNull;
    info.primaryKeyOrdinal = primaryKeyOrdinal;
    return info;
}

QList<QVariantList> readAll(SourceCursor &cursor, int batchSize, int *fetches = nullptr) {
    QList<QVariantList> rows;
    RowBatch batch;
    int calls = 0;
    while (cursor.fetch(batch, batchSize)) {
        ++calls;
        if (batch.rowCount() > batchSize)
            throw Error(QStringLiteral("batch larger than asked"));
        for (int r = 0; r < batch.rowCount(); ++r) {
            QVariantList row;
            for (int c = 0; c < batch.columnCount(); ++c)
                row << cellValue(batch, r, c);
            rows << row;
        }
    }
    if (fetches)
        *fetches = calls;
    return rows;
}

QList<QVariantList> selectAll(SqliteDb &db, const QString &sql) {
    SqliteStatement statement(db, sql);
    QList<QVariantList> rows;
    while (statement.step()) {
        QVariantList row;
        for (int c = 0; c < statement.columnCount(); ++c)
            row << statement.columnVariant(c);
        rows << row;
    }
    return rows;
}

void appendVariant(RowBatch &batch, const QVariant &value) {
    if (value.isNull()) {
        batch.appendNull();
    } else if (value.typeId() == QMetaType::LongLong || value.typeId() == QMetaType::Int) {
        batch.appendInteger(value.toLongLong());
    } else if (value.typeId() == QMetaType::Double) {
        batch.appendReal(value.toDouble());
    } else if (value.typeId() == QMetaType::QByteArray) {
        const QByteArray bytes = value.toByteArray();
        batch.appendBlob(bytes.constData(), std::size_t(bytes.size()));
    } else {
        const QByteArray utf8 = value.toString().toUtf8();
        batch.appendText(utf8.constData(), std::size_t(utf8.size()));
    }
}

RowBatch makeBatch(const QList<QVariantList> &rows) {
    RowBatch batch(rows.isEmpty() ? 0 : int(rows.first().size()));
    for (const QVariantList &row : rows) {
        for (const QVariant &value : row)
            appendVariant(batch, value);
    }
    return batch;
}

QStringList texts(const QList<QVariantList> &rows, int column) {
    QStringList values;
    for (const QVariantList &row : rows)
        values << row.value(column).toString();
    return values;
}

} // namespace

class TestSqliteConnector : public QObject {
    Q_OBJECT

private slots:
    void init();

    void factoryOpensSqlite();
    void missingSourceFileIsRefused();
    void missingTargetFileIsCreatedOnWrite();
    void createdTargetFileHasTheModeItWasGiven();
    void targetFileModeFollowsTheSource();
    void describeMissingTable();
    void logicalTypes();
    void declaredTypesForTargets();
    void hostileIdentifiers_data();
    void hostileIdentifiers();
    void detectWatermarkType();
    void mixedSpellingsRefused_data();
    void mixedSpellingsRefused();
    void spellingCheckNearLowerBound();
    void nonTextTimestampCounted();
    void timestampOrdersExactlyWhenItParses_data();
    void timestampOrdersExactlyWhenItParses();
    void consistentTimestampAccepted();
    void integerProbeCountsMixedValues();
    void windowBounds();
    void windowBatchesAndSpelling();
    void windowWithoutRowidTable();
    void integerWatermarksNearMax();
    void scanOrdersByColumns();
    void appendWriter();
    void mergeNeverReplacesNewer();
    void mergeWithoutTiebreak();
    void mergeNeedsUniqueKey();
    void rejectedRowsAndTransaction();
    void deleteNewerThan();
    void stateRoundTrip();
    void stateReadDoesNotCreateTable();
    // A source is attached read-only.
    void pushDownNeverCreatesADeletedSource();

private:
    QString path(const QString &file) const { return m_dir->filePath(file); }
    std::unique_ptr<QTemporaryDir> m_dir;
};

void TestSqliteConnector::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
}

void TestSqliteConnector::factoryOpensSqlite() {
    { SqliteDb db(path("a.db"), SqliteDb::Mode::ReadWriteCreate); }
    auto connector = openConnector(sqliteSpec("src", path("a.db")));
    QVERIFY(dynamic_cast<SqliteConnector *>(connector.get()));
    QCOMPARE(connector->connectionName(), QStringLiteral("src"));
    QCOMPARE(connector->parseTableName("a.b \"c\"; d").name, QStringLiteral("a.b \"c\"; d"));
    QVERIFY(connector->parseTableName("a.b").schema.isEmpty());
}

void TestSqliteConnector::missingSourceFileIsRefused() {
    const QString file = path("nope.db");
    SqliteConnector connector(sqliteSpec("src", file));
    const QString expected = QStringLiteral("connection 'src': SQLite file %1 does not exist").arg(file);
    try {
        connector.describeTable(TableRef{{}, "orders"});
        QFAIL("describeTable on a missing file must throw");
    } catch (const Error &error) {
        QCOMPARE(error.message(), expected);
    }
    QVERIFY_THROWS_EXCEPTION(Error, connector.listTables());
    QVERIFY_THROWS_EXCEPTION(Error, connector.probeWatermark(TableRef{{}, "t"}, "c", WatermarkType::Integer));
    QVERIFY(!connector.tableExists(TableRef{{}, "orders"}));
    QVERIFY(!connector.readState("ws", 1));
    QVERIFY(!QFileInfo::exists(file));
}

void TestSqliteConnector::missingTargetFileIsCreatedOnWrite() {
    const QString file = path("new.db");
    SqliteConnector connector(sqliteSpec("dst", file));
    connector.begin();
    connector.createTable(TableRef{{}, "t"}, {column("id", "INTEGER", LogicalType::Integer, false, 1)},
                          {"id"});
    connector.commit();
    QVERIFY(QFileInfo::exists(file));
    QVERIFY(connector.tableExists(TableRef{{}, "t"}));
    QVERIFY(connector.tableExists(TableRef{{}, "T"})); // SQLite names are case-insensitive
    SqliteDb db(file, SqliteDb::Mode::ReadOnly);
    // The connector leaves the file's journal mode alone (a user's database is not ours to convert).
    QCOMPARE(selectAll(db, "PRAGMA journal_mode").value(0).value(0).toString(), QStringLiteral("delete"));
}

// The file is created with the bits it was told (owner-only when told nothing), under umask 0
// where SQLite's own create would give 0644; an existing file's are left alone.
void TestSqliteConnector::createdTargetFileHasTheModeItWasGiven() {
    const mode_t oldMask = ::umask(0);
    const auto restore = qScopeGuard([oldMask] { ::umask(oldMask); });
    const auto write = [](SqliteConnector &connector) {
        connector.begin();
        connector.createTable(TableRef{{}, "t"}, {column("id", "INTEGER", LogicalType::Integer, false, 1)},
                              {"id"});
        connector.commit();
    };
    const auto modeOf = [](const QString &file) {
        struct stat info {};
        return ::stat(QFile::encodeName(file).constData(), &info) == 0 ? int(info.st_mode & 0777) : -1;
    };
    {
        SqliteConnector connector(sqliteSpec("dst", path("default.db")));
        write(connector);
    }
    QCOMPARE(modeOf(path("default.db")), 0600);
    {
        SqliteConnector connector(sqliteSpec("dst", path("shared.db")));
        connector.setNewFileMode(0640);
        write(connector);
    }
    QCOMPARE(modeOf(path("shared.db")), 0640);
    QVERIFY(::chmod(QFile::encodeName(path("shared.db")).constData(), 0660) == 0);
    {
        SqliteConnector connector(sqliteSpec("dst", path("shared.db")));
        connector.setNewFileMode(0600);
        connector.begin();
        connector.createTable(TableRef{{}, "u"}, {column("id", "INTEGER", LogicalType::Integer, false, 1)},
                              {"id"});
        connector.commit();
    }
    QCOMPARE(modeOf(path("shared.db")), 0660);
    QCOMPARE(QDir(m_dir->path()).entryList({QStringLiteral("*.tidemark-new.*")}, QDir::Files | QDir::Hidden),
             QStringList());
}

void TestSqliteConnector::targetFileModeFollowsTheSource() {
    { SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate); }
    for (const int mode : {0600, 0640, 0644, 0755}) {
        QVERIFY(::chmod(QFile::encodeName(path("src.db")).constData(), mode_t(mode)) == 0);
        QCOMPARE(targetFileMode(sqliteSpec("src", path("src.db"))), mode & 0666); // never executable
    }
    // Rows from a server, or from a file that cannot be looked at: owner-only.
    ConnectionSpec server;
    server.name = QStringLiteral("pg");
    server.kind = ConnectionKind::Postgres;
    server.conninfo = QStringLiteral("host=db dbname=x");
    QCOMPARE(targetFileMode(server), 0600);
    QCOMPARE(targetFileMode(sqliteSpec("src", path("missing.db"))), 0600);
}

void TestSqliteConnector::describeMissingTable() {
    { SqliteDb db(path("a.db"), SqliteDb::Mode::ReadWriteCreate); }
    SqliteConnector connector(sqliteSpec("src", path("a.db")));
    try {
        connector.describeTable(TableRef{{}, "orders"});
        QFAIL("must throw");
    } catch (const Error &error) {
        QCOMPARE(error.message(), QStringLiteral("connection 'src': table 'orders' does not exist"));
    }
}

void TestSqliteConnector::logicalTypes() {
    QCOMPARE(SqliteConnector::logicalTypeFor("INTEGER"), LogicalType::Integer);
    QCOMPARE(SqliteConnector::logicalTypeFor("bigint"), LogicalType::Integer);
    QCOMPARE(SqliteConnector::logicalTypeFor("VARCHAR(20)"), LogicalType::Text);
    QCOMPARE(SqliteConnector::logicalTypeFor("text"), LogicalType::Text);
    QCOMPARE(SqliteConnector::logicalTypeFor("BLOB"), LogicalType::Blob);
    QCOMPARE(SqliteConnector::logicalTypeFor(""), LogicalType::Unknown);
    QCOMPARE(SqliteConnector::logicalTypeFor("DOUBLE PRECISION"), LogicalType::Real);
    QCOMPARE(SqliteConnector::logicalTypeFor("FLOAT"), LogicalType::Real);
    QCOMPARE(SqliteConnector::logicalTypeFor("DECIMAL(10,2)"), LogicalType::Numeric);
    QCOMPARE(SqliteConnector::logicalTypeFor("NUMERIC"), LogicalType::Numeric);
    QCOMPARE(SqliteConnector::logicalTypeFor("BOOLEAN"), LogicalType::Boolean);
    QCOMPARE(SqliteConnector::logicalTypeFor("DATE"), LogicalType::Date);
    QCOMPARE(SqliteConnector::logicalTypeFor("DATETIME"), LogicalType::Timestamp);
    QCOMPARE(SqliteConnector::logicalTypeFor("TIMESTAMP"), LogicalType::Timestamp);
    QCOMPARE(SqliteConnector::logicalTypeFor("TIME"), LogicalType::Timestamp);
}

void TestSqliteConnector::declaredTypesForTargets() {
    // SQLite source types are kept; types whose affinity would alter values are replaced.
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "DATETIME", LogicalType::Timestamp)),
             QStringLiteral("DATETIME"));
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "VARCHAR(20)", LogicalType::Text)),
             QStringLiteral("VARCHAR(20)"));
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "jsonb", LogicalType::Json)),
             QStringLiteral("TEXT"));
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "integer[]", LogicalType::Unknown)), QString());
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "X\"); DROP TABLE x; --", LogicalType::Text)),
             QStringLiteral("TEXT"));
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "", LogicalType::Integer)),
             QStringLiteral("INTEGER"));
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "", LogicalType::Real)), QStringLiteral("REAL"));
    // Exact decimals from another engine: TEXT affinity (no rounding), named so the type and its
    // precision survive the next copy.
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "", LogicalType::Numeric)),
             QStringLiteral("NUMERIC_TEXT"));
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "numeric(38,10)", LogicalType::Numeric)),
             QStringLiteral("NUMERIC_TEXT(38,10)"));
    QCOMPARE(SqliteConnector::logicalTypeFor(QStringLiteral("NUMERIC_TEXT(38,10)")), LogicalType::Numeric);
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "", LogicalType::Blob)), QStringLiteral("BLOB"));
    QCOMPARE(SqliteConnector::declaredTypeFor(column("a", "", LogicalType::TimestampTz)),
             QStringLiteral("TEXT"));
}

void TestSqliteConnector::hostileIdentifiers_data() {
    QTest::addColumn<QString>("table");
    QTest::newRow("quote-semicolon") << QStringLiteral("we\"ird; DROP TABLE x; --");
    QTest::newRow("unicode") << QStringLiteral("Ünïcödé tåble");
    QTest::newRow("spaces") << QStringLiteral("order lines 2025");
    QTest::newRow("percent") << QStringLiteral("%1 %2 ?1 '");
}

void TestSqliteConnector::hostileIdentifiers() {
    QFETCH(QString, table);
    const QString idCol = QStringLiteral("i\"d");
    const QString wmCol = QStringLiteral("up dated; --");
    const QString valueCol = QStringLiteral("välue %1");
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE x (keep INTEGER)");
        db.exec("INSERT INTO x VALUES (42)");
        db.exec(QStringLiteral("CREATE TABLE %1 (%2 INTEGER PRIMARY KEY, %3 TEXT, %4 TEXT)")
                    .arg(quoteIdentifier(table), quoteIdentifier(idCol), quoteIdentifier(wmCol),
                         quoteIdentifier(valueCol)));
        SqliteStatement insert(
            db, QStringLiteral("INSERT INTO %1 VALUES (?1, ?2, ?3)").arg(quoteIdentifier(table)));
        for (int i = 1; i <= 5; ++i) {
            insert.bind(1, i)
                .bind(2, QStringLiteral("2025-01-0%1T00:00:00Z").arg(i))
                .bind(3, QStringLiteral("v'%1\"").arg(i));
            insert.run();
            insert.reset();
        }
    }
    SqliteConnector source(sqliteSpec("src", path("src.db")));
    const TableRef ref = source.parseTableName(table);
    QVERIFY(source.tableExists(ref));
    bool listed = false;
    for (const TableRef &t : source.listTables())
        listed = listed || t.name == table;
    QVERIFY(listed);

    const TableSchema schema = source.describeTable(ref);
    QCOMPARE(schema.columnNames(), (QStringList{idCol, wmCol, valueCol}));
    QCOMPARE(schema.primaryKey(), QStringList{idCol});
    QCOMPARE(schema.column(wmCol)->logical, LogicalType::Text);
    QCOMPARE(source.detectWatermarkType(ref, *schema.column(wmCol)), WatermarkType::Timestamp);
    const WatermarkProbe probe = source.probeWatermark(ref, wmCol, WatermarkType::Timestamp);
    QCOMPARE(probe.maximum.nativeText(), QStringLiteral("2025-01-05T00:00:00Z"));

    WindowQuery query;
    query.table = ref;
    query.columns = schema.columnNames();
    query.watermarkColumn = wmCol;
    query.tiebreakColumn = idCol;
    query.lower = Position(*Watermark::timestamp("2025-01-02T00:00:00Z"));
    query.upper = probe.maximum;
    QCOMPARE(source.countWindow(query), 3);
    auto cursor = source.openWindow(query);
    const QList<QVariantList> rows = readAll(*cursor, 2);
    cursor.reset();
    QCOMPARE(texts(rows, 2), (QStringList{"v'3\"", "v'4\"", "v'5\""}));

    SqliteConnector target(sqliteSpec("dst", path("src.db"))); // same file: nothing else may change
    const TableRef copy{{}, table + QStringLiteral(" copy")};
    target.begin();
    target.createTable(copy, schema.columns, schema.primaryKey());
    WriteSpec spec;
    spec.table = copy;
    spec.columns = schema.columns;
    spec.mode = WriteMode::Merge;
    spec.keyColumns = {idCol};
    spec.watermarkColumn = wmCol;
    auto writer = target.openWriter(spec);
    std::vector<RowRejection> rejected;
    const RowBatch batch = makeBatch(rows);
    writer->writeBatch(batch, rejected);
    writer->writeBatch(batch, rejected); // a rerun of the same window changes nothing
    writer.reset();
    target.commit();
    QVERIFY(rejected.empty());

    target.begin();
    target.addColumn(copy, column(QStringLiteral("new \"col\""), "", LogicalType::Text));
    target.commit();
    QCOMPARE(target.describeTable(copy).columns.size(), 4);

    SqliteDb check(path("src.db"), SqliteDb::Mode::ReadOnly);
    QCOMPARE(selectAll(check, QStringLiteral("SELECT %1 FROM %2 ORDER BY 1")
                                  .arg(quoteIdentifier(valueCol), quoteIdentifier(copy.name))),
             (QList<QVariantList>{{"v'3\""}, {"v'4\""}, {"v'5\""}}));
    QCOMPARE(selectAll(check, "SELECT keep FROM x"), (QList<QVariantList>{{qint64(42)}}));
    QCOMPARE(selectAll(check, QStringLiteral("SELECT count(*) FROM %1").arg(quoteIdentifier(table))),
             (QList<QVariantList>{{qint64(5)}}));
}

void TestSqliteConnector::detectWatermarkType() {
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (declared DATETIME, iso, ints INTEGER, untyped_ints, garbage, mixed, "
                "not_iso TEXT, reals REAL, empty_int INTEGER, empty_text TEXT)");
        SqliteStatement insert(db, "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL, NULL)");
        const QList<QVariantList> rows = {
            {QVariant(), "2025-07-30T23:05:18.000Z", 1, 10, "abc", 1, "2025/07/30", 1.5},
            {QVariant(), "2025-07-31T01:00:00.000Z", 2, 20, 17, "2025-07-31T01:00:00Z", "yesterday", 2.5},
            {QVariant(), QVariant(), QVariant(), 30, QVariant(), QVariant(), "2025-07-31T01:00:00Z", 3.5},
        };
        for (const QVariantList &row : rows) {
            for (int i = 0; i < row.size(); ++i)
                insert.bind(i + 1, row[i]);
            insert.run();
            insert.reset();
        }
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    const TableRef ref{{}, "t"};
    const TableSchema schema = connector.describeTable(ref);
    const auto detect = [&](const char *column) {
        return connector.detectWatermarkType(ref, *schema.column(column));
    };
    QCOMPARE(detect("declared"), WatermarkType::Timestamp);
    QCOMPARE(detect("iso"), WatermarkType::Timestamp);
    QCOMPARE(detect("ints"), WatermarkType::Integer);
    QCOMPARE(detect("untyped_ints"), WatermarkType::Integer);
    QCOMPARE(detect("garbage"), WatermarkType::None);
    QCOMPARE(detect("mixed"), WatermarkType::None);
    QCOMPARE(detect("not_iso"), WatermarkType::None);
    QCOMPARE(detect("reals"), WatermarkType::None);
    QCOMPARE(detect("empty_int"), WatermarkType::Integer);
    QCOMPARE(detect("empty_text"), WatermarkType::None);
    QVERIFY_THROWS_EXCEPTION(Error, connector.detectWatermarkType(ref, column("missing", "")));
}

// With a lower bound only values that could compare wrongly against it are checked: those from a
// date at least 28 hours (two zone offsets) before it; a first load (no bound) compares nothing.
void TestSqliteConnector::spellingCheckNearLowerBound() {
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, updated_at TEXT)");
        db.exec("INSERT INTO orders (updated_at) VALUES ('2025-07-20 08:00:00'), "
                "('2025-07-30T10:00:00Z'), ('2025-07-30T12:00:00Z')");
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    const TableRef table{{}, "orders"};
    const auto bound = [](const char *text) {
        return std::optional<Watermark>(*Watermark::timestamp(text));
    };
    // Ten days back: a late row whatever its spelling; the window never reaches it.
    QCOMPARE(
        connector.probeWatermark(table, "updated_at", WatermarkType::Timestamp, bound("2025-07-30T10:00:00Z"))
            .maximum.nativeText(),
        QStringLiteral("2025-07-30T12:00:00Z"));
    QVERIFY(connector.probeWatermark(table, "updated_at", WatermarkType::Timestamp, Watermark()).nullCount ==
            0);
    QVERIFY_THROWS_EXCEPTION(Error, connector.probeWatermark(table, "updated_at", WatermarkType::Timestamp));

    // A space-spelled value on the bound's own date sorts before it although it is later in time.
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWrite);
        db.exec("INSERT INTO orders (updated_at) VALUES ('2025-07-30 11:00:00')");
    }
    try {
        connector.probeWatermark(table, "updated_at", WatermarkType::Timestamp,
                                 bound("2025-07-30T10:00:00Z"));
        QFAIL("a mixed spelling next to the lower bound was accepted");
    } catch (const Error &error) {
        QVERIFY2(error.message().contains("updated_at"), qPrintable(error.message()));
    }
}

void TestSqliteConnector::mixedSpellingsRefused_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<QString>("spellingA");
    QTest::addColumn<QString>("spellingB");
    QTest::addColumn<QString>("late");
    QTest::newRow("T vs space") << "2025-07-30T23:05:18.000Z"
                                << "2025-07-30 23:05:19"
                                << "YYYY-MM-DD HH:MM:SS"
                                << "YYYY-MM-DDTHH:MM:SS.fffZ" << QString();
    QTest::newRow("Z vs none") << "2025-07-30T23:05:18Z"
                               << "2025-07-30T23:05:19"
                               << "YYYY-MM-DDTHH:MM:SS"
                               << "YYYY-MM-DDTHH:MM:SSZ" << QString();
    QTest::newRow("fraction length") << "2025-07-30T23:05:18.123Z"
                                     << "2025-07-30T23:05:18.123456Z"
                                     << "YYYY-MM-DDTHH:MM:SS.fffZ"
                                     << "YYYY-MM-DDTHH:MM:SS.ffffffZ" << QString();
    QTest::newRow("zone offsets") << "2025-07-30T23:05:18+01:00"
                                  << "2025-07-30T22:05:19+02:00"
                                  << "YYYY-MM-DDTHH:MM:SS+01:00"
                                  << "YYYY-MM-DDTHH:MM:SS+02:00" << QString();
    QTest::newRow("date only") << "2025-07-30"
                               << "2025-07-30T00:00:01"
                               << "YYYY-MM-DD"
                               << "YYYY-MM-DDTHH:MM:SS" << QString();
    // The odd value is neither the smallest nor the largest.
    QTest::newRow("odd one in the middle") << "2025-07-30T23:05:18Z"
                                           << "2025-07-30T23:05:19.5Z"
                                           << "YYYY-MM-DDTHH:MM:SSZ"
                                           << "YYYY-MM-DDTHH:MM:SS.fZ"
                                           << "2025-07-30T23:05:20Z";
}

void TestSqliteConnector::mixedSpellingsRefused() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(QString, spellingA);
    QFETCH(QString, spellingB);
    QFETCH(QString, late);
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, updated_at TEXT)");
        db.exec("BEGIN");
        SqliteStatement insert(db, "INSERT INTO orders (updated_at) VALUES (?1)");
        // Many consistent rows and one odd one: the check covers the whole column.
        for (int i = 0; i < 50; ++i) {
            insert.bind(1, a);
            insert.run();
            insert.reset();
        }
        insert.bind(1, b);
        insert.run();
        insert.reset();
        for (int i = 0; i < 50 && !late.isEmpty(); ++i) {
            insert.bind(1, late);
            insert.run();
            insert.reset();
        }
        db.exec("COMMIT");
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    try {
        connector.probeWatermark(TableRef{{}, "orders"}, "updated_at", WatermarkType::Timestamp);
        QFAIL("a column mixing spellings must be refused");
    } catch (const Error &error) {
        const QString message = error.message();
        QVERIFY2(message.contains("connection 'src'"), qPrintable(message));
        QVERIFY2(message.contains("column 'updated_at' of 'orders' mixes timestamp spellings"),
                 qPrintable(message));
        QVERIFY2(message.contains('\'' + spellingA + '\''), qPrintable(message));
        QVERIFY2(message.contains('\'' + spellingB + '\''), qPrintable(message));
    }
}

// A value that is no ISO-8601 text is in no window: counted like a NULL, never the maximum.
void TestSqliteConnector::nonTextTimestampCounted() {
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (ts DATETIME)");
        db.exec("INSERT INTO t VALUES ('2025-01-01 00:00:00'), (1735689600), ('infinity'), (NULL)");
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    const WatermarkProbe probe = connector.probeWatermark(TableRef{{}, "t"}, "ts", WatermarkType::Timestamp);
    QCOMPARE(probe.maximum.nativeText(), QStringLiteral("2025-01-01 00:00:00"));
    QCOMPARE(probe.nullCount, 1);
    QCOMPARE(probe.unorderableCount, 2);
    QCOMPARE(probe.unorderableLowest, QStringLiteral("1735689600"));
    QCOMPARE(probe.unorderableHighest, QStringLiteral("infinity"));
}

void TestSqliteConnector::consistentTimestampAccepted() {
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (ts DATETIME)");
        SqliteStatement insert(db, "INSERT INTO t VALUES (?1)");
        for (const QVariant &value :
             {QVariant("2025-01-01 10:00:00.250"), QVariant(), QVariant("2025-12-31 23:59:59.999"),
              QVariant("2025-06-01 00:00:00.000"), QVariant()}) {
            insert.bind(1, value);
            insert.run();
            insert.reset();
        }
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    const WatermarkProbe probe = connector.probeWatermark(TableRef{{}, "t"}, "ts", WatermarkType::Timestamp);
    QCOMPARE(probe.maximum.type(), WatermarkType::Timestamp);
    QCOMPARE(probe.maximum.nativeText(), QStringLiteral("2025-12-31 23:59:59.999"));
    QCOMPARE(probe.nullCount, 2);
    QCOMPARE(connector.sampleWatermark(TableRef{{}, "t"}, "ts", WatermarkType::Timestamp).nativeText(),
             QStringLiteral("2025-12-31 23:59:59.999"));

    SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWrite);
    db.exec("DELETE FROM t WHERE ts IS NOT NULL");
    const WatermarkProbe empty = connector.probeWatermark(TableRef{{}, "t"}, "ts", WatermarkType::Timestamp);
    QVERIFY(empty.maximum.isNull());
    QCOMPARE(empty.nullCount, 2);
    QVERIFY(connector.sampleWatermark(TableRef{{}, "t"}, "ts", WatermarkType::Timestamp).isNull());
}

// The window orders a SQLite value exactly when parseTimestamp() reads it (the SQL function has a
// fast path for the usual spellings; it must agree).
void TestSqliteConnector::timestampOrdersExactlyWhenItParses_data() {
    QTest::addColumn<QString>("value");
    for (const char *value : {"2025-01-01",
                              "2024-02-29",
                              "2023-02-29",
                              "1900-02-29",
                              "2000-02-29",
                              "0000-01-01",
                              "0001-01-01",
                              "9999-12-31T23:59:59.999999999Z",
                              "2025-04-31",
                              "2025-13-01",
                              "2025-01-01T24:00:00",
                              "2025-01-01T23:60:00",
                              "2025-01-01T10:00",
                              "2025-01-01T10:00:00.",
                              "2025-01-01T10:00:00.1234567890",
                              "2025-01-01 10:00:00+05:30",
                              "2025-01-01t10:00:00z",
                              "2025-01-01T10:00:00+2400",
                              "2025-01-01T10:00:00ZZ",
                              "2025-01-01T10:00:00 UTC",
                              "10000-01-01",
                              "-0043-03-15",
                              "+2025-01-01",
                              " 2025-01-01",
                              "2025/01/01",
                              "infinity",
                              ""})
        QTest::addRow("%s", value) << QString::fromLatin1(value);
}

void TestSqliteConnector::timestampOrdersExactlyWhenItParses() {
    QFETCH(QString, value);
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (ts DATETIME)");
        SqliteStatement insert(db, "INSERT INTO t VALUES (?1)");
        insert.bind(1, value);
        insert.run();
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    const WatermarkProbe probe = connector.probeWatermark(TableRef{{}, "t"}, "ts", WatermarkType::Timestamp);
    const bool parses = parseTimestamp(value).has_value();
    QCOMPARE(probe.unorderableCount, parses ? 0 : 1);
    QCOMPARE(probe.maximum.nativeText(), parses ? value : QString());
}

void TestSqliteConnector::integerProbeCountsMixedValues() {
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (seq)");
        db.exec("INSERT INTO t VALUES (1), (2), (NULL), ('three'), (2.5)");
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    const WatermarkProbe probe = connector.probeWatermark(TableRef{{}, "t"}, "seq", WatermarkType::Integer);
    QCOMPARE(probe.maximum, Watermark::integer(2));
    QCOMPARE(probe.nullCount, 1);
    QCOMPARE(probe.unorderableCount, 2);
    QCOMPARE(probe.unorderableLowest, QStringLiteral("2.5"));
    QCOMPARE(probe.unorderableHighest, QStringLiteral("three"));
}

void TestSqliteConnector::windowBounds() {
    // (wm, tb) positions; several rows share a watermark so ties exercise the tiebreak.
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE ev (id INTEGER PRIMARY KEY, wm INTEGER, tb INTEGER, v TEXT)");
        SqliteStatement insert(db, "INSERT INTO ev (wm, tb, v) VALUES (?1, ?2, ?3)");
        const QList<QVariantList> rows = {
            {30, 2, "c2"},           {10, 1, "a1"}, {20, 3, "b3"}, {20, 1, "b1"},
            {QVariant(), 9, "null"}, {20, 2, "b2"}, {40, 1, "d1"}, {30, 1, "c1"}};
        for (const QVariantList &row : rows) {
            insert.bind(1, row[0]).bind(2, row[1]).bind(3, row[2]);
            insert.run();
            insert.reset();
        }
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    WindowQuery base;
    base.table = TableRef{{}, "ev"};
    base.columns = {"v"};
    base.watermarkColumn = "wm";
    base.tiebreakColumn = "tb";

    const auto run = [&](const WindowQuery &query) {
        auto cursor = connector.openWindow(query);
        const QStringList values = texts(readAll(*cursor, 100), 0);
        if (connector.countWindow(query) != values.size())
            throw Error(QStringLiteral("countWindow disagrees with the rows read"));
        return values;
    };

    QCOMPARE(run(base), (QStringList{"a1", "b1", "b2", "b3", "c1", "c2", "d1"}));

    WindowQuery exclusive = base;
    exclusive.lower = Position(Watermark::integer(20));
    QCOMPARE(run(exclusive), (QStringList{"c1", "c2", "d1"}));

    WindowQuery withTiebreak = exclusive;
    withTiebreak.lower = Position(Watermark::integer(20), qint64(1));
    QCOMPARE(run(withTiebreak), (QStringList{"b2", "b3", "c1", "c2", "d1"}));

    WindowQuery inclusive = base;
    // The tiebreak is ignored: a lookback re-reads the whole watermark.
    inclusive.lower = Position(Watermark::integer(20), qint64(2));
    inclusive.lowerInclusive = true;
    QCOMPARE(run(inclusive), (QStringList{"b1", "b2", "b3", "c1", "c2", "d1"}));

    WindowQuery bounded = withTiebreak;
    bounded.upper = Watermark::integer(30);
    QCOMPARE(run(bounded), (QStringList{"b2", "b3", "c1", "c2"}));

    WindowQuery noTiebreak = base;
    noTiebreak.tiebreakColumn.clear();
    noTiebreak.lower = Position(Watermark::integer(10));
    noTiebreak.upper = Watermark::integer(20);
    // Without a tiebreak the rowid orders ties: insertion order b3, b1, b2.
    QCOMPARE(run(noTiebreak), (QStringList{"b3", "b1", "b2"}));
}

void TestSqliteConnector::windowBatchesAndSpelling() {
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, ts TEXT, payload BLOB, amount REAL)");
        SqliteStatement insert(db, "INSERT INTO t (id, ts, payload, amount) VALUES (?1, ?2, ?3, ?4)");
        for (int i = 1; i <= 10; ++i) {
            const QString ts = QStringLiteral("2025-03-%1 08:00:00").arg(i, 2, 10, QLatin1Char('0'));
            insert.bind(1, 11 - i).bind(2, ts).bind(3, QVariant(QByteArray(i % 3, char(i)))).bind(4, i / 4.0);
            insert.run();
            insert.reset();
        }
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    const TableRef ref{{}, "t"};
    const WatermarkProbe probe = connector.probeWatermark(ref, "ts", WatermarkType::Timestamp);
    QCOMPARE(probe.maximum.nativeText(), QStringLiteral("2025-03-10 08:00:00"));

    WindowQuery query;
    query.table = ref;
    query.columns = {"id", "ts", "payload", "amount"};
    query.watermarkColumn = "ts";
    // Spelled like the column: a 'T'-spelled bound would compare wrongly as text.
    query.lower = Position(*Watermark::timestamp("2025-03-02 08:00:00"));
    query.upper = *Watermark::timestamp("2025-03-09 08:00:00");
    QCOMPARE(connector.countWindow(query), 7);

    int fetches = 0;
    auto cursor = connector.openWindow(query);
    const QList<QVariantList> rows = readAll(*cursor, 3, &fetches);
    RowBatch after;
    QVERIFY(!cursor->fetch(after, 3));
    QVERIFY(after.isEmpty());
    cursor.reset();
    QCOMPARE(fetches, 3); // 3 + 3 + 1
    QCOMPARE(rows.size(), 7);
    for (int i = 0; i < rows.size(); ++i) {
        const int day = i + 3;
        QCOMPARE(rows[i][0].toLongLong(), qint64(11 - day));
        QCOMPARE(rows[i][1].toString(),
                 QStringLiteral("2025-03-%1 08:00:00").arg(day, 2, 10, QLatin1Char('0')));
        QCOMPARE(rows[i][2].toByteArray(), QByteArray(day % 3, char(day)));
        QCOMPARE(rows[i][3].toDouble(), day / 4.0);
    }

    // A position spelled unlike the column is compared in the column's spelling.
    // Compared as text it would miss the row at the bound ('T' sorts after ' ').
    query.lower = Position(*Watermark::timestamp("2025-03-02T08:00:00Z"));
    query.lowerInclusive = true;
    QCOMPARE(connector.countWindow(query), 8);
    cursor = connector.openWindow(query);
    QCOMPARE(readAll(*cursor, 100).value(0).value(1).toString(), QStringLiteral("2025-03-02 08:00:00"));
}

void TestSqliteConnector::windowWithoutRowidTable() {
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE k (code TEXT PRIMARY KEY, wm INTEGER) WITHOUT ROWID");
        db.exec("INSERT INTO k VALUES ('b', 2), ('a', 1), ('c', 3)");
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    WindowQuery query;
    query.table = TableRef{{}, "k"};
    query.columns = {"code"};
    query.watermarkColumn = "wm";
    query.lower = Position(Watermark::integer(1));
    auto cursor = connector.openWindow(query);
    QCOMPARE(texts(readAll(*cursor, 10), 0), (QStringList{"b", "c"}));
}

void TestSqliteConnector::integerWatermarksNearMax() {
    constexpr qint64 max = std::numeric_limits<qint64>::max();
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (seq INTEGER, v TEXT)");
        SqliteStatement insert(db, "INSERT INTO t VALUES (?1, ?2)");
        for (qint64 offset : {3, 0, 2, 1}) {
            insert.bind(1, max - offset).bind(2, QString::number(offset));
            insert.run();
            insert.reset();
        }
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    const TableRef ref{{}, "t"};
    QCOMPARE(connector.detectWatermarkType(ref, column("seq", "")), WatermarkType::Integer);
    const WatermarkProbe probe = connector.probeWatermark(ref, "seq", WatermarkType::Integer);
    QCOMPARE(probe.maximum.toInteger(), max);

    WindowQuery query;
    query.table = ref;
    query.columns = {"seq", "v"};
    query.watermarkColumn = "seq";
    query.lower = Position(Watermark::integer(max - 2));
    query.upper = Watermark::integer(max - 1);
    auto cursor = connector.openWindow(query);
    const QList<QVariantList> rows = readAll(*cursor, 10);
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows[0][0].toLongLong(), max - 1);
    QCOMPARE(rows[0][1].toString(), QStringLiteral("1"));
}

void TestSqliteConnector::scanOrdersByColumns() {
    {
        SqliteDb db(path("src.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (a INTEGER, b TEXT)");
        db.exec("INSERT INTO t VALUES (2, 'x'), (1, 'z'), (2, 'a'), (1, 'b')");
    }
    SqliteConnector connector(sqliteSpec("src", path("src.db")));
    auto cursor = connector.openScan(TableRef{{}, "t"}, {"b", "a"}, {"a", "b"});
    QCOMPARE(texts(readAll(*cursor, 3), 0), (QStringList{"b", "z", "a", "x"}));
}

void TestSqliteConnector::appendWriter() {
    SqliteConnector target(sqliteSpec("dst", path("dst.db")));
    const TableRef ref{{}, "t"};
    const QList<ColumnInfo> columns = {
        column("id", "INTEGER", LogicalType::Integer), column("name", "", LogicalType::Text),
        column("data", "", LogicalType::Blob), column("ratio", "", LogicalType::Real)};
    target.begin();
    target.createTable(ref, columns, {});
    WriteSpec spec;
    spec.table = ref;
    spec.columns = columns;
    auto writer = target.openWriter(spec);
    std::vector<RowRejection> rejected;
    const QList<QVariantList> rows = {{1, "ünï", QByteArray("\0\1", 2), 0.5},
                                      {2, QVariant(), QByteArray(), 1e300},
                                      {3, "", QVariant(), QVariant()}};
    writer->writeBatch(makeBatch(rows), rejected);
    writer->finish(rejected);
    writer.reset();
    target.commit();
    QVERIFY(rejected.empty());
    SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadOnly);
    const QList<QVariantList> stored =
        selectAll(db, "SELECT id, name, data, ratio, typeof(data) FROM t ORDER BY id");
    QCOMPARE(stored.size(), 3);
    QCOMPARE(stored[0][1].toString(), QStringLiteral("ünï"));
    QCOMPARE(stored[0][2].toByteArray(), QByteArray("\0\1", 2));
    QCOMPARE(stored[1][3].toDouble(), 1e300);
    QVERIFY(stored[1][1].isNull());
    QCOMPARE(stored[1][4].toString(), QStringLiteral("blob")); // an empty blob stays a blob
    QCOMPARE(stored[2][1].toString(), QString(""));
    QVERIFY(stored[2][2].isNull());
}

void TestSqliteConnector::mergeNeverReplacesNewer() {
    SqliteConnector target(sqliteSpec("dst", path("dst.db")));
    const TableRef ref{{}, "t"};
    const QList<ColumnInfo> columns = {
        column("id", "INTEGER", LogicalType::Integer), column("wm", "TEXT", LogicalType::Timestamp),
        column("tb", "INTEGER", LogicalType::Integer), column("v", "TEXT", LogicalType::Text)};
    target.createTable(ref, columns, {"id"});
    WriteSpec spec;
    spec.table = ref;
    spec.columns = columns;
    spec.mode = WriteMode::Merge;
    spec.keyColumns = {"id"};
    spec.watermarkColumn = "wm";
    spec.tiebreakColumn = "tb";
    std::vector<RowRejection> rejected;
    target.begin();
    auto writer = target.openWriter(spec);
    writer->writeBatch(
        makeBatch({{1, "2025-01-02T00:00:00Z", 5, "new"}, {2, "2025-01-01T00:00:00Z", 1, "old"}}), rejected);
    // id 1: an older version must not overwrite the newer one; id 2: later rows of one window win
    // on (wm, tb), ties on both included; id 3: a fresh insert.
    writer->writeBatch(makeBatch({{1, "2025-01-01T00:00:00Z", 9, "older"},
                                  {1, "2025-01-02T00:00:00Z", 4, "same wm lower tb"},
                                  {2, "2025-01-03T00:00:00Z", 2, "v2"},
                                  {2, "2025-01-03T00:00:00Z", 1, "v2 lower tb"},
                                  {2, "2025-01-03T00:00:00Z", 3, "v3"},
                                  {3, "2025-01-01T00:00:00Z", 1, "three"}}),
                       rejected);
    writer.reset();
    target.commit();
    QVERIFY(rejected.empty());
    SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadOnly);
    QCOMPARE(selectAll(db, "SELECT id, v FROM t ORDER BY id"),
             (QList<QVariantList>{{qint64(1), "new"}, {qint64(2), "v3"}, {qint64(3), "three"}}));
}

void TestSqliteConnector::mergeWithoutTiebreak() {
    {
        SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (a TEXT NOT NULL, b INTEGER NOT NULL, seq INTEGER, v TEXT)");
        db.exec("CREATE UNIQUE INDEX t_ab ON t (b, a)"); // a unique index, in another order, is enough
        db.exec("INSERT INTO t VALUES ('k', 1, 10, 'stored')");
    }
    SqliteConnector target(sqliteSpec("dst", path("dst.db")));
    const TableRef ref{{}, "t"};
    WriteSpec spec;
    spec.table = ref;
    spec.columns = target.describeTable(ref).columns;
    spec.mode = WriteMode::Merge;
    spec.keyColumns = {"a", "b"};
    spec.watermarkColumn = "seq";
    std::vector<RowRejection> rejected;
    target.begin();
    auto writer = target.openWriter(spec);
    writer->writeBatch(makeBatch({{"k", 1, 9, "older"}, {"k", 2, 1, "other key"}}), rejected);
    writer->writeBatch(makeBatch({{"k", 2, 1, "same position wins"}}), rejected);
    writer.reset();
    target.commit();
    SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadOnly);
    QCOMPARE(selectAll(db, "SELECT b, v FROM t ORDER BY b"),
             (QList<QVariantList>{{qint64(1), "stored"}, {qint64(2), "same position wins"}}));
}

void TestSqliteConnector::mergeNeedsUniqueKey() {
    {
        SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE orders (id INTEGER, v TEXT)");
        db.exec("CREATE INDEX orders_id ON orders (id)");
        db.exec("CREATE UNIQUE INDEX orders_part ON orders (id) WHERE v IS NOT NULL");
    }
    SqliteConnector target(sqliteSpec("dst", path("dst.db")));
    WriteSpec spec;
    spec.table = TableRef{{}, "orders"};
    spec.columns = target.describeTable(spec.table).columns;
    spec.mode = WriteMode::Merge;
    spec.keyColumns = {"id"};
    try {
        target.openWriter(spec);
        QFAIL("merge without a unique key must be refused");
    } catch (const Error &error) {
        QVERIFY2(error.message().contains("connection 'dst', table 'orders'"), qPrintable(error.message()));
        QVERIFY2(error.message().contains("(id)"), qPrintable(error.message()));
    }
}

void TestSqliteConnector::rejectedRowsAndTransaction() {
    {
        SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, qty INTEGER NOT NULL CHECK (qty >= 0))");
    }
    SqliteConnector target(sqliteSpec("dst", path("dst.db")));
    const TableRef ref{{}, "orders"};
    WriteSpec spec;
    spec.table = ref;
    spec.columns = target.describeTable(ref).columns;
    std::vector<RowRejection> rejected;

    target.begin();
    auto writer = target.openWriter(spec);
    writer->writeBatch(makeBatch({{1, 5}, {2, QVariant()}, {3, 7}, {4, -1}, {1, 9}, {"x", 1}, {5, 0}}),
                       rejected);
    writer.reset();
    target.commit();
    QCOMPARE(int(rejected.size()), 4);
    QCOMPARE(rejected[0].row, 1);
    QVERIFY2(rejected[0].error.contains("connection 'dst', table 'orders': NOT NULL constraint failed"),
             qPrintable(rejected[0].error));
    QCOMPARE(rejected[1].row, 3);
    QVERIFY2(rejected[1].error.contains("CHECK constraint failed"), qPrintable(rejected[1].error));
    QCOMPARE(rejected[2].row, 4);
    QVERIFY2(rejected[2].error.contains("UNIQUE constraint failed: orders.id"),
             qPrintable(rejected[2].error));
    QCOMPARE(rejected[3].row, 5);
    QVERIFY2(rejected[3].error.contains("datatype mismatch"), qPrintable(rejected[3].error));
    SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadOnly);
    QCOMPARE(selectAll(db, "SELECT id, qty FROM orders ORDER BY id"),
             (QList<QVariantList>{{qint64(1), qint64(5)}, {qint64(3), qint64(7)}, {qint64(5), qint64(0)}}));

    // A rolled-back transaction leaves nothing; rollback without a transaction is a no-op.
    target.begin();
    target.deleteAll(ref);
    target.writeState(TargetState{"ws", 1, Position(Watermark::integer(3)), 7});
    target.rollback();
    target.rollback();
    QCOMPARE(selectAll(db, "SELECT count(*) FROM orders"), (QList<QVariantList>{{qint64(3)}}));
    QVERIFY(!target.readState("ws", 1));
}

void TestSqliteConnector::deleteNewerThan() {
    {
        SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, ts TEXT)");
        db.exec("INSERT INTO t (ts) VALUES ('2025-01-01T00:00:00.000000Z'), ('2025-01-02T00:00:00.000000Z'), "
                "('2025-01-03T00:00:00.000000Z'), (NULL)");
    }
    SqliteConnector target(sqliteSpec("dst", path("dst.db")));
    target.begin();
    // The position is spelled like a source column; the target's own spelling is used to compare.
    QCOMPARE(target.deleteNewerThan(TableRef{{}, "t"}, "ts", *Watermark::timestamp("2025-01-02 00:00:00")),
             1);
    target.commit();
    SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadOnly);
    QCOMPARE(selectAll(db, "SELECT count(*) FROM t"), (QList<QVariantList>{{qint64(3)}}));
}

void TestSqliteConnector::stateRoundTrip() {
    SqliteConnector target(sqliteSpec("dst", path("dst.db")));
    const Watermark ts = *Watermark::timestamp("2025-07-30 23:05:18.123456");
    target.begin();
    target.writeState(TargetState{"ws-1", 1, Position(ts, qint64(42)), 7});
    target.writeState(TargetState{
        "ws-1", 2, Position(Watermark::integer(std::numeric_limits<qint64>::min()), QStringLiteral("k'ey")),
        8});
    target.writeState(TargetState{"ws-2", 1, Position(), 9});
    target.commit();

    auto first = target.readState("ws-1", 1);
    QVERIFY(first);
    QCOMPARE(first->position.watermark(), ts);
    QCOMPARE(first->position.watermark().nativeText(), ts.nativeText());
    QCOMPARE(first->position.tiebreak().typeId(), int(QMetaType::LongLong));
    QCOMPARE(first->position.tiebreak().toLongLong(), 42);
    QCOMPARE(first->runId, 7);

    auto second = target.readState("ws-1", 2);
    QVERIFY(second);
    QCOMPARE(second->position.watermark(), Watermark::integer(std::numeric_limits<qint64>::min()));
    QCOMPARE(second->position.tiebreak().typeId(), int(QMetaType::QString));
    QCOMPARE(second->position.tiebreak().toString(), QStringLiteral("k'ey"));

    auto third = target.readState("ws-2", 1);
    QVERIFY(third);
    QVERIFY(third->position.watermark().isNull());
    QVERIFY(third->position.tiebreak().isNull());
    QVERIFY(!target.readState("ws-2", 2));

    // Upsert replaces the row; clear removes only its own row.
    target.begin();
    target.writeState(TargetState{"ws-1", 1, Position(Watermark::integer(5), 2.5), 10});
    target.clearState("ws-1", 2);
    target.commit();
    first = target.readState("ws-1", 1);
    QVERIFY(first);
    QCOMPARE(first->position.watermark(), Watermark::integer(5));
    QCOMPARE(first->position.tiebreak().toDouble(), 2.5);
    QCOMPARE(first->runId, 10);
    QVERIFY(!target.readState("ws-1", 2));
    QVERIFY(target.readState("ws-2", 1));

    // tidemark_state is not a user table.
    for (const TableRef &table : target.listTables())
        QVERIFY(table.name != QLatin1String("tidemark_state"));
}

void TestSqliteConnector::stateReadDoesNotCreateTable() {
    {
        SqliteDb db(path("dst.db"), SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (a)");
    }
    SqliteConnector target(sqliteSpec("dst", path("dst.db")));
    QVERIFY(!target.readState("ws", 1));
    target.clearState("ws", 1);
    QVERIFY(!target.tableExists(TableRef{{}, "tidemark_state"}));
}

void TestSqliteConnector::pushDownNeverCreatesADeletedSource() {
    const QString sourcePath = path("source with space?#%.db");
    {
        SqliteDb db(sourcePath, SqliteDb::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (a INTEGER)");
    }
    SqliteConnector source(sqliteSpec("src", sourcePath));
    SqliteConnector target(sqliteSpec("dst", path("dst.db")));
    // The attach works on a path that needs escaping in a URI.
    target.preparePushDown(source);
    SqliteConnector secondTarget(sqliteSpec("dst2", path("dst2.db")));
    // Deleted after the source connection opened it, before the target attaches it.
    QVERIFY(QFile::remove(sourcePath));
    try {
        secondTarget.preparePushDown(source);
        QFAIL("attaching a deleted source succeeded");
    } catch (const Error &error) {
        QVERIFY2(error.message().contains(sourcePath), qPrintable(error.message()));
    }
    QVERIFY(!QFileInfo::exists(sourcePath));
}

QTEST_GUILESS_MAIN(TestSqliteConnector)
#include "tst_sqliteconnector.moc"
