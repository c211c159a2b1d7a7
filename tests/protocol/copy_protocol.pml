/* SPDX-License-Identifier: MIT
 *
 * Tidemark's copy protocol for one table, checked exhaustively with spin.
 * docs/protocol.md explains the model; docs/design.md "One iteration - the contract" is the source.
 *
 * Processes: two runners (each one iteration of one run; both may believe they hold the
 * lease), one backfill, one source writer (a row lands during the copy), and init, which is
 * "the next process that opens the workspace" once everything else has stopped.
 *
 * Switches (spin -D...):
 *   MERGE          merge target (per-key version) instead of append
 *   BLIND_WRITE    broken: the state row is written without comparing the expected position
 *   PLAIN_FOLLOW   the workspace follows the target by position alone (reconcile
 *                  copies what it read, advance takes the max), without a backfill generation
 *   NO_MERGE_RULE  broken: merge upserts without "never older over newer"
 *   BATCH=n        rows per batch (default 1)
 */

#ifndef BATCH
#define BATCH 1
#endif

/* The source: rows 1..N in keyset order (watermark, tiebreak); row i is position i and
 * position 0 is "no row" (the initial watermark, exclusive). Rows 1 and 2 share watermark 1
 * and only the tiebreak orders them. Merge keys: rows 1 and 3 are two versions of key 0. */
#define N 3
#define WM(i)  ((i) == 0 -> 0 : ((i) == 3 -> 2 : 1))
#define TB(i)  ((i) == 2 -> 1 : 0)
#define KEY(i) ((i) == 2 -> 1 : 0)
/* the window predicate, spelled as the contract spells it: (wm, tb) > (last wm, last tb) */
#define AFTER(r, p) (WM(r) > WM(p) || (WM(r) == WM(p) && TB(r) > TB(p)))

byte nvis = 2;            /* rows visible in the source; row 3 lands at any moment */

/* ---- target: data + the tidemark_state row, changed only by whole transactions ---- */
byte tpos = 0;            /* tidemark_state position (0 = no state row) */
byte tgen = 0;            /* tidemark_state backfill generation: bumped only by a backfill */
#ifdef MERGE
byte tver[2];             /* per key: the version (row) stored, 0 = absent */
byte hiVer[2];            /* ghost: highest version ever stored per key since a truncate */
#else
byte tcount[N + 1];       /* per source row: how many copies the target holds */
#endif

/* ---- workspace ---- */
byte wsPos = 0;           /* the table's last position as the workspace shows it */
byte wsGen = 0;           /* the target generation wsPos was copied from (PLAIN_FOLLOW: ghost) */
byte leaseOwner = 0;      /* 0 = free, else a runner id */

mtype = { RUNNING, SUCCEEDED, SKIPPED, CANCELLED, INTERRUPTED };
mtype runStatus[3];       /* run record per runner id 1..2 (index 0 unused) */
bool alive[3];            /* does runner i's process still exist */

/* A crash: the process is gone; an open target transaction rolls back with it (its buffered
 * rows are local variables), the run record stays RUNNING, the lease stays with the dead
 * owner. A crash point follows every step that writes shared state: a crash between two such
 * steps looks the same to everyone else as a crash right after the first one, taken late
 * (the process may wait at a crash point arbitrarily long before taking it). */
#define CRASHPOINT if :: skip :: goto crashed fi

/* Opening the workspace closes runs whose owner is dead as INTERRUPTED. A live run whose
 * heartbeat lapsed (a paused machine) may be closed too; if it wakes it writes its real
 * outcome over that. */
inline repair() {
    i = 1;
    do
    :: i <= 2 ->
        if
        :: runStatus[i] == RUNNING && !alive[i] -> runStatus[i] = INTERRUPTED
        :: runStatus[i] == RUNNING && alive[i] ->
            if :: runStatus[i] = INTERRUPTED :: skip fi
        :: else -> skip
        fi;
        i++
    :: else -> break
    od;
    i = 0
}

