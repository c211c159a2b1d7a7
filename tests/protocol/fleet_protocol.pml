/* SPDX-License-Identifier: MIT
 *
 * Tidemark's runner fleet with fencing tokens, checked exhaustively with spin.
 * docs/protocol.md explains the model; docs/design.md "The runner fleet" and "Fencing" are the
 * source. copy_protocol.pml checks one iteration's copy against a backfill and the workspace
 * mirror; this model checks what a fleet adds: claims from a shared queue, requeues, lease
 * takeovers and fencing tokens, with a runner that freezes and wakes and one that crashes.
 *
 * Processes: three runners sharing one queue of two iterations (two queued runs of the same
 * table, so they also compete for its lease), and init, which is "a runner that starts later"
 * once everything else has stopped.
 *   runner 1 may FREEZE (SIGSTOP, a paused VM): others may find its heartbeat and its lease
 *            expired at any moment, and it carries on later with its old local state
 *   runner 2 may CRASH after any step that writes shared state
 *   runner 3 neither
 *
 * Switches (spin -D...):
 *   NO_FENCE       broken: the compare-and-set does not check the fence, so a claim whose lease
 *                  was taken over still commits wherever the position matches
 *   LAX_RECORD     broken: a queued iteration's record is written WHERE runner IN ('', me), so a
 *                  runner woken after its claim was put back in the queue still writes it (and
 *                  closes an iteration nobody has run); the code writes it WHERE runner = me
 *   BACKFILL       adds copy_protocol.pml's backfill (no lease; position and generation reset,
 *                  fence kept), racing the fleet; about eleven times the states, so use -DN=2
 *   N=n            source rows (default 3)
 *   MAX_PUT_BACKS=n  how many times, in all, runners put an iteration back (default 3)
 *
 * Abstracted away: the workspace mirror of the position, a late source row, ties (rows have
 * distinct watermarks), merge (copy_protocol.pml checks all of these), several tables, caps,
 * more than one slot per runner, a user's cancel, SIGTERM's hand-back, the backfill's own short
 * lease, and the run record (each queued run has one iteration). Expiry is not a state: whoever
 * looks at runner 1's heartbeat or lease may find it lapsed, at any moment, whatever it renewed
 * before (it may have been frozen just then). That is every timing a TTL can produce, and a
 * dead runner is likewise found dead at once or only later. Put-backs are bounded: a runner that
 * froze at every claim would otherwise be put back forever, which is liveness, not checked here.
 */

#ifndef MAX_PUT_BACKS
#define MAX_PUT_BACKS 3
#endif
#ifndef N
#define N 3               /* source rows 1..N, one per watermark; position i = row i copied */
#endif
#define NI 2              /* queued iterations 0 and 1 of the one table (spelt out below) */
#define FREEZER 1
#define CRASHER 2

mtype = { QUEUED, RUNNING, SUCCEEDED, SKIPPED };

/* ---- target: data + state row, changed only by whole transactions ---- */
bool trow = false;        /* the state row exists (none yet: nothing to fence) */
byte tpos = 0;            /* state row position, 0 = before row 1 */
byte tgen = 0;            /* state row generation: only a backfill moves it */
byte tfence = 0;          /* state row fence: the highest token a claim has shown the target */
byte tcount[N + 1];       /* per source row: how many copies the target holds */

/* ---- workspace ---- */
byte lastToken = 0;       /* the last fencing token drawn: one counter that only rises */
byte leaseTok = 0;        /* the table's lease: the token of the acquisition holding it, 0 = free */
byte leaseHolder = 0;     /* the runner holding it */
mtype itStatus[NI];       /* iterations.status */
byte itRunner[NI];        /* iterations.runner: 0 = '' (unclaimed) */
bool alive[4];            /* runner i's process exists (1..3) */
byte putBacks = 0;        /* iterations put back in the queue so far (bounded: see the header) */

/* ---- ghosts ---- */
byte claimOf[4];          /* the iteration (+1) runner i works on, as it believes */
byte latest[NI];          /* the runner of an iteration's latest claim */
bool gone[4];             /* runner i crashed (rather than stopped) */
byte ends[NI];            /* end records written per iteration */
int fencedOut = 0;        /* bit t: the target's fence has been above token t */

