// SPDX-License-Identifier: MIT
#include "tests/support/testsupport.h"

#include "model/connectors/rowbatch.h"
#include "model/domain/connectionspec.h"
#include "model/engine/rowvalues.h"
#include "model/models/itemroles.h"

#include "model/common/sqlquote.h"
#include "model/common/timestamp.h"
#include "model/sqlite/sqlitedb.h"
#include "tests/support/workspacebackend.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace tidemark::test {

QString fastTempTemplate() {
    QString root = qEnvironmentVariable("TIDEMARK_TEST_TMPDIR");
    if (root.isEmpty()) {
        const QFileInfo shm(QStringLiteral("/dev/shm"));
        root = shm.isDir() && shm.isWritable() ? shm.filePath() : QDir::tempPath();
    }
    return root + QStringLiteral("/tidemark-test-XXXXXX");
}

bool runningUnderCi() {
    const QByteArray ci = qgetenv("CI").trimmed().toLower();
    return ci == "true" || ci == "1";
}

QByteArray postgresMissingMessage() {
    if (runningUnderCi())
        return "TIDEMARK_PG_PORT is not set under CI=true: the PostgreSQL suites must run in CI "
               "(scripts/test.sh starts a cluster and exports the port; see scripts/pgcluster.sh)";
    return "\n********************************************************************************\n"
           "*** PostgreSQL suite SKIPPED: TIDEMARK_PG_PORT is not set. Nothing was tested.\n"
           "*** Run scripts/pgcluster.sh start and export the port it prints, or scripts/test.sh.\n"
           "********************************************************************************";
}

QByteArray mariadbMissingMessage() {
    if (runningUnderCi())
        return "TIDEMARK_MARIADB_PORT is not set under CI=true: the MariaDB suites must run in CI "
               "(scripts/test.sh starts a server and exports the port; see scripts/mariadbcluster.sh)";
    return "\n********************************************************************************\n"
           "*** MariaDB suite SKIPPED: TIDEMARK_MARIADB_PORT is not set. Nothing was tested.\n"
           "*** Run scripts/mariadbcluster.sh start and export the port it prints, or scripts/test.sh.\n"
           "********************************************************************************";
}

QStringList CliResult::errLines() const {
    QStringList lines;
    for (const QString &line : err.split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty())
            lines.append(line);
    }
    return lines;
}

QString CliResult::describe() const {
    return QStringLiteral("exit %1%2; stdout: %3; stderr: %4")
        .arg(exitCode)
        .arg(crashed ? QStringLiteral(" (crashed)") : QString(), out.left(2000), err.left(2000));
}

CliResult runCli(const QStringList &args, const QString &workingDir, const QString &workspaceEnv,
                 int timeoutMs) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TIDEMARK_WORKSPACE"));
    if (!workspaceEnv.isEmpty())
        env.insert(QStringLiteral("TIDEMARK_WORKSPACE"), workspaceEnv);
    process.setProcessEnvironment(env);
    if (!workingDir.isEmpty())
        process.setWorkingDirectory(workingDir);
    process.start(cliPath(), args);
    CliResult result;
    if (!process.waitForStarted(30000)) {
        result.crashed = true;
        result.err = process.errorString();
        return result;
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(5000);
        result.crashed = true;
    }
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    if (process.exitStatus() == QProcess::CrashExit)
        result.crashed = true;
    result.exitCode = result.crashed ? -1 : process.exitCode();
    return result;
}

namespace {

QJsonDocument parseJson(const QString &text, bool *ok) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(text.toUtf8(), &error);
    if (ok)
        *ok = error.error == QJsonParseError::NoError;
    return document;
}

void bindAll(SqliteStatement &statement, const QVariantList &params) {
    for (int i = 0; i < params.size(); ++i)
        statement.bind(i + 1, params[i]);
}

} // namespace

QChar processState(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return QChar();
    const QByteArray text = stat.readAll();
    // "pid (name) S ...": the name may hold spaces and parentheses, so the last ')' ends it.
    const qsizetype close = text.lastIndexOf(')');
    return close >= 0 && close + 2 < text.size() ? QChar(text.at(close + 2)) : QChar();
}

QJsonObject parseJsonObject(const QString &text, bool *ok) {
    bool parsed = false;
    const QJsonDocument document = parseJson(text, &parsed);
    if (ok)
        *ok = parsed && document.isObject();
    return document.object();
}

QJsonArray parseJsonArray(const QString &text, bool *ok) {
    bool parsed = false;
    const QJsonDocument document = parseJson(text, &parsed);
    if (ok)
        *ok = parsed && document.isArray();
    return document.array();
}

void execSql(const QString &dbPath, const QString &sql) {
    if (isServerWorkspace(dbPath)) {
        serverWorkspaceRows(dbPath, sql, {});
        return;
    }
    SqliteDb db(dbPath, SqliteDb::Mode::ReadWriteCreate);
    db.exec(sql);
}

