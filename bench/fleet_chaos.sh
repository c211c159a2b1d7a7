#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Chaos on the runner fleet of one server workspace, on this machine (run by hand; not a test).
#
#   TIDEMARK_PG_PORT=<port> bench/fleet_chaos.sh      (scripts/pgcluster.sh start prints it)
#
# CHAOS_RUNNERS `serve --fleet --slots CHAOS_SLOTS` runners share one PostgreSQL workspace of
# CHAOS_TABLES tables, run by a schedule every 10 s (and now and then a `run --queue --no-wait` over
# a few tables), under `workspace set --max-concurrency 4` and a connection `capped` set to
# `--max-connections 2`. While new rows keep landing in the sources, runners are SIGKILLed
# (and restarted) or SIGSTOPped and SIGCONTed later, some after their runner row or their lease
# expired. Then the chaos stops, everyone is woken, the schedule goes, one `run --queue` lets the
# targets catch up (again, up to three in all, while one leaves an iteration that did not copy),
# the runners get SIGTERM, and the workspace's history and the targets are checked:
#
#   1 caps      the most iterations at once in history never exceeds the workspace's cap, nor
#               the capped connection's among the iterations that use it. Counted: iterations
#               with both times that ended, less those skipped at the lease (another run held
#               the table: they took no slot). Strict overlap: [started, finished), so one that
#               starts as another finishes does not overlap it;
#   2 exact     every target holds its source's ids, each once (no row lost, none doubled);
#   3 settled   no run and no iteration is left queued or running;
#   4 spread    the iterations ran on 2 runners or more.
#
# Prints the figures and PASS/FAIL per invariant; exits 1 when one fails. Beside them, figures
# that are no invariant: the leases table sampled every ~25 ms (the most live leases at once,
# leases written already expired, expired leases renewed: what the caps are decided on), and the
# runs closed before one of their iterations ended. Kept in CHAOS_LOGS: each runner's stderr
# (runner-SLOT.GENERATION.log, pids in runners.txt), the chaos (chaos.log; signals.csv with the
# times the signals were sent), the workspace's runs, iterations and iteration logs, the lease
# samples (CSV) and the final runs' JSON. The workspace schema, the sampler's schema, the
# databases and the SQLite files are removed at exit.
#
# Layout (T = CHAOS_TABLES, G = T / 5), every table `--tiebreak id` in append mode, every fifth
# one `--commit-per-batch --batch-size 25`:
#   tables 1..G       capped:sN -> dst:tN    the capped connection as their source
#   tables G+1..2G    srcA:sN   -> capped:tN the capped connection as their target
#   the others        srcA:sN or srcB:sN (odd, even) -> dst:tN
# srcA and srcB are SQLite files (WAL). With CHAOS_TARGETS=pg (the default) `capped` and `dst` are
# PostgreSQL databases, as bench/fleet.sh's targets; with CHAOS_TARGETS=sqlite `capped` is a
# SQLite file and `dst` is three files dst1..dst3 (by N % 3), each taking one writer at a time.
# A source row's watermark is derived from its id (2025-01-01 + id / 3 seconds, three rows a
# value), and one process inserts them in id order, so a row can never land behind a position
# that was already copied: a row missing in a target is the fleet's loss, not the source's.
#
# env: TIDEMARK_PG_PORT (required), TIDEMARK_CLI (build/app/tidemark-cli),
#      CHAOS_SECONDS (180), CHAOS_RUNNERS (4), CHAOS_SLOTS (2), CHAOS_TABLES (40),
#      CHAOS_ROWS (300 rows per table to begin with), CHAOS_TARGETS (pg | sqlite),
#      CHAOS_DELAY (TIDEMARK_FAULT_DELAY of the runners, before_write_transaction:300),
#      CHAOS_RUNNER_HEARTBEAT_MS (200), CHAOS_RUN_HEARTBEAT_MS (200), CHAOS_LEASE_TTL_MS (2000),
#      CHAOS_GAP_MS (2000-5000: between two chaos actions), CHAOS_EXTRA_RUN_SECONDS (30; 0: none),
#      CHAOS_SETTLE_SECONDS (300: the longest wait for the final run and for quiet),
#      CHAOS_SEED ($$), CHAOS_DIR (/tmp/tidemark-fleet-chaos), CHAOS_LOGS (CHAOS_DIR/logs).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
port=${TIDEMARK_PG_PORT:?set TIDEMARK_PG_PORT (scripts/pgcluster.sh start)}
psql=$(printf '%s\n' /usr/lib/postgresql/*/bin/psql | sort -V | tail -1)
seconds=${CHAOS_SECONDS:-180}
runner_count=${CHAOS_RUNNERS:-4}
slots=${CHAOS_SLOTS:-2}
tables=${CHAOS_TABLES:-40}
rows=${CHAOS_ROWS:-300}
targets=${CHAOS_TARGETS:-pg}
delay=${CHAOS_DELAY:-before_write_transaction:300}
runner_beat_ms=${CHAOS_RUNNER_HEARTBEAT_MS:-200}
run_beat_ms=${CHAOS_RUN_HEARTBEAT_MS:-200}
lease_ttl_ms=${CHAOS_LEASE_TTL_MS:-2000}
gap_ms=${CHAOS_GAP_MS:-2000-5000}
extra_every=${CHAOS_EXTRA_RUN_SECONDS:-30}
settle=${CHAOS_SETTLE_SECONDS:-300}
seed=${CHAOS_SEED:-$$}
dir=${CHAOS_DIR:-/tmp/tidemark-fleet-chaos}
logs=${CHAOS_LOGS:-$dir/logs}
max_concurrency=4
max_connections=2

[[ -x $cli ]] || { echo "fleet_chaos: $cli is not an executable (set TIDEMARK_CLI)" >&2; exit 2; }
[[ $targets == pg || $targets == sqlite ]] || { echo "fleet_chaos: CHAOS_TARGETS is pg or sqlite" >&2; exit 2; }
((runner_count >= 2 && tables >= 10)) || { echo "fleet_chaos: 2 runners and 10 tables at least" >&2; exit 2; }
RANDOM=$seed

data=$dir/data
rm -rf "$data"
mkdir -p "$data" "$logs"
rm -f "$logs"/runner-*.log "$logs"/chaos.log "$logs"/*.csv "$logs"/*.txt "$logs"/*.json

schema="chaos_$$"
dst_db="chaos_$$_dst"
capped_db="chaos_$$_capped"
ws="postgresql://tidemark@127.0.0.1:$port/tidemark?schema=$schema"
databases=()
probe="chaos_$$_probe" # the lease sampler's schema, beside the workspace's
all_pids=()      # every runner process this script started, live or not
inserter_pid=""
sampler_pid=""

pg() { "$psql" -q -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U tidemark "$@"; }
# One statement on the workspace's schema, unaligned and without headers.
wsq() { pg -At tidemark -c "SET search_path TO $schema" -c "$1"; }
wscsv() { pg --csv tidemark -c "SET search_path TO $schema" -c "$1"; }

cleanup() {
    local pid
    set +e
    [[ -n $inserter_pid ]] && kill "$inserter_pid" 2>/dev/null
    # A stopped process takes SIGKILL too; SIGCONT first all the same, so nothing lingers frozen.
    for pid in "${all_pids[@]}"; do kill -CONT "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null; done
    # The sampler's transaction holds locks on both schemas: ended first, or the drops would wait.
    pg tidemark -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$probe'" >/dev/null
    wait 2>/dev/null
    pg tidemark -c "SET client_min_messages TO warning" -c "DROP SCHEMA IF EXISTS $schema CASCADE" \
        -c "DROP SCHEMA IF EXISTS $probe CASCADE" >/dev/null
    for database in "${databases[@]}"; do
        pg tidemark -c "DROP DATABASE IF EXISTS $database WITH (FORCE)" >/dev/null
    done
    rm -rf "$data"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# now: milliseconds since the epoch, set without a subshell (the chaos loop asks often).
now=0
tick() { now=$((${EPOCHREALTIME//[.,]/} / 1000)); }
# A random integer in "LO-HI".
between() { local lo=${1%-*} hi=${1#*-}; echo $((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1))); }
stamp() { date -u +%H:%M:%S.%3N; }
chaos_log() { echo "$(stamp) $*" >>"$logs/chaos.log"; }
figure() { printf '  %-30s %s\n' "$1" "$2"; }

# --- where each table reads and writes ---------------------------------------------------------

group=$((tables / 5))
declare -a src_conn tgt_conn
for ((n = 1; n <= tables; n++)); do
    if ((n <= group)); then
        src_conn[n]=capped
    elif ((n % 2)); then
        src_conn[n]=srcA
    else
        src_conn[n]=srcB
    fi
    if ((n > group && n <= 2 * group)); then
        tgt_conn[n]=capped
    elif [[ $targets == pg ]]; then
        tgt_conn[n]=dst
    else
        tgt_conn[n]=dst$((n % 3 + 1))
    fi
done

# A connection's SQLite file, or nothing for a PostgreSQL one.
sqlite_file() { # conn
    case $1 in
    srcA | srcB | dst[123]) echo "$data/$1.db" ;;
    capped) if [[ $targets == sqlite ]]; then echo "$data/capped.db"; fi ;;
    esac
}
pg_database() { # conn
    case $1 in
    capped) echo "$capped_db" ;;
    dst) echo "$dst_db" ;;
    esac
}
# SQL on a connection's database; a SQLite writer waits up to 10 s for the file's write lock.
sql_on() { # conn sql
    local file
    file=$(sqlite_file "$1")
    if [[ -n $file ]]; then
        sqlite3 -bail -cmd ".timeout 10000" "$file" "$2"
    else
        pg -At "$(pg_database "$1")" -c "$2"
    fi
}
# The SQL that adds `count` rows to source table sN, ids and watermarks after its last one.
insert_sql() { # conn n count
    if [[ -n $(sqlite_file "$1") ]]; then
        echo "INSERT INTO s$2 (id, updated_at, v) WITH RECURSIVE c(k) AS (SELECT 1 UNION ALL SELECT k + 1
FROM c WHERE k < $3), m(b) AS (SELECT coalesce(max(id), 0) FROM s$2) SELECT b + k,
strftime('%Y-%m-%dT%H:%M:%SZ', '2025-01-01', '+' || ((b + k) / 3) || ' seconds'), 'r' || (b + k) FROM c, m;"
    else
        echo "INSERT INTO s$2 (id, updated_at, v) SELECT b + k, timestamptz '2025-01-01 00:00:00+00' +
((b + k) / 3) * interval '1 second', 'r' || (b + k) FROM (SELECT coalesce(max(id), 0) AS b FROM s$2) m,
generate_series(1, $3) AS k;"
    fi
}

# --- the databases, the sources and the workspace ----------------------------------------------

if [[ $targets == pg ]]; then
    connections=(srcA srcB capped dst)
    for database in "$dst_db" "$capped_db"; do
        databases+=("$database")
        pg tidemark -c "CREATE DATABASE $database" >/dev/null
    done
else
    connections=(srcA srcB capped dst1 dst2 dst3)
fi
# The source files in WAL mode: the inserter writes while the runners read.
for conn in srcA srcB capped; do
    file=$(sqlite_file "$conn")
    [[ -z $file ]] || sqlite3 "$file" "PRAGMA journal_mode=WAL;" >/dev/null
done
for ((n = 1; n <= tables; n++)); do
    if [[ -n $(sqlite_file "${src_conn[n]}") ]]; then
        sql_on "${src_conn[n]}" "CREATE TABLE s$n (id INTEGER PRIMARY KEY, updated_at TEXT NOT NULL, v TEXT);
$(insert_sql "${src_conn[n]}" "$n" "$rows")"
    else
        sql_on "${src_conn[n]}" "CREATE TABLE s$n (id bigint PRIMARY KEY, updated_at timestamptz NOT NULL, v text);
$(insert_sql "${src_conn[n]}" "$n" "$rows")" >/dev/null
    fi
done

"$cli" -w "$ws" init >/dev/null
for conn in "${connections[@]}"; do
    file=$(sqlite_file "$conn")
    if [[ -n $file ]]; then
        "$cli" -w "$ws" connection add "$conn" --sqlite "$file" >/dev/null
    else
        "$cli" -w "$ws" connection add "$conn" --postgres \
            "postgresql://tidemark@127.0.0.1:$port/$(pg_database "$conn")" >/dev/null
    fi
done
declare -a table_id
for ((n = 1; n <= tables; n++)); do
    extra=()
    ((n % 5 == 0)) && extra=(--commit-per-batch --batch-size 25)
    table_id[n]=$("$cli" -w "$ws" table add --source "${src_conn[n]}:s$n" --target "${tgt_conn[n]}:t$n" \
        --watermark updated_at --watermark-type timestamp --tiebreak id "${extra[@]}")
done
"$cli" -w "$ws" workspace set --max-concurrency "$max_concurrency" >/dev/null
"$cli" -w "$ws" connection set capped --max-connections "$max_connections" >/dev/null

# --- the runners -------------------------------------------------------------------------------

# Per runner slot: its process, how many it had, up / stopped / dead, when to SIGCONT or restart.
declare -a pid_of gen_of state_of wake_at restart_at
kills=0 stops=0 conts=0 restarts=0 extra_runs=0
stops_short=0 stops_runner_expired=0 stops_lease_edge=0 stops_lease_expired=0

start_runner() { # slot
    local slot=$1
    gen_of[slot]=$((${gen_of[slot]:-0} + 1))
    local log="$logs/runner-$slot.${gen_of[slot]}.log"
    env -u TIDEMARK_WORKSPACE \
        TIDEMARK_TEST_RUNNER_HEARTBEAT_MS="$runner_beat_ms" \
        TIDEMARK_TEST_RUN_HEARTBEAT_MS="$run_beat_ms" \
        TIDEMARK_TEST_LEASE_TTL_MS="$lease_ttl_ms" \
        TIDEMARK_FAULT_DELAY="$delay" \
        "$cli" -w "$ws" serve --fleet --slots "$slots" 2>"$log" &
    pid_of[slot]=$!
    all_pids+=($!)
    state_of[slot]=up
    echo "runner $slot.${gen_of[slot]} pid ${pid_of[slot]} $(hostname):${pid_of[slot]} log $log" >>"$logs/runners.txt"
    chaos_log "start runner $slot.${gen_of[slot]} pid ${pid_of[slot]}"
}

for ((slot = 0; slot < runner_count; slot++)); do start_runner "$slot"; done
# Every runner listed as taking work before the schedule is added, as bench/fleet.sh waits.
for ((waited = 0; ; waited++)); do
    workers=$(wsq "SELECT count(*) FROM fleet_runners WHERE expires_at::timestamptz > now()" 2>/dev/null || echo 0)
    ((workers >= runner_count)) && break
    ((waited < 300)) || { echo "fleet_chaos: the runners did not start (see $logs)" >&2; exit 1; }
    sleep 0.2
done

# The queued run's JSON id, from `run --queue --json` or `--no-wait`'s "run N queued ...".
run_id_of() { grep -o '"run_id": *[0-9]*\|^run [0-9]*' | head -1 | grep -o '[0-9]*$' || true; }

"$cli" -w "$ws" schedule add chaos --cron '*/10 * * * * *' --concurrency "$max_concurrency" >/dev/null
chaos_log "schedule chaos added: every 10 s over every table"

# --- new rows, all along the chaos ---------------------------------------------------------------

# Every ~0.5 s a quarter of the tables get 1 to 8 rows, one transaction per source database. A
# failed insert (a SQLite source file's lock held by a frozen runner) is logged and retried later;
# the comparison reads the sources at the end, so only what landed counts.
insert_rows() {
    local inserted=0 conn n count batch statements
    RANDOM=$((seed + 1))
    while [[ ! -e $data/stop-inserting ]]; do
        for conn in srcA srcB capped; do
            statements="" batch=0
            for ((n = 1; n <= tables; n++)); do
                if [[ ${src_conn[n]} != "$conn" ]] || ((RANDOM % 4)); then continue; fi
                count=$((1 + RANDOM % 8))
                statements+=$(insert_sql "$conn" "$n" "$count")$'\n'
                batch=$((batch + count))
            done
            [[ -n $statements ]] || continue
            if [[ -n $(sqlite_file "$conn") ]]; then
                statements="BEGIN IMMEDIATE;"$'\n'"$statements COMMIT;"
            else
                statements="BEGIN; $statements COMMIT;"
            fi
            if sql_on "$conn" "$statements" >/dev/null 2>>"$logs/inserter.log"; then
                inserted=$((inserted + batch))
            else
                echo "$(stamp) insert into $conn failed" >>"$logs/inserter.log"
            fi
        done
        sleep 0.5
    done
    echo "$inserted" >"$data/inserted"
}
insert_rows &
inserter_pid=$!

# --- the leases, sampled ---------------------------------------------------------------------------

# History keeps one attempt per iteration, the last; a runner frozen and woken, or replaced, may
# have copied meanwhile without a trace there. The caps are decided on the leases table (a lease
# counts while unexpired and its process is alive: LeaseStore::fullCap), so a loop in the server
# samples every lease row every ~25 ms, each sample in a statement of its own (READ COMMITTED:
# the latest commits). Each SIGKILL is recorded just before it is sent: from then on that
# runner's leases count no more, as fullCap would see them (a few ms early: the figure can only
# be lower). Figures beside the invariants, not among them.
pg tidemark -c "CREATE SCHEMA $probe" -c "CREATE TABLE $probe.ticks (at timestamptz);
CREATE TABLE $probe.leases (at timestamptz, table_id bigint, pid bigint, token bigint, acquired_at timestamptz,
    expires_at timestamptz, capped boolean);
CREATE TABLE $probe.events (at timestamptz DEFAULT clock_timestamp(), kind text, pid bigint);
CREATE TABLE $probe.stop (x int)" >/dev/null
# A signal, at the time it was sent by this shell's clock (the insert may come later).
event() { # kind pid epoch-seconds
    pg tidemark -c "INSERT INTO $probe.events VALUES (to_timestamp($3), '$1', $2)" >/dev/null || true
}
PGAPPNAME=$probe pg tidemark -c "DO \$\$ DECLARE t timestamptz;
    deadline timestamptz := clock_timestamp() + interval '$((seconds + 3 * settle + 300)) seconds';
BEGIN
    LOOP
        EXIT WHEN clock_timestamp() > deadline OR EXISTS (SELECT 1 FROM $probe.stop);
        t := clock_timestamp();
        INSERT INTO $probe.ticks VALUES (t);
        INSERT INTO $probe.leases SELECT t, l.table_id, l.pid, l.token, l.acquired_at::timestamptz,
            l.expires_at::timestamptz, (c.source_connection = 'capped' OR c.target_connection = 'capped')
            FROM $schema.leases l JOIN $schema.tables c ON c.id = l.table_id WHERE l.run_id <> 0;
        PERFORM pg_sleep(0.025);
    END LOOP;
END \$\$" >/dev/null 2>>"$logs/sampler.log" &
sampler_pid=$!

# --- the chaos ---------------------------------------------------------------------------------

runner_ttl_ms=$((runner_beat_ms * 4))
slots_in() { # state: the runner slots in that state
    local slot out=()
    for ((slot = 0; slot < runner_count; slot++)); do [[ ${state_of[slot]} == "$1" ]] && out+=("$slot"); done
    echo "${out[@]}"
}
# A runner to hit: one running an iteration now if there is one (so the copy path sees the
# signal), else any runner up.
pick_victim() {
    local busy slot candidates=() up
    up=$(slots_in up)
    busy=$(wsq "SELECT DISTINCT runner FROM iterations WHERE status = 'running'" 2>/dev/null || true)
    for slot in $up; do
        grep -q ":${pid_of[slot]}\$" <<<"$busy" && candidates+=("$slot")
    done
    ((${#candidates[@]})) || read -ra candidates <<<"$up"
    echo "${candidates[RANDOM % ${#candidates[@]}]}"
}

echo "fleet chaos: $runner_count runners x $slots slots, $tables tables ($targets targets), ${seconds}s," \
    "delay $delay, seed $seed, logs $logs"
tick
chaos_end=$((now + seconds * 1000))
next_action=$((now + $(between "$gap_ms")))
next_extra=$((extra_every > 0 ? now + extra_every * 1000 : chaos_end + 1))
while ((now < chaos_end)); do
    for ((slot = 0; slot < runner_count; slot++)); do
        if [[ ${state_of[slot]} == stopped ]] && ((now >= wake_at[slot])); then
            kill -CONT "${pid_of[slot]}" 2>/dev/null || true
            event cont "${pid_of[slot]}" "$EPOCHREALTIME"
            state_of[slot]=up
            conts=$((conts + 1))
            chaos_log "SIGCONT runner $slot.${gen_of[slot]} pid ${pid_of[slot]}"
        elif [[ ${state_of[slot]} == dead ]] && ((now >= restart_at[slot])); then
            start_runner "$slot"
            restarts=$((restarts + 1))
        fi
    done
    if ((now >= next_action)); then
        read -ra up <<<"$(slots_in up)"
        read -ra dead <<<"$(slots_in dead)"
        read -ra stopped <<<"$(slots_in stopped)"
        roll=$((RANDOM % 100))
        # A SIGKILL only while every process is there (so 3 of 4 stay up), a SIGSTOP only while
        # another runner is up to take over, never more than two frozen at once.
        if ((roll < 35 && ${#dead[@]} == 0 && ${#up[@]} >= 2)); then
            slot=$(pick_victim)
            event kill "${pid_of[slot]}" "$EPOCHREALTIME"
            kill -KILL "${pid_of[slot]}" 2>/dev/null || true
            wait "${pid_of[slot]}" 2>/dev/null || true # reaped: a zombie's pid would still look alive
            tick
            state_of[slot]=dead
            restart_at[slot]=$((now + $(between 500-3000)))
            kills=$((kills + 1))
            chaos_log "SIGKILL runner $slot.${gen_of[slot]} pid ${pid_of[slot]}"
        elif ((roll < 80 && ${#up[@]} >= 2 && ${#stopped[@]} < 2)); then
            slot=$(pick_victim)
            # Four lengths, in turn so each gets its share: back before its runner row expires;
            # after that but before its leases do (its iterations wait for them); around the
            # leases' expiry (it may wake before another runner took its tables over, and renew);
            # well after (taken over: it wakes to find itself fenced out).
            case $((stops % 4)) in
            0) frozen=$(between "200-$((runner_ttl_ms - 200))") kind=short stops_short=$((stops_short + 1)) ;;
            1) frozen=$(between "$((runner_ttl_ms + 300))-$((lease_ttl_ms * 2 / 3))") kind=runner-expired
               stops_runner_expired=$((stops_runner_expired + 1)) ;;
            2) frozen=$(between "$((lease_ttl_ms - 200))-$((lease_ttl_ms + 800))") kind=lease-edge
               stops_lease_edge=$((stops_lease_edge + 1)) ;;
            *) frozen=$(between "$((lease_ttl_ms + 800))-$((lease_ttl_ms * 3))") kind=lease-expired
               stops_lease_expired=$((stops_lease_expired + 1)) ;;
            esac
            kill -STOP "${pid_of[slot]}" 2>/dev/null || true
            sent=$EPOCHREALTIME
            tick # from the signal on: picking the victim took a query
            event stop "${pid_of[slot]}" "$sent"
            state_of[slot]=stopped
            wake_at[slot]=$((now + frozen))
            stops=$((stops + 1))
            chaos_log "SIGSTOP runner $slot.${gen_of[slot]} pid ${pid_of[slot]} for ${frozen} ms ($kind)"
        fi
        tick
        next_action=$((now + $(between "$gap_ms")))
    fi
    if ((now >= next_extra)); then
        # A second run over a few tables, beside the schedule's: two runs want the same tables.
        picked=()
        for ((n = 1; n <= tables; n++)); do ((RANDOM % 4 == 0)) && picked+=(--table "${table_id[n]}"); done
        ((${#picked[@]})) || picked=(--table "${table_id[1]}")
        queued_run=$("$cli" -w "$ws" run --queue --no-wait "${picked[@]}" 2>>"$logs/cli.log" | run_id_of) || true
        extra_runs=$((extra_runs + 1))
        chaos_log "run --queue --no-wait over $((${#picked[@]} / 2)) tables: run ${queued_run:-?}"
        next_extra=$((now + extra_every * 1000))
    fi
    sleep 0.2
    tick
done

# --- the end: no more rows, everyone awake, no schedule, one run to catch up ----------------------

touch "$data/stop-inserting"
wait "$inserter_pid" || true
inserter_pid=""
inserted=$(cat "$data/inserted" 2>/dev/null || echo "?")
for ((slot = 0; slot < runner_count; slot++)); do
    case ${state_of[slot]} in
    stopped)
        kill -CONT "${pid_of[slot]}" 2>/dev/null || true
        event cont "${pid_of[slot]}" "$EPOCHREALTIME"
        state_of[slot]=up
        conts=$((conts + 1))
        chaos_log "SIGCONT runner $slot.${gen_of[slot]} pid ${pid_of[slot]} (the chaos ends)"
        ;;
    dead)
        start_runner "$slot"
        restarts=$((restarts + 1))
        ;;
    esac
done
"$cli" -w "$ws" schedule remove chaos >/dev/null
chaos_log "chaos over: schedule removed, final run --queue"

# Waits until no run and no iteration is queued or running (or the settle time passed).
open_count() {
    wsq "SELECT (SELECT count(*) FROM runs WHERE status IN ('queued', 'running')) +
                (SELECT count(*) FROM iterations WHERE status IN ('queued', 'running'))"
}
wait_quiet() {
    local deadline=$((SECONDS + settle))
    while (($(open_count) > 0 && SECONDS < deadline)); do sleep 1; done
}

# The final run, and a further one while the last left an iteration that did not copy (skipped:
# a woken runner's lease still held a table; failed), at most three in all. Each one's result is
# printed: a target behind its source after a clean final run is a lost row, not a late one.
final_runs=()
final_note=""
for attempt in 1 2 3; do
    final_rc=0
    timeout "$settle" "$cli" -w "$ws" run --queue --json >"$logs/final-run-$attempt.json" 2>>"$logs/cli.log" ||
        final_rc=$?
    final_id=$(run_id_of <"$logs/final-run-$attempt.json")
    wait_quiet
    if [[ -z $final_id ]]; then
        final_runs+=("attempt $attempt: no run id (exit $final_rc)")
        break
    fi
    not_ok=$(wsq "SELECT count(*) FROM iterations WHERE run_id = $final_id AND status NOT IN
        ('succeeded', 'no_new_rows', 'warning')")
    statuses=$(wsq "SELECT string_agg(status || ' ' || c, ', ' ORDER BY status) FROM (SELECT status, count(*) c
        FROM iterations WHERE run_id = $final_id GROUP BY status) s")
    final_runs+=("run $final_id exit $final_rc: $statuses")
    ((not_ok > 0)) || break
    final_note=" (the final run left $not_ok iteration(s) that did not copy: run again)"
done

# SIGTERM: each runner hands back what it holds and exits 0.
runner_exits=()
for ((slot = 0; slot < runner_count; slot++)); do kill -TERM "${pid_of[slot]}" 2>/dev/null || true; done
for ((slot = 0; slot < runner_count; slot++)); do
    pid=${pid_of[slot]}
    # kill -0 holds for a zombie too; /proc/PID/stat's state says whether it has exited.
    for ((waited = 0; waited < 600; waited++)); do
        [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo Z) == Z ]] && break
        sleep 0.1
    done
    killed=""
    if ((waited == 600)); then
        kill -KILL "$pid" 2>/dev/null || true
        killed=" (still there 60 s after SIGTERM: SIGKILL)"
    fi
    rc=0
    wait "$pid" 2>/dev/null || rc=$?
    runner_exits+=("$slot.${gen_of[slot]}=$rc$killed")
done
chaos_log "runners stopped: ${runner_exits[*]}"
pg tidemark -c "INSERT INTO $probe.stop VALUES (1)" >/dev/null
wait "$sampler_pid" || true
sampler_pid=""

# --- the record, for the evidence ---------------------------------------------------------------

wscsv "SELECT * FROM runs ORDER BY id" >"$logs/runs.csv"
wscsv "SELECT * FROM iterations ORDER BY id" >"$logs/iterations.csv"
wscsv "SELECT * FROM iteration_logs ORDER BY id" >"$logs/iteration_logs.csv"
pg --csv tidemark -c "SELECT * FROM $probe.leases ORDER BY at, table_id" >"$logs/lease_samples.csv"
pg --csv tidemark -c "SELECT * FROM $probe.events ORDER BY at" >"$logs/signals.csv"

# --- figures -------------------------------------------------------------------------------------

failures=0
verdict() { # name PASS|FAIL detail
    printf '%-4s %-10s %s\n' "$2" "$1" "$3"
    [[ $2 == PASS ]] || failures=$((failures + 1))
}

echo
echo "figures"
figure "chaos" "$kills SIGKILL, $stops SIGSTOP ($stops_short short, $stops_runner_expired past the runner row, \
$stops_lease_edge around the lease's expiry, $stops_lease_expired past it), $conts SIGCONT, $restarts restarts"
figure "rows inserted during chaos" "$inserted (besides $((rows * tables)) to begin with)"
figure "runs" "$(wsq "SELECT sum(c) || ' (' || string_agg(k || ' ' || c, ', ' ORDER BY k) || ')' FROM
    (SELECT CASE WHEN coalesce(schedule, '') <> '' THEN 'schedule' ELSE \"trigger\" END || ' ' || status AS k,
    count(*) c FROM runs GROUP BY 1) s")"
figure "extra run --queue --no-wait" "$extra_runs"
figure "final run(s)" "$(IFS=';'; echo "${final_runs[*]}")$final_note"
figure "iterations by status" "$(wsq "SELECT string_agg(status || ' ' || c, ', ' ORDER BY c DESC) FROM
    (SELECT status, count(*) c FROM iterations GROUP BY status) s")"
while IFS='|' read -r runner count statuses; do
    label=$(awk -v pid="${runner##*:}" '$4 == pid { print $2 }' "$logs/runners.txt")
    figure "  runner ${label:-?} $runner" "$count iterations ($statuses)"
done < <(wsq "SELECT runner, sum(c), string_agg(status || ' ' || c, ', ' ORDER BY c DESC) FROM
    (SELECT runner, status, count(*) c, min(id) AS first FROM iterations WHERE runner <> '' GROUP BY runner, status) s
    GROUP BY runner ORDER BY min(first)")
figure "put back in the queue" "$(wsq "SELECT count(*) FROM iteration_logs WHERE message LIKE 'back in the queue%'") log line(s)"
figure "lease taken over" "$(wsq "SELECT count(*) FROM iteration_logs WHERE message LIKE 'took over the lease%'") log line(s)"
figure "skipped: leased by a live run" "$(wsq "SELECT count(*) FROM iterations WHERE status = 'skipped' AND error LIKE '%is leased by run%'")"
figure "skipped: lease taken over" "$(wsq "SELECT count(*) FROM iterations WHERE status = 'skipped' AND error LIKE '%taken over%'")"
figure "runners' exit codes" "${runner_exits[*]}"
# A queued run is closed by whoever ends its last iteration; one closed while an iteration of it
# still ran (a woken runner closing an attempt that was put back and claimed again) shows here.
early=$(wsq "SELECT count(*) FROM runs r WHERE r.finished_at IS NOT NULL AND EXISTS (SELECT 1 FROM iterations i
    WHERE i.run_id = r.id AND i.finished_at::timestamptz > r.finished_at::timestamptz)")
figure "runs closed before an iteration" "$early (a figure)"
if ((early > 0)); then
    wsq "SELECT '    run ' || r.id || ' closed ' || r.status || ' at ' || r.finished_at || '; iteration ' || i.id ||
        ' (table ' || i.table_id || ', ' || i.runner || ') ran ' || i.started_at || ' .. ' || i.finished_at
        FROM runs r JOIN iterations i ON i.run_id = r.id
        WHERE i.finished_at::timestamptz > r.finished_at::timestamptz ORDER BY r.id, i.id LIMIT 20"
fi
failed=$(wsq "SELECT count(*) FROM iterations WHERE status = 'failed'")
figure "failed iterations" "$failed"
if ((failed > 0)); then
    wsq "SELECT '    ' || c || ' x ' || e FROM (SELECT left(regexp_replace(error, '\d+', 'N', 'g'), 200) e, count(*) c
        FROM iterations WHERE status = 'failed' GROUP BY 1 ORDER BY 2 DESC) s"
    wsq "SELECT '    iteration ' || id || ' run ' || run_id || ' table ' || table_id || ' on ' || runner || ': ' ||
        left(error, 300) FROM iterations WHERE status = 'failed' ORDER BY id LIMIT 20"
fi

# --- invariants -----------------------------------------------------------------------------------

echo
echo "invariants"

# 1. Caps. Iterations that held a slot: both times recorded and ended, less the ones that ended
# skipped at the lease (another run held the table: they took no slot, though their record has
# times). Strict overlap: spans are [started, finished); one that starts when another finishes
# does not overlap it (ends sort before starts at the same instant).
ran="SELECT i.id, i.run_id, i.table_id, i.runner, i.status, i.started_at::timestamptz AS s,
        i.finished_at::timestamptz AS f, (t.source_connection = 'capped' OR t.target_connection = 'capped') AS capped
    FROM iterations i JOIN tables t ON t.id = i.table_id
    WHERE i.started_at IS NOT NULL AND i.finished_at IS NOT NULL AND i.status NOT IN ('queued', 'running')
      AND NOT (i.status = 'skipped' AND coalesce(i.error, '') LIKE '%is leased by run%')"
most_at_once() { # filter partition -> the most at once, and the first instant it happens
    wsq "WITH ran AS ($ran), ev AS (SELECT s AS t, 1 AS d, runner FROM ran WHERE $1
        UNION ALL SELECT f, -1, runner FROM ran WHERE $1),
        c AS (SELECT t, sum(d) OVER (${2:+PARTITION BY $2} ORDER BY t, d ROWS UNBOUNDED PRECEDING) AS n FROM ev)
        SELECT coalesce(max(n), 0) || '|' || coalesce((SELECT min(t) FROM c WHERE n = (SELECT max(n) FROM c))::text, '')
        FROM c"
}
open_at() { # filter instant: the iterations running at that instant
    wsq "WITH ran AS ($ran) SELECT '    iteration ' || id || ' run ' || run_id || ' table ' || table_id || ' ' ||
        status || ' on ' || runner || ': ' || s || ' .. ' || f FROM ran WHERE $1 AND s <= '$2' AND f > '$2' ORDER BY s"
}
IFS='|' read -r all_most all_when <<<"$(most_at_once true '')"
IFS='|' read -r capped_most capped_when <<<"$(most_at_once capped '')"
IFS='|' read -r runner_most _ <<<"$(most_at_once true runner)"
counted=$(wsq "WITH ran AS ($ran) SELECT count(*) || ' (' || count(*) FILTER (WHERE capped) || ' using capped)' FROM ran")
all_strict=$(wsq "WITH ran AS (SELECT started_at::timestamptz s, finished_at::timestamptz f FROM iterations
        WHERE started_at IS NOT NULL AND finished_at IS NOT NULL AND status NOT IN ('queued', 'running')),
    ev AS (SELECT s t, 1 d FROM ran UNION ALL SELECT f, -1 FROM ran)
    SELECT coalesce(max(n), 0) FROM (SELECT sum(d) OVER (ORDER BY t, d ROWS UNBOUNDED PRECEDING) n FROM ev) c")
figure "iterations counted" "$counted"
figure "most at once (all)" "$all_most (cap $max_concurrency)${all_when:+ at $all_when}"
figure "most at once (capped)" "$capped_most (cap $max_connections)${capped_when:+ at $capped_when}"
figure "most at once on one runner" "$runner_most (--slots $slots; a figure, not an invariant)"
figure "most at once, lease-skips too" "$all_strict (every iteration with both times; a figure)"
# The leases as fullCap counts them, from the sampler (a figure: see "the leases, sampled").
live="SELECT s.* FROM $probe.leases s WHERE s.expires_at > s.at AND NOT EXISTS (SELECT 1 FROM $probe.events e
    WHERE e.kind = 'kill' AND e.pid = s.pid AND e.at <= s.at)"
IFS='|' read -r lease_most lease_capped_most samples <<<"$(pg -At tidemark -c "WITH live AS ($live),
    per AS (SELECT at, count(*) n, count(*) FILTER (WHERE capped) nc FROM live GROUP BY at)
    SELECT coalesce(max(n), 0), coalesce(max(nc), 0), (SELECT count(*) FROM $probe.ticks) FROM per")"
figure "most live leases at once" "$lease_most (cap $max_concurrency), $lease_capped_most using capped (cap $max_connections), \
in $samples samples ~25 ms apart (a figure)"
leases_at() { # filter: the first sample with the most leases matching it, its leases, the signals around
    pg -At tidemark -c "WITH live AS ($live), per AS (SELECT at, count(*) n FROM live WHERE $1 GROUP BY at),
        first AS (SELECT min(at) AS at FROM per WHERE n = (SELECT max(n) FROM per))
        SELECT text FROM (SELECT l.at, '    ' || l.at || ' sampled: table ' || l.table_id || ' leased by pid ' ||
            l.pid AS text FROM live l, first WHERE l.at = first.at AND $1
        UNION ALL SELECT e.at, '    ' || e.at || ' ' || e.kind || ' pid ' || e.pid FROM $probe.events e, first
        WHERE e.at BETWEEN first.at - interval '4 s' AND first.at + interval '1 s') x ORDER BY at, text"
}
((lease_most > max_concurrency)) && { echo "  the leases over the workspace's cap:"; leases_at true; }
((lease_capped_most > max_connections)) && { echo "  the leases over capped's cap:"; leases_at capped; }
# Two ways a lease misleads the caps, each lease known by its token: written already expired (its
# taker waited for the caps' lock longer than the lease lives), so it counts for no cap until its
# first renewal; seen expired and later live again (its holder woke and renewed it).
born_expired=$(pg -At tidemark -c "WITH first AS (SELECT DISTINCT ON (token) * FROM $probe.leases ORDER BY token, at)
    SELECT count(*) || coalesce(': ' || string_agg('table ' || table_id || ' pid ' || pid || ' acquired ' ||
        to_char(acquired_at, 'HH24:MI:SS.MS') || ' expiring ' || to_char(expires_at, 'HH24:MI:SS.MS') ||
        ' first seen ' || to_char(at, 'HH24:MI:SS.MS'), '; ' ORDER BY at), '')
    FROM first WHERE expires_at <= at")
revived=$(pg -At tidemark -c "WITH dead AS (SELECT token, min(at) AS at FROM $probe.leases WHERE expires_at <= at
        GROUP BY token), back AS (SELECT DISTINCT ON (l.token) l.* FROM $probe.leases l JOIN dead d ON d.token = l.token
        AND l.at > d.at AND l.expires_at > l.at ORDER BY l.token, l.at)
    SELECT count(*) || coalesce(': ' || string_agg('table ' || table_id || ' pid ' || pid || ' live again at ' ||
        to_char(at, 'HH24:MI:SS.MS'), '; ' ORDER BY at), '') FROM back")
figure "leases written already expired" "$born_expired"
figure "expired leases renewed" "$revived"
if ((all_most <= max_concurrency && capped_most <= max_connections)); then
    verdict caps PASS "at most $all_most at once (cap $max_concurrency), $capped_most using capped (cap $max_connections)"
else
    verdict caps FAIL "at most $all_most at once (cap $max_concurrency), $capped_most using capped (cap $max_connections)"
    ((all_most > max_concurrency)) && { echo "  running at $all_when:"; open_at true "$all_when"; }
    ((capped_most > max_connections)) && { echo "  using capped at $capped_when:"; open_at capped "$capped_when"; }
fi

# 2. Exact targets: each target's ids are its source's, each once.
ids_of() { # conn table: its ids, one a line, sorted as comm wants them (none when it does not exist)
    { sql_on "$1" "SELECT id FROM $2" 2>/dev/null || true; } | LC_ALL=C sort
}
exact=0 src_total=0 tgt_total=0
bad_tables=()
for ((n = 1; n <= tables; n++)); do
    ids_of "${src_conn[n]}" "s$n" >"$data/src.ids"
    ids_of "${tgt_conn[n]}" "t$n" >"$data/tgt.ids"
    src_rows=$(wc -l <"$data/src.ids")
    tgt_rows=$(wc -l <"$data/tgt.ids")
    src_total=$((src_total + src_rows))
    tgt_total=$((tgt_total + tgt_rows))
    lost=$(LC_ALL=C comm -23 "$data/src.ids" <(LC_ALL=C sort -u "$data/tgt.ids") | wc -l)
    foreign=$(LC_ALL=C comm -13 "$data/src.ids" <(LC_ALL=C sort -u "$data/tgt.ids") | wc -l)
    doubled=$(uniq -d "$data/tgt.ids" | wc -l)
    if ((src_rows == tgt_rows && lost == 0 && foreign == 0 && doubled == 0)); then
        exact=$((exact + 1))
    else
        bad_tables+=("table ${table_id[n]} (${src_conn[n]}:s$n -> ${tgt_conn[n]}:t$n): source $src_rows rows,
target $tgt_rows, $lost lost (e.g. $(LC_ALL=C comm -23 "$data/src.ids" <(LC_ALL=C sort -u "$data/tgt.ids") | sort -n | head -5 | paste -sd,)),
$foreign not in the source, $doubled doubled (e.g. $(uniq -d "$data/tgt.ids" | sort -n | head -5 | paste -sd,)),
position $(wsq "SELECT coalesce(last_watermark, '-') || ' / ' || coalesce(last_tiebreak, '-') FROM tables WHERE id = ${table_id[n]}")")
    fi
done
figure "rows" "$src_total in the sources, $tgt_total in the targets"
if ((exact == tables)); then
    verdict exact PASS "$exact of $tables targets hold their source's ids, each once"
else
    verdict exact FAIL "$exact of $tables targets hold their source's ids, each once"
    for line in "${bad_tables[@]}"; do echo "  ${line//$'\n'/ }"; done
fi

# 3. Settled: nothing left queued or running, runs or iterations.
open_runs=$(wsq "SELECT count(*) FROM runs WHERE status IN ('queued', 'running')")
open_iterations=$(wsq "SELECT count(*) FROM iterations WHERE status IN ('queued', 'running')")
if ((open_runs == 0 && open_iterations == 0)); then
    verdict settled PASS "no run and no iteration queued or running"
else
    verdict settled FAIL "$open_runs run(s), $open_iterations iteration(s) queued or running"
    wsq "SELECT '    run ' || id || ' ' || status || ' trigger ' || trigger || ' queued ' || queued FROM runs
        WHERE status IN ('queued', 'running') ORDER BY id LIMIT 20"
    wsq "SELECT '    iteration ' || id || ' run ' || run_id || ' table ' || table_id || ' ' || status || ' runner ' ||
        coalesce(nullif(runner, ''), '-') || ' ' || coalesce(waiting, '') FROM iterations
        WHERE status IN ('queued', 'running') ORDER BY id LIMIT 20"
fi

# 4. Spread: the iterations that ran, on two runners or more.
spread=$(wsq "WITH ran AS ($ran) SELECT count(DISTINCT runner) FROM ran")
if ((spread >= 2)); then
    verdict spread PASS "iterations ran on $spread runners"
else
    verdict spread FAIL "iterations ran on $spread runner(s)"
fi

echo
if ((failures > 0)); then
    echo "fleet chaos: $failures invariant(s) failed (seed $seed; evidence in $logs)"
    exit 1
fi
echo "fleet chaos: every invariant holds (seed $seed)"