/* The compare-and-set's fence check: a later claim's token on the state row refuses this one. */
#ifdef NO_FENCE
#define FENCED(t) false
#else
#define FENCED(t) (tfence > (t))
#endif

/* A crash: the process is gone, its open target transaction rolls back (buffered rows are
 * local), its claim stays in iterations.runner and its lease stays in the lease row, both
 * naming a dead process. As in copy_protocol.pml, a crash point follows every step that writes
 * shared state; a crash anywhere else looks the same to the others as one of these, taken late. */
#define CRASHPOINT if :: me == CRASHER -> goto crashed :: skip fi

/* An iteration another runner may put back in the queue: claimed (queued or running) by a runner
 * that is dead, or whose heartbeat expired while frozen and whose lease on the table, if it still
 * holds it for this iteration, expired too. Runner 1's heartbeat and lease may both have expired
 * at any moment, so the lease condition never holds a requeue back here. */
#define ORPHAN(k) (putBacks < MAX_PUT_BACKS && itRunner[k] != 0 && itRunner[k] != me && \
                   (itStatus[k] == QUEUED || itStatus[k] == RUNNING) && \
                   (!alive[itRunner[k]] || itRunner[k] == FREEZER))

/* The target's invariants, checked after every target transaction (as in copy_protocol.pml). */
inline checkTarget() {
    i = 1;
    do
    :: i <= N ->
        assert(tcount[i] <= 1);                       /* no row twice */
        assert(i > tpos || tcount[i] == 1);           /* none at or below the position lost */
        assert(i <= tpos || tcount[i] == 0);          /* nothing beyond it */
        i++
    :: else -> break
    od;
    i = 0
}

/* Write the transaction's buffered rows (bitmask over rows 1..N). */
inline applyRows(buf) {
    i = 1;
    do
    :: i <= N -> if :: buf & (1 << i) -> tcount[i]++ :: else -> skip fi; i++
    :: else -> break
    od;
    i = 0
}

/* The state row's fence is set to token t (a takeover's raise, or a commit writing its token):
 * from now on every older acquisition is fenced out, whether it knows it or not. */
inline setFence(t) {
    tfence = t;
    fencedOut = fencedOut | ((1 << t) - 1)
}

/* At a history write that went through: no other runner's claim on the iteration is live (it
 * believes it runs the iteration and its claim is the latest). */
inline noOtherLiveClaim() {
    assert((me == 1 || claimOf[1] != it + 1 || latest[it] != 1) &&
           (me == 2 || claimOf[2] != it + 1 || latest[it] != 2) &&
           (me == 3 || claimOf[3] != it + 1 || latest[it] != 3))
}

/* The fence raise of a claim that took the lease over: its own committed target transaction,
 * before its first write, and only while the state row is where this copy starts (then the
 * replaced claim has committed nothing since and from now on commits nothing). */
inline raiseFence() {
    if
    :: trow && tpos == expected && tgen == g && tfence < tok ->
        setFence(tok)
    :: else -> skip           /* no row, it moved, or a later claim fenced this one: yield at commit */
    fi
}

