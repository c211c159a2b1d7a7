#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tidemark with PostgreSQL vs PostgreSQL's own tools, on the same generated `orders` data.
#
#   bench/pg_bench.sh [BUILD_DIR] [ROWS]        (defaults: build, 1000000)
#
# Starts a private throwaway cluster (scripts/pgcluster.sh, own state file) and stops it at the
# end. Needs sqlite3, psql and GNU time; pgloader is installed with apt when missing (root).
# Prints one table: case, tool, seconds, rows/s, peak RSS (MB), ratio Tidemark / reference.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
ROWS=${2:-1000000}
INCR=${INCR:-100000}
CLI=$BUILD/app/tidemark-cli
[[ -x $CLI ]] || { echo "pg_bench.sh: $CLI not built" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "pg_bench.sh: sqlite3 missing (apt-get install sqlite3)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "pg_bench.sh: GNU time missing (apt-get install time)" >&2; exit 2; }
if ! command -v pgloader >/dev/null && [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y pgloader >/dev/null 2>&1 || true
fi

WORK=$(mktemp -d /tmp/tidemark-pgbench.XXXXXX)
STATE=$WORK/cluster.state
cleanup() {
    bash "$ROOT/scripts/pgcluster.sh" stop --state "$STATE" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
PORT=$(bash "$ROOT/scripts/pgcluster.sh" start --state "$STATE" | tail -1 | cut -d= -f2)
CONN="host=127.0.0.1 port=$PORT dbname=tidemark user=tidemark"
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U tidemark -d tidemark)
DB=$WORK/orders.db
WS=$WORK/bench.tidemark
RESULTS=$WORK/results.txt
: >"$RESULTS"

# seconds and peak RSS (MB) of one command, appended to RESULTS as: case tool rows seconds rss
measure() {
    local case=$1 tool=$2 rows=$3
    shift 3
    /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || {
        echo "pg_bench.sh: $case/$tool failed:" >&2
        cat "$WORK/err.txt" "$WORK/out.txt" >&2
        return 1
    }
    read -r seconds rss <"$WORK/time.txt"
    echo "$case $tool $rows $seconds $((rss / 1024))" >>"$RESULTS"
}
count() { "${PSQL[@]}" -Atc "SELECT count(*) FROM $1"; }
check_count() {
    local got
    got=$(count "$1")
    [[ $got -eq $2 ]] || { echo "pg_bench.sh: $1 has $got rows, expected $2" >&2; exit 1; }
}

echo "generating $ROWS rows ..." >&2
sqlite3 "$DB" >/dev/null <<EOF
PRAGMA journal_mode = WAL;
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, status TEXT NOT NULL,
                     amount REAL NOT NULL, note TEXT, updated_at TIMESTAMPTZ NOT NULL);
WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < $ROWS)
INSERT INTO orders SELECT i, i % 9973, CASE i % 3 WHEN 0 THEN 'new' WHEN 1 THEN 'paid' ELSE 'shipped' END,
       (i % 100000) / 7.0, 'order number ' || i,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || (i / 10) || ' seconds') FROM g;
CREATE INDEX orders_updated ON orders (updated_at, id);
EOF

"$CLI" -w "$WS" init >/dev/null
"$CLI" -w "$WS" connection add lite --sqlite "$DB" >/dev/null
"$CLI" -w "$WS" connection add pg --postgres "$CONN" >/dev/null
PIPE_TABLE="CREATE TABLE %s (id bigint PRIMARY KEY, customer_id bigint NOT NULL, status text NOT NULL,
            amount double precision NOT NULL, note text, updated_at timestamptz NOT NULL)"
SELECT_ALL="SELECT id, customer_id, status, amount, note, updated_at FROM orders"

# 1. full load SQLite -> PostgreSQL
T1=$("$CLI" -w "$WS" table add --source lite:orders --target pg:orders_tm --watermark updated_at --tiebreak id \
    --batch-size 20000)
measure full_load tidemark "$ROWS" "$CLI" -w "$WS" run --table "$T1"
check_count orders_tm "$ROWS"

"${PSQL[@]}" -c "$(printf "$PIPE_TABLE" orders_pipe)"
measure full_load pipe "$ROWS" bash -c "sqlite3 -csv '$DB' \"$SELECT_ALL\" | ${PSQL[*]} -c '\\copy orders_pipe FROM STDIN CSV'"
check_count orders_pipe "$ROWS"

if command -v pgloader >/dev/null; then
    # pgloader maps REAL to float4 by default: cast it to double to compare like with like. Its
    # default double formatting writes Lisp literals ("0.5d0") that PostgreSQL refuses, so every
    # row would be rejected with exit status 0; float-to-string writes plain decimals.
    cat >"$WORK/load.pgl" <<EOF
LOAD DATABASE FROM sqlite://$DB INTO postgresql://tidemark@127.0.0.1:$PORT/tidemark
WITH include drop, create tables, create indexes, reset sequences
CAST type real to "double precision" using float-to-string
INCLUDING ONLY TABLE NAMES LIKE 'orders';
EOF
    if measure full_load pgloader "$ROWS" pgloader --on-error-stop "$WORK/load.pgl"; then
        # pgloader may exit 0 after rejecting rows: count them.
        got=$("${PSQL[@]}" -Atc "SELECT count(*) FROM public.orders" 2>/dev/null || echo 0)
        [[ $got -eq $ROWS ]] || { sed -i 's/^full_load pgloader /full_load pgloader_FAILED /' "$RESULTS"; echo "pgloader loaded $got of $ROWS rows:" >&2; tail -n 8 "$WORK/out.txt" >&2; tail -n 8 "$WORK/err.txt" >&2; }
    fi
