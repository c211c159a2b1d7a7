// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

namespace tidemark {

// The one function that turns a name into an SQL identifier: wraps it in double quotes and
// doubles any embedded double quote. Quotes, spaces, semicolons and non-ASCII letters are
// all kept verbatim and can never end the identifier. Works for SQLite and PostgreSQL alike.
QString quoteIdentifier(const QString &name);

// "schema"."table" when schema is not empty, else "table".
QString quoteQualified(const QString &schema, const QString &name);

// quoteIdentifier applied to each name, joined with ", ".
QString quoteIdentifierList(const QStringList &names);

} // namespace tidemark
