// SPDX-License-Identifier: MIT
#include "model/domain/connectionspec.h"

#include <QRegularExpression>

namespace tidemark {

QString connectionKindName(ConnectionKind kind) {
    switch (kind) {
    case ConnectionKind::Postgres:
        return QStringLiteral("postgres");
    case ConnectionKind::Mysql:
        return QStringLiteral("mysql");
    case ConnectionKind::Sqlite:
        break;
    }
    return QStringLiteral("sqlite");
}

ConnectionKind connectionKindFromName(const QString &name) {
    if (name == QLatin1String("postgres"))
        return ConnectionKind::Postgres;
    if (name == QLatin1String("mysql"))
        return ConnectionKind::Mysql;
    return ConnectionKind::Sqlite;
}

QString ConnectionSpec::describe() const {
    if (kind == ConnectionKind::Sqlite)
        return QStringLiteral("sqlite ") + path;
    // The CLI refuses a password inside conninfo, but a hand-edited workspace might still hold
    // one; a description ends up in lists, logs and errors, so mask it regardless.
    static const QRegularExpression keyword(QStringLiteral(R"((password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+))"),
                                            QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression uri(QStringLiteral(R"((://[^:/@\s]*:)[^@\s]*@)"));
    QString text = conninfo;
    text.replace(keyword, QStringLiteral("\\1***"));
    text.replace(uri, QStringLiteral("\\1***@"));
    QString result = connectionKindName(kind) + QLatin1Char(' ') + text;
    if (!passwordEnv.isEmpty())
        result += QStringLiteral(" (password from $%1)").arg(passwordEnv);
    return result;
}

QString connectionKeychainKey(const QString &workspaceId, qint64 connectionId) {
    return QStringLiteral("%1/connection/%2").arg(workspaceId).arg(connectionId);
}

bool sameDatabase(const ConnectionSpec &a, const ConnectionSpec &b) {
    if (a.name == b.name)
        return true;
    if (a.kind != b.kind)
        return false;
    return a.kind == ConnectionKind::Sqlite ? a.path == b.path : a.conninfo == b.conninfo;
}

QString tableIdentity(ConnectionKind kind, const QString &table) {
    if (kind == ConnectionKind::Sqlite)
        return table.toLower();
    if (kind == ConnectionKind::Mysql)
        return table;
    return table.contains(QLatin1Char('.')) ? table : QStringLiteral("public.") + table;
}

QStringList postgresSslModes() {
    return {QStringLiteral("prefer"),  QStringLiteral("disable"),   QStringLiteral("allow"),
            QStringLiteral("require"), QStringLiteral("verify-ca"), QStringLiteral("verify-full")};
}

} // namespace tidemark
