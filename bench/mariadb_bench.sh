#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tidemark with MariaDB vs MariaDB's own tools, on the same generated `orders` data.
#
#   bench/mariadb_bench.sh [BUILD_DIR] [ROWS]        (defaults: build, 1000000)
#
# Starts a private throwaway server (scripts/mariadbcluster.sh, own state file) and stops it at the
# end. Needs sqlite3, the mariadb client tools and GNU time. Prints one table: case, tool, seconds,
# rows/s, peak RSS (MB), ratio reference seconds / Tidemark seconds.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
ROWS=${2:-1000000}
INCR=${INCR:-100000}
CLI=$BUILD/app/tidemark-cli
[[ -x $CLI ]] || { echo "mariadb_bench.sh: $CLI not built" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "mariadb_bench.sh: sqlite3 missing" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "mariadb_bench.sh: GNU time missing (apt-get install time)" >&2; exit 2; }

WORK=$(mktemp -d /tmp/tidemark-mariadbbench.XXXXXX)
chmod 755 "$WORK"
STATE=$WORK/server.state
cleanup() {
    bash "$ROOT/scripts/mariadbcluster.sh" stop --state "$STATE" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
PORT=$(bash "$ROOT/scripts/mariadbcluster.sh" start --state "$STATE" | tail -1 | cut -d= -f2)
export BENCH_PASSWORD=tidemark
MY=(mariadb --no-defaults -h 127.0.0.1 -P "$PORT" -u tidemark -ptidemark --local-infile=1 tidemark)
DB=$WORK/orders.db
WS=$WORK/bench.tidemark
RESULTS=$WORK/results.txt
: >"$RESULTS"

measure() {
    local case=$1 tool=$2 rows=$3
    shift 3
    /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || {
        echo "mariadb_bench.sh: $case/$tool failed:" >&2
        cat "$WORK/err.txt" "$WORK/out.txt" >&2
        return 1
    }
    read -r seconds rss <"$WORK/time.txt"
    echo "$case $tool $rows $seconds $((rss / 1024))" >>"$RESULTS"
}
check_count() {
    local got
    got=$("${MY[@]}" -N -e "SELECT COUNT(*) FROM $1")
    [[ $got -eq $2 ]] || { echo "mariadb_bench.sh: $1 has $got rows, expected $2" >&2; exit 1; }
}
TABLE_DDL="(id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL, status LONGTEXT NOT NULL, amount DOUBLE NOT NULL,
            note LONGTEXT, updated_at DATETIME(6) NOT NULL, KEY (updated_at, id)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"

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
# The same rows as MariaDB spells them, for LOAD DATA.
sqlite3 -separator $'\t' "$DB" "SELECT id, customer_id, status, amount, note,
    replace(replace(updated_at, 'T', ' '), 'Z', '') FROM orders" >"$WORK/orders.tsv"

"$CLI" -w "$WS" init >/dev/null
"$CLI" -w "$WS" connection add lite --sqlite "$DB" >/dev/null
"$CLI" -w "$WS" connection add my --mysql "host=127.0.0.1 port=$PORT user=tidemark dbname=tidemark" \
    --password-env BENCH_PASSWORD >/dev/null

# 1. full load SQLite -> MariaDB
"${MY[@]}" -e "CREATE TABLE orders_tm $TABLE_DDL; CREATE TABLE orders_load $TABLE_DDL"
T1=$("$CLI" -w "$WS" table add --source lite:orders --target my:orders_tm --watermark updated_at --tiebreak id \
    --batch-size 20000)
measure sqlite_full tidemark "$ROWS" "$CLI" -w "$WS" run --table "$T1"
check_count orders_tm "$ROWS"
# The same with the writer's INSERTs (TIDEMARK_MARIADB_LOAD=0) instead of its LOAD DATA LOCAL.
"${MY[@]}" -e "CREATE TABLE orders_tl $TABLE_DDL"
T1L=$("$CLI" -w "$WS" table add --source lite:orders --target my:orders_tl --watermark updated_at --tiebreak id \
    --batch-size 20000)
measure sqlite_full tidemark_insert "$ROWS" env TIDEMARK_MARIADB_LOAD=0 "$CLI" -w "$WS" run --table "$T1L"
check_count orders_tl "$ROWS"
measure sqlite_full load_data "$ROWS" "${MY[@]}" -e "LOAD DATA LOCAL INFILE '$WORK/orders.tsv' INTO TABLE orders_load"
check_count orders_load "$ROWS"

# 2. full load MariaDB -> MariaDB on one server (push-down) vs mariadb-dump | mariadb
"${MY[@]}" -e "CREATE DATABASE dumped; CREATE DATABASE pushed; CREATE TABLE pushed.orders $TABLE_DDL"
T2=$("$CLI" -w "$WS" table add --source my:orders_load --target my:pushed.orders --watermark updated_at \
    --tiebreak id --batch-size 20000)
measure mariadb_full tidemark "$ROWS" "$CLI" -w "$WS" run --table "$T2"
check_count pushed.orders "$ROWS"
measure mariadb_full dump_pipe "$ROWS" bash -c "mariadb-dump --no-defaults -h 127.0.0.1 -P $PORT -u tidemark -ptidemark \
    --single-transaction tidemark orders_load | mariadb --no-defaults -h 127.0.0.1 -P $PORT -u tidemark -ptidemark dumped"
check_count dumped.orders_load "$ROWS"

# 3. incremental: INCR newer rows, MariaDB -> MariaDB, vs a hand-written INSERT ... SELECT ... WHERE
MAXTS=$("${MY[@]}" -N -e "SELECT DATE_FORMAT(MAX(updated_at), '%Y-%m-%d %H:%i:%s.%f') FROM orders_load")
"${MY[@]}" -e "CREATE TABLE pushed.by_hand LIKE pushed.orders; INSERT INTO pushed.by_hand SELECT * FROM pushed.orders;
    INSERT INTO orders_load SELECT seq, seq % 9973, 'new', (seq % 100000) / 7.0, CONCAT('order number ', seq),
    TIMESTAMP'2025-01-01 00:00:00' + INTERVAL seq SECOND FROM seq_$((ROWS + 1))_to_$((ROWS + INCR))"
measure incremental tidemark "$INCR" "$CLI" -w "$WS" run --table "$T2"
check_count pushed.orders $((ROWS + INCR))
measure incremental insert_select "$INCR" "${MY[@]}" -e "INSERT INTO pushed.by_hand SELECT * FROM orders_load
    WHERE updated_at > '$MAXTS'"
check_count pushed.by_hand $((ROWS + INCR))

echo
printf '%-14s %-13s %10s %9s %12s %9s %16s\n' case tool rows seconds rows/s rss_MB "ref/tidemark"
awk '
    { secs[$1 "," $2] = $4; rows[NR] = $0 }
    END {
        for (i = 1; i <= NR; i++) {
            split(rows[i], f, " ")
            rate = f[4] > 0 ? f[3] / f[4] : 0
            ratio = ""
            if (f[2] !~ /^tidemark/ && secs[f[1] ",tidemark"] > 0)
                ratio = sprintf("%.2fx", f[4] / secs[f[1] ",tidemark"])
            printf "%-14s %-13s %10d %9.2f %12.0f %9d %16s\n", f[1], f[2], f[3], f[4], rate, f[5], ratio
        }
    }' "$RESULTS"
echo "(ratio = reference seconds / Tidemark seconds: >= 1 means Tidemark is as fast or faster)"
