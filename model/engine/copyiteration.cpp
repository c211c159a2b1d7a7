// SPDX-License-Identifier: MIT
#include "model/engine/copyiteration.h"

#include "model/common/duration.h"
#include "model/common/error.h"
#include "model/common/logging.h"
#include "model/common/timestamp.h"
#include "model/connectors/connectorfactory.h"
#include "model/connectors/statetable.h"
#include "model/domain/sourcezone.h"
#include "model/engine/backfill.h"
#include "model/engine/connectorcache.h"
#include "model/engine/faultpoint.h"
#include "model/engine/iterationwatchdog.h"
#include "model/engine/reconciler.h"
#include "model/engine/rowvalues.h"
#include "model/engine/tablesetup.h"
#include "model/engine/targetownership.h"
#include "model/storage/workspace.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QThread>
#include <limits>

namespace tidemark {
namespace {

// Ends the iteration early with a status that is not a failure: skipped or cancelled.
struct EarlyEnd {
    IterationStatus status;
    QString reason;
};

// IterationRecord::windowRows of a window that holds rows, not counted (yet).
constexpr qint64 kNotCounted = -1;

// Stands in for the writer when the database copied the rows itself.
class NoRowsWriter : public RowWriter {
public:
    void writeBatch(const RowBatch &, std::vector<RowRejection> &) override {}
};

} // namespace

struct CopyIteration::State {
    Workspace &workspace;
    TableSpec spec;
    IterationRecord record;
    Options options;

    // One connector when source and target are the same SQLite file; the steps see the roles.
    std::shared_ptr<Connector> sourceConnector;
    std::shared_ptr<Connector> targetConnector;
    SourceReader *source = nullptr;
    TargetWriter *target = nullptr;
    TableRef sourceTable;
    TableRef targetTable;
    TableSchema sourceSchema;
    bool leased = false;
    qint64 leaseToken = 0; // the lease's fencing token, carried by every state row this writes
    bool tookOver = false; // the lease was taken over from a dead or expired holder
    // Declared after the connectors it interrupts: destroyed (joined) before them.
    std::unique_ptr<IterationWatchdog> watchdog;

    // The position the target holds (after reconcile, then after each commit of this iteration)
    // and the highest one written by this iteration.
    Position position;
    Position written;
    // The state row this iteration's next commit must find (its compare-and-set): what reconcile
    // read, then what this iteration's previous batch committed. nullopt: no row yet. The row
    // must also still be of `generation` (what reconcile read): a backfill raises it.
    std::optional<Position> expected;
    qint64 generation = 0;
    WindowQuery window;
    std::optional<qint64> windowRowsProbed; // the window's size, when the probe gave it
    std::vector<RejectedRow> rejects;
    qint64 committedWritten = 0;
    qint64 committedSkipped = 0;
    // Log lines not in the workspace yet: written with the iteration's end, in the same
    // transaction, or as they come once the iteration has run for a while.
    QList<LogLine> unwrittenLog;
    QElapsedTimer clock;
    // Why the workspace could not follow a commit of this iteration (empty: it always could).
    QString workspaceBehind;
    // The future guard's warning when it held rows back (empty: it held none).
    QString heldBack;
    QString sourceBehind;   // the warning when the source's maximum is below the position
    SourceZone zone;        // a naive watermark's (TableSpec::sourceTimezone), read at the window
    qint64 rejectsLost = 0; // rejected rows whose contents the workspace could not take

    State(Workspace &ws, const TableSpec &s, IterationRecord r, Options o)
        : workspace(ws)
        , spec(s)
        , record(std::move(r))
        , options(o) {
        // Test-only: lets a test's lease expire in about a second instead of a minute.
        if (const QByteArray ttl = qgetenv("TIDEMARK_TEST_LEASE_TTL_MS"); !ttl.isEmpty())
            options.leaseTtl = std::chrono::milliseconds(ttl.toLongLong());
    }

    QString tableLabel() const {
        return QStringLiteral("table %1 (%2)").arg(spec.id).arg(spec.sourceDisplay());
    }
    bool hasWatermark() const { return !spec.watermarkColumn.isEmpty(); }
    bool ranged() const { return options.range.has_value(); }
    void throwIfCancelled() const {
        if (options.cancel && options.cancel->load())
            throw EarlyEnd{IterationStatus::Cancelled, QStringLiteral("cancelled by the user")};
        throwIfSlotLost();
    }
    // Its lease expired while this process was stopped, and the caps gave its slot away: it
    // commits nothing more, so no more iterations than a cap allows ever write at once.
    bool slotLost() const { return watchdog && watchdog->slotLost(); }
    void throwIfSlotLost() const {
        if (slotLost())
            throw slotLostEnd();
    }
    EarlyEnd slotLostEnd() const {
        return EarlyEnd{IterationStatus::Skipped,
                        QStringLiteral("table %1: its lease expired while this process was stopped, and its "
                                       "slot went to another iteration; %2")
                            .arg(spec.id)
                            .arg(whatStands())};
    }
    bool committedNothing() const { return committedWritten == 0 && committedSkipped == 0; }
    // What an iteration stopped by a later claim leaves in the target.
    QString whatStands() const {
        return committedNothing() ? QStringLiteral("nothing written")
                                  : QStringLiteral("only the batches committed before that stand");
    }

    void log(const QString &level, const QString &message) {
        const LogLine line{QDateTime::currentDateTimeUtc(), level, message};
        record.log.append(line);
        auto engineLog = logger("core.engine");
        const std::string text =
            QStringLiteral("run %1, %2: %3").arg(record.runId).arg(tableLabel(), message).toStdString();
        if (level == QLatin1String("error"))
            engineLog->error(text);
        else if (level == QLatin1String("warning"))
            engineLog->warn(text);
        else
            engineLog->info(text);
        if (record.id > 0)
            unwrittenLog.append(line);
        writeLogIfLong();
        if (options.observer)
            options.observer->logged(record, line);
    }

    // A short iteration writes its lines with its end; a long one shows them to other processes
    // (their windows follow the run from the workspace) within a second.
    void writeLogIfLong() {
        if (unwrittenLog.isEmpty() || !clock.hasExpired(kLogLatencyMs))
            return;
        try {
            workspace.appendLogs(record.id, unwrittenLog);
        } catch (const Error &) {
            // The history write failing must not fail the copy; the line is still in the log file.
        }
        unwrittenLog.clear();
    }
    static constexpr qint64 kLogLatencyMs = 1000;

    void publish() {
        writeLogIfLong();
        if (options.observer)
            options.observer->iterationChanged(landed());
    }

