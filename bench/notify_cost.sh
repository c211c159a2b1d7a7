#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a server workspace's change notifications cost its writers (run by hand; not a test).
#
#   TIDEMARK_PG_PORT=<port> bench/notify_cost.sh
#
# Every commit that changes a table the windows follow notifies the workspace's channel (a
# statement trigger calling pg_notify), and PostgreSQL lets one notifying commit through at a
# time (a global lock held while the notifications are queued). A fleet commits each iteration's
# progress, so this is what many runners pay. pgbench's sessions stand for the runners: each
# commits one progress write at a time (an UPDATE of one queued iteration's row, as a runner's
# progress report), for BENCH_SECONDS, with the trigger on and then off (ALTER TABLE … DISABLE
# TRIGGER), BENCH_ROUNDS times on one fresh server workspace, the order swapped every other round
# (dead rows pile up as it goes, and each half gets its share of them).
#
# env: BENCH_CLIENTS ("1 4 16"), BENCH_SECONDS (10), BENCH_ROUNDS (2), BENCH_ITERATIONS (10000),
#      TIDEMARK_CLI (build/app/tidemark-cli)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
port=${TIDEMARK_PG_PORT:?set TIDEMARK_PG_PORT (scripts/pgcluster.sh start)}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
clients=${BENCH_CLIENTS:-1 4 16}
seconds=${BENCH_SECONDS:-10}
rounds=${BENCH_ROUNDS:-2}
iterations=${BENCH_ITERATIONS:-10000}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
schema="notify_cost_$$"
uri="postgresql://tidemark@127.0.0.1:$port/tidemark?schema=$schema"
work=$(mktemp -d)

sql() {
    "$bin/psql" -q -X -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U tidemark tidemark \
        -c "SET client_min_messages TO warning" -c "SET search_path TO $schema" "$@"
}
cleanup() {
    sql -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

"$cli" -w "$uri" init >/dev/null
sql -c "INSERT INTO runs (\"trigger\", host, pid, started_at, status, concurrency, dry_run)
        VALUES ('cli', 'bench', 1, '2026-01-01T00:00:00.000Z', 'running', 1, 0)" \
    -c "INSERT INTO iterations (run_id, table_id, source, target, status, started_at, rows_read)
        SELECT 1, n, 'src:t' || n, 'dst:t' || n, 'running', '2026-01-01T00:00:00.000Z', 0
        FROM generate_series(1, $iterations) AS n" \
    -c "ANALYZE iterations"
cat >"$work/progress.sql" <<SQL
\\set id random(1, $iterations)
UPDATE iterations SET rows_read = rows_read + 1 WHERE id = :id;
SQL

tps() { # clients trigger(ENABLE|DISABLE)
    local threads=$(($1 < 2 ? $1 : 2)) rate
    sql -c "ALTER TABLE iterations $2 TRIGGER notify_change"
    rate=$(PGOPTIONS="-c search_path=$schema" "$bin/pgbench" -n -h 127.0.0.1 -p "$port" -U tidemark \
        -c "$1" -j "$threads" -T "$seconds" -f "$work/progress.sql" tidemark 2>"$work/pgbench.err" |
        sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p')
    if [[ -z "$rate" ]]; then
        echo "notify_cost: pgbench gave no rate ($1 sessions, trigger ${2,,}d):" >&2
        cat "$work/pgbench.err" >&2
        exit 1
    fi
    echo "$rate"
}

echo "Tidemark $("$cli" --version 2>/dev/null | head -n 1), $(git -C "$root" rev-parse --short HEAD 2>/dev/null)," \
    "PostgreSQL $("$bin/postgres" --version | awk '{ print $3 }') on loopback, $(nproc) cores" \
    "(load $(cut -d' ' -f1 /proc/loadavg)), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-8s %-6s %14s %14s %8s\n' clients round "notify tx/s" "without tx/s" ratio
for c in $clients; do
    for ((r = 1; r <= rounds; r++)); do
        if ((r % 2)); then
            with=$(tps "$c" ENABLE)
            without=$(tps "$c" DISABLE)
        else
            without=$(tps "$c" DISABLE)
            with=$(tps "$c" ENABLE)
        fi
        awk -v c="$c" -v r="$r" -v w="$with" -v o="$without" \
            'BEGIN { printf "%-8d %-6d %14.0f %14.0f %8.2f\n", c, r, w, o, w / o }'
    done
done
