// SPDX-License-Identifier: MIT
#include "model/engine/runcoordinator.h"

#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/engine/copyiteration.h"
#include "model/storage/workspace.h"

#include <QPointer>

namespace tidemark {
namespace {

// Forwards an iteration's progress to the coordinator's thread as queued calls carrying copies.
class ForwardingObserver : public IterationObserver {
public:
    explicit ForwardingObserver(RunCoordinator *coordinator)
        : m_coordinator(coordinator) {}

    void iterationChanged(const IterationRecord &record) override {
        QPointer<RunCoordinator> coordinator = m_coordinator;
        QMetaObject::invokeMethod(
            m_coordinator,
            [coordinator, record] {
                if (coordinator)
                    emit coordinator->iterationChanged(record);
            },
            Qt::QueuedConnection);
    }

    void logged(const IterationRecord &record, const LogLine &line) override {
        QPointer<RunCoordinator> coordinator = m_coordinator;
        const qint64 runId = record.runId;
        const qint64 tableId = record.tableId;
        QMetaObject::invokeMethod(
            m_coordinator,
            [coordinator, runId, tableId, line] {
                if (coordinator)
                    emit coordinator->iterationLogged(runId, tableId, line);
            },
            Qt::QueuedConnection);
    }

private:
    RunCoordinator *m_coordinator;
};

IterationRecord queuedIteration(qint64 runId, const TableSpec &spec) {
    IterationRecord record;
    record.runId = runId;
    record.tableId = spec.id;
    record.source = spec.sourceDisplay();
    record.target = spec.targetDisplay();
    record.status = IterationStatus::Queued;
    record.watermarkBefore = spec.lastWatermark.display();
    return record;
}

} // namespace

RunCoordinator::RunCoordinator(const QString &workspacePath, QObject *parent)
    : QObject(parent)
    , m_workspacePath(workspacePath) {
    qRegisterMetaType<tidemark::IterationRecord>();
    qRegisterMetaType<tidemark::RunRecord>();
    qRegisterMetaType<tidemark::LogLine>();
    qRegisterMetaType<QList<tidemark::IterationRecord>>();
    m_bookkeeping.setMaxThreadCount(1);
}

RunCoordinator::~RunCoordinator() {
    cancel();
    waitForDone();
}

bool RunCoordinator::start(const RunRequest &request) {
    if (m_running) {
        emit runFailedToStart(tr("a run is in progress already"));
        return false;
    }
    m_running = true;
    m_request = request;
    m_request.concurrency = qMax(1, request.concurrency);
    m_cancel = std::make_shared<std::atomic_bool>(false);
    m_results.clear();
    m_runId = 0;
    m_pool.setMaxThreadCount(m_request.concurrency);

    QPointer<RunCoordinator> self = this;
    const QString path = m_workspacePath;
    const RunRequest runRequest = m_request;
    m_bookkeeping.start([self, path, runRequest] {
        qint64 runId = 0;
        QList<IterationRecord> iterations;
        QString error;
        try {
            auto workspace = Workspace::open(path);
            QList<TableSpec> tables;
            if (runRequest.tableIds.isEmpty()) {
                tables = workspace->tables();
            } else {
                for (qint64 id : runRequest.tableIds) {
                    const auto spec = workspace->table(id);
                    if (!spec)
                        throw ValidationError(QStringLiteral("table %1 does not exist").arg(id));
                    tables << *spec;
                }
            }
            runId = workspace->beginRun(runRequest.trigger, runRequest.concurrency, runRequest.dryRun);
            for (const TableSpec &spec : tables) {
                IterationRecord record = queuedIteration(runId, spec);
                record.id = workspace->addIteration(record);
                iterations << record;
            }
        } catch (const std::exception &e) {
            const auto *tidemarkError = dynamic_cast<const Error *>(&e);
            error = tidemarkError ? tidemarkError->message() : QString::fromUtf8(e.what());
        }
        if (self)
            QMetaObject::invokeMethod(
                self,
                [self, runId, iterations, error] {
                    if (self)
                        self->onRunPrepared(runId, iterations, error);
                },
                Qt::QueuedConnection);
    });
    return true;
}

void RunCoordinator::onRunPrepared(qint64 runId, const QList<IterationRecord> &iterations,
                                   const QString &error) {
    if (!error.isEmpty()) {
        m_running = false;
        emit runFailedToStart(error);
        return;
    }
    m_runId = runId;
    m_pending = int(iterations.size());
    emit runStarted(runId, iterations);
    if (iterations.isEmpty()) {
        onIterationDone(IterationRecord());
        return;
    }

    QPointer<RunCoordinator> self = this;
    const QString path = m_workspacePath;
    const auto cancel = m_cancel;
    const bool dryRun = m_request.dryRun;
    for (const IterationRecord &queued : iterations) {
        m_pool.start([self, path, cancel, dryRun, queued, coordinator = this] {
            IterationRecord result = queued;
            try {
                auto workspace = Workspace::open(path);
                const auto spec = workspace->table(queued.tableId);
                if (cancel->load()) {
                    result.status = IterationStatus::Cancelled;
                    result.error = QStringLiteral("cancelled before it started");
                    workspace->updateIteration(result);
                } else if (!spec) {
                    result.status = IterationStatus::Failed;
                    result.error = QStringLiteral("table %1 no longer exists").arg(queued.tableId);
                    workspace->updateIteration(result);
                } else {
                    ForwardingObserver observer(coordinator);
                    CopyIteration::Options options;
                    options.dryRun = dryRun;
                    options.cancel = cancel.get();
                    options.observer = &observer;
                    result = CopyIteration(*workspace, *spec, queued, options).run();
                }
            } catch (const std::exception &e) {
                // Only the workspace itself failing gets here; the iteration never throws.
                const auto *tidemarkError = dynamic_cast<const Error *>(&e);
                result.status = IterationStatus::Failed;
                result.error = tidemarkError ? tidemarkError->message() : QString::fromUtf8(e.what());
                logger("core.engine")
                    ->error("run {}, table {}: {}", result.runId, result.tableId, str(result.error));
            }
            if (self)
                QMetaObject::invokeMethod(
                    self,
                    [self, result] {
                        if (self)
                            self->onIterationDone(result);
                    },
                    Qt::QueuedConnection);
        });
    }
}

void RunCoordinator::onIterationDone(const IterationRecord &record) {
    if (record.id != 0) {
        m_results << record;
        emit iterationChanged(record);
        --m_pending;
    }
    if (m_pending > 0)
        return;

    std::sort(m_results.begin(), m_results.end(),
              [](const IterationRecord &a, const IterationRecord &b) { return a.id < b.id; });
    QList<IterationStatus> statuses;
    for (const IterationRecord &result : m_results)
        statuses << result.status;
    const QString status = deriveRunStatus(statuses, m_request.dryRun);

    QPointer<RunCoordinator> self = this;
    const QString path = m_workspacePath;
    const qint64 runId = m_runId;
    m_bookkeeping.start([self, path, runId, status] {
        RunRecord run;
        try {
            auto workspace = Workspace::open(path);
            workspace->finishRun(runId, status);
            const QList<RunRecord> runs = workspace->runs(1, runId);
            if (!runs.isEmpty())
                run = runs.first();
        } catch (const Error &error) {
            logger("core.engine")->error("run {}: could not record its end: {}", runId, str(error.message()));
        }
        if (self)
            QMetaObject::invokeMethod(
                self,
                [self, run, status, runId] {
                    if (!self)
                        return;
                    RunRecord finished = run;
                    if (finished.id == 0) {
                        finished.id = runId;
                        finished.iterations = self->m_results;
                    }
                    finished.status = status;
                    self->m_running = false;
                    emit self->runFinished(finished);
                },
                Qt::QueuedConnection);
    });
}

void RunCoordinator::cancel() {
    if (m_cancel)
        m_cancel->store(true);
}

void RunCoordinator::waitForDone() {
    m_pool.waitForDone();
    m_bookkeeping.waitForDone();
}

} // namespace tidemark
