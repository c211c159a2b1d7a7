#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What reading a long run history costs (run by hand; not a test).
#
#   bench/history_scale.sh                                 20,000 runs x 10 tables (200,000 iterations)
#   BENCH_RUNS=2000 BENCH_PER_RUN=1000 bench/history_scale.sh   2,000 runs x 1,000 tables (2 million)
#   BENCH_RUNS=100000 BENCH_PER_RUN=20 BENCH_TABLES=10000 ...  the issue's target size
#
# env: BENCH_TABLES (1000), BENCH_RUNS (20000), BENCH_PER_RUN (10: iterations per run),
#      BENCH_DIR (/tmp/tidemark-history-scale), TIDEMARK_CLI (build/app/tidemark-cli),
#      BENCH_BEFORE_CLI (optional: an older tidemark-cli to compare with, run first, on the
#      workspace before this build migrates it), BENCH_MEM_LIMIT_KB (6000000: a CLI that would
#      hold the whole history is stopped there instead of taking the machine's memory).
#
# The workspace is made by the real CLI (init, connections, one table add), so its schema is the
# one tidemark writes; the rest (tables, runs, iterations with one log line each) is bulk-inserted
# with sqlite3. It then times, with peak RSS (/usr/bin/time -v):
#   history --json              (the default limit)
#   history --json --limit 0    (every run, streamed)
#   history --json --table ID   (one table's runs)
# and the SQL of the window's first history page (200 runs, their figures summed), with sqlite3's
# timer, unfiltered and filtered to one table.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/deps.sh"
tidemark_deps time sqlite3

tables=${BENCH_TABLES:-1000}
runs=${BENCH_RUNS:-20000}
per_run=${BENCH_PER_RUN:-10}
dir=${BENCH_DIR:-/tmp/tidemark-history-scale}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
before=${BENCH_BEFORE_CLI:-}
mem_limit=${BENCH_MEM_LIMIT_KB:-6000000}
if [[ ! -x "$cli" ]]; then
    echo "history_scale: $cli not found — run scripts/build.sh first (or set TIDEMARK_CLI)" >&2
    exit 1
fi
if ((per_run > tables)); then
    echo "history_scale: BENCH_PER_RUN ($per_run) cannot exceed BENCH_TABLES ($tables)" >&2
    exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
ws="$dir/history.tidemark"
src="$dir/source.db"
maker=${before:-$cli}

sqlite3 "$src" "CREATE TABLE orders (id INTEGER PRIMARY KEY, updated_at TEXT NOT NULL)"
"$maker" -w "$ws" init >/dev/null
"$maker" -w "$ws" connection add src --sqlite "$src" >/dev/null
"$maker" -w "$ws" connection add dst --sqlite "$dir/target.db" >/dev/null
"$maker" -w "$ws" table add --source src:orders --target dst:orders --watermark updated_at >/dev/null

fill_start=$(date +%s)
sqlite3 "$ws" >/dev/null <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
CREATE TEMP TABLE seq (n INTEGER PRIMARY KEY);
WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < max($runs, $tables))
INSERT INTO seq SELECT n FROM s;
-- Tables 2..N: copies of the one the CLI added, each its own source and target.
INSERT INTO tables (source_connection, source_table, target_connection, target_table, watermark_column,
                    watermark_type, tiebreak_column, key_columns, mode, lookback, active, created_at)
SELECT source_connection, 'orders_' || n, target_connection, 'orders_' || n, watermark_column,
       watermark_type, tiebreak_column, key_columns, mode, lookback, active, created_at
FROM tables, seq WHERE tables.id = 1 AND n BETWEEN 2 AND $tables;
-- Run r started r minutes into 2025; every 13th failed one table.
INSERT INTO runs (id, "trigger", host, pid, started_at, finished_at, status, concurrency, dry_run)
SELECT n, 'schedule', 'bench', 1,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || n || ' minutes'),
       strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || n || ' minutes', '+30 seconds'),
       CASE WHEN n % 13 = 0 THEN 'failed' ELSE 'succeeded' END, 2, 0
FROM seq WHERE n <= $runs;
-- Its iterations: $per_run consecutive tables from (7 r) mod N, the first failed in every 13th run.
INSERT INTO iterations (run_id, table_id, source, target, status, started_at, finished_at, duration_ms,
                        rows_read, rows_written, rows_skipped, watermark_before, watermark_after,
                        window_lower, window_upper)
SELECT r.id, t.id, 'src:' || t.source_table, 'dst:' || t.target_table,
       CASE WHEN r.id % 13 = 0 AND k.n = 1 THEN 'failed' ELSE 'succeeded' END,
       r.started_at, r.finished_at, 1000 + k.n, 100 + k.n, 100 + k.n, 0,
       '2025-07-30T23:05:18.000Z', '2025-07-31T01:00:00.000Z',
       '2025-07-30T23:05:18.000Z', '2025-07-31T01:00:00.000Z'