    // The record as the world sees it (grid, workspace, other processes): written and skipped
    // are what committed transactions hold; the rest is pending until its commit. A process
    // killed now leaves a record that claims no row the target lacks.
    IterationRecord landed() const {
        IterationRecord shown = record;
        shown.rowsPending = uncommittedRows();
        shown.rowsWritten = committedWritten;
        shown.rowsSkipped = committedSkipped;
        return shown;
    }
    qint64 uncommittedRows() const {
        return record.rowsWritten + record.rowsSkipped - committedWritten - committedSkipped;
    }

    // --- 1. Lease ---
    // Records the iteration's start in the same workspace transaction.
    // While a cap is full (docs/design.md, "Caps") the iteration stays queued, saying which cap
    // it waits for, and tries again; a cancel ends the wait.
    void takeLease() {
        LeaseAttempt attempt = workspace.startIteration(record, options.leaseTtl, options.processSlots);
        bool waited = false;
        while (!attempt.acquired && !attempt.waiting.isEmpty()) {
            waited = true;
            if (attempt.waiting != record.waiting)
                showWaiting(attempt.waiting);
            for (int slept = 0; slept < kCapRetryMs && !cancelRequested(); slept += kCancelCheckMs)
                QThread::msleep(kCancelCheckMs);
            if (cancelRequested())
                throw EarlyEnd{IterationStatus::Cancelled,
                               QStringLiteral("cancelled by the user while queued (%1)").arg(record.waiting)};
            attempt = workspace.startIteration(record, options.leaseTtl, options.processSlots);
        }
        if (attempt.acquired && waited)
            clock.start(); // the duration counts from the start, not from the queue
        leaseToken = attempt.token;
        tookOver = attempt.acquired && attempt.holder.has_value();
        if (!attempt.acquired) {
            const Lease &holder = *attempt.holder;
            throw EarlyEnd{IterationStatus::Skipped,
                           QStringLiteral("table %1 is leased by run %2 (host %3, pid %4) until %5")
                               .arg(spec.id)
                               .arg(holder.runId)
                               .arg(holder.host)
                               .arg(holder.pid)
                               .arg(isoUtc(holder.expiresAt))};
        }
        leased = true;
        if (attempt.holder)
            log(QStringLiteral("warning"), QStringLiteral("took over the lease of run %1 (host %2, pid %3): "
                                                          "that process is gone or its lease expired")
                                               .arg(attempt.holder->runId)
                                               .arg(attempt.holder->host)
                                               .arg(attempt.holder->pid));
    }

    void showWaiting(const QString &reason) {
        record.status = IterationStatus::Queued;
        record.startedAt = QDateTime();
        record.waiting = reason;
        try {
            workspace.updateIteration(record); // other windows show why it waits
        } catch (const Error &) {
        }
        log(QStringLiteral("info"), reason);
        publish();
    }
    static constexpr int kCapRetryMs = 500;
    static constexpr int kCancelCheckMs = 50;

    void stopWatchdog() {
        if (watchdog)
            watchdog->stop();
    }

    bool cancelRequested() const { return options.cancel && options.cancel->load(); }

    // The iteration's record, its unwritten log lines and the lease's release: one transaction.
    void recordEnd() {
        try {
            workspace.finishIteration(record, unwrittenLog, leased ? leaseToken : 0);
            unwrittenLog.clear();
            leased = false;
            return;
        } catch (const Error &error) {
            logger("core.engine")
                ->error("could not record iteration {}: {}", record.id, str(error.message()));
        }
        if (!leased)
            return;
        try {
            // The lease on its own, so the next run need not wait for it to expire.
            workspace.releaseLeaseByToken(spec.id, leaseToken);
        } catch (const Error &error) {
            logger("core.engine")
                ->warn("run {}, {}: could not release the lease: {}", record.runId, str(tableLabel()),
                       str(error.message()));
        }
        leased = false;
    }

    std::shared_ptr<Connector> connect(const ConnectionSpec &connection) {
        if (options.connectors)
            return options.connectors->acquire(connection);
        return openConnector(connection);
    }

    // A connector that was interrupted, or used by an iteration that failed or was cancelled,
    // is never handed to the next iteration (model/engine/connectorcache.h).
    void releaseConnections() {
        if (!options.connectors)
            return;
        const bool clean = !cancelRequested() && !(watchdog && watchdog->interrupted()) && !slotLost() &&
                           record.status != IterationStatus::Failed &&
                           record.status != IterationStatus::Cancelled;
        if (clean)
            return;
        options.connectors->discard(sourceConnector.get());
        options.connectors->discard(targetConnector.get());
    }

    void openConnections() {
        const ConnectionSpec sourceSpec = workspace.requireConnection(spec.sourceConnection);
        const ConnectionSpec targetSpec = workspace.requireConnection(spec.targetConnection);
        sourceConnector = connect(sourceSpec);
        // One SQLite file on both sides: one connection, so the read snapshot never waits on the
        // write lock of a second connection to the same file.
        const bool sameFile =
            sourceSpec.kind == ConnectionKind::Sqlite && targetSpec.kind == ConnectionKind::Sqlite &&
            QFileInfo(sourceSpec.path).absoluteFilePath() == QFileInfo(targetSpec.path).absoluteFilePath();
        targetConnector = sameFile ? sourceConnector : connect(targetSpec);
        // A target file this iteration creates is no more open than its source.
        targetConnector->setNewFileMode(targetFileMode(sourceSpec));
        source = sourceConnector.get();
        target = targetConnector.get();
        std::vector<Connector *> watched{sourceConnector.get()};
        if (targetConnector != sourceConnector)
            watched.push_back(targetConnector.get());
        watchdog = std::make_unique<IterationWatchdog>(options.cancel, watched);
        if (leased)
            watchdog->keepLease(workspace.path(), spec.id, leaseToken, options.leaseTtl);
        sourceTable = source->parseTableName(spec.sourceTable);
        targetTable = target->parseTableName(spec.targetTable);
        sourceSchema = source->describeTable(sourceTable);
        source->setZeroDates(spec.zeroDates); // a cached connector keeps the last table's otherwise
        for (const QString &column : requiredSourceColumns()) {
            if (!sourceSchema.column(column))
                throw Error(QStringLiteral("column '%1' does not exist in source table '%2'")
                                .arg(column, spec.sourceDisplay()));
        }
    }

    QStringList requiredSourceColumns() const {
        QStringList columns = spec.keyColumns;
        if (hasWatermark())
            columns << spec.watermarkColumn;
        if (!spec.tiebreakColumn.isEmpty())
            columns << spec.tiebreakColumn;
        return columns;
    }

