// SPDX-License-Identifier: MIT
#include "model/engine/backfillpreview.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/domain/sourcezone.h"
#include "model/engine/remotework.h"
#include "model/storage/workspace.h"

namespace tidemark {
namespace {

const QString kPreviewLane = QStringLiteral("preview");

void throwIfCancelled(const std::atomic_bool *cancel) {
    if (cancel && cancel->load())
        throw Error(QStringLiteral("cancelled"));
}

// Opens through `task` when there is one, so its cancel interrupts the count in progress.
std::shared_ptr<Connector> openNamed(Workspace &workspace, const QString &name, RemoteTask *task) {
    const ConnectionSpec connection = workspace.requireConnection(name);
    if (task)
        return task->open(connection);
    return openConnector(connection);
}

// Counts `column > from` on `table` (every row when `column` is empty or `from` is none).
qint64 countAfter(SourceReader &reader, const TableRef &table, const QString &column, const Watermark &from) {
    WindowQuery query;
    query.table = table;
    query.watermarkColumn = from.isNull() ? QString() : column;
    query.watermarkType = from.type();
    query.lower = Position(from);
    return reader.countWindow(query);
}

BackfillPreview preview(Workspace &workspace, const BackfillRequest &request, const std::atomic_bool *cancel,
                        RemoteTask *task);

} // namespace

BackfillPreview previewBackfill(Workspace &workspace, const BackfillRequest &request,
                                const std::atomic_bool *cancel) {
    return preview(workspace, request, cancel, nullptr);
}

namespace {

BackfillPreview preview(Workspace &workspace, const BackfillRequest &request, const std::atomic_bool *cancel,
                        RemoteTask *task) {
    const std::optional<TableSpec> spec = backfillableTable(workspace, request.tableId);
    BackfillPreview result;
    result.tableId = spec->id;
    result.source = spec->sourceDisplay();
    result.target = spec->targetDisplay();
    result.action = request.action;

    throwIfCancelled(cancel);
    const std::shared_ptr<Connector> sourceConnector = openNamed(workspace, spec->sourceConnection, task);
    SourceReader *source = sourceConnector.get();
    const TableRef sourceTable = source->parseTableName(spec->sourceTable);
    if (request.action == BackfillTargetAction::Truncate) {
        result.from = spec->initialWatermark;
    } else {
        const Watermark sample =
            source->sampleWatermark(sourceTable, spec->watermarkColumn, spec->watermarkType);
        result.from = SourceZone::parse(spec->sourceTimezone)
                          .parseTyped(spec->watermarkType, request.fromText, sample,
                                      QStringLiteral("the new watermark"));
    }
    throwIfCancelled(cancel);
    result.sourceRowsToCopy = countAfter(*source, sourceTable, spec->watermarkColumn, result.from);
    throwIfCancelled(cancel);

    if (request.action == BackfillTargetAction::Keep)
        return result;
    const std::shared_ptr<Connector> targetConnector = openNamed(workspace, spec->targetConnection, task);
    // Counting what a backfill would delete only reads the target table, like a source.
    SourceReader *target = targetConnector.get();
    const TableRef targetTable = target->parseTableName(spec->targetTable);
    result.targetExists = target->tableExists(targetTable);
    if (!result.targetExists)
        return result;
    throwIfCancelled(cancel);
    if (request.action == BackfillTargetAction::Truncate) {
        result.targetRowsDeleted = countAfter(*target, targetTable, QString(), Watermark());
    } else {
        // Bound like the target column spells its values (SQLite compares timestamps as text).
        const Watermark sample =
            target->sampleWatermark(targetTable, spec->watermarkColumn, spec->watermarkType);
        const Watermark from = SourceZone::parse(spec->sourceTimezone)
                                   .parseTyped(spec->watermarkType, request.fromText, sample,
                                               QStringLiteral("the new watermark"));
        result.targetRowsDeleted = countAfter(*target, targetTable, spec->watermarkColumn, from);
    }
    throwIfCancelled(cancel);
    return result;
}

} // namespace

BackfillPreviewer::BackfillPreviewer(const QString &workspacePath, QObject *parent)
    : QObject(parent)
    , m_workspacePath(workspacePath)
    , m_remote(new RemoteWorkQueue(this)) {
    qRegisterMetaType<tidemark::BackfillPreview>();
}

BackfillPreviewer::~BackfillPreviewer() = default; // the queue cancels the preview in flight

void BackfillPreviewer::cancel() {
    m_remote->cancel(kPreviewLane);
}

void BackfillPreviewer::request(const BackfillRequest &request) {
    m_remote->submit(
        kPreviewLane,
        [path = m_workspacePath, request](RemoteTask &task) {
            const std::unique_ptr<Workspace> workspace = Workspace::open(path);
            return preview(*workspace, request, task.cancelFlag(), &task);
        },
        [this](const BackfillPreview &preview) { emit previewReady(preview); },
        [this](const QString &error) { emit previewFailed(error); });
}

} // namespace tidemark
