#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The runner fleet on a server workspace, on this machine (run by hand; not a test).
#
#   TIDEMARK_PG_PORT=<port> bench/fleet.sh      (scripts/pgcluster.sh start prints it)
#
# env: BENCH_TABLES (200), BENCH_QUEUED (10000), BENCH_DIR (/tmp/tidemark-fleet-bench),
#      TIDEMARK_CLI (build/app/tidemark-cli).
#
# Prints:
#   here        `run --concurrency 4` in one process over BENCH_TABLES small tables (10 rows
#               each from one SQLite source, every table its own target table in a PostgreSQL
#               database), the baseline;
#   N runner(s) `run --queue` over the same tables with N `serve --fleet --slots 4` runners
#               (N = 1, 2, 4); the claim's cost per iteration is (1 runner - here) / tables;
#   claim       the claim statement alone (EXPLAIN ANALYZE, rolled back) with BENCH_QUEUED
#               iterations queued.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tables=${BENCH_TABLES:-200}
queued=${BENCH_QUEUED:-10000}
dir=${BENCH_DIR:-/tmp/tidemark-fleet-bench}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
port=${TIDEMARK_PG_PORT:?set TIDEMARK_PG_PORT (scripts/pgcluster.sh start)}
psql=$(ls -d /usr/lib/postgresql/*/bin/psql | sort -V | tail -1)
rm -rf "$dir"
mkdir -p "$dir"
pids=()
schemas=()
databases=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for schema in "${schemas[@]}"; do
        pg -c "SET client_min_messages TO warning" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null
    done
    for database in "${databases[@]}"; do
        pg -c "DROP DATABASE IF EXISTS $database" >/dev/null
    done
}
trap cleanup EXIT
pg() { "$psql" -q -h 127.0.0.1 -p "$port" -U tidemark tidemark "$@"; }

sqlite3 "$dir/source.db" "CREATE TABLE orders (id INTEGER PRIMARY KEY, updated_at TEXT NOT NULL);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10)
INSERT INTO orders SELECT i, '2025-01-01T00:00:0' || (i % 10) || 'Z' FROM c;"

# A fresh server workspace named $1 with $tables tables, each copying orders into its own target
# table of a PostgreSQL database of its own (a SQLite target file would take one writer at a time,
# whatever the number of runners). Sets $ws; records the schema and database for the clean-up.
workspace() { # name
    local schema="fleet_${1}_$$"
    schemas+=("$schema")
    databases+=("$schema")
    pg -c "CREATE DATABASE $schema" >/dev/null
    ws="postgresql://tidemark@127.0.0.1:$port/tidemark?schema=$schema"
    "$cli" -w "$ws" init >/dev/null
    "$cli" -w "$ws" connection add src --sqlite "$dir/source.db" >/dev/null
    "$cli" -w "$ws" connection add dst --postgres "postgresql://tidemark@127.0.0.1:$port/$schema" >/dev/null
    "$cli" -w "$ws" table add --source src:orders --target dst:t1 --watermark updated_at >/dev/null
    pg -c "SET search_path TO $schema" -c "
INSERT INTO tables (source_connection, source_table, target_connection, target_table, watermark_column,
    watermark_type, tiebreak_column, key_columns, mode, lookback, active, max_skipped, expect_rows,
    commit_per_batch, batch_size, add_new_columns, created_at, last_generation, max_future, max_jump)
SELECT source_connection, source_table, target_connection, 't' || n, watermark_column, watermark_type,
    tiebreak_column, key_columns, mode, lookback, active, max_skipped, expect_rows, commit_per_batch,
    batch_size, add_new_columns, created_at, last_generation, max_future, max_jump
FROM tables, generate_series(2, $tables) AS n WHERE tables.id = 1" >/dev/null
}

seconds() { # command...
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }'
}

workspace here
here=$(seconds "$cli" -w "$ws" run --concurrency 4)
printf '%-12s %d tables: %6.2f s\n' "here" "$tables" "$here"

for n in 1 2 4; do
    workspace "r$n"
    pids=()
    for ((r = 0; r < n; r++)); do
        "$cli" -w "$ws" serve --fleet --slots 4 2>"$dir/runner-$n-$r.log" &
        pids+=($!)
    done
    until [[ $("$cli" -w "$ws" runners --json | grep -o '"role":"worker"' | wc -l) -ge $n ]]; do sleep 0.2; done
    took=$(seconds "$cli" -w "$ws" run --queue)
    spread=$("$cli" -w "$ws" history --json --limit 1 | grep -o '"runner":"[^"]*"' | sort | uniq -c | awk '{print $1}' | paste -sd/)
    printf '%-12s %d tables: %6.2f s  (iterations per runner: %s)\n' "$n runner(s)" "$tables" "$took" "$spread"
    if [[ $n == 1 ]]; then
        awk -v q="$took" -v h="$here" -v t="$tables" \
            'BEGIN { printf "%-12s %.1f ms per iteration (1 runner, 4 slots, against here at concurrency 4)\n", "claim cost", (q - h) * 1000 / t }'
    fi
    for pid in "${pids[@]}"; do kill "$pid"; done
    wait "${pids[@]}" 2>/dev/null || true
    pids=()
done

# The claim's reads as QueueStore::claim makes them, with $queued iterations queued in one run
# and as many again spread over 100 runs: the open queued runs, each run's first unclaimed
# iterations (one statement per run in the code; one LATERAL join here, the same index probes),
# and the lock of the candidates. Each EXPLAIN ANALYZE is rolled back.
workspace claim
schema=${schemas[-1]}
pg -c "SET search_path TO $schema" -c "
INSERT INTO runs (\"trigger\", host, pid, started_at, status, concurrency, dry_run, kind, queued)
SELECT 'cli', 'bench', 1, '2026-01-01T00:00:00.000Z', 'running', 4, 0, 'copy', 1 FROM generate_series(1, 101);
INSERT INTO iterations (run_id, table_id, source, target, status)
SELECT (SELECT min(id) FROM runs), 1, 'src:orders', 'dst:t1', 'queued' FROM generate_series(1, $queued);
INSERT INTO iterations (run_id, table_id, source, target, status)
SELECT (SELECT min(id) FROM runs) + 1 + n % 100, 1, 'src:orders', 'dst:t1', 'queued' FROM generate_series(1, $queued) AS n;
ANALYZE iterations; ANALYZE runs;" >/dev/null
for count in 1 4; do
    total=0
    candidates=$(pg -At -c "SET search_path TO $schema" -c "SELECT f.id FROM runs r CROSS JOIN LATERAL (SELECT id FROM iterations WHERE run_id = r.id AND status = 'queued' AND runner = '' ORDER BY id LIMIT $((2 * count + 8))) f WHERE r.queued = 1 AND r.status = 'running'" | paste -sd,)
    for statement in \
        "SELECT 1 FROM runs r WHERE r.status = 'running' AND r.queued = 1 AND EXISTS (SELECT 1 FROM iterations i WHERE i.run_id = r.id AND i.status = 'queued' AND i.runner = '')" \
        "SELECT r.id, f.id FROM runs r CROSS JOIN LATERAL (SELECT id FROM iterations WHERE run_id = r.id AND status = 'queued' AND runner = '' ORDER BY id LIMIT $((2 * count + 8))) f WHERE r.queued = 1 AND r.status = 'running'" \
        "SELECT i.id FROM iterations i WHERE i.id IN ($candidates) AND i.status = 'queued' AND i.runner = '' FOR UPDATE OF i SKIP LOCKED"; do
        ms=$(pg -c "SET search_path TO $schema" -c "BEGIN" -c "EXPLAIN (ANALYZE, COSTS OFF) $statement" -c "ROLLBACK" |
            awk '/Execution Time/ { print $3 }')
        total=$(awk -v a="$total" -v b="$ms" 'BEGIN { print a + b }')
    done
    printf '%-12s claim of %d with %d queued over 101 runs: %.2f ms (its three reads)\n' "claim" "$count" "$((queued * 2))" "$total"
done