    // This table's state row as it is written: the position plus who owns the target table.
    TargetState stateRow(const Position &at) const {
        TargetState state{workspace.workspaceId(), spec.id, at, record.runId};
        state.generation = generation; // a run never changes it
        state.fence = leaseToken;
        state.targetTable = stateTargetKey(targetTable);
        state.workspacePath = workspace.path();
        return state;
    }

    // --- 1b. Adopt (run --adopt only) ---
    void adopt() {
        const auto adoption = adoptTarget(*target, stateRow(Position()), spec.lastGeneration);
        if (!adoption) {
            log(QStringLiteral("info"), QStringLiteral("--adopt: target '%1' belongs to no other table; "
                                                       "nothing to take over")
                                            .arg(spec.targetDisplay()));
            return;
        }
        const QString message =
            QStringLiteral("adopted target '%1' from %2 at %3 (run --adopt)")
                .arg(spec.targetDisplay(), describeOwner(adoption->previousOwner, adoption->state),
                     displayOrNone(adoption->state.position.watermark()));
        workspace.followTargetState(spec.id, adoption->state.generation, adoption->state.position,
                                    QStringLiteral("adopt"), record.runId);
        log(QStringLiteral("warning"), message);
    }

    // --- 2. Reconcile ---
    void reconcile() {
        const auto state = target->readState(workspace.workspaceId(), spec.id);
        if (state && !options.dryRun)
            completeHistory(*state);
        expected = state ? std::optional<Position>(state->position) : std::nullopt;
        generation = state ? state->generation : 0;
        position = state ? state->position : Position(spec.initialWatermark);
        if (position == Position(spec.lastWatermark, spec.lastTiebreak) && generation == spec.lastGeneration)
            return;
        const QString truth = state ? QStringLiteral("the target's state row (run %1)").arg(state->runId)
                                    : QStringLiteral("the initial watermark (the target has no state row)");
        const QString message =
            QStringLiteral("watermark corrected from %1 to %2 from %3")
                .arg(displayOrNone(spec.lastWatermark), displayOrNone(position.watermark()), truth);
        if (options.dryRun) {
            log(QStringLiteral("warning"), QStringLiteral("dry run: would have %1").arg(message));
            return;
        }
        faultPoint("before_reconcile_write");
        // Only a newer state moves the workspace: another process may have moved it since the read.
        if (workspace.followTargetState(spec.id, generation, position, QStringLiteral("reconcile"),
                                        record.runId) == FollowResult::Moved)
            log(QStringLiteral("warning"), message);
    }

    // The iteration that wrote the state row may have committed while the workspace could not
    // record it (locked, disk full, killed right after the commit): its record is completed
    // from the row before anything commits over it.
    void completeHistory(const TargetState &state) {
        if (state.iterationId <= 0 || state.iterationId == record.id)
            return;
        const CommittedIteration committed{state.iterationId, state.runId,
                                           spec.id,           state.rowsWritten,
                                           state.rowsSkipped, shown(state.position.watermark()),
                                           state.windowDone};
        try {
            if (workspace.completeCommittedIteration(committed, record.runId))
                log(QStringLiteral("warning"),
                    QStringLiteral("run %1 committed %2 rows to the target that its history did not show; "
                                   "its record is completed from the target's state row")
                        .arg(state.runId)
                        .arg(state.rowsWritten));
        } catch (const Error &error) {
            log(QStringLiteral("warning"), QStringLiteral("could not complete the history of run %1 from the "
                                                          "target's state row: %2")
                                               .arg(state.runId)
                                               .arg(error.message()));
        }
    }

    QString displayOrNone(const Watermark &watermark) const {
        return watermark.isNull() ? QStringLiteral("none") : shown(watermark);
    }
    // A watermark for people and history: a naive one as an instant in its source zone.
    QString shown(const Watermark &watermark) const { return zone.display(watermark); }

    // What names a row in a read error: the merge key, the source's primary key, else the
    // watermark and tiebreak.
    QStringList rowKeyColumns() const {
        if (!spec.keyColumns.isEmpty())
            return spec.keyColumns;
        if (const QStringList primary = sourceSchema.primaryKey(); !primary.isEmpty())
            return primary;
        QStringList columns{spec.watermarkColumn};
        if (!spec.tiebreakColumn.isEmpty())
            columns << spec.tiebreakColumn;
        return columns;
    }

    // --- 3. Window ---
    // Returns false when the window is empty for sure (no rows at all past the position).
    bool fixWindow() {
        window.table = sourceTable;
        window.columns = sourceSchema.columnNames();
        window.watermarkColumn = spec.watermarkColumn;
        window.watermarkType = spec.watermarkType;
        window.tiebreakColumn = spec.tiebreakColumn;
        window.keyColumns = rowKeyColumns();
        record.watermarkBefore = shown(position.watermark());
        if (!hasWatermark())
            return true; // overwrite without watermark: the whole table, every run

        if (spec.mode != WriteMode::Overwrite) {
            const Lookback lookback = Lookback::parse(spec.lookback, spec.watermarkType);
            if (!lookback.isEmpty() && !position.isNull()) {
                window.lower = Position(subtractLookback(position.watermark(), lookback));
                window.lowerInclusive = true;
            } else {
                window.lower = spec.tiebreakColumn.isEmpty() ? Position(position.watermark()) : position;
            }
            reachBackOverRepeatedHour();
        }
        const WatermarkProbe probe =
            source->probeWatermark(sourceTable, spec.watermarkColumn, spec.watermarkType,
                                   std::optional<Watermark>(window.lower.watermark()));
        window.unselectableRows = probe.nullCount + probe.unorderableCount;
        record.rowsNullWatermark = probe.nullCount;
        if (probe.nullCount > 0)
            log(QStringLiteral("warning"),
                QStringLiteral("%1 rows have a NULL in watermark column '%2': no window can select them")
                    .arg(probe.nullCount)
                    .arg(spec.watermarkColumn));
        record.rowsUnorderableWatermark = probe.unorderableCount;
        if (probe.unorderableCount > 0)
            log(QStringLiteral("warning"),
                QStringLiteral(
                    "%1 rows of '%2' have a value in watermark column '%3' that no window can order "
                    "(%4): they are not copied")
                    .arg(probe.unorderableCount)
                    .arg(spec.sourceDisplay(), spec.watermarkColumn,
                         unorderableValues(probe, spec.watermarkType)));
        window.upper = probe.maximum;
        if (spec.mode != WriteMode::Overwrite) {
            holdBackBeyondGuard();
            noticeSourceBehind(probe.maximum);
        }
        // A first window that the guard cuts nowhere holds every row that orders.
        windowRowsProbed = std::nullopt;
        if (probe.tableRows && window.lower.isNull() && !window.upperHoldsBack)
            windowRowsProbed = *probe.tableRows - probe.nullCount - probe.unorderableCount;
        record.windowLower = shown(window.lower.watermark());
        record.windowUpper = shown(window.upper);
        return !window.upper.isNull();
    }

