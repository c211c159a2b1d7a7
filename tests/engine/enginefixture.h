// SPDX-License-Identifier: MIT
#pragma once

// A workspace with a SQLite source ("src") and target ("dst") in a temporary directory, and a
// way to run one CopyIteration the way the run coordinator does. Shared by the engine suites.

#include "model/common/error.h"
#include "model/common/sqlquote.h"
#include "model/engine/copyiteration.h"
#include "model/engine/tablesetup.h"
#include "model/sqlite/sqlitedb.h"
#include "model/storage/workspace.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

namespace tidemark::test {

// One iteration of `tableId` in a run of its own, as RunCoordinator queues it.
inline IterationRecord runInOwnRun(Workspace &ws, qint64 tableId, CopyIteration::Options options = {}) {
    const TableSpec tableSpec = *ws.table(tableId);
    const qint64 runId = ws.beginRun(QStringLiteral("cli"), 1, options.dryRun);
    IterationRecord record;
    record.runId = runId;
    record.tableId = tableId;
    record.source = tableSpec.sourceDisplay();
    record.target = tableSpec.targetDisplay();
    record.watermarkBefore = tableSpec.lastWatermark.display();
    record.id = ws.addIteration(record);
    IterationRecord result = CopyIteration(ws, tableSpec, record, options).run();
    ws.finishRun(runId, deriveRunStatus({result.status}, options.dryRun));
    return result;
}

class EngineFixture {
public:
    EngineFixture() {
        QVERIFY2(m_dir.isValid(), "temporary directory");
        wsPath = testWorkspaceLocation(m_dir, QStringLiteral("ws.tidemark"));
        src = m_dir.filePath(QStringLiteral("source.db"));
        dst = m_dir.filePath(QStringLiteral("target.db"));
        ws = Workspace::create(wsPath);
        ConnectionSpec source;
        source.name = QStringLiteral("src");
        source.path = src;
        ws->addConnection(source);
        ConnectionSpec target;
        target.name = QStringLiteral("dst");
        target.path = dst;
        ws->addConnection(target);
    }

    QString filePath(const QString &name) const { return m_dir.filePath(name); }

    // A draft copying src:sourceTable into dst:targetTable (same name when empty).
    static TableDraft draft(const QString &sourceTable, const QString &watermark,
                            const QString &targetTable = {}) {
        TableDraft draft;
        draft.spec.sourceConnection = QStringLiteral("src");
        draft.spec.sourceTable = sourceTable;
        draft.spec.targetConnection = QStringLiteral("dst");
        draft.spec.targetTable = targetTable.isEmpty() ? sourceTable : targetTable;
        draft.spec.watermarkColumn = watermark;
        return draft;
    }

    qint64 addTable(const TableDraft &draft) { return ws->addTable(prepareTable(*ws, draft)); }

    TableSpec spec(qint64 tableId) { return *ws->table(tableId); }

    // One iteration of `tableId` in a run of its own, as RunCoordinator queues it.
    IterationRecord run(qint64 tableId, CopyIteration::Options options = {}) {
        return runInOwnRun(*ws, tableId, options);
    }

    QString lastWatermarkText(qint64 tableId) { return spec(tableId).lastWatermark.nativeText(); }

    // The target's state row watermark for the table (null when none).
    QVariant stateWatermark(qint64 tableId) {
        if (!targetHas(QStringLiteral("tidemark_state")))
            return {};
        return queryValue(dst, QStringLiteral("SELECT watermark FROM tidemark_state WHERE table_id = ?1"),
                          {tableId});
    }

    // Whether the target file exists and holds `table` (the target file is created lazily).
    bool targetHas(const QString &table) const { return QFile::exists(dst) && tableExists(dst, table); }

    QString dirPath() const { return m_dir.path(); }

    QString wsPath;
    QString src;
    QString dst;
    std::unique_ptr<Workspace> ws;

private:
    QTemporaryDir m_dir{fastTempTemplate()};
};

// Whether the iteration copied inside the database (the engine logs that it did).
inline bool pushedDown(const IterationRecord &record) {
    for (const LogLine &line : record.log) {
        if (line.message.contains(QLatin1String("push-down"), Qt::CaseInsensitive))
            return true;
    }
    return false;
}

inline QString describe(const IterationRecord &record) {
    return QStringLiteral(
               "status %1, read %2, written %3, skipped %4, null %5, before '%6', after '%7', error '%8'")
        .arg(iterationStatusName(record.status))
        .arg(record.rowsRead)
        .arg(record.rowsWritten)
        .arg(record.rowsSkipped)
        .arg(record.rowsNullWatermark)
        .arg(record.watermarkBefore, record.watermarkAfter, record.error);
}

// Rows of `sql` over the target ATTACHed with the source as "s": the count of rows in one table
// and not the other, both ways (0 = same multiset of distinct rows).
inline qint64 symmetricDifference(const QString &targetPath, const QString &sourcePath,
                                  const QString &targetTable, const QString &sourceTable) {
    SqliteDb db(targetPath, SqliteDb::Mode::ReadWrite);
    SqliteStatement attach(db, QStringLiteral("ATTACH DATABASE ?1 AS s"));
    attach.bind(1, sourcePath).run();
    const QString t = QStringLiteral("main.") + quoteIdentifier(targetTable);
    const QString s = QStringLiteral("s.") + quoteIdentifier(sourceTable);
    SqliteStatement diff(
        db, QStringLiteral("SELECT (SELECT count(*) FROM (SELECT * FROM %1 EXCEPT SELECT * FROM %2))"
                           " + (SELECT count(*) FROM (SELECT * FROM %2 EXCEPT SELECT * FROM %1))")
                .arg(t, s));
    diff.step();
    return diff.columnInt64(0);
}

} // namespace tidemark::test
