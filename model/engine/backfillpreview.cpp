// SPDX-License-Identifier: MIT
#include "model/engine/backfillpreview.h"

#include "model/common/error.h"
#include "model/connectors/connectorfactory.h"
#include "model/storage/workspace.h"

#include <QPointer>
#include <QThreadPool>

#include <mutex>
#include <vector>

namespace tidemark {

// One preview in flight: its cancel flag and the connectors it has open, so a cancel from the
// previewer's thread interrupts a long count instead of waiting for it.
struct BackfillPreviewer::Job {
    std::atomic_bool cancelled{false};
    std::mutex mutex;
    std::vector<Connector *> open;

    void cancel() {
        cancelled = true;
        std::lock_guard lock(mutex);
        for (Connector *connector : open)
            connector->interrupt();
    }
};

namespace {

void throwIfCancelled(const std::atomic_bool *cancel) {
    if (cancel && cancel->load())
        throw Error(QStringLiteral("cancelled"));
}

std::unique_ptr<Connector> openNamed(Workspace &workspace, const QString &name) {
    const auto connection = workspace.connection(name);
    if (!connection)
        throw ValidationError(QStringLiteral("connection '%1' does not exist").arg(name));
    return openConnector(*connection);
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
                        BackfillPreviewer::Job *job);

} // namespace

BackfillPreview previewBackfill(Workspace &workspace, const BackfillRequest &request,
                                const std::atomic_bool *cancel) {
    return preview(workspace, request, cancel, nullptr);
}

namespace {

// Registers a connector with the job for the time it is open.
class Registered {
public:
    Registered(BackfillPreviewer::Job *job, Connector *connector)
        : m_job(job)
        , m_connector(connector) {
        if (!m_job)
            return;
        std::lock_guard lock(m_job->mutex);
        m_job->open.push_back(m_connector);
    }
    ~Registered() {
        if (!m_job)
            return;
        std::lock_guard lock(m_job->mutex);
        std::erase(m_job->open, m_connector);
    }
    Registered(const Registered &) = delete;
    Registered &operator=(const Registered &) = delete;

private:
    BackfillPreviewer::Job *m_job;
    Connector *m_connector;
};

BackfillPreview preview(Workspace &workspace, const BackfillRequest &request, const std::atomic_bool *cancel,
                        BackfillPreviewer::Job *job) {
    const std::optional<TableSpec> spec = backfillableTable(workspace, request.tableId);
    BackfillPreview result;
    result.tableId = spec->id;
    result.source = spec->sourceDisplay();
    result.target = spec->targetDisplay();
    result.action = request.action;

    throwIfCancelled(cancel);
    const std::unique_ptr<Connector> sourceConnector = openNamed(workspace, spec->sourceConnection);
    Registered sourceGuard(job, sourceConnector.get());
    SourceReader *source = sourceConnector.get();
    const TableRef sourceTable = source->parseTableName(spec->sourceTable);
    if (request.action == BackfillTargetAction::Truncate) {
        result.from = spec->initialWatermark;
    } else {
        const Watermark sample =
            source->sampleWatermark(sourceTable, spec->watermarkColumn, spec->watermarkType);
        result.from = parseUserWatermark(spec->watermarkType, request.fromText, sample,
                                         QStringLiteral("the new watermark"));
    }
    throwIfCancelled(cancel);
    result.sourceRowsToCopy = countAfter(*source, sourceTable, spec->watermarkColumn, result.from);
    throwIfCancelled(cancel);

    if (request.action == BackfillTargetAction::Keep)
        return result;
    const std::unique_ptr<Connector> targetConnector = openNamed(workspace, spec->targetConnection);
    Registered targetGuard(job, targetConnector.get());
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
        const Watermark from = parseUserWatermark(spec->watermarkType, request.fromText, sample,
                                                  QStringLiteral("the new watermark"));
        result.targetRowsDeleted = countAfter(*target, targetTable, spec->watermarkColumn, from);
    }
    throwIfCancelled(cancel);
    return result;
}

} // namespace

BackfillPreviewer::BackfillPreviewer(const QString &workspacePath, QObject *parent)
    : QObject(parent)
    , m_workspacePath(workspacePath) {
    qRegisterMetaType<tidemark::BackfillPreview>();
}

BackfillPreviewer::~BackfillPreviewer() {
    cancel();
}

void BackfillPreviewer::cancel() {
    if (m_job)
        m_job->cancel();
    m_job.reset();
}

void BackfillPreviewer::request(const BackfillRequest &request) {
    cancel();
    auto job = std::make_shared<Job>();
    m_job = job;
    QPointer<BackfillPreviewer> self = this;
    const QString path = m_workspacePath;
    QThreadPool::globalInstance()->start([self, job, path, request] {
        std::optional<BackfillPreview> result;
        QString error;
        try {
            auto workspace = Workspace::open(path);
            result = preview(*workspace, request, &job->cancelled, job.get());
        } catch (const Error &e) {
            error = e.message();
        } catch (const std::exception &e) {
            error = QString::fromUtf8(e.what());
        }
        if (job->cancelled || !self)
            return;
        QMetaObject::invokeMethod(
            self,
            [self, job, result, error] {
                if (!self || self->m_job != job)
                    return; // superseded or cancelled meanwhile
                self->m_job.reset();
                if (result)
                    emit self->previewReady(*result);
                else
                    emit self->previewFailed(error);
            },
            Qt::QueuedConnection);
    });
}

} // namespace tidemark