    // A naive watermark in a zone that turns its clocks back repeats an hour of values: rows
    // written in the hour's second pass sort below a position reached in its first. While the
    // position lies in such an hour, the window reaches back over it (a merge table re-reads
    // those rows; docs/design.md, "Naive timestamps").
    void reachBackOverRepeatedHour() {
        if (position.isNull() || spec.mode != WriteMode::Merge ||
            spec.watermarkType != WatermarkType::Timestamp)
            return;
        const qint64 step = zone.repeatStepAt(position.watermark().micros());
        if (step == 0)
            return;
        const Watermark back = subtractLookback(position.watermark(), Lookback{QString(), step});
        if (window.lowerInclusive && window.lower.watermark().compare(back) <= 0)
            return; // the lookback reaches further
        window.lower = Position(back);
        window.lowerInclusive = true;
        log(QStringLiteral("info"),
            QStringLiteral(
                "the position %1 lies in an hour that %2 repeats (its clocks went back): the window "
                "starts at %3, so the rows of the hour's second pass are copied too")
                .arg(shown(position.watermark()), zone.name(), shown(back)));
    }

    // --- 3, for a range backfill ---
    // The window is the range, both ends included, cut at the position: rows after it are the live
    // copies' to take. Returns false when nothing of the range has been copied yet.
    bool fixRange() {
        if (spec.mode != WriteMode::Merge)
            throw Error(rangeBackfillRefusal(spec));
        const Watermark spelling =
            source->sampleWatermark(sourceTable, spec.watermarkColumn, spec.watermarkType);
        const QString option = QStringLiteral("--range");
        const Watermark from = zone.parseTyped(spec.watermarkType, options.range->from, spelling, option);
        const Watermark to = zone.parseTyped(spec.watermarkType, options.range->to, spelling, option);
        if (to.compare(from) < 0)
            throw ValidationError(
                QStringLiteral("--range %1: its start is after its end").arg(options.range->display()));
        window.table = sourceTable;
        window.columns = sourceSchema.columnNames();
        window.watermarkColumn = spec.watermarkColumn;
        window.watermarkType = spec.watermarkType;
        window.tiebreakColumn = spec.tiebreakColumn;
        window.keyColumns = rowKeyColumns();
        window.lower = Position(from);
        window.lowerInclusive = true;
        const bool copiedAny = !position.isNull() && from.compare(position.watermark()) <= 0;
        window.upper = copiedAny && to.compare(position.watermark()) > 0 ? position.watermark() : to;
        record.windowLower = shown(from);
        record.windowUpper = shown(window.upper);
        record.watermarkBefore = record.windowLower;
        record.watermarkAfter = record.windowUpper;
        const QString where = displayOrNone(position.watermark());
        if (!copiedAny) {
            log(QStringLiteral("info"), QStringLiteral("range %1: nothing of it is copied yet (position %2); "
                                                       "the table's runs copy it")
                                            .arg(options.range->display(), where));
            return false;
        }
        log(QStringLiteral("info"),
            QStringLiteral(
                "range backfill: re-copying the rows with '%1' from %2 to %3, both included, under "
                "the merge rule; the position (%4) stays where the table's runs put it")
                .arg(spec.watermarkColumn, record.windowLower, record.windowUpper, where));
        return true;
    }

    // The future guard (TableSpec::maxFuture, maxJump): one row dated 3000, or an id that jumps
    // by billions, would carry the position past every row still to come and freeze the table
    // behind a green "no new rows". Rows beyond the guard are held back: the window stops at it,
    // they are counted (rowsFuture) and named, and the iteration warns.
    void holdBackBeyondGuard() {
        const std::optional<Watermark> guard = futureGuard();
        if (!guard || window.upper.isNull() || window.upper.compare(*guard) <= 0)
            return;
        WindowQuery beyond = window;
        beyond.lower = Position(*guard);
        beyond.lowerInclusive = false;
        beyond.tiebreakColumn.clear(); // every row strictly past the guard's watermark
        record.rowsFuture = source->countWindow(beyond);
        const QString first = firstRowBeyond(beyond);
        window.upper = *guard;
        window.upperHoldsBack = true;
        heldBack = QStringLiteral("table %1 (%2): %3 rows have a watermark in '%4' beyond %5 (%6), up to %7; "
                                  "they are held back, not copied, so the position stops at %5. First: %8. "
                                  "They are copied once the guard reaches them; if a value is wrong, "
                                  "correct the source row")
                       .arg(spec.id)
                       .arg(spec.sourceDisplay())
                       .arg(record.rowsFuture)
                       .arg(spec.watermarkColumn, shown(*guard), guardRule(), shown(beyond.upper), first);
        log(QStringLiteral("warning"), heldBack);
    }

    // A source whose highest watermark fell below the position (restored from an older backup,
    // truncated, its writer's clock stepped back) gives empty windows that would read as a quiet
    // "no new rows": it is said, and the iteration warns.
    void noticeSourceBehind(const Watermark &maximum) {
        if (position.isNull() || (!maximum.isNull() && maximum.compare(position.watermark()) >= 0))
            return;
        record.sourceBehind = true;
        sourceBehind =
            QStringLiteral("table %1 (%2): the source is behind the position: its highest '%3' is %4, the "
                           "position %5 (restored from an older backup, emptied, or its writer's clock went "
                           "back?); rows it gets at or below %5 are never copied: 'backfill %1 --from VALUE' "
                           "copies again from an earlier point")
                .arg(spec.id)
                .arg(spec.sourceDisplay(), spec.watermarkColumn,
                     maximum.isNull() ? QStringLiteral("none (no row)") : shown(maximum),
                     shown(position.watermark()));
        log(QStringLiteral("warning"), sourceBehind);
    }

    QString guardRule() const {
        if (spec.watermarkType == WatermarkType::Integer)
            return QStringLiteral("the position + max jump %1").arg(spec.maxJump);
        return QStringLiteral("now + max future %1")
            .arg(spec.maxFuture.isEmpty() ? QString::fromLatin1(kDefaultMaxFuture) : spec.maxFuture);
    }

