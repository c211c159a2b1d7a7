// SPDX-License-Identifier: MIT
#include "model/storage/workspacelocation.h"

#include "model/common/error.h"

#include <libpq-fe.h>

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringList>
#include <QUrl>

namespace tidemark {
namespace {

const QString kSchemaParameter = QStringLiteral("schema");

// `uri` without its `schema` query parameter; that parameter's value goes to `*schema`.
QString withoutSchemaParameter(const QString &uri, QString *schema) {
    const qsizetype question = uri.indexOf(QLatin1Char('?'));
    if (question < 0)
        return uri;
    QStringList kept;
    for (const QString &pair : uri.mid(question + 1).split(QLatin1Char('&'), Qt::SkipEmptyParts)) {
        const qsizetype equals = pair.indexOf(QLatin1Char('='));
        if (pair.left(equals) == kSchemaParameter)
            *schema = QUrl::fromPercentEncoding(pair.mid(equals + 1).toUtf8());
        else
            kept << pair;
    }
    return uri.left(question) + (kept.isEmpty() ? QString() : QLatin1Char('?') + kept.join(QLatin1Char('&')));
}

// Refuses what libpq would not take, and any password: see resolve().
void checkServerUri(const QString &uri) {
    char *error = nullptr;
    PQconninfoOption *options = PQconninfoParse(uri.toUtf8().constData(), &error);
    if (!options) {
        const QString why = error ? QString::fromUtf8(error).trimmed() : QStringLiteral("out of memory");
        PQfreemem(error);
        throw ValidationError(QStringLiteral("workspace %1 is not a valid PostgreSQL URI: %2").arg(uri, why));
    }
    bool hasPassword = false;
    for (PQconninfoOption *option = options; option->keyword; ++option) {
        if (qstrcmp(option->keyword, "password") == 0 && option->val && *option->val)
            hasPassword = true;
    }
    PQconninfoFree(options);
    if (hasPassword)
        throw ValidationError(
            QStringLiteral("workspace URI holds a password; give it through PGPASSWORD, ~/.pgpass or a "
                           "service file instead (the workspace's name is shown in logs and process "
                           "lists)"));
}

} // namespace

bool WorkspaceLocation::isServer(const QString &text) {
    return text.startsWith(QLatin1String("postgresql://")) || text.startsWith(QLatin1String("postgres://"));
}

QString WorkspaceLocation::logFileFor(const QString &text) {
    if (text.isEmpty())
        return {};
    if (!isServer(text))
        return text + QStringLiteral(".log");
    QString name;
    try {
        const WorkspaceLocation location = resolve(text);
        // "postgresql://ana@db:5432/warehouse?sslmode=require", schema x: "ana@db_5432_warehouse_x"
        name = location.target().section(QLatin1Char('?'), 0, 0).section(QStringLiteral("://"), 1) +
               QLatin1Char('_') + location.schema();
    } catch (const Error &) {
        return {}; // what cannot be opened logs nowhere of its own
    }
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9@._-]")), QStringLiteral("_"));
    QString state = qEnvironmentVariable("XDG_STATE_HOME");
    if (state.isEmpty())
        state = QDir::homePath() + QStringLiteral("/.local/state");
    return state + QStringLiteral("/tidemark/") + name + QStringLiteral(".log");
}

WorkspaceLocation WorkspaceLocation::resolve(const QString &text, const QString &schema) {
    if (text.isEmpty())
        throw ValidationError(QStringLiteral("no workspace: pass -w FILE|URI or set TIDEMARK_WORKSPACE"));
    WorkspaceLocation location;
    if (!isServer(text)) {
        location.m_target = QFileInfo(text).absoluteFilePath();
        return location;
    }
    location.m_kind = Kind::Server;
    QString named;
    location.m_target = withoutSchemaParameter(text, &named);
    checkServerUri(location.m_target);
    location.m_schema = !schema.isEmpty()  ? schema
                        : !named.isEmpty() ? named
                                           : qEnvironmentVariable("TIDEMARK_WORKSPACE_SCHEMA");
    if (location.m_schema.isEmpty())
        location.m_schema = QString::fromLatin1(kDefaultSchema);
    return location;
}

QString WorkspaceLocation::text() const {
    if (!isServer())
        return m_target;
    const QString separator = m_target.contains(QLatin1Char('?')) ? QStringLiteral("&") : QStringLiteral("?");
    return m_target + separator + kSchemaParameter + QLatin1Char('=') +
           QString::fromUtf8(QUrl::toPercentEncoding(m_schema));
}

} // namespace tidemark
