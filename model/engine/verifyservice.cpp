// SPDX-License-Identifier: MIT
#include "model/engine/verifyservice.h"

#include "model/common/error.h"
#include "model/engine/remotework.h"
#include "model/storage/workspace.h"

#include <QPointer>
#include <QThreadPool>
#include <optional>

namespace tidemark {

QStringList verifyFindings(const VerifyResult &result) {
    QStringList lines;
    lines << QObject::tr("Compared %1 of the source with %2 of the target, up to the table's watermark.")
                 .arg(describeRowCount(result.sourceRows), describeRowCount(result.targetRows));
    if (result.missingInTarget > 0)
        lines << QObject::tr("%n row(s) missing in the target", nullptr, int(result.missingInTarget));
    if (result.extraInTarget > 0)
        lines << QObject::tr("%n row(s) in the target not in the source", nullptr, int(result.extraInTarget));
    if (result.differing > 0)
        lines << QObject::tr("%n row(s) with changed values", nullptr, int(result.differing));
    if (!result.difference.isEmpty())
        lines << result.difference;
    for (const VerifyFault &fault : result.faults)
        lines << verifyFaultText(fault);
    return lines;
}

struct VerifyService::Job {
    std::atomic_bool cancelled{false};
};

VerifyService::VerifyService(const QString &workspacePath, QObject *parent)
    : QObject(parent)
    , m_workspacePath(workspacePath) {
    qRegisterMetaType<tidemark::VerifyResult>();
}

VerifyService::~VerifyService() {
    if (m_job)
        m_job->cancelled = true;
}

void VerifyService::cancel() {
    if (m_job)
        m_job->cancelled = true;
}

void VerifyService::start(qint64 tableId) {
    if (m_job)
        return;
    auto job = std::make_shared<Job>();
    m_job = job;
    QPointer<VerifyService> self = this;
    const QString path = m_workspacePath;
    RemoteWorkQueue::pool().start([self, job, path, tableId] {
        std::optional<VerifyResult> result;
        QString error;
        try {
            auto workspace = Workspace::open(path);
            result = verifyTable(*workspace, tableId, &job->cancelled);
        } catch (const Error &e) {
            error = e.message();
        } catch (const std::exception &e) {
            error = QString::fromUtf8(e.what());
        }
        // A verify that completed before it saw the flag still reports what it found.
        const bool stopped = !result && job->cancelled;
        if (!self)
            return;
        QMetaObject::invokeMethod(
            self,
            [self, job, result, error, stopped] {
                if (!self || self->m_job != job)
                    return;
                self->m_job.reset();
                if (result)
                    emit self->finished(*result);
                else if (stopped)
                    emit self->cancelled();
                else
                    emit self->failed(error);
            },
            Qt::QueuedConnection);
    });
}

} // namespace tidemark
