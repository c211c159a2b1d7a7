// SPDX-License-Identifier: MIT
#pragma once

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace tidemark {

// Interrupted: the process owning the run died (SIGKILL, power loss, the window closed mid-run);
// set by the next process that opens the workspace, never by the run itself.
enum class IterationStatus {
    Queued,
    Running,
    Succeeded,
    NoNewRows,
    Warning,
    Failed,
    Cancelled,
    Skipped,
    DryRun,
    Interrupted
};

QString iterationStatusName(IterationStatus status); // "queued", "no_new_rows", "dry_run", ...
std::optional<IterationStatus> iterationStatusFromName(const QString &name);
// True for statuses that make `run` exit 1 (failed, cancelled, interrupted).
bool isFailure(IterationStatus status);
bool isFinished(IterationStatus status);

struct LogLine {
    QDateTime at;
    QString level; // "info", "warning", "error"
    QString message;
};

// One iteration of a run: one table copied (or skipped, or dry-run).
struct IterationRecord {
    qint64 id = 0;
    qint64 runId = 0;
    qint64 tableId = 0;
    QString source; // "conn:table"
    QString target;
    IterationStatus status = IterationStatus::Queued;
    QDateTime startedAt; // UTC; invalid while queued
    QDateTime finishedAt;
    qint64 durationMs = 0;
    qint64 rowsRead = 0;
    qint64 rowsWritten = 0;
    qint64 rowsSkipped = 0;
    qint64 rowsNullWatermark = 0; // rows that no window can ever select
    qint64 windowRows = -1;       // rows in the window when counted (progress), -1 unknown
    QString watermarkBefore;      // display form, empty = none
    QString watermarkAfter;
    QString windowLower; // display form of the window's bounds
    QString windowUpper;
    QString error; // empty = none
    // Rows whose watermark no window can order (infinity, NaN, a BC date...): never selected either.
    qint64 rowsUnorderableWatermark = 0;
    // rowsWritten and rowsSkipped count only what committed transactions hold (the target has
    // those rows). While it runs, rows written into a transaction not committed yet are pending;
    // once it ended without that commit (failed, cancelled, interrupted) they are rolled back.
    qint64 rowsPending = 0;
    qint64 rowsRolledBack = 0;
    // Rows held back because their watermark lies beyond the table's future guard (max future,
    // max jump): copied once time catches up, or after set-position / a backfill.
    qint64 rowsFuture = 0;
    // The source's highest watermark was below the position (an older backup, emptied, a
    // writer's clock that went back): the window was empty for that reason, not for want of rows.
    bool sourceBehind = false;
    // Target rows whose key the source deleted, removed or marked by the iteration's reconcile
    // (DeletePolicy), committed with the state row.
    qint64 rowsDeleted = 0;
    // The process that ran it, "host:pid" (empty while queued, and in records written before
    // runners were recorded).
    QString runner;
    // Why a queued iteration has not started: the cap it waits for ("waiting: connection erp
    // has 2 of 2 in use"); empty once it runs.
    QString waiting;
    QList<LogLine> log;
};

// A cancelled, failed or interrupted iteration rolled back what it had not committed: it shows
// (read column, progress, summary, history) what it kept, not what it had read before the rollback.
bool isRolledBack(const IterationRecord &record);
qint64 rowsShownRead(const IterationRecord &record);

enum class RunTrigger { Gui, Cli, Schedule };
QString runTriggerName(RunTrigger trigger);

// What a run does: copies its tables' windows (the contract), or re-copies a range of one table
// under the merge rule and leaves its position alone (`backfill ID --range`, docs/design.md,
// "Range backfill").
inline constexpr char kRunKindCopy[] = "copy";
inline constexpr char kRunKindRangeBackfill[] = "range_backfill";

struct RunRecord {
    qint64 id = 0;
    QString trigger; // "gui" | "cli" | "schedule"
    QString kind = QString::fromLatin1(kRunKindCopy);
    QString schedule; // the schedule that fired the run; empty otherwise
    QString host;
    qint64 pid = 0;
    QString startedBy; // the server's login, or the file's user; empty before schema 18
    QDateTime startedAt;
    QDateTime finishedAt;
    QString status; // "running", or a final status derived by deriveRunStatus
    int concurrency = 2;
    bool dryRun = false;
    // Handed to the runners (`run --queue`, a schedule's run on a fleet): any runner of the
    // workspace claims its iterations (docs/design.md, "The runner fleet").
    bool queued = false;
    // Why a run failed before it had iterations (a schedule's firing that could not start one).
    QString error;
    QList<IterationRecord> iterations;
};

// The run's status from its iterations: "failed" if any failed, else "cancelled" if any was
// cancelled, else "warning" if any warned, else "dry_run" for a dry run, else "succeeded".
QString deriveRunStatus(const QList<IterationStatus> &statuses, bool dryRun);

// Formats a UTC time as the CLI prints it: "2026-11-30T02:00:00.120Z".
QString isoUtc(const QDateTime &time);

} // namespace tidemark