proctype Runner(byte me) {
    byte i;               /* loop scratch of the inlines */
    byte it;              /* the iteration claimed */
    byte tok;             /* this claim's fencing token, 0 while it holds no lease */
    bool tookOver;        /* the lease was taken from a dead or expired holder */
    byte g;               /* generation read at reconcile */
    byte expected;        /* position read at reconcile */
    byte committed;       /* what this claim committed last (expected for the next batch) */
    byte readPos;         /* last row read */
    byte buf = 0;         /* rows written in the open target transaction */
    byte n;
    bool perBatch;
    mtype st;             /* the outcome its end record says */

idle:
    do
    :: /* claim the oldest unclaimed queued iteration (FOR UPDATE SKIP LOCKED: one claimer wins) */
       atomic {
           (itStatus[0] == QUEUED && itRunner[0] == 0) || (itStatus[1] == QUEUED && itRunner[1] == 0) ->
           it = (itStatus[0] == QUEUED && itRunner[0] == 0 -> 0 : 1);
           itRunner[it] = me;
           claimOf[me] = it + 1;
           latest[it] = me
       }
       goto claimed
    :: /* put an orphan back in the queue */
       atomic {
           if
           :: ORPHAN(0) -> it = 0
           :: ORPHAN(1) -> it = 1
           fi;
           itRunner[it] = 0;
           itStatus[it] = QUEUED;
           putBacks++;
           it = 0
       }
    :: break                                           /* stops (SIGTERM with nothing claimed) */
    od;
    alive[me] = false;
    goto end;

claimed:
    CRASHPOINT;

    /* 1. start: take the table's lease and record the start, in one workspace transaction */
    atomic {
        if
#ifdef LAX_RECORD
        :: itRunner[it] != me && itRunner[it] != 0 ->
#else
        :: itRunner[it] != me ->
#endif
            /* put back in the queue, or claimed by another meanwhile: "taken over", nothing
             * written (the start is written only by the iteration's holder) */
            goto next
        :: else -> skip
        fi;
        if
        :: leaseTok == 0 -> tookOver = false
        :: leaseTok != 0 && (leaseHolder == FREEZER || !alive[leaseHolder]) ->
            tookOver = true                            /* the holder expired or is gone */
        :: leaseTok != 0 ->
            st = SKIPPED;                              /* held by a live holder, not expired */
            goto finish
        fi;
        assert(leaseTok == 0 || leaseHolder != me);    /* a runner never meets its own lease */
        assert(lastToken < 30);                        /* fencedOut's bits suffice */
        lastToken++;
        tok = lastToken;                               /* one token per acquisition */
        leaseTok = tok;
        leaseHolder = me;
        assert(itStatus[it] == QUEUED);                /* a start never reopens an ended record */
        noOtherLiveClaim();
        itRunner[it] = me;                             /* names it again if it was put back */
        latest[it] = me;
        itStatus[it] = RUNNING
    }
    CRASHPOINT;

    /* 2. reconcile: read the state row; 3. fix the window, per-window or per-batch commit */
    atomic {
        expected = tpos;
        g = tgen;
        committed = expected;
        readPos = expected;
        if :: perBatch = true :: perBatch = false fi
    }

    /* a takeover raises the fence before its first write transaction */
    if
    :: tookOver ->
        atomic { raiseFence(); tookOver = false }
        CRASHPOINT
    :: else -> skip
    fi;

    /* 4.-6. read a batch of one row into the open target transaction, commit */
    do
    :: atomic {
        if
        :: leaseTok != tok ->
            /* its renewal failed (the lease carries another token now): it may stop, rolling
             * back the open transaction. The code stops only once the target's fence is above
             * its token, and otherwise finishes the window; stopping at any point after the
             * loss, as here, covers that. */
            buf = 0;
            st = SKIPPED;
            goto finish
        :: skip                                        /* or has not noticed yet */
        fi;
        n = 0;
        if
        :: readPos < N -> readPos++; buf = buf | (1 << readPos); n = 1
        :: else -> skip
        fi
       }
       if
       :: n == 0 && buf == 0 -> break                  /* window done, nothing left open */
       :: (n == 0 && buf != 0) || (n > 0 && perBatch) ->
            /* data + state row in one target transaction: compare-and-set */
            atomic {
                if
                :: tpos != committed || tgen != g || FENCED(tok) ->
                    buf = 0;                           /* rolled back: nothing written */
                    st = SKIPPED;                      /* "committed first" or "taken over" */
                    goto finish
                :: else ->
                    assert((fencedOut & (1 << tok)) == 0); /* a fenced-out claim commits nothing */
                    assert(tfence <= tok);             /* the fence only rises */
                    applyRows(buf);
                    assert(readPos > tpos);            /* the position only moves forward */
                    tpos = readPos;
                    trow = true;
                    setFence(tok);                     /* the code writes its token on each commit */
                    committed = readPos;
                    buf = 0;
                    checkTarget()
                fi
            }
            CRASHPOINT;
            if :: n == 0 -> break :: else -> skip fi
       :: n > 0 && !perBatch -> skip                  /* keep reading into the same transaction */
       fi
    od;
    st = SUCCEEDED;

finish:
    /* the end record and the lease's release by token, one workspace transaction; the record
     * only while this runner holds the iteration (WHERE runner = me) */
    atomic {
        if
#ifdef LAX_RECORD
        :: itRunner[it] == me || itRunner[it] == 0 ->
#else
        :: itRunner[it] == me ->
#endif
            noOtherLiveClaim();
            assert(latest[it] == me);                  /* no claim superseded its own */
            ends[it]++;
            assert(ends[it] == 1);                     /* ended once */
            itRunner[it] = me;
            itStatus[it] = st
        :: else -> skip                                /* "taken over by runner X": refused */
        fi;
        if
        :: tok != 0 && leaseTok == tok -> leaseTok = 0; leaseHolder = 0
        :: else -> skip                                /* a lease taken over stays its holder's */
        fi;
        goto next
    }
next:
    atomic {
        claimOf[me] = 0;
        it = 0; tok = 0; tookOver = false; g = 0; expected = 0; committed = 0;
        readPos = 0; buf = 0; n = 0; perBatch = false; st = 0
    }
    goto idle;

crashed:
    atomic { alive[me] = false; gone[me] = true; claimOf[me] = 0 }
end:
    skip
}