/* The workspace never claims rows the target lacks (unless a backfill reset the target and
 * the workspace has not followed it yet). */
#define wsBehindTarget() assert(wsGen < tgen || wsPos <= tpos)

/* The workspace mirrors a state row (generation g, position v) read from the target. It moves
 * only forward in (generation, position): its position goes back only after a backfill. */
inline wsFollow(g, v) {
#ifdef PLAIN_FOLLOW
    if :: wsPos != v -> wsShow(g, v) :: else -> skip fi
#else
    if :: g > wsGen || (g == wsGen && v > wsPos) -> wsShow(g, v) :: else -> skip fi
#endif
}
inline wsShow(g, v) {
    assert(g > wsGen || (g == wsGen && v >= wsPos));   /* backwards only by a backfill */
    wsGen = g;
    wsPos = v;
    wsBehindTarget()
}

inline noRowTwice() {
#ifndef MERGE
    i = 1;
    do
    :: i <= N -> assert(tcount[i] <= 1); i++       /* no row twice */
    :: else -> break
    od;
    i = 0
#else
    skip
#endif
}

/* The target's invariants, checked after every target transaction. */
inline checkTarget() {
    noRowTwice();
    i = 1;
    do
    :: i <= N ->
#ifdef MERGE
        /* none lost: each key holds at least its latest version at or below the position */
        assert(AFTER(i, tpos) || tver[KEY(i)] >= i);
#else
        assert(AFTER(i, tpos) || tcount[i] == 1);     /* none at or below the position lost */
        assert(!AFTER(i, tpos) || tcount[i] == 0);    /* nothing beyond it (no hidden half-commit) */
#endif
        i++
    :: else -> break
    od;
#ifdef MERGE
    /* merge never replaced a newer version with an older one */
    assert(tver[0] == hiVer[0] && tver[1] == hiVer[1]);
#endif
    i = 0
}

/* Write the transaction's buffered rows (bitmask over rows 1..N), in keyset order. */
inline applyRows(buf) {
    i = 1;
    do
    :: i <= N ->
        if
        :: buf & (1 << i) ->
#ifdef MERGE
#ifdef NO_MERGE_RULE
            tver[KEY(i)] = i;
#else
            if :: i >= tver[KEY(i)] -> tver[KEY(i)] = i :: else -> skip fi;
#endif
            if :: i > hiVer[KEY(i)] -> hiVer[KEY(i)] = i :: else -> skip fi
#else
            tcount[i]++
#endif
        :: else -> skip
        fi;
        i++
    :: else -> break
    od;
    i = 0
}

