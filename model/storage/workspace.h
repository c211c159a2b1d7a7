// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/alertsettings.h"
#include "model/domain/connectionspec.h"
#include "model/domain/position.h"
#include "model/domain/runpage.h"
#include "model/domain/runrecord.h"
#include "model/domain/schedulespec.h"
#include "model/domain/tablespec.h"
#include "model/domain/watermarkrange.h"
#include "model/domain/workspacerole.h"
#include "model/storage/storecopy.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace tidemark {

struct WatermarkChange {
    qint64 id = 0;
    qint64 tableId = 0;
    QDateTime at;
    QString oldValue; // display form
    QString newValue;
    QString cause; // "run", "reconcile", "backfill", "adopt", "edit", "remove", "restore"
    qint64 runId = 0;
    QString host; // the machine that made it (a change from before schema 6: its run's, if any)
    QString by;   // who: the server's login, or the file's user; empty before schema 18
};

// One point of a trend chart: one run's figures for a table (or summed over every table), or,
// when the period holds more runs than points were asked for, those of the runs started in
// one slice of it.
struct TrendPoint {
    QDateTime at; // when its first run started
    qint64 firstRunId = 0;
    qint64 lastRunId = 0;
    int runs = 0;           // runs it stands for: 1 unless the period was sliced
    qint64 rowsWritten = 0; // summed
    qint64 durationMs = 0;  // the longest
    // The worst outcome among them: Failed, Interrupted, Cancelled, Warning, else Succeeded.
    IterationStatus status = IterationStatus::Succeeded;
};

struct TrendQuery {
    qint64 tableId = 0;  // 0: every table, each run's totals
    QDateTime from;      // invalid: since the first run
    QDateTime to;        // invalid: now
    int maxPoints = 200; // more runs than this in the period: one point per slice of it
};

struct Trend {
    QDateTime from; // the period the points cover, resolved
    QDateTime to;
    QList<TrendPoint> points;         // oldest first
    QList<WatermarkChange> backfills; // the table's (or every table's) backfills in the period
};

struct RejectedRow {
    qint64 id = 0;
    qint64 runId = 0;
    qint64 iterationId = 0;
    qint64 tableId = 0;
    QDateTime at;
    QString error;
    QString rowKey;  // JSON object of the key columns (or of the whole row without key)
    QString rowData; // JSON object of the row
};

struct Lease {
    qint64 tableId = 0;
    qint64 runId = 0;
    QString host;
    qint64 pid = 0;
    QDateTime expiresAt;
    // The lease's fencing token (docs/design.md, "Fencing"): drawn at each acquisition from a
    // number that only rises, whichever process and machine draws it.
    qint64 token = 0;
};

// What the workspace did with a state read from the target (Workspace::followTargetState).
enum class FollowResult {
    Moved,     // newer than what it showed: taken, and logged as a watermark change
    Unchanged, // it showed that state already
    Stale,     // older than what it shows (another process moved it since the read): refused
};

// What a target's state row says one iteration committed (TargetState's iteration fields).
struct CommittedIteration {
    qint64 iterationId = 0;
    qint64 runId = 0;
    qint64 tableId = 0;
    qint64 rowsWritten = 0;
    qint64 rowsSkipped = 0;
    QString watermarkAfter;  // display form
    bool windowDone = false; // that commit ended the iteration's window
};

// The workspace's active runner (`tidemark-cli serve`), as its heartbeat row records it.
// What can move a table's last-run status: iterations begun after a given one, and those not
// ended yet. A reader that keeps both from one look to the next reads again only the statuses
// of the tables they name (LastStatusReader).
struct IterationActivity {
    qint64 lastIterationId = 0;
    QList<qint64> tablesIteratedSince; // tables of the iterations after the one asked about
    struct Open {
        qint64 tableId = 0;
        QString status; // queued or running
        bool operator==(const Open &) const = default;
    };
    QHash<qint64, Open> open; // by iteration id
};

