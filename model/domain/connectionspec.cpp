// SPDX-License-Identifier: MIT
#include "model/domain/connectionspec.h"

#include <QRegularExpression>

namespace tidemark {

QString connectionKindName(ConnectionKind kind) {
    return kind == ConnectionKind::Postgres ? QStringLiteral("postgres") : QStringLiteral("sqlite");
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
    QString result = QStringLiteral("postgres ") + text;
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
    return table.contains(QLatin1Char('.')) ? table : QStringLiteral("public.") + table;
}

} // namespace tidemark