proctype Runner(byte me) {
    byte i;               /* loop scratch of the inlines */
    byte g;               /* generation of the state row this iteration read / committed on */
    byte expected;        /* the position this iteration started from (after reconcile) */
    byte committed;       /* what this iteration committed last (expected for the next batch) */
    byte readPos;         /* last row read */
    byte maxWm;           /* the window's upper bound, read once at the start */
    byte buf = 0;         /* rows written in the open target transaction */
    byte n;
    bool perBatch;

    /* open the workspace: repair dead runs, record this run */
    atomic { repair(); runStatus[me] = RUNNING }
    CRASHPOINT;

    /* 1. lease: free or owner dead -> take; held by a live owner -> skip, unless it expired,
     * which it may have at any moment (paused machine, clock jump, slow statement) */
    atomic {
        if
        :: leaseOwner == 0 || !alive[leaseOwner] -> leaseOwner = me
        :: else ->
            if
            :: leaseOwner = me
            :: runStatus[me] = SKIPPED; goto stop
            fi
        fi
    }
    CRASHPOINT;

    /* 2. reconcile: the target's state row is the truth; the workspace follows it */
    atomic { expected = tpos; g = tgen }
    atomic { wsFollow(g, expected) }
    CRASHPOINT;

    /* 3. fixed window: upper bound = source max watermark now; per-window or per-batch commit */
    atomic {
        maxWm = WM(nvis);
        readPos = expected;
        committed = expected;
        if :: perBatch = true :: perBatch = false fi
    }

    /* 4.-6. read a batch, write it into the open target transaction, commit */
    do
    :: atomic {
        n = 0;
        i = readPos + 1;
        do
        :: i <= nvis && n < BATCH && AFTER(i, readPos) && WM(i) <= maxWm ->
            buf = buf | (1 << i); readPos = i; n++; i++
        :: else -> break
        od;
        i = 0
       }
       if
       :: n == 0 && buf == 0 -> break                 /* window done, nothing left open */
       :: (n == 0 && buf != 0) || (n > 0 && perBatch) ->
            /* commit data + state row in one target transaction: compare-and-set on the
             * position and the generation, as the code's UPDATE ... WHERE position = expected
             * AND generation = g (a backfill in between may have brought the position back to
             * the same value) */
            atomic {
                if
#ifndef BLIND_WRITE
                :: tpos != committed || tgen != g ->
                    buf = 0;                           /* rolled back: nothing written */
                    runStatus[me] = SKIPPED;           /* "run X committed this table first" */
                    goto release
#endif
                :: else ->
                    applyRows(buf);
                    noRowTwice();
                    assert(readPos > tpos);            /* the position only moves forward */
                    tpos = readPos;
                    buf = 0;
                    committed = readPos;
                    g = tgen;
                    checkTarget();
                    wsBehindTarget()
                fi
            }
            CRASHPOINT;
            /* 7. advance: the workspace follows, never backwards, not over a backfill */
#ifdef PLAIN_FOLLOW
            atomic { if :: committed > wsPos -> wsShow(g, committed) :: else -> skip fi }
#else
            atomic { wsFollow(g, committed) }
#endif
            CRASHPOINT;
            if :: n == 0 -> break :: else -> skip fi
       :: n > 0 && !perBatch -> skip                 /* keep reading into the same transaction */
       fi;
       /* 9. cancel between batches: roll back the open transaction, position unchanged */
       if
       :: buf = 0; runStatus[me] = CANCELLED; goto release
       :: skip
       fi
    od;
    runStatus[me] = SUCCEEDED;                         /* or no_new_rows */

release:
    atomic { if :: leaseOwner == me -> leaseOwner = 0 :: else -> skip fi }
stop:
    alive[me] = false;                                 /* ended normally */
    goto end;
crashed:
    alive[me] = false;
end:
    skip
}

/* Backfill: reset the position, target change + state row in one target transaction, then the
 * workspace follows. Append: delete rows after the new position (0 = truncate). Merge: keep the
 * rows (safe with merge) or truncate. */
proctype Backfill() {
    byte i;
    byte b;
    byte g;

    atomic { repair() }
    atomic {
        if
        :: b = 0
        :: tpos >= 1 -> b = 1                          /* (1,0): splits the rows tied at wm 1 */
        fi;
#ifdef MERGE
        if
        :: b == 0 -> tver[0] = 0; tver[1] = 0; hiVer[0] = 0; hiVer[1] = 0   /* truncate */
        :: skip                                                            /* keep */
        fi;
#else
        i = 1;
        do
        :: i <= N -> if :: AFTER(i, b) -> tcount[i] = 0 :: else -> skip fi; i++
        :: else -> break
        od;
#endif
        tpos = b;
        tgen++;
        g = tgen;
        checkTarget()
    }
    CRASHPOINT;
    atomic { wsFollow(g, b) }
crashed:
    skip
}

/* A row lands in the source during the copy (watermark above everything so far). */
proctype Source() {
    nvis = N
}

init {
    byte i;
    atomic {
        alive[1] = true; alive[2] = true;
        run Runner(1); run Runner(2); run Backfill(); run Source()
    }
    _nr_pr == 1;    /* everything else has ended or crashed */

    /* the next process that opens the workspace */
    repair();
    assert(runStatus[1] != RUNNING && runStatus[2] != RUNNING);   /* no dead run stays running */
    checkTarget();
    wsBehindTarget()
}