FROM runs r
JOIN seq k ON k.n <= $per_run
JOIN tables t ON t.id = ((r.id * 7 + k.n) % $tables) + 1;
INSERT INTO iteration_logs (iteration_id, at, level, message)
SELECT id, started_at, 'info', 'copied ' || rows_written || ' rows in window (2025-07-30T23:05:18.000Z, 2025-07-31T01:00:00.000Z]'
FROM iterations;
COMMIT;
SQL
iterations=$(sqlite3 "$ws" "SELECT count(*) FROM iterations")
echo "workspace: $tables tables, $runs runs, $iterations iterations (filled in $(($(date +%s) - fill_start)) s)," \
    "$(du -m "$ws" | cut -f1) MB"

# Runs `$@`, output to /dev/null; prints wall seconds, peak RSS and the bytes written.
measure() {
    local label=$1
    shift
    local out="$dir/out.json" stats="$dir/time.txt" status=0
    (ulimit -v "$mem_limit" && /usr/bin/time -v "$@" >"$out" 2>"$stats") || status=$?
    local wall rss
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$stats")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$stats")
    printf '%-44s %9s  peak RSS %7s MB  %9s bytes%s\n' "$label" "$wall" "$((rss / 1024))" \
        "$(stat -c %s "$out")" "$( ((status == 0)) || echo "  (exit $status: stopped at ${mem_limit} KB?)")"
}

table=$((tables / 2))
if [[ -n "$before" ]]; then
    echo "--- before: $before"
    measure "history --json (its default: all)" "$before" -w "$ws" history --json
    mv "$dir/out.json" "$dir/before-all.json"
    measure "history --json --limit 100" "$before" -w "$ws" history --json --limit 100
fi

echo "--- after: $cli"
# Its first open migrates the workspace (the history indexes): timed on its own.
measure "first open (migration: history indexes)" "$cli" -w "$ws" history --limit 1
measure "history --json (default limit 100)" "$cli" -w "$ws" history --json
measure "history --json --limit 0 (all, streamed)" "$cli" -w "$ws" history --json --limit 0
if [[ -s "$dir/before-all.json" ]]; then
    # The contract: the same array, field for field (here runs started in id order: the older CLI
    # sorted by id, this one by start time, then id).
    cmp -s "$dir/before-all.json" "$dir/out.json" && same=yes || same=no
    echo "  the same bytes as the older CLI's whole history: $same"
    rm -f "$dir/before-all.json"
fi
measure "history --json --table $table --limit 0" "$cli" -w "$ws" history --json --table "$table" --limit 0

# The window's first page, as Workspace::runOverviews reads it (the page, then its iterations'
# figures summed and its problems, in SQL), with sqlite3's timer.
page_sql() {
    local where=$1
    cat <<SQL
.timer on
CREATE TEMP TABLE page AS SELECT r.id FROM runs r $where ORDER BY r.started_at DESC, r.id DESC LIMIT 200;
SELECT count(*), sum(n) FROM (SELECT run_id, count(*) AS n, sum(rows_read), sum(rows_written), sum(rows_skipped),
  max(duration_ms) FROM iterations WHERE run_id IN (SELECT value FROM json_each((SELECT json_group_array(id) FROM page)))
  GROUP BY run_id);
SELECT count(*) FROM iterations WHERE run_id IN (SELECT id FROM page) AND status IN ('failed', 'warning', 'cancelled', 'interrupted');
SQL
}
echo "--- the window's first history page (SQL only; 'Run Time: real' per statement)"
echo "unfiltered:"
page_sql "" | sqlite3 "$ws" | grep -E "Run Time" | sed 's/^/  /'
echo "filtered to table $table:"
sqlite3 "$ws" <<SQL | grep -E "Run Time" | sed 's/^/  /'
.timer on
SELECT count(*) FROM (SELECT r.id FROM iterations i JOIN runs r ON r.id = i.run_id WHERE i.table_id = $table
  ORDER BY r.started_at DESC, r.id DESC LIMIT 200);
SQL
echo "plans:"
sqlite3 "$ws" "EXPLAIN QUERY PLAN SELECT r.id FROM runs r WHERE (r.started_at, r.id) < ('2025-06-01', 1) ORDER BY r.started_at DESC, r.id DESC LIMIT 200" | sed 's/^/  /'
sqlite3 "$ws" "EXPLAIN QUERY PLAN SELECT r.id FROM iterations i JOIN runs r ON r.id = i.run_id WHERE i.table_id = $table ORDER BY r.started_at DESC, r.id DESC LIMIT 200" | sed 's/^/  /'
