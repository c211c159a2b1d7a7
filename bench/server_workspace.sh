#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A server workspace against a workspace file, in the same sitting (run by hand; not a test).
#
#   TIDEMARK_PG_PORT=<port> bench/server_workspace.sh      (scripts/pgcluster.sh start prints it)
#
# env: BENCH_TABLES (1000), BENCH_DIR (/tmp/tidemark-server-bench), TIDEMARK_CLI
#      (build/app/tidemark-cli).
#
# Both workspaces get the same BENCH_TABLES idle tables (one source table, no new rows: every
# iteration ends no_new_rows after its first run), bulk-inserted after one real `table add`. It
# prints, for each kind:
#   run (idle)        the wall time of `run` over every table, and per table: the idle-table overhead
#   history --json    the first page of the history that run left
#   table list        the control table
# then `workspace copy` of the file workspace onto the server, and of that back into a file.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tables=${BENCH_TABLES:-1000}
dir=${BENCH_DIR:-/tmp/tidemark-server-bench}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
port=${TIDEMARK_PG_PORT:?set TIDEMARK_PG_PORT (scripts/pgcluster.sh start)}
psql=$(ls -d /usr/lib/postgresql/*/bin/psql | sort -V | tail -1)
schema="bench_$$"
uri="postgresql://tidemark@127.0.0.1:$port/tidemark?schema=$schema"
rm -rf "$dir"
mkdir -p "$dir"
sqlite3 "$dir/source.db" "CREATE TABLE orders (id INTEGER PRIMARY KEY, updated_at TEXT NOT NULL);
INSERT INTO orders VALUES (1, '2025-01-01T00:00:00Z');"

# The rows `table add` wrote for table 1, copied for tables 2..N with their own target.
more_tables_sql() {
    cat <<'SQL'
WITH RECURSIVE numbers(n) AS ($1)
INSERT INTO tables (source_connection, source_table, target_connection, target_table, watermark_column,
    watermark_type, tiebreak_column, key_columns, mode, lookback, active, max_skipped, expect_rows,
    commit_per_batch, batch_size, add_new_columns, created_at, last_generation, max_future, max_jump)
SELECT source_connection, source_table, target_connection, 't' || n, watermark_column, watermark_type,
    tiebreak_column, key_columns, mode, lookback, active, max_skipped, expect_rows, commit_per_batch,
    batch_size, add_new_columns, created_at, last_generation, max_future, max_jump
FROM tables, numbers WHERE tables.id = 1;
SQL
}

measure() { # kind workspace
    local kind=$1 ws=$2 start end
    "$cli" -w "$ws" init >/dev/null
    "$cli" -w "$ws" connection add src --sqlite "$dir/source.db" >/dev/null
    "$cli" -w "$ws" connection add dst --sqlite "$dir/target-$kind.db" >/dev/null
    "$cli" -w "$ws" table add --source src:orders --target dst:t1 --watermark updated_at >/dev/null
    if [[ $kind == file ]]; then
        sqlite3 "$ws" "$(more_tables_sql | sed 's/\$1/SELECT 2 UNION ALL SELECT n + 1 FROM numbers WHERE n < '"$tables"'/')"
    else
        "$psql" -q -h 127.0.0.1 -p "$port" -U tidemark tidemark -c "SET search_path TO $schema" \
            -c "$(more_tables_sql | sed 's/\$1/SELECT generate_series(2, '"$tables"')/')"
    fi
    "$cli" -w "$ws" run --concurrency 4 >/dev/null || true # the first run creates every target
    start=$(date +%s.%N)
    "$cli" -w "$ws" run --concurrency 4 >/dev/null || true
    end=$(date +%s.%N)
    awk -v k="$kind" -v s="$start" -v e="$end" -v n="$tables" \
        'BEGIN { printf "%-6s run (idle), %d tables: %.2f s, %.2f ms per table\n", k, n, e - s, (e - s) * 1000 / n }'
    for args in "history --json" "table list --json"; do
        start=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$cli" -w "$ws" $args >/dev/null
        end=$(date +%s.%N)
        awk -v k="$kind" -v a="$args" -v s="$start" -v e="$end" 'BEGIN { printf "%-6s %-18s %.0f ms\n", k, a, (e - s) * 1000 }'
    done
}

# `workspace copy` of the file workspace (its tables, the two runs' iterations and logs) onto the
# server and back into a file, each taking every target over.
copy() { # label from to
    local start end rows
    start=$(date +%s.%N)
    rows=$("$cli" -w "$2" workspace copy "$3" | sed -n 's/^copied workspace .*: \([0-9]*\) row(s).*/\1/p')
    end=$(date +%s.%N)
    awk -v l="$1" -v s="$start" -v e="$end" -v r="$rows" \
        'BEGIN { printf "%-14s %d rows, %d targets taken over: %.2f s\n", l, r, '"$tables"', e - s }'
}

measure file "$dir/bench.tidemark"
measure server "$uri"
"$psql" -q -h 127.0.0.1 -p "$port" -U tidemark tidemark -c "SET client_min_messages TO warning" -c "DROP SCHEMA $schema CASCADE"
copy "copy file->server" "$dir/bench.tidemark" "$uri"
copy "copy server->file" "$uri" "$dir/copied.tidemark"
"$psql" -q -h 127.0.0.1 -p "$port" -U tidemark tidemark -c "SET client_min_messages TO warning" -c "DROP SCHEMA $schema CASCADE"