    // The highest watermark a run may reach; none when the table has no guard.
    std::optional<Watermark> futureGuard() const {
        if (spec.watermarkType == WatermarkType::Integer) {
            if (spec.maxJump <= 0 || position.isNull())
                return std::nullopt;
            const qint64 from = position.watermark().toInteger();
            constexpr qint64 kMax = std::numeric_limits<qint64>::max();
            // Past the largest integer, no guard is left to hold anything back.
            return Watermark::integer(from > 0 && spec.maxJump > kMax - from ? kMax : from + spec.maxJump);
        }
        if (spec.watermarkType != WatermarkType::Timestamp || spec.maxFuture == QLatin1String("none"))
            return std::nullopt;
        const qint64 toleranceMs = parseDurationMs(
            spec.maxFuture.isEmpty() ? QString::fromLatin1(kDefaultMaxFuture) : spec.maxFuture,
            QStringLiteral("max future"));
        // Spelled like the column's maximum: SQLite compares the bound as text.
        const std::optional<ParsedTimestamp> model = parseTimestamp(window.upper.nativeText());
        if (!model)
            return std::nullopt;
        const TimestampSpelling spelling = model->spelling;
        // A naive column holds wall-clock times of its zone: now is spelled as its clock shows it.
        const qint64 now = QDateTime::currentDateTimeUtc().toMSecsSinceEpoch() * 1000;
        qint64 micros = (spelling.zone.isEmpty() ? zone.wallMicros(now) : now) + toleranceMs * 1000;
        // Down to what the spelling can hold, so it spells the value exactly.
        qint64 unit = spelling.dateOnly ? 86400LL * 1000 * 1000 : 1000 * 1000;
        for (int digit = 0; !spelling.dateOnly && digit < spelling.fractionDigits && unit > 1; ++digit)
            unit /= 10;
        micros -= ((micros % unit) + unit) % unit;
        const std::optional<QString> text = formatTimestamp(micros, spelling);
        if (!text)
            return std::nullopt;
        return Watermark::timestamp(*text);
    }

    // "key (id) = 42 at 3000-01-01T00:00:00Z", or the watermark alone without a key.
    QString firstRowBeyond(WindowQuery beyond) {
        const QStringList keys = spec.keyColumns.isEmpty() ? sourceSchema.primaryKey() : spec.keyColumns;
        beyond.columns = keys;
        beyond.columns.append(spec.watermarkColumn);
        beyond.columns.removeDuplicates();
        try {
            auto cursor = source->openWindow(beyond);
            RowBatch batch(int(beyond.columns.size()));
            if (!cursor->fetch(batch, 1) || batch.isEmpty())
                return QStringLiteral("none left");
            const int at = int(beyond.columns.indexOf(spec.watermarkColumn));
            const QString value = shown(watermarkAt(batch, 0, at));
            return keys.isEmpty()
                       ? QStringLiteral("a row at %1").arg(value)
                       : QStringLiteral("key %1 at %2").arg(rowToJson(batch, 0, beyond.columns, keys), value);
        } catch (const Error &error) {
            return QStringLiteral("(could not be read: %1)").arg(error.message());
        }
    }

    // "'infinity'", or "from '-infinity' to 'infinity'", with what such values are.
    static QString unorderableValues(const WatermarkProbe &probe, WatermarkType type) {
        const QString values =
            probe.unorderableLowest == probe.unorderableHighest
                ? QStringLiteral("'%1'").arg(probe.unorderableLowest)
                : QStringLiteral("from '%1' to '%2'").arg(probe.unorderableLowest, probe.unorderableHighest);
        return values +
               (type == WatermarkType::Integer
                    ? QStringLiteral(": values that are no integer")
                    : QStringLiteral(": infinity, a BC date, a year past 9999 or a value that is no "
                                     "ISO-8601 timestamp; Tidemark keeps timestamps from year 1 to 9999"));
    }

    qint64 countWindow() {
        if (windowRowsProbed)
            return *windowRowsProbed;
        if (hasWatermark())
            return source->countWindow(window);
        auto cursor = source->openScan(sourceTable, window.columns, {});
        RowBatch batch;
        qint64 rows = 0;
        while (cursor->fetch(batch, spec.batchSize))
            rows += batch.rowCount();
        return rows;
    }

    // --- 4-8. Read, write, commit, advance, account ---
    void prepareTarget() {
        if (!target->tableExists(targetTable)) {
            const QStringList key =
                spec.mode == WriteMode::Merge ? spec.keyColumns : sourceSchema.primaryKey();
            try {
                target->createTable(targetTable, createdTargetColumns(spec, sourceSchema), key);
            } catch (const Error &) {
                // Lost a race to create it: the winner's state row names who owns it now.
                rollbackQuietly();
                explainFailedStateWrite(*target, stateRow(position), spec.targetDisplay());
                throw;
            }
            log(QStringLiteral("info"),
                QStringLiteral("created target table '%1'").arg(spec.targetDisplay()));
            return;
        }
        const TableSchema targetSchema = target->describeTable(targetTable);
        const QString problem = targetColumnsProblem(spec, sourceSchema, targetSchema);
        if (!problem.isEmpty())
            throw Error(problem);
        for (const ColumnInfo &column : sourceSchema.columns) {
            if (targetSchema.column(column.name))
                continue;
            target->addColumn(targetTable, column);
            log(QStringLiteral("info"), QStringLiteral("added column '%1' to target table '%2'")
                                            .arg(column.name, spec.targetDisplay()));
        }
    }

    // Push-down writes the window in one statement: no per-batch commits. A table that may skip
    // rows (WriteSpec::tolerateRejects) streams when the target refuses one, or cannot tell.
    // A range backfill commits per batch: each commit holds the state row's lock, which the
    // table's live copy waits for.
    bool commitsPerBatch() const { return spec.commitPerBatch || ranged(); }
    // Zero dates read as NULL pass through Tidemark: the server's own INSERT … SELECT would copy them.
    bool mayPushDown() const {
        return hasWatermark() && !commitsPerBatch() && spec.zeroDates == ZeroDates::Fail;
    }

