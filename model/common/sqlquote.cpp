// SPDX-License-Identifier: MIT
#include "model/common/sqlquote.h"

namespace tidemark {

QString quoteIdentifier(const QString &name)
{
    QString quoted = name;
    quoted.replace(QLatin1Char('"'), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString quoteQualified(const QString &schema, const QString &name)
{
    if (schema.isEmpty())
        return quoteIdentifier(name);
    return quoteIdentifier(schema) + QLatin1Char('.') + quoteIdentifier(name);
}

QString quoteIdentifierList(const QStringList &names)
{
    QStringList quoted;
    quoted.reserve(names.size());
    for (const QString &name : names)
        quoted << quoteIdentifier(name);
    return quoted.join(QLatin1String(", "));
}

} // namespace tidemark
