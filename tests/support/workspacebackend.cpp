// SPDX-License-Identifier: MIT
#include "tests/support/workspacebackend.h"

#include "model/common/sqlquote.h"
#include "model/sqlite/sqlitedb.h"
#include "model/storage/workspacelocation.h"
#include "tests/support/pgsession.h"

#include <QAtomicInt>
#include <QCoreApplication>
#include <QRegularExpression>

namespace tidemark::test {

bool serverWorkspaces() {
    return qEnvironmentVariable("TIDEMARK_TEST_WORKSPACE_BACKEND") == QLatin1String("postgres");
}

QString testWorkspaceLocation(const QTemporaryDir &dir, const QString &name) {
    if (!serverWorkspaces())
        return dir.filePath(name);
    static QAtomicInt counter;
    QString schema = QStringLiteral("t%1_%2_%3")
                         .arg(QCoreApplication::applicationPid())
                         .arg(counter.fetchAndAddRelaxed(1))
                         .arg(QString(name).replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9]")),
                                                    QStringLiteral("_")));
    return QStringLiteral("postgresql://tidemark@127.0.0.1:%1/tidemark?schema=%2")
        .arg(pgPort(), schema.toLower());
}

QString execWorkspaceSql(const QString &location, const QString &sql, const QVariantList &params) {
    const WorkspaceLocation resolved = WorkspaceLocation::resolve(location);
    if (!resolved.isServer()) {
        SqliteDb db(resolved.target(), SqliteDb::Mode::ReadWrite, 10000);
        SqliteStatement stmt(db, sql);
        for (int i = 0; i < params.size(); ++i)
            stmt.bind(i + 1, params[i]);
        return stmt.step() ? stmt.columnText(0) : QString();
    }
    const QList<QStringList> rows = serverWorkspaceRows(location, sql, params);
    return rows.isEmpty() || rows.first().isEmpty() ? QString() : rows.first().first();
}

bool isServerWorkspace(const QString &path) {
    return WorkspaceLocation::isServer(path);
}

QList<QStringList> serverWorkspaceRows(const QString &location, const QString &sql,
                                       const QVariantList &params) {
    const WorkspaceLocation resolved = WorkspaceLocation::resolve(location);
    PgSession session(resolved.target());
    session.exec(QStringLiteral("SET search_path TO \"%1\"").arg(resolved.schema()));
    QString rendered = sql;
    rendered.replace(QRegularExpression(QStringLiteral("\\?(\\d+)")), QStringLiteral("$\\1"));
    return session.query(rendered, params);
}

namespace {

// Every table of the schema, each as "schema"."table".
QStringList schemaTables(PgSession &session, const QString &schema) {
    QStringList tables;
    for (const QStringList &row :
         session.query(QStringLiteral("SELECT tablename FROM pg_tables WHERE schemaname = $1"), {schema}))
        tables << quoteIdentifier(schema) + QLatin1Char('.') + quoteIdentifier(row.first());
    return tables;
}

} // namespace

bool serverWorkspaceHolds(const QString &location, const QString &text) {
    const WorkspaceLocation resolved = WorkspaceLocation::resolve(location);
    PgSession session(resolved.target());
    for (const QString &table : schemaTables(session, resolved.schema())) {
        const QString rows = session.value(
            QStringLiteral("SELECT coalesce(string_agg(row_to_json(t)::text, ' '), '') FROM %1 t")
                .arg(table));
        if (rows.contains(text))
            return true;
    }
    return false;
}

WorkspaceWriteLock::WorkspaceWriteLock(const QString &location) {
    const WorkspaceLocation resolved = WorkspaceLocation::resolve(location);
    if (!resolved.isServer()) {
        m_file = std::make_unique<SqliteDb>(resolved.target(), SqliteDb::Mode::ReadWrite);
        m_file->exec(QStringLiteral("BEGIN IMMEDIATE"));
        return;
    }
    m_server = std::make_unique<PgSession>(resolved.target());
    const QStringList tables = schemaTables(*m_server, resolved.schema());
    m_server->exec(QStringLiteral("BEGIN"));
    m_server->exec(QStringLiteral("LOCK TABLE %1 IN EXCLUSIVE MODE").arg(tables.join(QStringLiteral(", "))));
}

WorkspaceWriteLock::~WorkspaceWriteLock() {
    try {
        if (m_file)
            m_file->exec(QStringLiteral("ROLLBACK"));
        else
            m_server->exec(QStringLiteral("ROLLBACK"));
    } catch (const std::exception &error) {
        qWarning("releasing the workspace lock: %s", error.what());
    }
}

} // namespace tidemark::test