// How a runner's last firing went: its heartbeat carries it, so a schedule that could not start
// its run is seen where the runner is (the window's status bar, `runners`).
struct FiringOutcome {
    QDateTime at; // invalid: no firing yet
    QString schedule;
    QString error; // empty: the firing started its run
    bool failed() const { return at.isValid() && !error.isEmpty(); }
    bool operator==(const FiringOutcome &) const = default;
};

struct RunnerHeartbeat {
    QString host;
    qint64 pid = 0;
    QString version;
    QDateTime startedAt;
    QDateTime lastBeatAt;
    QDateTime expiresAt; // taken for dead after this (or at once when its pid is gone on this host)
    FiringOutcome lastFiring;
};

// One runner of the workspace (`serve`) as its row in the fleet records it
// (docs/design.md, "The runner fleet").
struct FleetRunner {
    QString id; // "host:pid"
    QString host;
    qint64 pid = 0;
    QString version;
    int slotCount = 0; // iterations it runs at once
    QDateTime startedAt;
    QDateTime lastBeatAt;
    QDateTime expiresAt;
    bool alive = false; // beating, and (on this host) its process is there
    int running = 0;    // iterations running on it now
};

// What `run cancel` did.
struct CancelRequest {
    QString runStatus;  // the run's status when asked: "running", or how it had ended already
    int iterations = 0; // iterations asked to stop, wherever they run (or wait)
    int closed = 0;     // of a queued run, iterations no runner had taken: closed cancelled at once
};

// The result of trying to become the workspace's active runner.
struct RunnerClaim {
    bool acquired = false;
    // The live holder when refused; the dead one replaced when acquired.
    std::optional<RunnerHeartbeat> holder;
};

// The result of trying to take a table's lease.
// What renewing a lease found (Workspace::renewLease).
enum class LeaseRenewal {
    Renewed,
    TakenOver, // another acquisition holds it now: the target's fence decides what this one commits
    // It expired (its process was stopped) and its slot went to another iteration under the
    // caps: the iteration must commit nothing more.
    SlotLost,
};

struct LeaseAttempt {
    bool acquired = false;
    std::optional<Lease> holder; // the live holder when not acquired; the dead one taken over when acquired
    qint64 token = 0;            // the fencing token of the lease acquired
    // Not acquired because a cap is full (docs/design.md, "Caps"): which one, as the grid shows
    // it ("waiting: connection erp has 2 of 2 in use"). The caller tries again later.
    QString waiting;
};

// One workspace: connections, control table, run history, rejects, leases, schedules, alerts
// and the audit trail of positions. Stored in a file (*.tidemark, SQLite) or in a schema of a
// PostgreSQL database, as its location says (WorkspaceLocation: a postgresql:// URI names a
// server workspace, anything else a file); callers never know which. A thin handle over one
// store per concern (model/storage/stores/), all on one connection (model/storage/storedb.h),
// migrated on open. One Workspace object = one connection, owned by one thread; open another
// object on each worker thread. Every method throws Error naming the workspace on failure.
class Workspace {
public:
    // Creates a new workspace at `location` (WorkspaceLocation::text()). Refuses
    // (ValidationError) when the file, or the server's schema, exists.
    static std::unique_ptr<Workspace> create(const QString &location);
    // Opens an existing workspace and migrates it. A missing file or schema, or a file that is
    // not a Tidemark workspace, is refused (ValidationError) and never modified.
    static std::unique_ptr<Workspace> open(const QString &location);
    // Copies the write-ahead log back into the workspace file and empties it, on a connection
    // of its own that waits at most `waitMs` for readers of older snapshots (it holds up writers
    // meanwhile). After a run's bulk writes, so that the last connection to close (a window
    // quitting) has little left to copy and no big log to delete. False when a reader kept part
    // of the log: that part is copied later, by SQLite's own checkpoints or the last close.
    // A server workspace has no log to copy: true at once.
    static bool checkpoint(const QString &location, int waitMs);
    ~Workspace();
    Workspace(const Workspace &) = delete;
    Workspace &operator=(const Workspace &) = delete;

