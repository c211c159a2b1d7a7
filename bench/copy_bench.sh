#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tidemark against the sqlite3 CLI on the same work and the same files (run by hand; not a test).
#
#   bench/copy_bench.sh                         1,000,000-row source
#   BENCH_ROWS=5000000 bench/copy_bench.sh      the same at 5M rows (peak RSS should not grow)
#
# env: BENCH_ROWS (1000000), BENCH_CHANGED (100000 new rows for (b), changed rows for (c)),
#      BENCH_DIR (/tmp/tidemark-bench), TIDEMARK_CLI (build/app/tidemark-cli)
#
# (a) full load into a fresh target      vs ATTACH + INSERT INTO ... SELECT in one transaction
# (b) incremental copy of the new rows   vs INSERT ... SELECT ... WHERE updated_at > max(target)
# (c) merge (key id) of changed rows     vs INSERT ... SELECT ... ON CONFLICT(id) DO UPDATE
# (d) Tidemark's peak RSS (/usr/bin/time "Maximum resident set size") in every Tidemark row.
# (e) full load of a table that may skip rows (--max-skipped), none refused
#                                        vs the same as (a)
# (f) the same when the target refuses one row (a CHECK): Tidemark tries the copy inside the
#     database, which the refused row ends, then streams every row and skips that one
#                                        vs INSERT OR IGNORE ... SELECT into the same table
# Each Tidemark target is checked against the CLI's target (row count + checksum) after each step.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/deps.sh"
tidemark_deps time

rows=${BENCH_ROWS:-1000000}
changed=${BENCH_CHANGED:-100000}
dir=${BENCH_DIR:-/tmp/tidemark-bench}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
if [[ ! -x "$cli" ]]; then
    echo "copy_bench: $cli not found — run scripts/build.sh first (or set TIDEMARK_CLI)" >&2
    exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
src="$dir/source.db"
tm_dst="$dir/tidemark_target.db"
ref_dst="$dir/sqlite3_target.db"
ws="$dir/bench.tidemark"

now_ns() { date +%s%N; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.3f", ns / 1e9 }'; }
rate() { awk -v n="$1" -v ns="$2" 'BEGIN { printf "%.0f", n / (ns / 1e9) }'; }

results=()
max_rss_kb=0
record() { # label tidemark_rows tidemark_ns rss_kb cli_rows cli_ns check
    local tm_rate cli_rate ratio
    tm_rate=$(rate "$2" "$3")
    cli_rate=$(rate "$5" "$6")
    ((max_rss_kb = $4 > max_rss_kb ? $4 : max_rss_kb)) || true
    ratio=$(awk -v a="$tm_rate" -v b="$cli_rate" 'BEGIN { printf "%.2f", a / b }')
    results+=("$(printf '%-22s %10s %9s %12s %8s %9s %12s %7s  %s' "$1" "$2" "$(secs "$3")" "$tm_rate" \
        "$(($4 / 1024))" "$(secs "$6")" "$cli_rate" "$ratio" "$7")")
}

# Runs tidemark-cli run --json under /usr/bin/time; sets TM_NS, TM_RSS_KB, TM_ROWS (rows written).
tidemark_run() {
    local start end
    start=$(now_ns)
    if ! /usr/bin/time -f '%M' -o "$dir/time.out" "$cli" --workspace "$ws" run "$@" --json >"$dir/run.json" 2>"$dir/run.err"; then
        echo "copy_bench: tidemark-cli run $* failed:" >&2
        cat "$dir/run.json" "$dir/run.err" >&2
        exit 1
    fi
    end=$(now_ns)
    TM_NS=$((end - start))
    TM_RSS_KB=$(tail -n 1 "$dir/time.out")
    TM_ROWS=$(grep -o '"rows_written": *[0-9]*' "$dir/run.json" | grep -o '[0-9]*$' | awk '{ s += $1 } END { print s + 0 }')
}

# Times one sqlite3 CLI script against the reference target; sets CLI_NS.
sqlite_run() {
    local start end
    start=$(now_ns)
    sqlite3 "$ref_dst" "$1" >/dev/null
    end=$(now_ns)
    CLI_NS=$((end - start))
}

# Same rows in both targets? count + order-independent checksum over every column.
same() { # table
    local q="SELECT count(*), sum(id), sum(customer_id), sum(CAST(round(amount * 100) AS INTEGER)),
                    sum(length(note)), sum(unicode(status) * length(status)), max(updated_at), min(updated_at),
                    sum(CAST(substr(updated_at, 18, 2) AS INTEGER)) FROM \"$1\""
    [[ "$(sqlite3 "$tm_dst" "$q")" == "$(sqlite3 "$ref_dst" "$q")" ]] && echo ok || echo DIFFERENT
}

echo "copy_bench: generating $rows rows in $src"
sqlite3 "$src" >/dev/null <<SQL
PRAGMA journal_mode = WAL;
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, status TEXT NOT NULL,
                     amount REAL NOT NULL, note TEXT NOT NULL, updated_at TEXT NOT NULL);
