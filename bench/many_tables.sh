#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What one run costs per table when a workspace holds many small tables (run by hand; not a test).
#
#   bench/many_tables.sh                       1,000 tables x 10 rows
#   BENCH_TABLES=200 bench/many_tables.sh      a quicker look
#
# env: BENCH_TABLES (1000), BENCH_DIR (/tmp/tidemark-many-tables), TIDEMARK_CLI (build/app/tidemark-cli)
#
# One SQLite source file and one SQLite target file, each holding every table, as a schedule over
# hundreds of tables sees them. After a first run has copied everything (not timed), it times:
#   no new rows        at concurrency 1 and 2: every iteration ends no_new_rows
#   1 new row / table  at concurrency 1 and 2: every iteration copies one row
# and prints wall ms per table and Tidemark's peak RSS (/usr/bin/time -v), beside the floor: a Python
# sqlite3 script doing the least any tool must do per table (max() on the source, a look at the
# target's state, one history row written to a WAL workspace), connections kept open, measured
# here on the same files.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/deps.sh"
tidemark_deps time

tables=${BENCH_TABLES:-1000}
dir=${BENCH_DIR:-/tmp/tidemark-many-tables}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
if [[ ! -x "$cli" ]]; then
    echo "many_tables: $cli not found — run scripts/build.sh first (or set TIDEMARK_CLI)" >&2
    exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
src="$dir/source.db"
dst="$dir/target.db"
ws="$dir/bench.tidemark"

now_ns() { date +%s%N; }
per_table() { awk -v ns="$1" -v n="$tables" 'BEGIN { printf "%.2f", ns / 1e6 / n }'; }

# Adds one row to every source table, on day $1 (>= 2) of 2026, after every row there.
add_rows() {
    python3 - "$src" "$tables" "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
stamp = f'2026-01-{int(sys.argv[3]):02d}T00:00:00.000000Z'
with db:
    for t in range(1, int(sys.argv[2]) + 1):
        db.execute(f"INSERT INTO t{t:05d} (updated_at, payload) VALUES (?, 'new')", (stamp,))
PY
}

# Runs tidemark-cli run --json under /usr/bin/time -v; sets TM_NS, TM_RSS_KB; checks every
# iteration ended with the expected status.
tidemark_run() { # expected_status concurrency
    local start end statuses
    start=$(now_ns)
    if ! /usr/bin/time -v -o "$dir/time.out" "$cli" --workspace "$ws" run --concurrency "$2" --json \
        >"$dir/run.json" 2>"$dir/run.err"; then
        echo "many_tables: tidemark-cli run --concurrency $2 failed:" >&2
        tail -n 20 "$dir/run.err" >&2
        exit 1
    fi
    end=$(now_ns)
    TM_NS=$((end - start))
    TM_RSS_KB=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$dir/time.out")
    statuses=$(python3 -c 'import json, sys, collections
print(dict(collections.Counter(i["status"] for i in json.load(open(sys.argv[1]))["iterations"])))' "$dir/run.json")
    if [[ "$statuses" != "{'$1': $tables}" ]]; then
        echo "many_tables: expected $tables iterations $1, got $statuses" >&2
        exit 1
    fi
}

# The floor: the same minimal work per table from Python, connections kept open. Prints ns.
floor_run() {
    python3 - "$src" "$dst" "$dir/floor.db" "$tables" <<'PY'
import sqlite3, sys, time
source, target, history = (sqlite3.connect(p, isolation_level=None) for p in sys.argv[1:4])
history.execute('PRAGMA journal_mode = WAL')
history.execute('PRAGMA synchronous = NORMAL')
history.execute('CREATE TABLE IF NOT EXISTS iterations (id INTEGER PRIMARY KEY, table_id INTEGER, '
                'status TEXT, watermark TEXT, finished_at TEXT)')
start = time.perf_counter_ns()
for t in range(1, int(sys.argv[4]) + 1):
    (maximum,) = source.execute(f'SELECT max(updated_at) FROM t{t:05d}').fetchone()
    target.execute('SELECT watermark FROM tidemark_state WHERE table_id = ?', (t,)).fetchall()
    history.execute("INSERT INTO iterations (table_id, status, watermark, finished_at) "
                    "VALUES (?, 'no_new_rows', ?, datetime('now'))", (t, maximum))
print(time.perf_counter_ns() - start)
PY
}

echo "many_tables: $tables tables x 10 rows in $src"
python3 - "$src" "$tables" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
with db:
    for t in range(1, int(sys.argv[2]) + 1):
        db.execute(f'CREATE TABLE t{t:05d} (id INTEGER PRIMARY KEY, updated_at TEXT NOT NULL, payload TEXT)')
        db.executemany(f'INSERT INTO t{t:05d} (updated_at, payload) VALUES (?, ?)',
                       [(f'2026-01-01T00:00:{r:02d}.000000Z', f'row {r}') for r in range(10)])
PY

"$cli" --workspace "$ws" init >/dev/null
"$cli" --workspace "$ws" connection add src --sqlite "$src" >/dev/null
"$cli" --workspace "$ws" connection add dst --sqlite "$dst" >/dev/null
echo "many_tables: adding $tables tables to the workspace"
for ((t = 1; t <= tables; t++)); do
    name=$(printf 't%05d' "$t")
    "$cli" --workspace "$ws" table add --source "src:$name" --target "dst:$name" --watermark updated_at \
        --tiebreak id >/dev/null
done
echo "many_tables: first run (copies every table; not timed)"
tidemark_run succeeded 2

results=()
max_rss_kb=0
floor_ns=$(floor_run)
record() { # label concurrency
    ((max_rss_kb = TM_RSS_KB > max_rss_kb ? TM_RSS_KB : max_rss_kb)) || true
    results+=("$(printf '%-22s %6s %12s %9s %12s' "$1" "$2" "$(per_table "$TM_NS")" "$((TM_RSS_KB / 1024))" \
        "$(per_table "$floor_ns")")")
}

for concurrency in 1 2; do
    echo "many_tables: no new rows, concurrency $concurrency"
    tidemark_run no_new_rows "$concurrency"
    record "no new rows" "$concurrency"
done
for concurrency in 1 2; do
    echo "many_tables: 1 new row per table, concurrency $concurrency"
    add_rows $((1 + concurrency))
    tidemark_run succeeded "$concurrency"
    record "1 new row / table" "$concurrency"
done

echo
echo "Tidemark $("$cli" --version 2>/dev/null | head -n 1), $tables tables x 10 rows (SQLite -> SQLite)," \
    "$(nproc) cores, $(date -u +%Y-%m-%d)"
printf '%-22s %6s %12s %9s %12s\n' "run" "conc." "ms/table" "RSS MB" "floor ms/t"
printf '%s\n' "${results[@]}"
echo "peak RSS over all runs: $((max_rss_kb / 1024)) MB"