    // The location it was opened at: a file path, or a server URI with its schema.
    QString path() const { return m_path; }
    bool isServer() const;
    // A UUID made at create time; target-side state rows carry it.
    QString workspaceId() const { return m_workspaceId; }
    static int schemaVersion();

    // --- roles: a server workspace's (model/storage/postgres/pgroles.h); a file has none ---
    // This user's role; nullopt for a file, or while no role was ever granted (nothing is enforced
    // beyond the server's own grants). ValidationError for a user with none of the roles.
    std::optional<WorkspaceRole> myRole();
    QString databaseUser(); // empty for a file
    // `workspace grant` / `revoke` / `roles`: ValidationError on a file, or for a user not admin.
    void grantRole(const QString &user, WorkspaceRole role);
    bool revokeRoles(const QString &user);
    QList<RoleMember> roleMembers();

    // --- `workspace copy` (model/engine/workspacecopy.h) ---
    // Records that this workspace is copied to `destination`: from then on beginRun() refuses,
    // naming it. Refuses (ValidationError) while a run is going, naming the run, and when it
    // was copied already (naming where).
    void markCopiedTo(const QString &destination);
    // The copy failed: runs begin here again.
    void unmarkCopied();
    // Where this workspace was copied to, if it was.
    std::optional<QString> copiedTo();
    // Throws ValidationError naming the copy when there is one.
    void requireNotCopied();
    // Creates `destination` (refusing one that exists) and copies every row of this workspace
    // into it (copyStoreRows()); a failed copy removes what it created.
    QList<CopiedRows> copyInto(const QString &destination,
                               const std::function<void(const CopiedRows &)> &progress);
    // While `*flag` is true, the statements of this connection stop with an error (a read
    // nobody waits for any more); null: they run to the end. SqliteDb::stopStatementsWhile. A
    // server workspace's statement in progress runs to its end; the next one stops.
    void stopStatementsWhile(const std::atomic_bool *flag);
    // While this workspace is open, this process opens (and checkpoints) a workspace file by its
    // name only if the name still leads to the file this connection opened: once it was replaced
    // (a backup restored over it), the old file's WAL, still under the name, is never read into
    // the new file. Throws Error when it was replaced already. A runner pins its file.
    void pinFile();
    // Whether another file is at the pinned file's name now. Once one is, the old file's WAL and
    // index, still under the name, are removed (SQLite itself leaves them there).
    bool pinnedFileReplaced();

    // --- caps (docs/design.md, "Caps") ---
    // Iterations running at once, across every process and machine of the workspace; 0 = no cap.
    int maxConcurrency();
    void setMaxConcurrency(int cap); // ValidationError when negative

    // --- alerts ---
    // The workspace's alert settings; AlertSettings::workspaceDefaults() (empty) when none are set.
    AlertSettings alertSettings();
    // Replaces them; empty settings clear them. The webhook URL is checked (checkWebhookUrl):
    // a secret in clear is refused with ValidationError and nothing is stored.
    void setAlertSettings(const AlertSettings &settings);
    // Records that the tables in `stalled` are stalled at `now` and forgets every other table's
    // alarm. Returns those of `stalled` that had none: the caller sends their alarm. One writer
    // at a time, so of several processes looking at once exactly one gets each table; a table
    // that moved (or was removed) is forgotten, and its next stall is raised again.
    QList<qint64> raiseStalledAlarms(const QSet<qint64> &stalled, const QDateTime &now);

    // --- connections ---
    QList<ConnectionSpec> connections();
    std::optional<ConnectionSpec> connection(const QString &name);
    // The same, or ValidationError "connection 'NAME' does not exist".
    ConnectionSpec requireConnection(const QString &name);
    qint64 addConnection(const ConnectionSpec &spec); // ValidationError when the name exists
    void updateConnection(const ConnectionSpec &spec);
    void removeConnection(const QString &name); // ValidationError while a table uses it