-- Four rows share each updated_at (ties at the watermark), 250 ms apart.
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows)
INSERT INTO orders
SELECT i, 1 + (i * 7919) % 100000,
       CASE i % 5 WHEN 0 THEN 'new' WHEN 1 THEN 'paid' WHEN 2 THEN 'shipped' WHEN 3 THEN 'delivered' ELSE 'returned' END,
       ((i * 7907) % 100000) / 100.0,
       printf('note %055d', i),
       strftime('%Y-%m-%dT%H:%M:%fZ', 1735689600 + (i / 4) * 0.25, 'unixepoch')
FROM n;
CREATE INDEX orders_updated_at ON orders (updated_at);
SQL
ref_schema="id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, status TEXT NOT NULL, amount REAL NOT NULL,
            note TEXT NOT NULL, updated_at TEXT NOT NULL"

"$cli" --workspace "$ws" init >/dev/null
"$cli" --workspace "$ws" connection add src --sqlite "$src" >/dev/null
"$cli" --workspace "$ws" connection add dst --sqlite "$tm_dst" >/dev/null
append_id=$("$cli" --workspace "$ws" table add --source src:orders --target dst:orders \
    --watermark updated_at --tiebreak id)
skipping_id=$("$cli" --workspace "$ws" table add --source src:orders --target dst:orders_skipping \
    --watermark updated_at --tiebreak id --max-skipped 10)
refusing_id=$("$cli" --workspace "$ws" table add --source src:orders --target dst:orders_refusing \
    --watermark updated_at --tiebreak id --max-skipped 10)
merge_id=$("$cli" --workspace "$ws" table add --source src:orders --target dst:orders_merge \
    --watermark updated_at --tiebreak id --mode merge --key id)

echo "copy_bench: (a) full load"
tidemark_run --table "$append_id"
sqlite_run "ATTACH '$src' AS s; BEGIN; CREATE TABLE orders ($ref_schema);
            INSERT INTO orders SELECT * FROM s.orders; COMMIT;"
record "(a) full load" "$TM_ROWS" "$TM_NS" "$TM_RSS_KB" "$rows" "$CLI_NS" "$(same orders)"

echo "copy_bench: (e) full load, rows may be skipped, none refused"
tidemark_run --table "$skipping_id"
sqlite_run "ATTACH '$src' AS s; BEGIN; CREATE TABLE orders_skipping ($ref_schema);
            INSERT INTO orders_skipping SELECT * FROM s.orders; COMMIT;"
record "(e) may skip, none" "$TM_ROWS" "$TM_NS" "$TM_RSS_KB" "$rows" "$CLI_NS" "$(same orders_skipping)"

