// SPDX-License-Identifier: MIT
#pragma once

#include "model/engine/backfill.h"

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

namespace tidemark {

class RemoteWorkQueue;

// What a backfill would do, counted before it is done: the rows it deletes from the target and
// about how many source rows the next run copies again (from the new position to the source's
// end; a lookback or rows landing meanwhile make the real figure differ a little).
struct BackfillPreview {
    qint64 tableId = 0;
    QString source; // "conn:table"
    QString target;
    BackfillTargetAction action = BackfillTargetAction::Keep;
    Watermark from; // the position the table restarts from (none = the beginning)
    bool targetExists = false;
    qint64 targetRowsDeleted = 0; // 0 for Keep
    qint64 sourceRowsToCopy = 0;
};

// Counts what `request` would do, reading the source and the target, changing nothing. The
// position is the one runBackfill takes: the typed value, or for Truncate the table's initial
// watermark (a full reload). `cancel`, when set between steps, ends it with Error("cancelled").
// Throws ValidationError for a value that does not parse, Error otherwise. Any thread, with
// that thread's own Workspace.
BackfillPreview previewBackfill(Workspace &workspace, const BackfillRequest &request,
                                const std::atomic_bool *cancel = nullptr);

// previewBackfill on a RemoteWorkQueue (the remote-work threads): one preview at a time per previewer; a new
// request or cancel() cancels the one counting (its statements are interrupted) and its reply is dropped.
// Replies come back on the previewer's thread. Never blocks that thread, also not in the destructor (a
// counting worker finishes on its own and finds nobody to tell).
class BackfillPreviewer : public QObject {
    Q_OBJECT
public:
    explicit BackfillPreviewer(const QString &workspacePath, QObject *parent = nullptr);
    ~BackfillPreviewer() override;

    void request(const BackfillRequest &request);
    void cancel();

signals:
    void previewReady(const tidemark::BackfillPreview &preview);
    void previewFailed(const QString &error);

private:
    QString m_workspacePath;
    RemoteWorkQueue *m_remote; // one lane: a new request supersedes the preview in flight
};

} // namespace tidemark

Q_DECLARE_METATYPE(tidemark::BackfillPreview)
