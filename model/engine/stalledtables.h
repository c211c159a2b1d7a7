// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QHash>
#include <QString>

namespace tidemark {

class Workspace;

// The live tables that are stalled at `now` (tableHealth: active, a --stale-after, the position
// standing still past it), each with its reason. Reads the runs and the watermark log only when
// some table has a --stale-after.
QHash<qint64, QString> stalledTables(Workspace &workspace, const QDateTime &now);

} // namespace tidemark
