// SPDX-License-Identifier: MIT
#pragma once

#include "model/engine/verifier.h"

#include <QObject>
#include <QStringList>
#include <memory>

namespace tidemark {

// The findings of a verify for people, one line each: the counts on both sides, what is
// missing, extra or changed, and the keys at fault. The one place the window reads
// VerifyResult's fields (the CLI formats the same struct in app/cli).
QStringList verifyFindings(const VerifyResult &result);

// verifyTable (the CLI's verify, the same code) on a remote-work thread (RemoteWorkQueue::pool()), with its
// own Workspace: one table at a time per service. cancel() sets the flag the verifier checks between batches;
// `cancelled` follows once the worker has stopped short (one that completed first reports `finished`).
// Replies come back on the service's thread. Never blocks that thread, also not in the destructor (a worker
// still reading stops at its next batch and finds nobody to tell).
class VerifyService : public QObject {
    Q_OBJECT
public:
    explicit VerifyService(const QString &workspacePath, QObject *parent = nullptr);
    ~VerifyService() override;

    // Starts verifying `tableId`; ignored while a verify is in progress.
    void start(qint64 tableId);
    void cancel();
    bool isBusy() const { return m_job != nullptr; }

    struct Job; // one verify in flight (verifyservice.cpp)

signals:
    void finished(const tidemark::VerifyResult &result);
    void failed(const QString &error);
    void cancelled();

private:
    QString m_workspacePath;
    std::shared_ptr<Job> m_job;
};

} // namespace tidemark

Q_DECLARE_METATYPE(tidemark::VerifyResult)
