// SPDX-License-Identifier: MIT
#pragma once

// What every store reads and writes the same way: times, ids, and the rows of the tables
// several stores share (tables, runs, iterations). Internal to model/storage.

#include "model/domain/connectionspec.h"
#include "model/domain/runrecord.h"
#include "model/domain/tablespec.h"
#include "model/storage/storedb.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <memory>

namespace spdlog {
class logger;
}

namespace tidemark {

std::shared_ptr<spdlog::logger> storageLog();

QString nowText();
// Invalid times are stored as NULL (a null QString binds NULL).
QString timeText(const QDateTime &time);
// Times are stored as isoUtc() writes them, "yyyy-MM-ddTHH:mm:ss.zzzZ": that form is read by
// hand, since QDateTime::fromString took a quarter of a history read. Anything else (older or
// hand-written rows) goes through Qt's parser.
QDateTime readTime(const Statement &stmt, int column);
QString textOrNull(const QString &text);
QVariant idOrNull(qint64 id);
bool processAlive(qint64 pid); // on this host
QString hostName();
// Ids as a JSON array, for `IN (<StoreDb::idsFromJson>)`: a set of rows in one bound query.
QString idsJson(const QList<qint64> &ids);
QString tiebreakText(const QVariant &value);

extern const QString kConnectionColumns;
ConnectionSpec readConnection(const Statement &stmt);

extern const QString kTableColumns;
TableSpec readTable(const Statement &stmt, const StoreDb &db);
// Binds the configuration fields (everything but id, last watermark and tiebreak) from ?1.
void bindTableConfig(Statement &stmt, const TableSpec &spec);

extern const QString kIterationColumns;
// kIterationColumns, each qualified by `alias`.
QString iterationColumnsOf(const QString &alias);
// kIterationColumns from column `first` on.
IterationRecord readIteration(const Statement &stmt, int first = 0);
// Binds the iteration's fields from run_id on, starting at ?1.
void bindIteration(Statement &stmt, const IterationRecord &record);

extern const QString kRunColumns;
constexpr int kRunColumnCount = 13;
RunRecord readRun(const Statement &stmt);

} // namespace tidemark
