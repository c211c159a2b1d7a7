// SPDX-License-Identifier: MIT
#include "app/cli/textformat.h"

#include "model/domain/sourcezone.h"
#include "model/storage/workspace.h"

#include <QRegularExpression>
#include <algorithm>

namespace tidemark::cli {

namespace {

QString orNone(const QString &text) {
    return text.isEmpty() ? QStringLiteral("-") : text;
}

QString timeText(const QDateTime &time) {
    return time.isValid() ? isoUtc(time) : QStringLiteral("-");
}

QStringList iterationCells(const IterationRecord &record) {
    return {QString::number(record.tableId),
            record.source + QStringLiteral(" -> ") + record.target,
            iterationStatusName(record.status),
            timeText(record.startedAt),
            QStringLiteral("%1 ms").arg(record.durationMs),
            QString::number(rowsShownRead(record)), // Read as the window shows it
            QString::number(record.rowsWritten),
            QString::number(record.rowsSkipped),
            orNone(record.watermarkBefore) + QStringLiteral(" -> ") + orNone(record.watermarkAfter),
            record.error};
}

QString summaryLine(const RunRecord &run) {
    int failed = 0;
    int cancelled = 0;
    for (const IterationRecord &record : run.iterations) {
        if (record.status == IterationStatus::Failed)
            ++failed;
        else if (record.status == IterationStatus::Cancelled)
            ++cancelled;
    }
    const QString kind =
        run.kind == QLatin1String(kRunKindCopy) ? QString() : QStringLiteral(" (range backfill)");
    return QStringLiteral("run %1%2 %3: %4 table(s), %5 failed, %6 cancelled")
        .arg(run.id)
        .arg(kind, run.status)
        .arg(run.iterations.size())
        .arg(failed)
        .arg(cancelled);
}

QString iterationsText(const QList<IterationRecord> &iterations, const QString &indent) {
    if (iterations.isEmpty())
        return {};
    QList<QStringList> rows{{QStringLiteral("TABLE"), QStringLiteral("SOURCE -> TARGET"),
                             QStringLiteral("STATUS"), QStringLiteral("STARTED"), QStringLiteral("DURATION"),
                             QStringLiteral("READ"), QStringLiteral("WRITTEN"), QStringLiteral("SKIPPED"),
                             QStringLiteral("WATERMARK"), QStringLiteral("ERROR")}};
    for (const IterationRecord &record : iterations)
        rows.append(iterationCells(record));
    QString text;
    for (const QString &line : alignColumns(rows).split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        text += indent + line + QLatin1Char('\n');
    return text;
}

} // namespace

QString alignColumns(const QList<QStringList> &rows) {
    QList<qsizetype> widths;
    for (const QStringList &row : rows) {
        for (qsizetype i = 0; i < row.size(); ++i) {
            if (widths.size() <= i)
                widths.append(0);
            widths[i] = std::max(widths[i], row[i].size());
        }
    }
    QString text;
    for (const QStringList &row : rows) {
        QString line;
        for (qsizetype i = 0; i < row.size(); ++i) {
            if (i > 0)
                line += QStringLiteral("  ");
            line += i + 1 < row.size() ? row[i].leftJustified(widths[i]) : row[i];
        }
        // Multi-line cells (errors) must not break the one-line-per-row layout.
        line.replace(QLatin1Char('\n'), QLatin1Char(' '));
        text +=
            line.trimmed().isEmpty() ? QString() : line.remove(QRegularExpression(QStringLiteral("\\s+$")));
        text += QLatin1Char('\n');
    }
    return text;
}

QString connectionsText(const QList<ConnectionSpec> &connections) {
    QList<QStringList> rows{
        {QStringLiteral("ID"), QStringLiteral("NAME"), QStringLiteral("KIND"), QStringLiteral("ENDPOINT")}};
    for (const ConnectionSpec &spec : connections) {
        QString endpoint = spec.kind == ConnectionKind::Sqlite ? spec.path : spec.conninfo;
        if (!spec.passwordEnv.isEmpty())
            endpoint += QStringLiteral(" (password from $%1)").arg(spec.passwordEnv);
        if (spec.maxConnections > 0)
            endpoint += QStringLiteral(" (at most %1 at once)").arg(spec.maxConnections);
        rows.append({QString::number(spec.id), spec.name, connectionKindName(spec.kind), endpoint});
    }
    return alignColumns(rows);
}

QString tablesText(const QList<TableSpec> &tables) {
    QList<QStringList> rows{{QStringLiteral("ID"), QStringLiteral("SOURCE"), QStringLiteral("TARGET"),
                             QStringLiteral("MODE"), QStringLiteral("WATERMARK"), QStringLiteral("KEY"),
                             QStringLiteral("LOOKBACK"), QStringLiteral("LAST WATERMARK"),
                             QStringLiteral("ACTIVE")}};
    for (const TableSpec &spec : tables) {
        QString watermark = orNone(spec.watermarkColumn);
        if (!spec.tiebreakColumn.isEmpty())
            watermark += QStringLiteral(", ") + spec.tiebreakColumn;
        if (spec.watermarkType != WatermarkType::None)
            watermark += QStringLiteral(" (%1%2)").arg(
                watermarkTypeName(spec.watermarkType),
                spec.sourceTimezone.isEmpty() ? QString() : QStringLiteral(", ") + spec.sourceTimezone);
        rows.append({QString::number(spec.id), spec.sourceDisplay(), spec.targetDisplay(),
                     writeModeName(spec.mode), watermark, orNone(spec.keyColumns.join(QLatin1Char(','))),
                     orNone(spec.lookback), orNone(shownWatermark(spec.lastWatermark, spec.sourceTimezone)),
                     spec.active ? QStringLiteral("yes") : QStringLiteral("paused")});
    }
    return alignColumns(rows);
}

QString changesText(const QList<WatermarkChange> &changes) {
    QList<QStringList> rows{{QStringLiteral("AT"), QStringLiteral("BEFORE"), QStringLiteral("AFTER"),
                             QStringLiteral("CAUSE"), QStringLiteral("RUN"), QStringLiteral("BY"),
                             QStringLiteral("HOST")}};
    for (const WatermarkChange &change : changes)
        rows.append({timeText(change.at), orNone(change.oldValue), orNone(change.newValue), change.cause,
                     change.runId > 0 ? QString::number(change.runId) : QStringLiteral("-"),
                     orNone(change.by), orNone(change.host)});
    return alignColumns(rows);
}

QString runText(const RunRecord &run) {
    return iterationsText(run.iterations, QString()) + summaryLine(run) + QLatin1Char('\n');
}

QString historyText(const QList<RunRecord> &runs) {
    QString text;
    for (const RunRecord &run : runs) {
        text += QStringLiteral("run %1  %2  trigger %3  by %4  host %5  started %6  finished %7  concurrency "
                               "%8%9\n")
                    .arg(run.id)
                    .arg(run.status, run.trigger, orNone(run.startedBy), orNone(run.host),
                         timeText(run.startedAt), timeText(run.finishedAt))
                    .arg(run.concurrency)
                    .arg(run.dryRun                                ? QStringLiteral("  dry run")
                         : run.kind == QLatin1String(kRunKindCopy) ? QString()
                                                                   : QStringLiteral("  range backfill"));
        text += iterationsText(run.iterations, QStringLiteral("    "));
    }
    return text;
}

QString verifyText(const VerifyResult &result) {
    const QString head =
        QStringLiteral("table %1 %2 -> %3: ").arg(result.tableId).arg(result.source, result.target);
    // Rows no window can select are not a difference, but never hidden either.
    QStringList leftOut;
    if (result.nullWatermarkRows)
        leftOut << QStringLiteral("%1 with a NULL watermark").arg(result.nullWatermarkRows);
    if (result.unorderableWatermarkRows)
        leftOut << QStringLiteral("%1 with a watermark that cannot be ordered")
                       .arg(result.unorderableWatermarkRows);
    const QString leftOutText =
        leftOut.isEmpty() ? QString()
                          : QStringLiteral("; source rows left out: ") + leftOut.join(QStringLiteral(", "));
    if (result.matches)
        return head + QStringLiteral("matches (%1 rows)%2\n").arg(result.sourceRows).arg(leftOutText);
    QString text = head + QStringLiteral("DIFFERS: ") + result.difference;
    if (!result.difference.contains(QStringLiteral("target")))
        text += QStringLiteral(" (source %1 rows, target %2 rows, missing %3, extra %4, differing %5)")
                    .arg(result.sourceRows)
                    .arg(result.targetRows)
                    .arg(result.missingInTarget)
                    .arg(result.extraInTarget)
                    .arg(result.differing);
    QStringList faults;
    for (const VerifyFault &fault : result.faults)
        faults << verifyFaultText(fault);
    if (!faults.isEmpty())
        text += QStringLiteral("; e.g. ") + faults.join(QStringLiteral("; "));
    return text + leftOutText + QLatin1Char('\n');
}

} // namespace tidemark::cli