    void copy() {
        faultPoint("before_write_transaction");
        if (tookOver)
            raiseFence();
        beginWrite();
        prepareTarget();
        if (spec.mode == WriteMode::Overwrite)
            target->deleteAll(targetTable);

        WriteSpec writeSpec;
        writeSpec.table = targetTable;
        writeSpec.columns = sourceSchema.columns;
        writeSpec.mode = spec.mode;
        writeSpec.keyColumns = spec.keyColumns;
        writeSpec.watermarkColumn = spec.watermarkColumn;
        writeSpec.tiebreakColumn = spec.tiebreakColumn;
        writeSpec.tolerateRejects = spec.maxSkipped > 0;
        publish();
        if (mayPushDown() && pushDown(writeSpec))
            return;
        if (record.windowRows == kNotCounted) {
            record.windowRows = countWindow();
            publish();
        }
        auto writer = target->openWriter(writeSpec);

        auto cursor =
            hasWatermark() ? source->openWindow(window) : source->openScan(sourceTable, window.columns, {});
        const int watermarkIndex = hasWatermark() ? int(window.columns.indexOf(spec.watermarkColumn)) : -1;
        const int tiebreakIndex =
            spec.tiebreakColumn.isEmpty() ? -1 : int(window.columns.indexOf(spec.tiebreakColumn));

        RowBatch batch(int(window.columns.size()));
        std::vector<RowRejection> rejected;
        Watermark lastRead; // watermark of the last row of the previous batch (tie detection)
        bool uncommitted = false;
        while (true) {
            throwIfCancelled();
            if (!cursor->fetch(batch, spec.batchSize))
                break;
            // Per-batch commits: commit what is written before this batch, unless this batch
            // continues a run of equal watermarks that only a tiebreak could split.
            if (commitsPerBatch() && uncommitted && !batch.isEmpty() &&
                (tiebreakIndex >= 0 || watermarkAt(batch, 0, watermarkIndex) != lastRead)) {
                commitBatch(*writer, rejected, false);
                faultPoint("after_batch_commit"); // the next batch is read, not written yet
                beginWrite();
                writer = target->openWriter(writeSpec);
            }
            rejected.clear();
            writer->writeBatch(batch, rejected);
            account(batch, rejected, watermarkIndex, tiebreakIndex);
            if (watermarkIndex >= 0)
                lastRead = watermarkAt(batch, batch.rowCount() - 1, watermarkIndex);
            uncommitted = true;
            faultPoint("after_batch_write");
            publish();
        }
        commitBatch(*writer, rejected, true);
    }

    // Same database on both sides: the server copies the window itself, in this transaction.
    bool pushDown(const WriteSpec &writeSpec) {
        throwIfCancelled();
        const auto result = target->pushDown(*source, window, writeSpec);
        if (!result)
            return false;
        log(QStringLiteral("info"),
            QStringLiteral("copied inside the database (push-down): no row left the server"));
        record.rowsRead = result->rowsRead;
        record.rowsWritten = result->rowsWritten;
        record.windowRows = result->rowsRead;
        if (!result->reached.isNull())
            written = result->reached;
        publish();
        faultPoint("after_push_down");
        throwIfCancelled(); // the whole window was one batch: a cancel still rolls it back
        NoRowsWriter noRows;
        std::vector<RowRejection> rejected;
        commitBatch(noRows, rejected, true);
        return true;
    }

    static Watermark watermarkAt(const RowBatch &batch, int row, int column) {
        return watermarkFromCell(batch, batch.cell(row, column));
    }

    void account(const RowBatch &batch, const std::vector<RowRejection> &rejected, int watermarkIndex,
                 int tiebreakIndex) {
        const int rows = batch.rowCount();
        record.rowsRead += rows;
        record.rowsSkipped += qint64(rejected.size());
        record.rowsWritten += rows - qint64(rejected.size());
        for (const RowRejection &rejection : rejected)
            rejectRow(batch, rejection);

        // Rows come in keyset order, so the last row not rejected holds the highest position written.
        if (watermarkIndex < 0)
            return;
        std::vector<bool> isRejected(rows, false);
        for (const RowRejection &rejection : rejected)
            isRejected[rejection.row] = true;
        for (int row = rows - 1; row >= 0; --row) {
            if (isRejected[row])
                continue;
            const Watermark candidate = watermarkAt(batch, row, watermarkIndex);
            if (written.isNull() || candidate.compare(written.watermark()) >= 0)
                written = Position(candidate, tiebreakIndex >= 0
                                                  ? cellToVariant(batch, batch.cell(row, tiebreakIndex))
                                                  : QVariant());
            break;
        }
    }

    void checkSkipLimit(const QString &error) const {
        if (record.rowsSkipped > spec.maxSkipped)
            throw Error(
                QStringLiteral("%1 rows of '%2' could not be written into '%3' (the table allows %4); "
                               "first error: %5")
                    .arg(record.rowsSkipped)
                    .arg(spec.sourceDisplay(), spec.targetDisplay())
                    .arg(spec.maxSkipped)
                    .arg(error));
    }

    void rejectRow(const RowBatch &batch, const RowRejection &rejection) {
        checkSkipLimit(rejection.error);
        RejectedRow row;
        row.runId = record.runId;
        row.iterationId = record.id;
        row.tableId = spec.id;
        row.at = QDateTime::currentDateTimeUtc();
        row.error = rejection.error;
        const QStringList keyColumns =
            spec.keyColumns.isEmpty() ? sourceSchema.primaryKey() : spec.keyColumns;
        row.rowData = rowToJson(batch, rejection.row, window.columns, window.columns);
        row.rowKey =
            keyColumns.isEmpty() ? row.rowData : rowToJson(batch, rejection.row, window.columns, keyColumns);
        rejects.push_back(row);
    }

    // --- 6. Commit, 7. Advance ---
    // `last`: this commit ends the window (the state row says so, for completeHistory).
    void commitBatch(RowWriter &writer, std::vector<RowRejection> &rejected, bool last) {
        throwIfSlotLost();
        rejected.clear();
        writer.finish(rejected);
        if (!rejected.empty()) {
            // Rows refused at flush time: their batch is gone, so they are recorded by error only.
            record.rowsSkipped += qint64(rejected.size());
            record.rowsWritten -= qint64(rejected.size());
            checkSkipLimit(rejected.front().error);
            for (const RowRejection &rejection : rejected) {
                RejectedRow row;
                row.runId = record.runId;
                row.iterationId = record.id;
                row.tableId = spec.id;
                row.at = QDateTime::currentDateTimeUtc();
                row.error = rejection.error;
                rejects.push_back(row);
            }
        }
        // Never backwards: a lookback re-reads rows at or below the position. A range backfill
        // never moves it.
        const bool advances = !ranged() && !written.isNull() && written > position;
        const Position next = advances ? written : position;
        // A transaction that changed no target row (an empty window past the last tie) leaves the
        // row naming the run that last wrote; any other goes through the compare-and-set.
        const bool changesTarget = !ranged() && (advances || record.rowsWritten > committedWritten ||
                                                 spec.mode == WriteMode::Overwrite);
        TargetState state = stateRow(next);
        state.iterationId = record.id;
        state.rowsWritten = record.rowsWritten;
        state.rowsSkipped = record.rowsSkipped;
        state.windowDone = last;
        bool swapped = true;
        try {
            swapped = !changesTarget || target->compareAndSetState(expected, state);
        } catch (const Error &) {
            rollbackQuietly();
            explainFailedStateWrite(*target, state, spec.targetDisplay());
            throw;
        }
        if (!swapped) {
            rollbackQuietly();
            std::optional<TargetState> current;
            try {
                current = target->readState(workspace.workspaceId(), spec.id);
            } catch (const Error &) {
            }
            if (current && current->fence > leaseToken)
                fencedOut(*current);
            lost(current);
        }
        faultPoint("before_target_commit");
        target->commit();
        // The target holds these now, whatever the workspace manages to record below.
        if (changesTarget)
            expected = next; // the next batch's compare-and-set starts from this one
        position = next;
        committedWritten = record.rowsWritten;
        committedSkipped = record.rowsSkipped;
        if (!ranged())
            record.watermarkAfter = shown(position.watermark());
        faultPoint("after_target_commit");
        followCommit(advances);
    }