    // --- control table ---
    QList<TableSpec> tables();         // the live (not removed) tables, ordered by id
    bool hasTables();                  // whether there is any live table
    QList<TableSpec> archivedTables(); // the removed ones, ordered by id
    // Each table's last finished iteration (skipped and dry runs left out): what `table list`
    // derives a table's health from.
    QHash<qint64, IterationRecord> lastFinishedIterations();
    // The table's iterations that ended succeeded, no_new_rows or warning: when its
    // --delete-check is due.
    qint64 finishedCopies(qint64 tableId);
    // When each table's position last changed (a copy, a backfill, set-position), or when it
    // was added if it never did: what a table's stalled health (tableHealth) is measured from.
    QHash<qint64, QDateTime> positionsMovedAt();
    std::optional<TableSpec> table(qint64 id);         // a live table; nullopt when removed or unknown
    std::optional<TableSpec> archivedTable(qint64 id); // a removed table; nullopt otherwise
    qint64 addTable(const TableSpec &spec);            // returns the new id (never reused)
    void updateTable(const TableSpec &spec);           // configuration fields; not the last watermark
    // An edit that resets the position (`table edit --reset-position`), in one transaction: the
    // configuration fields as updateTable() writes them, and the position and generation the
    // target's state row now holds, logged with `cause`. One transaction because a new watermark
    // type and the old position must never be seen together.
    void replaceTable(const TableSpec &spec, qint64 generation, const Position &position,
                      const QString &cause);
    // Removing archives: the row, its position (watermark and tiebreak) and its history stay,
    // runs and lists leave it out, and restoreTable brings back the same id as it was. Both
    // are logged as watermark changes ("remove", "restore"). A removed table is left out of
    // table(), setActive() and updateTable(), and does not hold on to its connections (restore
    // needs them back). ValidationError when the table does not exist or is already in the
    // asked state.
    // Restoring is also refused (ValidationError naming both tables) when another live table
    // writes into the table's target meanwhile: decided in the restore's own transaction, so two
    // processes never both bring a writer of one target back.
    void removeTable(qint64 id);
    void restoreTable(qint64 id);
    // Forgets a removed table for good (`table purge`): its row and lease go, so its target no
    // longer belongs to it; its id is never reused, and its run history and watermark log stay
    // (logged once more, cause "purge"). The target's state row is the caller's to clear first
    // (model/engine/tablepurge.h). ValidationError when the table is live or does not exist.
    void purgeTable(qint64 id);
    // A table other than `exceptId`, live or removed as `archived` says, whose target is
    // `targetTable` of `target`'s database (tableIdentity, sameDatabase); the first by id.
    std::optional<TableSpec> otherTableWritingInto(const ConnectionSpec &target, const QString &targetTable,
                                                   qint64 exceptId, bool archived);
    void setActive(qint64 id, bool active);
    // Moves the last watermark wherever it is and records the change (old, new, cause, run id,
    // time): an explicit set, such as a hand edit. The generation stays.
    void setWatermark(qint64 tableId, const Watermark &watermark, const QVariant &tiebreak,
                      const QString &cause, qint64 runId);
    // The workspace follows the target's state row (docs/design.md steps 2 and 7, "Backfill"): it takes
    // (generation, position) only if that is newer than what it shows, i.e. a higher generation,
    // or the same one and a higher position. Decided and written in one IMMEDIATE transaction, so
    // a state read before another process moved the table (a reconcile overtaken by a commit, an
    // advance overtaken by a backfill, a backfill's own write overtaken by a later run) never
    // moves it back. A move is recorded like setWatermark; a refusal only as a debug log line.
    FollowResult followTargetState(qint64 tableId, qint64 generation, const Position &position,
                                   const QString &cause, qint64 runId);
    QList<WatermarkChange> watermarkChanges(qint64 tableId);
    // A table's runs over a period, for a chart: computed by SQL aggregates, so it costs at
    // most `maxPoints` rows whatever the history's size. Dry runs, and iterations that were
    // skipped or have not finished, are left out.
    Trend trend(const TrendQuery &query);
    // The status of the table's most recent iteration that is not part of a dry run, or empty.
    QString lastIterationStatus(qint64 tableId);
    // The same for every live table, by id, read at once (a table never run: empty).
    QHash<qint64, QString> lastIterationStatuses();
    // The same for these tables only (those removed or unknown are left out).
    QHash<qint64, QString> lastIterationStatuses(const QList<qint64> &tableIds);
    // The iterations after `afterIterationId` (none listed without it: a first look need not
    // read 2 million iterations) and those not ended, read in that order (so an iteration begun
    // meanwhile is after the lastIterationId returned).
    IterationActivity iterationActivity(std::optional<qint64> afterIterationId);