echo "copy_bench: (f) full load, rows may be skipped, the target refuses one"
refusing_schema="$ref_schema, CHECK (id <> $((rows / 2)))"
sqlite3 "$tm_dst" "CREATE TABLE orders_refusing ($refusing_schema)"
tidemark_run --table "$refusing_id"
sqlite_run "ATTACH '$src' AS s; BEGIN; CREATE TABLE orders_refusing ($refusing_schema);
            INSERT OR IGNORE INTO orders_refusing SELECT * FROM s.orders; COMMIT;"
record "(f) may skip, one" "$TM_ROWS" "$TM_NS" "$TM_RSS_KB" "$((rows - 1))" "$CLI_NS" "$(same orders_refusing)"

echo "copy_bench: (b) incremental, $changed new rows"
# The new rows start one tick after the current maximum, so the CLI's plain `updated_at > max`
# selects the same rows as Tidemark's (updated_at, id) position.
sqlite3 "$src" "WITH RECURSIVE n(i) AS (SELECT $rows + 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows + $changed)
    INSERT INTO orders
    SELECT i, 1 + (i * 7919) % 100000, 'new', ((i * 7907) % 100000) / 100.0, printf('note %055d', i),
           strftime('%Y-%m-%dT%H:%M:%fZ', 1735689600 + (i / 4 + 1) * 0.25, 'unixepoch')
    FROM n;"
tidemark_run --table "$append_id"
sqlite_run "ATTACH '$src' AS s; BEGIN;
            INSERT INTO orders SELECT * FROM s.orders WHERE updated_at > (SELECT max(updated_at) FROM main.orders);
            COMMIT;"
record "(b) incremental" "$TM_ROWS" "$TM_NS" "$TM_RSS_KB" "$changed" "$CLI_NS" "$(same orders)"

echo "copy_bench: (c) merge — loading the merge targets first (not timed)"
tidemark_run --table "$merge_id"
merge_load_rss=$TM_RSS_KB
sqlite3 "$ref_dst" "ATTACH '$src' AS s; BEGIN; CREATE TABLE orders_merge ($ref_schema);
                    INSERT INTO orders_merge SELECT * FROM s.orders; COMMIT;"
echo "copy_bench: (c) merge, $changed changed rows"
step=$(((rows + changed) / changed))
sqlite3 "$src" "UPDATE orders SET status = 'changed', amount = amount + 1,
                    updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 1767225600 + (id / 4) * 0.25, 'unixepoch')
                WHERE id % $step = 0 AND id <= $step * $changed"
updated=$(sqlite3 "$src" "SELECT count(*) FROM orders WHERE status = 'changed'")
tidemark_run --table "$merge_id"
sqlite_run "ATTACH '$src' AS s; BEGIN;
            INSERT INTO orders_merge SELECT * FROM s.orders
            WHERE updated_at > (SELECT max(updated_at) FROM main.orders_merge)
            ON CONFLICT (id) DO UPDATE SET customer_id = excluded.customer_id, status = excluded.status,
                amount = excluded.amount, note = excluded.note, updated_at = excluded.updated_at;
            COMMIT;"
record "(c) merge" "$TM_ROWS" "$TM_NS" "$TM_RSS_KB" "$updated" "$CLI_NS" "$(same orders_merge)"

echo
echo "Tidemark $("$cli" --version 2>/dev/null | head -n 1) vs $(sqlite3 --version | cut -d' ' -f1) CLI," \
    "source $rows rows, $(nproc) cores, $(date -u +%Y-%m-%d)"
printf '%-22s %10s %9s %12s %8s %9s %12s %7s  %s\n' "step" "rows" "tm s" "tm rows/s" "RSS MB" \
    "cli s" "cli rows/s" "tm/cli" "same result"
printf '%s\n' "${results[@]}"
echo "(d) Tidemark peak RSS: $((max_rss_kb / 1024)) MB over (a)-(c);" \
    "$((merge_load_rss / 1024)) MB for the $((rows + changed))-row merge load"