    // 7. The workspace follows the commit. When it cannot (locked past its busy timeout, disk
    // full) the copy still stands: the record says so, and the next reconcile catches the
    // workspace up from the target's state row.
    void followCommit(bool advances) {
        qsizetype recorded = 0;
        try {
            // Refused when a backfill (or a later run) moved the workspace since this commit.
            if (advances)
                workspace.followTargetState(spec.id, generation, position, QStringLiteral("run"),
                                            record.runId);
            for (RejectedRow &row : rejects) {
                workspace.addReject(row);
                ++recorded;
            }
        } catch (const Error &error) {
            faultPoint("workspace_behind");
            if (workspaceBehind.isEmpty())
                workspaceBehind = error.message();
            rejectsLost += qint64(rejects.size() - recorded);
            log(QStringLiteral("warning"), committedNote());
        }
        rejects.clear();
    }

    // The target's state row brings the position back, not the rejected rows' contents: those
    // the workspace could not take are counted here, never silently gone.
    QString committedNote() const {
        QString note =
            QStringLiteral("committed to the target; the workspace will catch up from the target's "
                           "state row (it could not record the commit: %1)")
                .arg(workspaceBehind);
        if (rejectsLost > 0)
            note +=
                QStringLiteral("; the contents of %1 of the %2 rejected rows could not be recorded in the "
                               "workspace (their count stands in rows skipped)")
                    .arg(rejectsLost)
                    .arg(record.rowsSkipped);
        return note;
    }

    // The early check of the compare-and-set: the write transaction starts from the state row
    // this iteration expects, or it ends before writing anything.
    void beginWrite() {
        const auto current = target->beginStateWrite(workspace.workspaceId(), spec.id);
        const auto found = current ? std::optional<Position>(current->position) : std::nullopt;
        // The live copies move the position under a range backfill; only a backfill (a new
        // generation: a truncate, a set-position) ends it.
        const bool positionMatters = !ranged();
        // A range backfill holds no lease and is fenced by the generation alone.
        if (!ranged() && current && current->fence > leaseToken) {
            rollbackQuietly();
            fencedOut(*current);
        }
        if ((positionMatters && found != expected) || (current ? current->generation : 0) != generation) {
            rollbackQuietly();
            lost(current);
        }
        requireTargetOwnership(*target, stateRow(position), spec.targetDisplay());
    }

    // Another process committed this table since this iteration read its position (a lease
    // that expired while this one was frozen, a backfill): this one writes nothing.
    [[noreturn]] void lost(const std::optional<TargetState> &current) {
        const QString who = !current              ? QStringLiteral("another run")
                            : current->runId == 0 ? QStringLiteral("a backfill")
                                                  : QStringLiteral("run %1").arg(current->runId);
        throw EarlyEnd{IterationStatus::Skipped,
                       QStringLiteral("table %1: %2 committed this table first (target now at %3); %4")
                           .arg(spec.id)
                           .arg(who, current ? current->position.display() : QStringLiteral("no state"),
                                committedNothing()
                                    ? QStringLiteral("nothing written")
                                    : QStringLiteral("only this run's batches committed before that stand"))};
    }

    // A later claim on this table (its lease taken over while this process was stopped or cut
    // off) raised the target's fence: this one commits nothing more (docs/design.md, "Fencing").
    [[noreturn]] void fencedOut(const TargetState &current) const {
        throw EarlyEnd{
            IterationStatus::Skipped,
            QStringLiteral("table %1: its lease was taken over (the target's fence is at token %2, "
                           "this claim's is %3); %4")
                .arg(spec.id)
                .arg(current.fence)
                .arg(leaseToken)
                .arg(whatStands())};
    }

    // Tells the target this claim replaced another, before its first write transaction: it waits
    // for the lock as that transaction would, and from its commit on the claim it replaced can
    // commit nothing, while this one copies.
    void raiseFence() {
        tookOver = false; // once
        if (!target->raiseFence(workspace.workspaceId(), spec.id, leaseToken, expected, generation))
            return; // no row, or the replaced claim committed since: this one yields in beginWrite()
        log(QStringLiteral("info"),
            QStringLiteral("raised the target's fence to token %1: the claim taken over "
                           "can commit nothing more")
                .arg(leaseToken));
        faultPoint("after_fence_raised");
    }

    IterationStatus finalStatus() {
        if (record.rowsRead != record.rowsWritten + record.rowsSkipped)
            throw Error(QStringLiteral("accounting mismatch: %1 rows read, %2 written, %3 skipped")
                            .arg(record.rowsRead)
                            .arg(record.rowsWritten)
                            .arg(record.rowsSkipped));
        if (record.rowsSkipped > 0) {
            log(QStringLiteral("warning"),
                QStringLiteral("%1 rows could not be written and were skipped (see the rejects)")
                    .arg(record.rowsSkipped));
            return IterationStatus::Warning;
        }
        if (record.rowsFuture > 0) {
            record.error = heldBack; // never a silent green: the grid and history say why
            return IterationStatus::Warning;
        }
        if (record.sourceBehind) {
            record.error = sourceBehind;
            return IterationStatus::Warning;
        }
        if (record.rowsRead == 0) {
            if (spec.expectRows && !ranged()) {
                log(QStringLiteral("warning"),
                    QStringLiteral("no new rows, but this table expects rows on every run"));
                return IterationStatus::Warning;
            }
            return unselectableRows() ? IterationStatus::Warning : IterationStatus::NoNewRows;
        }
        return unselectableRows() ? IterationStatus::Warning : IterationStatus::Succeeded;
    }

    // Rows no window can ever select: a warning on every run until someone looks.
    bool unselectableRows() const {
        return record.rowsNullWatermark > 0 || record.rowsUnorderableWatermark > 0;
    }

    // After a rollback only committed batches count as written or skipped.
    void keepCommittedCounts() {
        record.rowsRolledBack += uncommittedRows();
        record.rowsPending = 0;
        record.rowsWritten = committedWritten;
        record.rowsSkipped = committedSkipped;
    }