    // --- runs and iterations ---
    // Records a running run owned by this process (host, pid) with a first heartbeat;
    // `schedule` names the schedule that fired it (empty: none).
    // `kind`: RunRecord::kind.
    // `queued`: handed to the runners instead (RunRecord::queued); no process owns it, so it has
    // no heartbeat and repairInterruptedRuns() leaves it to requeueOrphanedIterations().
    // `range`: a range backfill's FROM..TO, kept for the runner that claims it (queuedRunRange()).
    // Refused (ValidationError) once the workspace was copied elsewhere (markCopiedTo()).
    qint64 beginRun(const QString &trigger, int concurrency, bool dryRun, const QString &schedule = QString(),
                    const QString &kind = QString::fromLatin1(kRunKindCopy), bool queued = false,
                    const std::optional<WatermarkRangeText> &range = std::nullopt);
    // The range a range backfill's run re-copies; nullopt for any other run.
    std::optional<WatermarkRangeText> runRange(qint64 runId);
    // The owner's heartbeat: call every runHeartbeatIntervalMs() while the run is alive; a run
    // that misses a few beats in a row is taken for dead by repairInterruptedRuns().
    void beatRun(qint64 runId);
    // 5 s, or TIDEMARK_TEST_RUN_HEARTBEAT_MS (tests).
    static int runHeartbeatIntervalMs();
    void finishRun(qint64 runId, const QString &status);
    // Closes runs still marked running whose owner is dead on this host (its pid is gone) or
    // whose heartbeat expired, and their queued/running iterations, as `interrupted`, with
    // finished_at and the reason in the iteration's error and log; logs each. Safe when
    // several processes open the workspace at once (one IMMEDIATE transaction, decided again
    // under the lock). Returns how many runs it closed. Called by whoever opens the workspace
    // for a user (the CLI, the window, a run's setup). `closedRunIds`, when given, gets the ids
    // of the runs it closed (their alerts are the closer's to send).
    int repairInterruptedRuns(QList<qint64> *closedRunIds = nullptr);
    // Completes the history of an iteration whose commit the workspace could not record (locked
    // past its busy timeout, disk full, the process killed right after the commit): its rows
    // written and skipped and watermark after become what the target's state row says; an
    // iteration whose window was done ends `warning`, the error saying it committed but the
    // workspace could not record it, and its run, when that leaves none of its iterations open
    // or interrupted, gets the status its iterations give. One IMMEDIATE transaction; logged
    // in the iteration's log naming `byRunId`. Leaves alone an iteration still queued or running
    // (its process, or the interrupted-run repair, closes it first) and one that already says
    // so. Returns whether it changed the record.
    bool completeCommittedIteration(const CommittedIteration &committed, qint64 byRunId);
    qint64 addIteration(const IterationRecord &record); // returns its id
    // A run's queued iterations, in one transaction; sets each record's id.
    void addIterations(QList<IterationRecord> &records);
    void updateIteration(const IterationRecord &record); // every field but the log
    // The end of an iteration in one transaction: its record, the log lines not written yet,
    // and (unless `leaseToken` is 0) the release of the table's lease acquired with that token,
    // as releaseLeaseByToken(). A record without id (never recorded) only releases the lease.
    void finishIteration(const IterationRecord &record, const QList<LogLine> &newLines, qint64 leaseToken);
    void appendLog(qint64 iterationId, const LogLine &line);
    void appendLogs(qint64 iterationId, const QList<LogLine> &lines); // in one transaction
    void addReject(const RejectedRow &row);
    QList<RejectedRow> rejects(qint64 tableId);
    // One iteration's rejected rows in id order, those after `afterId`, at most `limit`
    // (<= 0: all): a page at a time, so a viewer never holds 100,000 of them at once.
    QList<RejectedRow> iterationRejects(qint64 iterationId, qint64 afterId = 0, int limit = 0);
    qint64 iterationRejectCount(qint64 iterationId);
    // Newest first; runId > 0 limits to that run; limit <= 0 = all. Iterations with their logs:
    // for a few runs (one run's end, a run another process changed), not for a history.
    QList<RunRecord> runs(int limit = 0, qint64 runId = 0);
    // A page of the history (RunPageQuery: newest first, keyset paging, filters), each run with
    // its iterations but no log lines: one query for the runs, one for all their iterations,
    // in one read transaction.
    QList<RunRecord> runPage(const RunPageQuery &query);
    // The same page as the history list shows it (RunOverview, as overviewOf() defines it): the
    // figures summed by SQLite, no iteration record made. One read transaction.
    QList<RunOverview> runOverviews(const RunPageQuery &query);
    // How many runs the query takes (its filters and cursor; not its limit).
    qint64 runCount(const RunPageQuery &query);
    // One iteration's log lines, oldest first: a history leaves them out until one is opened.
    QList<LogLine> iterationLog(qint64 iterationId);

