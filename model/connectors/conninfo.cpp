// SPDX-License-Identifier: MIT
#include "model/connectors/conninfo.h"

#include "model/common/error.h"

#include <libpq-fe.h>

#include <QRegularExpression>
#include <memory>

namespace tidemark {
namespace {

struct ConninfoOptionsDeleter {
    void operator()(PQconninfoOption *options) const { PQconninfoFree(options); }
};
using ConninfoOptions = std::unique_ptr<PQconninfoOption, ConninfoOptionsDeleter>;

ConninfoOptions parse(const QString &conninfo, QString *error) {
    char *message = nullptr;
    ConninfoOptions options(PQconninfoParse(conninfo.toUtf8().constData(), &message));
    if (message) {
        if (error)
            *error = QString::fromUtf8(message).trimmed();
        PQfreemem(message);
    }
    return options;
}

// The libpq keywords whose value is a secret (the password, the client key's passphrase).
bool isSecret(const char *keyword) {
    return qstrcmp(keyword, "password") == 0 || qstrcmp(keyword, "sslpassword") == 0;
}

// Quotes a value the way libpq's keyword/value syntax reads it back.
QString quoteValue(const QString &value) {
    static const QRegularExpression plain(QStringLiteral("^[^\\s'\\\\]+$"));
    if (plain.match(value).hasMatch())
        return value;
    QString quoted = value;
    quoted.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
    quoted.replace(QLatin1Char('\''), QLatin1String("\\'"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

} // namespace

void checkConninfo(const QString &connectionName, const QString &conninfo) {
    // libpq reads "" as "every default": a connection to whatever the environment points at.
    if (conninfo.trimmed().isEmpty())
        throw ValidationError(QStringLiteral("connection '%1': CONNINFO is empty; give at least "
                                             "host=... dbname=...")
                                  .arg(connectionName));
    QString error;
    const ConninfoOptions options = parse(conninfo, &error);
    if (!options)
        throw ValidationError(
            QStringLiteral("connection '%1': CONNINFO does not parse: %2").arg(connectionName, error));
    // A URI's user:password@ comes back from the parser as the password keyword.
    for (const PQconninfoOption *option = options.get(); option->keyword; ++option) {
        if (isSecret(option->keyword) && option->val) {
            const bool password = qstrcmp(option->keyword, "password") == 0;
            throw ValidationError(
                QStringLiteral("connection '%1': %2 inside CONNINFO is refused; use %3")
                    .arg(connectionName,
                         password ? QStringLiteral("a password") : QStringLiteral("an sslpassword"),
                         password ? QStringLiteral("--password-env VAR or ~/.pgpass")
                                  : QStringLiteral("a client key without a passphrase "
                                                   "(the workspace stores no secrets)")));
        }
    }
}

QString redactConninfo(const QString &conninfo) {
    const ConninfoOptions options = parse(conninfo, nullptr);
    if (!options) {
        // Unparseable text is still scrubbed of anything that looks like a secret.
        QString text = conninfo;
        text.replace(QRegularExpression(QStringLiteral("password\\s*=\\s*('([^'\\\\]|\\\\.)*'|\\S*)")),
                     QStringLiteral("password=***"));
        text.replace(QRegularExpression(QStringLiteral("(://[^:/@\\s]*):[^@\\s]*@")),
                     QStringLiteral("\\1:***@"));
        return text;
    }
    QStringList parts;
    for (const PQconninfoOption *option = options.get(); option->keyword; ++option) {
        if (!option->val || isSecret(option->keyword))
            continue;
        parts << QString::fromUtf8(option->keyword) + QLatin1Char('=') +
                     quoteValue(QString::fromUtf8(option->val));
    }
    return parts.join(QLatin1Char(' '));
}

} // namespace tidemark
