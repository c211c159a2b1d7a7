// SPDX-License-Identifier: MIT
#include "model/storage/serverworkspaceaddress.h"

#include "model/storage/workspacelocation.h"

#include <QUrl>
#include <QUrlQuery>

namespace tidemark {

namespace {

const QString kDefaultSslmode = QStringLiteral("prefer");

} // namespace

QString ServerWorkspaceAddress::problem() const {
    if (host.trimmed().isEmpty())
        return QStringLiteral("Enter the server's host name.");
    if (database.trimmed().isEmpty())
        return QStringLiteral("Enter the database that holds the workspace.");
    if (schema.trimmed().isEmpty())
        return QStringLiteral("Enter the workspace's schema (tidemark unless your team chose another).");
    return QString();
}

QString ServerWorkspaceAddress::location() const {
    QUrl url;
    url.setScheme(QStringLiteral("postgresql"));
    url.setHost(host.trimmed());
    url.setPort(port);
    url.setUserName(user.trimmed());
    url.setPath(QLatin1Char('/') + database.trimmed());
    QUrlQuery query;
    if (sslmode != kDefaultSslmode)
        query.addQueryItem(QStringLiteral("sslmode"), sslmode);
    if (schema.trimmed() != QLatin1String(WorkspaceLocation::kDefaultSchema))
        query.addQueryItem(QStringLiteral("schema"), schema.trimmed());
    url.setQuery(query);
    return url.toString(QUrl::FullyEncoded);
}

QString ServerWorkspaceAddress::displayName() const {
    return QStringLiteral("%1 in %2 on %3:%4")
        .arg(schema.trimmed(), database.trimmed(), host.trimmed())
        .arg(port);
}

ServerWorkspaceAddress ServerWorkspaceAddress::fromLocation(const QString &text) {
    ServerWorkspaceAddress address;
    if (!WorkspaceLocation::isServer(text))
        return address;
    const QUrl url(text);
    if (!url.host().isEmpty())
        address.host = url.host();
    address.port = url.port(5432);
    address.user = url.userName();
    address.database = url.path().mid(1);
    const QUrlQuery query(url);
    if (query.hasQueryItem(QStringLiteral("sslmode")))
        address.sslmode = query.queryItemValue(QStringLiteral("sslmode"));
    if (query.hasQueryItem(QStringLiteral("schema")))
        address.schema = query.queryItemValue(QStringLiteral("schema"), QUrl::FullyDecoded);
    return address;
}

} // namespace tidemark