    // --- leases ---
    // Takes the lease when free, expired, or held by a process that is no longer alive on this
    // host. Atomic across processes (one IMMEDIATE transaction).
    LeaseAttempt acquireLease(qint64 tableId, qint64 runId, std::chrono::milliseconds ttl);
    LeaseAttempt acquireLease(qint64 tableId, qint64 runId, int ttlSeconds) {
        return acquireLease(tableId, runId, std::chrono::seconds(ttlSeconds));
    }
    // The start of an iteration: takes its table's lease as acquireLease() does, within the
    // workspace's caps (its max concurrency, its connections' max connections, and
    // `processSlots`, this process's own limit; 0 = none), and, in the same transaction, records
    // `record` as running, started now by this process (its startedAt and runner are set here,
    // after every iteration it waited for has recorded its end), unless it has no id yet.
    // Refused: nothing is written, `record` is unchanged.
    LeaseAttempt startIteration(IterationRecord &record, std::chrono::milliseconds ttl, int processSlots = 0);
    // The lease of `tableId` acquired with fencing token `token`, while it is unexpired. One
    // that expired (its process was stopped) and that nobody took over is taken again if the
    // caps still have a slot for it, and otherwise lost (LeaseRenewal::SlotLost); one another
    // acquisition holds is TakenOver. Nothing changes unless Renewed.
    LeaseRenewal renewLease(qint64 tableId, qint64 token, std::chrono::milliseconds ttl);
    void releaseLease(qint64 tableId, qint64 runId);
    // Only the acquisition that drew `token`: a lease taken over since stays with its new holder.
    void releaseLeaseByToken(qint64 tableId, qint64 token);

    // --- schedules (docs/design.md, "Schedules and the runner") ---
    QList<ScheduleSpec> schedules(); // ordered by name
    std::optional<ScheduleSpec> schedule(const QString &name);
    // ValidationError when the name is taken or a listed table is not a live table; the cron
    // text and zone are the caller's to validate (CronExpression, QTimeZone). Returns the id.
    qint64 addSchedule(const ScheduleSpec &spec);
    // ValidationError naming the schedule when it does not exist.
    void setScheduleActive(const QString &name, bool active);
    void removeSchedule(const QString &name);
    // Replaces the cron, zone, tables, concurrency, retries and timeout of the schedule named
    // `spec.name` (the window's edit dialog); keeps its firing history. ValidationError when it
    // does not exist or a listed table is not a live table. In workspacescheduleedit.cpp.
    void editSchedule(const ScheduleSpec &spec);
    // The runner fired the schedule at `firedAt` (its missed-firing anchor after a restart).
    void recordScheduleFiring(const QString &name, const QDateTime &firedAt);
    void setScheduleLastRun(const QString &name, qint64 runId);
    // The status of a run, or empty when there is no such run.
    QString runStatus(qint64 runId);