#ifdef BACKFILL
/* A backfill (explicit operator write, no lease): resets the position to 0 (truncate) or to row 1
 * and raises the generation, in one target transaction; the fence stays as it is. */
proctype Backfill() {
    byte i;
    byte b;
    atomic {
        if
        :: b = 0
        :: tpos >= 1 -> b = 1
        fi;
        i = 1;
        do
        :: i <= N -> if :: i > b -> tcount[i] = 0 :: else -> skip fi; i++
        :: else -> break
        od;
        trow = true;
        tpos = b;
        tgen++;
        checkTarget()
    }
}
#endif

/* A later run of the table on a runner that starts after everyone else stopped: takes the lease
 * (free, or a gone claim's: a takeover, which raises the fence), copies the rest in one commit.
 * Nobody else is left, so its compare-and-set must go through. */
inline laterCopy() {
    assert(lastToken < 30);
    lastToken++;
    tok = lastToken;
    took = leaseTok != 0;
    leaseTok = tok;
    expected = tpos;
    g = tgen;
    if :: took -> raiseFence() :: else -> skip fi;
    assert(tpos == expected && tgen == g && tfence <= tok);
    i = tpos + 1;
    do
    :: i <= N -> tcount[i]++; i++
    :: else -> break
    od;
    i = 0;
    if :: tpos < N -> tpos = N; trow = true; setFence(tok) :: else -> skip fi;
    checkTarget();
    leaseTok = 0; leaseHolder = 0
}

init {
    byte i;
    byte k;
    byte tok;
    byte expected;
    byte g;
    bool took;
    atomic {
        itStatus[0] = QUEUED; itStatus[1] = QUEUED;
        alive[1] = true; alive[2] = true; alive[3] = true;
        run Runner(1); run Runner(2); run Runner(3)
#ifdef BACKFILL
        ; run Backfill()
#endif
    }
    _nr_pr == 1;    /* every runner has stopped or crashed */

    atomic {
        checkTarget();
        /* no iteration left running by a live claim: one still claimed is a crashed runner's,
         * and so is a lease still held */
        k = 0;
        do
        :: k < NI ->
            assert(itRunner[k] == 0 || (itStatus[k] != QUEUED && itStatus[k] != RUNNING) ||
                   gone[itRunner[k]]);
            k++
        :: else -> break
        od;
        assert(leaseTok == 0 || gone[leaseHolder]);

        /* the runner that starts later: requeues the gone runner's claims, runs what is queued */
        k = 0;
        do
        :: k < NI ->
            if
            :: itStatus[k] == QUEUED || itStatus[k] == RUNNING ->
                laterCopy();
                ends[k]++;
                assert(ends[k] == 1);
                itRunner[k] = 0;                       /* the later runner (no id here) */
                itStatus[k] = SUCCEEDED
            :: else -> skip
            fi;
            k++
        :: else -> break
        od;
        /* and one more run of the table: the target ends complete, each row once */
        laterCopy();
        assert(tpos == N)
    }
}