fi

# 2. incremental SQLite -> PostgreSQL: INCR newer rows
MAXTS=$(sqlite3 "$DB" "SELECT max(updated_at) FROM orders")
sqlite3 "$DB" "WITH RECURSIVE g(i) AS (SELECT $ROWS + 1 UNION ALL SELECT i + 1 FROM g WHERE i < $ROWS + $INCR)
INSERT INTO orders SELECT i, i % 9973, 'new', (i % 100000) / 7.0, 'order number ' || i,
       strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || (i / 10) || ' seconds') FROM g;"
measure incremental tidemark "$INCR" "$CLI" -w "$WS" run --table "$T1"
check_count orders_tm $((ROWS + INCR))
measure incremental pipe "$INCR" bash -c "sqlite3 -csv '$DB' \"$SELECT_ALL WHERE updated_at > '$MAXTS'\" | ${PSQL[*]} -c '\\copy orders_pipe FROM STDIN CSV'"
check_count orders_pipe $((ROWS + INCR))

# 3. PostgreSQL -> PostgreSQL in one database: the newest INCR rows (push-down when the engine uses it)
# VACUUM: the first reader of rows just loaded sets their hint bits, dirtying every page it reads;
# without it that cost falls on whichever of the two goes first.
"${PSQL[@]}" -c "CREATE INDEX ON orders_tm (updated_at, id)" -c "VACUUM ANALYZE orders_tm"
"${PSQL[@]}" -c "$(printf "$PIPE_TABLE" orders_pp_tm)" -c "$(printf "$PIPE_TABLE" orders_pp_psql)"
T3=$("$CLI" -w "$WS" table add --source pg:orders_tm --target pg:orders_pp_tm --watermark updated_at --tiebreak id \
    --initial-watermark "$MAXTS" --batch-size 20000)
measure pg_to_pg tidemark "$INCR" "$CLI" -w "$WS" run --table "$T3"
check_count orders_pp_tm "$INCR"
measure pg_to_pg psql "$INCR" "${PSQL[@]}" -c "INSERT INTO orders_pp_psql SELECT * FROM orders_tm WHERE updated_at > '$MAXTS'"

# 4. merge of INCR rows into PostgreSQL, half of them updates
"${PSQL[@]}" -c "$(printf "$PIPE_TABLE" orders_merge_tm)" -c "$(printf "$PIPE_TABLE" orders_merge_psql)" \
    -c "INSERT INTO orders_merge_tm SELECT * FROM orders_tm WHERE id <= $ROWS" \
    -c "INSERT INTO orders_merge_psql SELECT * FROM orders_tm WHERE id <= $ROWS" \
    -c "VACUUM ANALYZE orders_merge_tm" -c "VACUUM ANALYZE orders_merge_psql"
HALF=$((INCR / 2))
# the window: HALF existing rows updated, HALF new ones
sqlite3 "$DB" "UPDATE orders SET status = 'changed', updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', '2025-06-01', '+' || id || ' seconds')
               WHERE id > $ROWS - $HALF AND id <= $ROWS + $HALF;
               DELETE FROM orders WHERE id > $ROWS + $HALF;"
T4=$("$CLI" -w "$WS" table add --source lite:orders --target pg:orders_merge_tm --watermark updated_at --tiebreak id \
    --mode merge --key id --initial-watermark "2025-06-01T00:00:00Z" --batch-size 20000)
measure merge tidemark "$INCR" "$CLI" -w "$WS" run --table "$T4"
measure merge psql "$INCR" bash -c "sqlite3 -csv '$DB' \"$SELECT_ALL WHERE updated_at > '2025-06-01T00:00:00Z'\" | ${PSQL[*]} \
    -c 'CREATE TEMP TABLE stage (LIKE orders_merge_psql)' -c '\\copy stage FROM STDIN CSV' \
    -c 'INSERT INTO orders_merge_psql SELECT * FROM stage ON CONFLICT (id) DO UPDATE SET customer_id = excluded.customer_id, status = excluded.status, amount = excluded.amount, note = excluded.note, updated_at = excluded.updated_at WHERE excluded.updated_at >= orders_merge_psql.updated_at'"
check_count orders_merge_tm $((ROWS + HALF))
[[ $("${PSQL[@]}" -Atc "SELECT count(*) FROM orders_merge_tm WHERE status = 'changed'") -eq $INCR ]] \
    || { echo "pg_bench.sh: merge did not write $INCR rows" >&2; exit 1; }
check_count orders_merge_psql $((ROWS + HALF))

echo
printf '%-12s %-9s %10s %9s %12s %9s %14s\n' case tool rows seconds rows/s rss_MB "tidemark/ref"
awk '
    { key = $1; secs[$1 "," $2] = $4 }
    { rows[NR] = $0 }
    END {
        for (i = 1; i <= NR; i++) {
            split(rows[i], f, " ")
            rate = f[4] > 0 ? f[3] / f[4] : 0
            ratio = ""
            if (f[2] != "tidemark" && secs[f[1] ",tidemark"] > 0)
                ratio = sprintf("%.2fx throughput", f[4] / secs[f[1] ",tidemark"])
            printf "%-12s %-9s %10d %9.2f %12.0f %9d %14s\n", f[1], f[2], f[3], f[4], rate, f[5], ratio
        }
    }' "$RESULTS"
echo "(ratio = reference seconds / Tidemark seconds: >= 1 means Tidemark is as fast or faster)"