    // --- the runner fleet (docs/design.md, "The runner fleet") ---
    // Records this process (host:pid) as a live runner of `slotCount` slots, or renews its row; a row not
    // renewed for `ttl` is a dead runner's. Forgets rows dead for a day.
    void beatFleetRunner(int slotCount, const QDateTime &startedAt, std::chrono::milliseconds ttl);
    void leaveFleet(); // this process's row
    // Every runner's row, oldest first, alive or not, with the iterations each is running.
    QList<FleetRunner> fleetRunners();
    // Claims up to `count` queued iterations of queued runs for this process: each run's oldest
    // first, round-robin across runs. Two runners never claim the same one: on a server the
    // claim skips the rows another is claiming (FOR UPDATE SKIP LOCKED); a file's write lock
    // takes one claim at a time. The claimed stay queued (`runner` set) until their lease.
    QList<IterationRecord> claimIterations(int count);
    // Puts back in the queue the iterations of queued runs whose runner died (its row expired
    // or gone, its pid gone on this host) once no live lease of that runner holds their table;
    // one whose cancel was asked for ends cancelled. Logged in each. Returns how many.
    int requeueOrphanedIterations();
    // Puts back one iteration this process holds (its runner is stopping), or ends it
    // cancelled when its cancel was asked for; then, when that closed its run, returns the
    // run's status as finishRunIfSettled() does.
    QString requeueIteration(qint64 iterationId, const QString &why);
    // The open iterations of queued runs that this process has claimed, by id, with their run's
    // id: the runner compares them with what it runs, to put back those whose end it could not
    // record (the workspace was out of reach).
    QHash<qint64, qint64> iterationsClaimedByThisRunner();
    // Closes the queued run when none of its iterations is queued or running, with the status
    // they give; returns it (empty: left open, or closed already by another runner).
    QString finishRunIfSettled(qint64 runId);
    // `run cancel`: asks every open iteration of the run to stop, wherever it runs (its process
    // looks every second); a queued run's iterations no runner took end cancelled at once.
    // ValidationError when there is no such run.
    CancelRequest requestCancel(qint64 runId);
    void requestIterationCancel(qint64 iterationId); // one iteration (a schedule's timeout)
    // The open iterations whose cancel was asked for: of one run, or held by this process.
    QList<qint64> cancelRequested(qint64 runId);
    QList<qint64> cancelRequestedOfThisRunner();
    // Takes the firing of `schedule` due `at`: true for exactly one caller, whichever runner.
    bool claimFiring(const QString &schedule, const QDateTime &at);

    // --- the runner's heartbeat: one active runner per workspace ---
    // Becomes the active runner (this host and pid) when no runner is recorded, the recorded
    // one's heartbeat expired, or its process is gone on this host. One IMMEDIATE transaction.
    // `staleBeat`: the holder's last beat as the caller saw it stand still for a whole ttl on its
    // own monotonic clock; a holder still showing it is taken for dead whatever its expiry says
    // (written by a clock that ran ahead, it could otherwise keep every standby waiting).
    RunnerClaim claimRunner(const QDateTime &startedAt, std::chrono::milliseconds ttl,
                            const QDateTime &staleBeat = QDateTime());
    // Renews this process's claim; false when it no longer holds it (taken over meanwhile).
    bool beatRunner(std::chrono::milliseconds ttl, const FiringOutcome &lastFiring = FiringOutcome());
    void releaseRunner(); // only this process's own claim
    std::optional<RunnerHeartbeat> runner();
    // 5 s, or TIDEMARK_TEST_RUNNER_HEARTBEAT_MS (tests); a runner missing 4 beats is taken for dead.
    static int runnerHeartbeatIntervalMs();
    static constexpr int kRunnerBeatsToExpire = 4;

private:
    struct Stores;
    Workspace(std::unique_ptr<Stores> stores, const QString &path);
    void readWorkspaceId();

    std::unique_ptr<Stores> m_stores;
    QString m_path;
    QString m_workspaceId;
};

} // namespace tidemark
