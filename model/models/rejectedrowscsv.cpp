// SPDX-License-Identifier: MIT
#include "model/models/rejectedrowscsv.h"

#include "model/common/csv.h"
#include "model/common/error.h"
#include "model/models/timeconvention.h"
#include "model/storage/workspace.h"

#include <QDir>
#include <QSaveFile>

namespace tidemark {

namespace {

constexpr int kPageRows = 5000;

[[noreturn]] void cannotWrite(const QSaveFile &file, const QString &path) {
    throw Error(
        QStringLiteral("cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
}

} // namespace

qint64 writeRejectedRowsCsv(Workspace &workspace, qint64 iterationId, const QString &path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        cannotWrite(file, path);
    QString text = csvRecord({QStringLiteral("rejected_at"), QStringLiteral("run_id"),
                              QStringLiteral("iteration_id"), QStringLiteral("table_id"),
                              QStringLiteral("error"), QStringLiteral("key"), QStringLiteral("values")});
    const QTimeZone zone = TimeConvention::current().zone();
    qint64 written = 0;
    qint64 afterId = 0;
    for (;;) {
        const QList<RejectedRow> page = workspace.iterationRejects(iterationId, afterId, kPageRows);
        for (const RejectedRow &row : page)
            text += csvRecord({csvTime(row.at, zone), QString::number(row.runId),
                               QString::number(row.iterationId), QString::number(row.tableId), row.error,
                               row.rowKey, row.rowData});
        if (file.write(text.toUtf8()) < 0)
            cannotWrite(file, path);
        text.clear();
        written += page.size();
        if (page.size() < kPageRows)
            break;
        afterId = page.last().id;
    }
    if (!file.commit())
        cannotWrite(file, path);
    return written;
}

} // namespace tidemark