    void rollbackQuietly() {
        if (!target)
            return;
        try {
            target->rollback();
        } catch (const Error &error) {
            log(QStringLiteral("warning"), QStringLiteral("rollback failed: %1").arg(error.message()));
        }
    }

    void runSteps() {
        if (!spec.active)
            throw EarlyEnd{IterationStatus::Skipped, QStringLiteral("table %1 is paused").arg(spec.id)};
        if (!options.dryRun && !ranged())
            takeLease();
        openConnections();
        zone = SourceZone::parse(spec.sourceTimezone, QStringLiteral("source timezone"));
        if (options.adopt && !options.dryRun)
            adopt();
        reconcile();
        // Before the probe: a target may tell whether the source changed since (copiesWholeTable).
        if (mayPushDown() && !options.dryRun)
            target->preparePushDown(*source);
        const bool anyRows = ranged() ? fixRange() : fixWindow();
        if (options.dryRun) {
            record.rowsRead = anyRows ? countWindow() : 0;
            record.windowRows = record.rowsRead;
            record.watermarkBefore = record.windowLower;
            record.watermarkAfter = record.windowUpper;
            log(QStringLiteral("info"),
                QStringLiteral("dry run: window (%1, %2] holds %3 rows")
                    .arg(record.windowLower.isEmpty() ? QStringLiteral("start") : record.windowLower,
                         record.windowUpper.isEmpty() ? QStringLiteral("end") : record.windowUpper)
                    .arg(record.rowsRead));
            record.status = IterationStatus::DryRun;
            return;
        }
        if (!ranged())
            record.watermarkAfter = record.watermarkBefore;
        // The progress bar's total, counted before the target's write transaction: an empty
        // window needs none, and a row landing after the count waits for the next run, the
        // position not having moved. A window the database may copy by itself is only looked
        // at for one row: the push-down reports its rows at its end, and a count would read the
        // window once more (copy() counts it when the rows stream after all).
        record.windowRows = !anyRows                             ? 0
                            : windowRowsProbed || !mayPushDown() ? countWindow()
                            : source->windowHasRows(window)      ? kNotCounted
                                                                 : 0;
        if (record.windowRows == 0 && spec.mode != WriteMode::Overwrite) {
            record.status = finalStatus();
            removeDeletedRows();
            return;
        }
        log(QStringLiteral("info"),
            QStringLiteral("copying from '%1' to '%2' (%3)")
                .arg(spec.sourceDisplay(), spec.targetDisplay(), writeModeName(spec.mode)));
        copy();
        record.status = finalStatus();
        if (!workspaceBehind.isEmpty()) {
            record.status = IterationStatus::Warning;
            record.error = committedNote();
        }
        removeDeletedRows();
    }

    // The table's DeletePolicy, once the copy committed, every --delete-check copies: its own
    // target transaction under the state row's compare-and-set (reconcileTable), this iteration
    // holding the table's lease. A guard's refusal or a failure ends the iteration warning and
    // names it; the rows copied stay committed.
    void removeDeletedRows() {
        if (spec.deletes.isIgnore() || ranged() || record.status == IterationStatus::Failed ||
            workspace.finishedCopies(spec.id) % spec.deletes.checkEvery != 0)
            return;
        try {
            const ReconcileResult result = reconcileTable(
                workspace, spec.id, true, QDateTime::currentDateTimeUtc(), record.runId, options.cancel);
            record.rowsDeleted = result.removed;
            if (!result.refusedBy.isEmpty()) {
                record.status = IterationStatus::Warning;
                record.error = result.refusal;
                log(QStringLiteral("warning"), result.refusal);
            } else if (result.gone > 0) {
                log(QStringLiteral("info"), reconcileText(result));
            }
        } catch (const Error &error) {
            if (cancelRequested())
                throw;
            record.status = IterationStatus::Warning;
            record.error = QStringLiteral("%1: the source's deletes were not reconciled: %2")
                               .arg(tableLabel(), error.message());
            log(QStringLiteral("warning"), record.error);
        }
    }
};

CopyIteration::CopyIteration(Workspace &workspace, const TableSpec &spec, IterationRecord record,
                             Options options)
    : d(std::make_unique<State>(workspace, spec, std::move(record), options)) {}

CopyIteration::~CopyIteration() = default;

IterationRecord CopyIteration::run() {
    IterationRecord &record = d->record;
    d->clock.start();
    record.status = IterationStatus::Running;
    record.startedAt = QDateTime::currentDateTimeUtc();
    record.error.clear();
    if (d->options.dryRun || d->options.range) {
        // Without a lease to record it with, the start is recorded on its own.
        try {
            d->workspace.updateIteration(record);
        } catch (const Error &) {
        }
    }
    d->publish();
    try {
        d->runSteps();
    } catch (const EarlyEnd &end) {
        d->stopWatchdog();
        d->rollbackQuietly();
        d->keepCommittedCounts();
        record.status = end.status;
        record.error = end.reason;
        d->log(QStringLiteral("info"), end.reason);
    } catch (const Error &error) {
        d->stopWatchdog();
        d->rollbackQuietly();
        d->keepCommittedCounts();
        if (d->slotLost()) {
            // The watchdog interrupted the running statement: the caps gave its slot away.
            const EarlyEnd end = d->slotLostEnd();
            record.status = end.status;
            record.error = end.reason;
            d->log(QStringLiteral("info"), end.reason);
        } else if (d->cancelRequested()) {
            // The watchdog interrupted the running statement: a cancel, not a failure.
            record.status = IterationStatus::Cancelled;
            record.error =
                d->watchdog && d->watchdog->interrupted()
                    ? QStringLiteral("cancelled by the user: the running statement was interrupted (%1)")
                          .arg(error.message())
                    : QStringLiteral("cancelled by the user (%1)").arg(error.message());
            d->log(QStringLiteral("info"), record.error);
        } else {
            record.status = IterationStatus::Failed;
            record.error = QStringLiteral("%1: %2").arg(d->tableLabel(), error.message());
            d->log(QStringLiteral("error"), error.message());
        }
    } catch (const std::exception &error) {
        d->stopWatchdog();
        d->rollbackQuietly();
        d->keepCommittedCounts();
        record.status = IterationStatus::Failed;
        record.error = QStringLiteral("%1: %2").arg(d->tableLabel(), QString::fromUtf8(error.what()));
        d->log(QStringLiteral("error"), record.error);
    }
    d->stopWatchdog();
    d->releaseConnections();
    record.finishedAt = QDateTime::currentDateTimeUtc();
    record.durationMs = d->clock.elapsed();
    d->recordEnd();
    d->publish();
    return record;
}

} // namespace tidemark
