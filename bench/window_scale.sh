#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How the window copes with big workspaces, measured from outside (run by hand; not a test).
#
#   bench/window_scale.sh               scale: 1,000 / 5,000 / 10,000 tables, 100,000 runs each
#   bench/window_scale.sh done          the issue's "Done when": an 8-table run in the window, then
#                                       a tidemark-cli run of the same tables followed live
#   BENCH_TABLES="1000" BENCH_RUNS=20000 bench/window_scale.sh     a quicker look
#   bench/window_scale.sh summary SESSION...     the table again, from the sessions' files
#   BENCH_WORKSPACE=server TIDEMARK_PG_PORT=<port> BENCH_TABLES=10000 bench/window_scale.sh
#                                       the same on a server workspace: each size's file is moved
#                                       onto the server (`workspace copy`, timed) and the window and
#                                       the followed CLI run open that
#
# env: BENCH_TABLES ("1000 5000 10000"), BENCH_RUNS (100000), BENCH_ITERATIONS_PER_RUN (20),
#      BENCH_RUN_SECONDS (20; 600 in `done`: a run still going then is cancelled: Ctrl+Shift+X in the window,
#      SIGTERM to the CLI), BENCH_ROWS (300000 rows per table in `done`), BENCH_DIR (/tmp/tidemark-window-scale),
#      BENCH_QUIT_SECONDS (120: a window still quitting then is killed, its quit time shown as ">"),
#      BENCH_DISPLAY (:87), TIDEMARK_CLI (build/app/tidemark-cli), TIDEMARK_GUI (build/bench/tidemark-instrumented),
#      BENCH_STEPS ("run follow refresh": what `scale` does between open and quit; "" opens and quits)
#
# A scale workspace is built once per size in BENCH_DIR and kept while its schema is this build's
# (a workspace of another schema is built again); each session opens a fresh copy of it.
#
# Each workspace is made by the real tidemark-cli (init, two SQLite connections, one table, one run,
# so every table and column is the schema's own), then filled in one sqlite3 transaction: the
# other tables (copies of the first, each with its own one-row source table), BENCH_RUNS past runs
# of BENCH_ITERATIONS_PER_RUN iterations each spread over the tables (100,000 runs = 2 million
# iterations, one log line each; a few failed, a few with no new rows), oldest first.
#
# The window runs under its own Xvfb, with its own settings (XDG_CONFIG_HOME), and is watched by
# bench/xping.py: _NET_WM_PING every 10 ms, which Qt answers on the GUI thread, so the longest
# wait for a reply is the longest the GUI thread was busy (or waiting for a core: Xvfb and the
# probe run at nice -10 when the bench may, so their own waits stay out of it; a ping still out
# when the window goes counts until its unmap was seen: off the screen, it has nothing to answer
# for). The probe is started, and watching, before the window's process, and pings from the
# window's map on: "shown" is the map, and the first frames count in the open. The window notes
# what X cannot show (tables read and shown, history shown, a run started/finished/followed) in
# TIDEMARK_BENCH_EVENTS, with its own stall figure (a 10 ms timer's lateness, "late" below, and
# how much of it the GUI thread spent ready to run but waiting for a core, from
# /proc/thread-self/schedstat: on a shared 2-core machine most of a long lateness can be other
# processes' load). Phases, each measured from the key press (xdotool) to the last reply
# it causes:
#   open      start of the process -> tables and history shown (+1 s)
#   run       F5 -> run finished and the window's reloads after it (+1 s)
#   follow    tidemark-cli run in another process -> it has exited and the window followed (+1 s)
#   refresh   Ctrl+R, once -> tables and history shown again; then five presses 100 ms apart
#   quit      the window manager's close (sent by the probe) -> the window gone; "quit" = close ->
#             process exit
# The events file also splits a quit: "close" (the close event taken), "left-loop" (the event loop
# left) and "closed" (the window and the workspace connections it owns gone; what follows is the
# process's own exit).
# Peak RSS is VmHWM of /proc/PID/status, sampled every 200 ms.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/deps.sh"
tidemark_deps xdotool

mode=${1:-scale}
sizes=${BENCH_TABLES:-1000 5000 10000}
runs=${BENCH_RUNS:-100000}
steps=${BENCH_STEPS-run follow refresh}
per_run=${BENCH_ITERATIONS_PER_RUN:-20}
rows=${BENCH_ROWS:-300000}
quit_seconds=${BENCH_QUIT_SECONDS:-120}
if [[ "$mode" == done ]]; then
    run_seconds=${BENCH_RUN_SECONDS:-600}
