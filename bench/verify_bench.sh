#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `tidemark-cli verify` (range checksums, and --every-row) and `reconcile` (dry, then --apply) against
# counting both sides, on the same data in the same sitting (run by hand; not a test).
#
#   bench/verify_bench.sh                          1,000,000 rows, SQLite -> SQLite
#   BENCH_ROWS=10000000 bench/verify_bench.sh      10M rows
#   TIDEMARK_PG_PORT=5432 bench/verify_bench.sh    also SQLite -> PostgreSQL (scripts/pgcluster.sh start)
#
# env: BENCH_ROWS (1000000), BENCH_DIFFS (100 scattered differences for the second case),
#      BENCH_DIR (/tmp/tidemark-verify-bench), TIDEMARK_CLI (build/app/tidemark-cli)
#
# For each pairing: count(*) on both sides (the floor: sqlite3 / psql), then verify when both sides
# match and after BENCH_DIFFS scattered changes in the target, with ranges and with --every-row.
# Prints seconds, the ratio to counting, verify's method and ranges read, and peak RSS.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/deps.sh"
tidemark_deps time sqlite3

rows=${BENCH_ROWS:-1000000}
diffs=${BENCH_DIFFS:-100}
dir=${BENCH_DIR:-/tmp/tidemark-verify-bench}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
[[ -x "$cli" ]] || { echo "verify_bench: $cli not found — run scripts/build.sh first" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
src="$dir/source.db"
ws="$dir/bench.tidemark"
schema="verify_bench_$$"
pg_conninfo="host=127.0.0.1 port=${TIDEMARK_PG_PORT:-} dbname=tidemark user=tidemark"

now_ns() { date +%s%N; }
secs() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e9 }'; }

echo "verify_bench: making $rows source rows"
sqlite3 "$src" <<SQL
PRAGMA journal_mode=OFF;
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, amount REAL, updated_at TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows)
INSERT INTO orders SELECT i, 'customer ' || (i % 9973), i / 7.0,
    strftime('%Y-%m-%dT%H:%M:%fZ', 1735689600 + i, 'unixepoch') FROM n;
SQL

"$cli" -w "$ws" init >/dev/null
"$cli" -w "$ws" connection add src --sqlite "$src" >/dev/null
"$cli" -w "$ws" connection add dst --sqlite "$dir/target.db" >/dev/null
pairings=("sqlite->sqlite:dst:orders")
if [[ -n "${TIDEMARK_PG_PORT:-}" ]]; then
    psql -q "$pg_conninfo" -c "CREATE SCHEMA $schema"
    "$cli" -w "$ws" connection add pg --postgres "$pg_conninfo" >/dev/null
    pairings+=("sqlite->postgres:pg:$schema.orders")
fi
trap '[[ -n "${TIDEMARK_PG_PORT:-}" ]] && psql -q "$pg_conninfo" -c "DROP SCHEMA IF EXISTS $schema CASCADE" \
    -c "DELETE FROM public.tidemark_state WHERE starts_with(target_table, '"'"'\"$schema\".'"'"')" >/dev/null 2>&1' EXIT

count_target() { # connection table
    if [[ $1 == dst ]]; then sqlite3 "$dir/target.db" "SELECT count(*) FROM orders" >/dev/null
    else psql -qAt "$pg_conninfo" -c "SELECT count(*) FROM $2" >/dev/null; fi
}

change_target() { # connection table: BENCH_DIFFS scattered changes
    local step=$((rows / diffs))
    if [[ $1 == dst ]]; then sqlite3 "$dir/target.db" "UPDATE orders SET amount = -1 WHERE id % $step = 0"
    else psql -qAt "$pg_conninfo" -c "UPDATE $2 SET amount = -1 WHERE id % $step = 0"; fi
}

deleted=0
printf '%-18s %-10s %-12s %8s %7s %-7s %7s %8s\n' pairing case how seconds ratio method ranges rss_mb
for pairing in "${pairings[@]}"; do
    IFS=: read -r name conn table <<<"$pairing"
    id=$("$cli" -w "$ws" table add --source src:orders --target "$conn:$table" --watermark updated_at)
    "$cli" -w "$ws" run --table "$id" >/dev/null
    start=$(now_ns)
    sqlite3 "$src" "SELECT count(*) FROM orders" >/dev/null
    count_target "$conn" "$table"
    count_ns=$(($(now_ns) - start))
    printf '%-18s %-10s %-12s %8s %7s\n' "$name" - "count(*) x2" "$(secs $count_ns)" 1.00
    for case in match "$diffs-diffs"; do
        [[ $case == match ]] || change_target "$conn" "$table"
        for how in ranges every-row; do
            extra=()
            [[ $how == every-row ]] && extra=(--every-row)
            start=$(now_ns)
            /usr/bin/time -f '%M' -o "$dir/time.out" "$cli" -w "$ws" verify --table "$id" --json "${extra[@]}" \
                >"$dir/verify.json" 2>/dev/null || true
            ns=$(($(now_ns) - start))
            read -r method ranges < <(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))[0]; print(t["method"], t["ranges_read"])' "$dir/verify.json")
            printf '%-18s %-10s %-12s %8s %7s %-7s %7s %8s\n' "$name" "$case" "$how" "$(secs $ns)" \
                "$(awk -v a=$ns -v b=$count_ns 'BEGIN { printf "%.2f", a / b }')" "$method" "$ranges" \
                "$(($(tail -1 "$dir/time.out") / 1024))"
        done
    done
    # Reconcile: BENCH_DIFFS scattered deletes in the source (a different set per pairing), the
    # dry report, then --apply removing them.
    deleted=$((deleted + 1))
    sqlite3 "$src" "DELETE FROM orders WHERE id % $((rows / diffs)) = $deleted"
    "$cli" -w "$ws" table edit "$id" --deletes remove --delete-grace 0s --max-delete-ratio 100 >/dev/null
    for how in reconcile apply; do
        extra=()
        [[ $how == apply ]] && extra=(--apply)
        start=$(now_ns)
        /usr/bin/time -f '%M' -o "$dir/time.out" "$cli" -w "$ws" reconcile "$id" --json "${extra[@]}" \
            >"$dir/reconcile.json" 2>/dev/null || true
        ns=$(($(now_ns) - start))
        read -r method ranges removed < <(python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print(t["method"], t["ranges_read"], t["removed"] if t["applied"] else t["to_remove"])' "$dir/reconcile.json")
        printf '%-18s %-10s %-12s %8s %7s %-7s %7s %8s  (%s rows)\n' "$name" "$diffs-deletes" "$how" "$(secs $ns)" \
            "$(awk -v a=$ns -v b=$count_ns 'BEGIN { printf "%.2f", a / b }')" "$method" "$ranges" \
            "$(($(tail -1 "$dir/time.out") / 1024))" "$removed"
    done
    "$cli" -w "$ws" table remove "$id" >/dev/null
done
