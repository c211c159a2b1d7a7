// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace tidemark {

class Workspace;

// The tables, live and removed, that read from or write into connection `name`, as
// "table 1 (src:a -> dst:a)" / "removed table 3 (...)": a connection they use cannot be removed
// (a removed table still needs it to be restored or purged), nor moved without the operator's
// word. `removed` gets the ids of the removed ones.
QStringList tablesUsingConnection(Workspace &workspace, const QString &name,
                                  QList<qint64> *removed = nullptr);

} // namespace tidemark