else
    run_seconds=${BENCH_RUN_SECONDS:-20}
fi
dir=${BENCH_DIR:-/tmp/tidemark-window-scale}
kind=${BENCH_WORKSPACE:-file}
if [[ "$kind" == server ]]; then
    pg_port=${TIDEMARK_PG_PORT:?BENCH_WORKSPACE=server needs TIDEMARK_PG_PORT (scripts/pgcluster.sh start)}
    psql=$(ls -d /usr/lib/postgresql/*/bin/psql | sort -V | tail -1)
fi
display=${BENCH_DISPLAY:-:87}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
gui=${TIDEMARK_GUI:-$root/build/bench/tidemark-instrumented}
probe=$root/bench/xping.py
source "$root/bench/xvfb.sh"
bench_programs window_scale "$cli" "$gui"
mkdir -p "$dir"

now() { date +%s.%N; }
say() { echo "window_scale: $*" >&2; }

app_pid=
probe_pid=
rss_pid=
cleanup() {
    for pid in $rss_pid $probe_pid $app_pid $xvfb_pid; do
        kill "$pid" 2>/dev/null || true
    done
}
trap cleanup EXIT

# Source tables t00001..tNNNNN in $1, $3 rows each (timestamps one second apart, from $4).
make_source() { # db tables rows first_day
    python3 - "$@" <<'PY'
import sqlite3, sys
path, tables, rows, day = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
db = sqlite3.connect(path)
with db:
    for t in range(1, tables + 1):
        db.execute(f'CREATE TABLE IF NOT EXISTS t{t:05d} (id INTEGER PRIMARY KEY, updated_at TEXT NOT NULL, payload TEXT)')
        db.executemany(f'INSERT INTO t{t:05d} (updated_at, payload) VALUES (?, ?)',
                       ((f'2026-01-{day:02d}T{r // 3600 % 24:02d}:{r // 60 % 60:02d}:{r % 60:02d}.{r // 86400:06d}Z',
                         f'row {r} of table {t}') for r in range(rows)))
PY
}

# A workspace $1 with connections src ($2) and dst ($3) and tables t00001..t$4 (only t00001 added by
# the CLI and run once; the others copied from it), then $5 past runs of $per_run iterations.
make_workspace() { # ws src dst tables runs
    local ws=$1 src=$2 dst=$3 tables=$4 past=$5
    rm -f "$ws" "$ws"-wal "$ws"-shm "$dst"
    "$cli" -w "$ws" init >/dev/null
    "$cli" -w "$ws" connection add src --sqlite "$src" >/dev/null
    "$cli" -w "$ws" connection add dst --sqlite "$dst" >/dev/null
    "$cli" -w "$ws" table add --source src:t00001 --target dst:t00001 --watermark updated_at --tiebreak id >/dev/null
    "$cli" -w "$ws" run >/dev/null
    # A schedule of every active table, so each row has a "Next run" to compute.
    "$cli" -w "$ws" schedule add hourly --cron @hourly >/dev/null
    sqlite3 "$ws" >/dev/null <<SQL
PRAGMA busy_timeout = 10000;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 2 WHERE $tables >= 2 UNION ALL SELECT i + 1 FROM n WHERE i < $tables)
INSERT INTO tables (source_connection, source_table, target_connection, target_table, watermark_column,
    watermark_type, tiebreak_column, key_columns, mode, lookback, initial_watermark, last_watermark,
    last_tiebreak, active, max_skipped, expect_rows, commit_per_batch, batch_size, add_new_columns,
    created_at, last_generation)
SELECT source_connection, printf('t%05d', i), target_connection, printf('t%05d', i), watermark_column,
    watermark_type, tiebreak_column, key_columns, mode, lookback, initial_watermark, NULL, NULL, active,
    max_skipped, expect_rows, commit_per_batch, batch_size, add_new_columns, created_at, 0
FROM tables, n WHERE tables.id = 1;
-- Past runs, one every 15 minutes up to an hour ago, oldest first (ids follow time).
WITH RECURSIVE n(i) AS (SELECT 1 WHERE $past >= 1 UNION ALL SELECT i + 1 FROM n WHERE i < $past)
INSERT INTO runs ("trigger", host, pid, started_at, finished_at, status, concurrency, dry_run)
SELECT CASE WHEN i % 10 = 0 THEN 'cli' ELSE 'schedule' END, 'bench', 1,
    strftime('%Y-%m-%dT%H:%M:%S.000000Z', unixepoch() - 3600 - ($past - i) * 900, 'unixepoch'),
    strftime('%Y-%m-%dT%H:%M:%S.000000Z', unixepoch() - 3600 - ($past - i) * 900 + 60, 'unixepoch'),
    CASE WHEN i % 97 = 0 THEN 'failed' ELSE 'succeeded' END, 2, 0
FROM n;
CREATE TEMP TABLE k(k INTEGER PRIMARY KEY);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $per_run - 1) INSERT INTO k SELECT i FROM n;
INSERT INTO iterations (run_id, table_id, source, target, status, started_at, finished_at, duration_ms,
    rows_read, rows_written, rows_skipped, window_rows, watermark_before, watermark_after, window_lower,
    window_upper, error)
SELECT r.id, (r.first + k.k) % $tables + 1, printf('src:t%05d', (r.first + k.k) % $tables + 1),
    printf('dst:t%05d', (r.first + k.k) % $tables + 1),
    CASE WHEN r.status = 'failed' AND k.k = 0 THEN 'failed' WHEN (r.id + k.k) % 50 = 0 THEN 'no_new_rows'
         ELSE 'succeeded' END,
    r.started_at, r.finished_at, 1000 + k.k * 37, 100 + k.k, 100 + k.k, 0, 100 + k.k,
    '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:10.000000Z', '2026-01-01T00:00:00.000000Z',
    '2026-01-01T00:00:10.000000Z',
    CASE WHEN r.status = 'failed' AND k.k = 0 THEN 'connection to dst lost' END
FROM (SELECT id, started_at, finished_at, status, (id * $per_run) % $tables AS first FROM runs
      WHERE host = 'bench') r CROSS JOIN k ORDER BY r.id, k.k;
INSERT INTO iteration_logs (iteration_id, at, level, message)
SELECT id, finished_at, 'info', printf('copied %d rows', rows_written) FROM iterations
WHERE run_id IN (SELECT id FROM runs WHERE host = 'bench');
COMMIT;
SQL
}

# The schema version of workspace $1, or without $1 that of a workspace this build's CLI makes.
schema_of() { # [workspace]
    if [[ -n "${1:-}" ]]; then
        sqlite3 -readonly "$1" 'PRAGMA user_version'
        return
    fi
    local probe_ws="$dir/schema-$$.tidemark"
    rm -f "$probe_ws"
    "$cli" -w "$probe_ws" init >/dev/null
    sqlite3 -readonly "$probe_ws" 'PRAGMA user_version'
    rm -f "$probe_ws" "$probe_ws".log
}

# Marks a phase: name, start and end (wall clock), for the summary.
mark() { echo "$1 $2 $3" >>"$session/phases"; }

# Waits until the events file has a line matching $1 (an extended regex) after time $2; sets
# EVENT_AT to its time. Gives up after $3 seconds (returns 1).
wait_event() { # regex after timeout
    local deadline line
    deadline=$(awk -v n="$(now)" -v t="$3" 'BEGIN { printf "%.3f", n + t }')
    while awk -v n="$(now)" -v d="$deadline" 'BEGIN { exit !(n < d) }'; do
        line=$(awk -v after="$2" -v re="$1" '$1 >= after && $0 ~ re { print; exit }' "$session/events" 2>/dev/null || true)
        if [[ -n "$line" ]]; then
            EVENT_AT=${line%% *}
            return 0
        fi
        sleep 0.05
    done
    return 1
}

key() { # xdotool key names
    DISPLAY=$display xdotool windowfocus --sync "$window" key --clearmodifiers "$@"
}

# Starts the window on workspace $1 (a fresh copy of it); waits for the tables ($2) and history.
open_window() { # workspace tables
    session=$(mktemp -d "$dir/session.XXXX")
    : >"$session/events"
    : >"$session/phases"
    local start
    # The probe starts first and waits for the window's pid, so its own start (a Python process
    # at nice -10) does not compete with the window's for a core; it finds the window by its map.
    DISPLAY=$display "${instrument[@]}" python3 "$probe" probe "$session/app.pid" "$session/pings" &
    probe_pid=$!
    for _ in $(seq 200); do
        grep -q '^ready ' "$session/pings" 2>/dev/null && break
        sleep 0.05
    done
    start=$(now)
    DISPLAY=$display XDG_CONFIG_HOME=$session/config TIDEMARK_BENCH_EVENTS=$session/events \
        QT_QPA_PLATFORM=xcb "$gui" "$1" >"$session/app.log" 2>&1 &
    app_pid=$!
    echo "$app_pid" >"$session/app.pid.tmp" && mv "$session/app.pid.tmp" "$session/app.pid"
    (while [[ -e "/proc/$app_pid" ]]; do
        # Read by the shell itself (an awk per sample was one more process beside the window's
        # start); kept only when read whole: the process may be gone between the test and the read.
        hwm=
        while read -r key value _; do
            [[ "$key" == VmHWM: ]] && hwm=$value
        done <"/proc/$app_pid/status" 2>/dev/null || true
        [[ -n "$hwm" ]] && echo "$hwm" >"$session/rss"
        sleep 0.2
    done) &
    rss_pid=$!
    if ! wait_event "^[0-9.]+ tables $2\$" "$start" 300; then
        say "the window did not show $2 tables within 300 s (see $session)"
        exit 1
    fi
    local tables_at=$EVENT_AT
    wait_event "^[0-9.]+ history " "$start" 300 || true
    local history_at=$EVENT_AT
    sleep 1
    mark open "$start" "$(now)"
    echo "started $start" >>"$session/phases"
    echo "populated $tables_at" >>"$session/phases"
    echo "history $history_at" >>"$session/phases"
    window=$(DISPLAY=$display xdotool search --sync --pid "$app_pid" --onlyvisible --name Tidemark | head -n 1)
}

# F5 in the window; cancelled (Ctrl+Shift+X, Run › Cancel Run) after $run_seconds; until its
# reloads have come in. A run that would roll rows back asks first, and the question's default
# keeps it running: the bench answers Cancel Run (Tab from the default button, then Space).
run_in_window() {
    local start
    start=$(now)
    key F5
    wait_event "run-started" "$start" 60
    if ! wait_event "run-finished" "$start" "$run_seconds"; then
        say "run still going after $run_seconds s: Ctrl+Shift+X"
        key ctrl+shift+x
        # The question, when it comes, is answered once it has the focus (Tab from its default
        # button, then Space); answered again only if it is still there 5 s later, so a second
        # Space never lands on the window under it.
        local waited=0 answers=0 question
        while ((waited < 50 && answers < 2)); do
            question=$(DISPLAY=$display xdotool search --all --onlyvisible --pid "$app_pid" \
                --name "^Cancel run\$" 2>/dev/null | head -n 1 || true)
            if [[ -z "$question" ]]; then
                ((answers == 0)) || break # answered, and gone
            elif DISPLAY=$display xdotool windowfocus --sync "$question" 2>/dev/null &&
                [[ "$(DISPLAY=$display xdotool getwindowfocus)" == "$question" ]]; then
                ((answers > 0)) || say "the window asks before rows are rolled back: Cancel Run"
                DISPLAY=$display xdotool key --clearmodifiers Tab space
                answers=$((answers + 1))
                sleep 5
            fi
            sleep 0.1
            waited=$((waited + 1))
        done
        wait_event "run-finished" "$start" 300
        echo "cancelled 1" >>"$session/phases"
    fi
    wait_event "^[0-9.]+ history " "$EVENT_AT" 120 || true
    sleep 1
    mark run "$start" "$(now)"
}

# Waits up to $2 s for child $1 to end; then sends it SIG$3 and notes $4 in the phases.
end_within() { # pid seconds signal note
    local waited=0
    while kill -0 "$1" 2>/dev/null && ((waited < $2 * 10)); do
        sleep 0.1
        waited=$((waited + 1))
    done
    if kill -0 "$1" 2>/dev/null; then
        say "pid $1 still going after $2 s: SIG$3"
        kill "-$3" "$1"
        echo "$4 1" >>"$session/phases"
    fi
    wait "$1" || true
}

# A tidemark-cli run of the same workspace from another process, followed live by the window.
run_elsewhere() { # workspace
    local start cli_pid
    start=$(now)
    "$cli" -w "$1" run >"$session/cli-run.log" 2>&1 &
    cli_pid=$!
    end_within "$cli_pid" "$run_seconds" TERM cli-cancelled # SIGTERM cancels the run
    sleep 2 # the watcher's next look (500 ms) and the reads it starts
    mark follow "$start" "$(now)"
    if wait_event "followed [0-9]+ running" "$start" 0.1; then
        echo "followed-live 1" >>"$session/phases"
    fi
}

refresh() { # presses
    local start
    start=$(now)
    local last
    for ((i = 0; i < $1; i++)); do
        ((i == 0)) || sleep 0.1
        last=$(now)
        key ctrl+r
    done
    # The reply to the last press (older ones are dropped as superseded).
    wait_event "^[0-9.]+ history " "$last" 120 || true
    sleep 1
    mark "refresh$1" "$start" "$(now)"
}

quit_window() {
    local start
    # The probe sends the close (see xping.py) and notes when.
    kill -USR1 "$probe_pid"
    while ! start=$(awk '$1 == "close" { print $2; found = 1 } END { exit !found }' "$session/pings"); do
        sleep 0.01
    done
    end_within "$app_pid" "$quit_seconds" KILL quit-killed
    local end
    end=$(now)
    wait "$probe_pid" || true
    wait "$rss_pid" || true
    mark quit "$start" "$end"
    app_pid= probe_pid= rss_pid=
}

# One line of figures for the session: open times, the longest stall per phase (X ping; in
# brackets the window's own 10 ms timer, and of its lateness what the GUI thread did not spend
# waiting for a core), quit time, peak RSS.
summarize() { # label
    python3 - "$session" "$1" <<'PY'
import sys, os
session, label = sys.argv[1], sys.argv[2]
phases, marks = {}, {}
for line in open(os.path.join(session, 'phases')):
    parts = line.split()
    if len(parts) == 3:
        phases[parts[0]] = (float(parts[1]), float(parts[2]))
    else:
        marks[parts[0]] = float(parts[1])
pings = []  # (sent, replied)
shown = None
for line in open(os.path.join(session, 'pings')):
    kind, *rest = line.split()
    if kind == 'shown':
        shown = float(rest[0])
    elif kind in ('ping', 'unanswered'):
        sent, ms = float(rest[0]), float(rest[1])
        pings.append((sent, sent + ms / 1000))
late, own = [], []  # own: what of a late tick was not spent waiting for a core
for line in open(os.path.join(session, 'events')):
    parts = line.split()
    if len(parts) >= 3 and parts[1] == 'late':
        at, ms = float(parts[0]), float(parts[2])
        late.append((at - ms / 1000, at))
        if len(parts) == 5 and parts[3] == 'waited':
            own.append((at - ms / 1000, at - ms / 1000 + max(0.0, ms - float(parts[4])) / 1000))
def longest(spans, start, end):
    return max([b - a for a, b in spans if b >= start and a <= end] or [0]) * 1000
started = marks.get('started', phases.get('open', (0, 0))[0])
def cell(name):
    if name not in phases:
        return '-'
    a, b = phases[name]
    if not own:  # a session from before the window noted its waits
        return f'{longest(pings, a, b):.0f} ({longest(late, a, b):.0f})'
    return f'{longest(pings, a, b):.0f} ({longest(late, a, b):.0f}/{longest(own, a, b):.0f})'
rss_path = os.path.join(session, 'rss')
rss = (open(rss_path).read().strip() if os.path.exists(rss_path) else '') or '0'
quit_s = phases['quit'][1] - phases['quit'][0] if 'quit' in phases else 0
quit_cell = ('>' if 'quit-killed' in marks else '') + f'{quit_s:.2f}'
note = []
if 'cancelled' in marks: note.append('run cancelled')
if 'cli-cancelled' in marks: note.append('cli run cancelled')
if 'follow' in phases: note.append('followed live' if 'followed-live' in marks else 'NOT followed live')
print(f"{label:<14} {(shown - started) if shown else 0:7.2f} {marks.get('populated', 0) - started:8.2f} "
      f"{marks.get('history', started) - started:8.2f} {cell('open'):>13} {cell('run'):>13} {cell('follow'):>13} "
      f"{cell('refresh1'):>13} {cell('refresh5'):>13} {cell('quit'):>13} {quit_cell:>6} {int(rss) // 1024:6d}  "
      + ', '.join(note))
PY
}

header() {
    printf '%-14s %7s %8s %8s %13s %13s %13s %13s %13s %13s %6s %6s\n' "workspace" "shown" "tables" \
        "history" "open stall" "run stall" "follow stall" "refresh" "refresh x5" "quit stall" "quit" "RSS"
    printf '%-14s %7s %8s %8s %13s %13s %13s %13s %13s %13s %6s %6s\n' "" "s" "s" "s" "ms" "ms" "ms" "ms" "ms" \
        "ms" "s" "MB"
}

results=()
if [[ "$mode" == summary ]]; then
    # The figures of sessions already run (each a $BENCH_DIR/session.* directory).
    header
    for session in "${@:2}"; do
        summarize "$(awk '$2 == "tables" { print $3 " tables"; exit }' "$session/events")"
    done
    exit 0
fi
start_xvfb
export DISPLAY=$display
case "$mode" in
scale)
    for tables in $sizes; do
        base="$dir/scale-$tables-$runs"
        # A workspace built before is kept (building 10,000 tables takes minutes), but only at
        # this build's schema: an older one would be migrated by each session's window, and the
        # migration measured instead of the window.
        if [[ -f "$base.tidemark" ]]; then
            kept=$(schema_of "$base.tidemark") wanted=$(schema_of)
            if [[ "$kept" != "$wanted" ]]; then
                say "$base.tidemark has schema $kept, not $wanted: building it again"
                rm -f "$base.tidemark"
            fi
        fi
        if [[ ! -f "$base.tidemark" ]]; then
            say "building $tables tables, $runs runs x $per_run iterations in $base.tidemark"
            rm -f "$base-source.db"
            make_source "$base-source.db" "$tables" 1 1
            make_workspace "$base.tidemark" "$base-source.db" "$base-target.db" "$tables" "$runs"
            cp "$base-target.db" "$base-target.db.orig"
        fi
        work="$dir/work-$tables.tidemark"
        rm -f "$work" "$work"-wal "$work"-shm
        cp "$base.tidemark" "$work"
        cp "$base-target.db.orig" "$base-target.db"
        if [[ "$kind" == server ]]; then
            schema="window_scale_$tables"
            "$psql" -q -h 127.0.0.1 -p "$pg_port" -U tidemark tidemark \
                -c "DROP SCHEMA IF EXISTS $schema CASCADE" 2>/dev/null
            uri="postgresql://tidemark@127.0.0.1:$pg_port/tidemark?schema=$schema"
            say "$tables tables: workspace copy onto the server"
            copy_start=$(now)
            "$cli" -w "$work" workspace copy "$uri" >"$dir/copy-$tables.log" 2>&1
            say "$tables tables: copied in $(awk "BEGIN { printf \"%.1f\", $(now) - $copy_start }") s ($(tail -n 2 "$dir/copy-$tables.log" | head -n 1))"
            work=$uri
        fi
        # Written back before the window starts: otherwise its first file sync (the workspace's,
        # the settings') waits behind the copy's gigabyte, and the open measures the copy.
        sync
        say "$tables tables: opening the window"
        open_window "$work" "$tables"
        if [[ " $steps " == *" run "* ]]; then
            say "$tables tables: F5"
            run_in_window
        fi
        if [[ " $steps " == *" follow "* ]]; then
            say "$tables tables: a tidemark-cli run followed live"
            run_elsewhere "$work"
        fi
        if [[ " $steps " == *" refresh "* ]]; then
            say "$tables tables: refresh"
            refresh 1
            refresh 5
        fi
        say "$tables tables: quit"
        quit_window
        results+=("$(summarize "$tables tables")")
    done
    ;;
done)
    base="$dir/done"
    say "building 8 tables x $rows rows"
    rm -f "$base-source.db"
    make_source "$base-source.db" 8 "$rows" 1
    make_workspace "$base.tidemark" "$base-source.db" "$base-target.db" 8 0
    open_window "$base.tidemark" 8
    say "8 tables: F5"
    make_source "$base-source.db" 8 "$rows" 2
    run_in_window
    say "8 tables: a tidemark-cli run followed live"
    make_source "$base-source.db" 8 "$rows" 3
    run_elsewhere "$base.tidemark"
    quit_window
    results+=("$(summarize "8 tables")")
    ;;
*)
    echo "usage: bench/window_scale.sh [scale|done|summary SESSION...]" >&2
    exit 2
    ;;
esac

echo
if [[ "$mode" == done ]]; then
    shape="8 tables x $rows rows, no past runs"
else
    shape="$runs runs x $per_run iterations"
fi
if [[ "$kind" == server ]]; then
    shape="$shape, a server workspace (PostgreSQL on loopback)"
fi
echo "Tidemark $("$cli" --version 2>/dev/null | head -n 1), $(git -C "$root" rev-parse --short HEAD)," \
    "$shape, $(nproc) cores (load $(cut -d' ' -f1 /proc/loadavg)), Xvfb, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "stall = longest wait for a _NET_WM_PING reply (in brackets: the window's own 10 ms timer's lateness /"
echo "        of that, the longest not spent waiting for a core, i.e. the window's own work)"
header
printf '%s\n' "${results[@]}"