void execSql(const QString &dbPath, const QString &sql, const QVariantList &params) {
    if (isServerWorkspace(dbPath)) {
        serverWorkspaceRows(dbPath, sql, params);
        return;
    }
    SqliteDb db(dbPath, SqliteDb::Mode::ReadWriteCreate);
    SqliteStatement statement(db, sql);
    bindAll(statement, params);
    statement.run();
}

QVariant queryValue(const QString &dbPath, const QString &sql, const QVariantList &params) {
    if (isServerWorkspace(dbPath)) {
        const QList<QStringList> rows = serverWorkspaceRows(dbPath, sql, params);
        return rows.isEmpty() || rows.first().first().isNull() ? QVariant() : QVariant(rows.first().first());
    }
    SqliteDb db(dbPath, SqliteDb::Mode::ReadOnly);
    SqliteStatement statement(db, sql);
    bindAll(statement, params);
    if (!statement.step())
        return {};
    return statement.columnVariant(0);
}

QList<QStringList> queryRows(const QString &dbPath, const QString &sql, const QVariantList &params) {
    if (isServerWorkspace(dbPath))
        return serverWorkspaceRows(dbPath, sql, params);
    SqliteDb db(dbPath, SqliteDb::Mode::ReadOnly);
    SqliteStatement statement(db, sql);
    bindAll(statement, params);
    QList<QStringList> rows;
    while (statement.step()) {
        QStringList row;
        for (int i = 0; i < statement.columnCount(); ++i)
            row << statement.columnText(i);
        rows << row;
    }
    return rows;
}

qint64 countRows(const QString &dbPath, const QString &table) {
    return queryValue(dbPath, QStringLiteral("SELECT count(*) FROM ") + quoteIdentifier(table)).toLongLong();
}

bool tableExists(const QString &dbPath, const QString &table) {
    return queryValue(dbPath,
                      QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1"),
                      {table})
               .toLongLong() > 0;
}

void recoverAfterKill(const QString &dbPath) {
    SqliteDb db(dbPath, SqliteDb::Mode::ReadWrite);
    SqliteStatement statement(db, QStringLiteral("SELECT count(*) FROM sqlite_master"));
    statement.step();
}

QString orderTimestamp(int id) {
    // 2025-01-01T00:00:00Z in microseconds since the epoch.
    constexpr qint64 base = 1735689600LL * 1000000LL;
    return canonicalTimestamp(base + qint64(id) * 60LL * 1000000LL);
}

IterationRecord queuedIteration(qint64 runId, qint64 tableId, const QString &table) {
    IterationRecord r;
    r.runId = runId;
    r.tableId = tableId;
    r.source = QStringLiteral("src:") + table;
    r.target = QStringLiteral("dst:") + table;
    return r;
}

QList<qint64> runIdsOf(const QAbstractItemModel &model) {
    QList<qint64> ids;
    for (int row = 0; row < model.rowCount(); ++row)
        ids << model.index(row, 0).data(RunIdRole).toLongLong();
    return ids;
}

void isolateSettings() {
    static QTemporaryDir settingsDir;
    QVERIFY2(settingsDir.isValid(), qPrintable(settingsDir.errorString()));
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TidemarkTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tidemark-ui-tests"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
}

void makeStreamingOrdersTarget(const QString &dbPath, const QString &table) {
    execSql(dbPath,
            QStringLiteral(
                "CREATE TABLE IF NOT EXISTS %1 (id INTEGER PRIMARY KEY, customer NOT NULL, amount REAL, "
                "updated_at TIMESTAMP NOT NULL)")
                .arg(quoteIdentifier(table)));
}

void makeOrders(const QString &dbPath, int rows, int firstId, const QString &table, bool withPrimaryKey) {
    SqliteDb db(dbPath, SqliteDb::Mode::ReadWriteCreate);
    db.exec(
        QStringLiteral("CREATE TABLE IF NOT EXISTS %1 (id INTEGER%2, customer TEXT NOT NULL, amount REAL, "
                       "updated_at TIMESTAMP NOT NULL)")
            .arg(quoteIdentifier(table), withPrimaryKey ? QStringLiteral(" PRIMARY KEY") : QString()));
    db.exec(QStringLiteral("BEGIN"));
    SqliteStatement insert(
        db, QStringLiteral("INSERT INTO %1 (id, customer, amount, updated_at) VALUES (?1, ?2, ?3, ?4)")
                .arg(quoteIdentifier(table)));
    for (int id = firstId; id < firstId + rows; ++id) {
        insert.reset();
        insert.bind(1, id)
            .bind(2, QStringLiteral("customer %1").arg(id))
            .bind(3, id * 1.5)
            .bind(4, orderTimestamp(id));
        insert.run();
    }
    db.exec(QStringLiteral("COMMIT"));
}

} // namespace tidemark::test

namespace tidemark::test {

ConnectionSpec sqliteSpec(const QString &name, const QString &path) {
    ConnectionSpec spec;
    spec.name = name;
    spec.kind = ConnectionKind::Sqlite;
    spec.path = path;
    return spec;
}

QVariant cellValue(const RowBatch &batch, int row, int column) {
    return cellToVariant(batch, batch.cell(row, column));
}

} // namespace tidemark::test
