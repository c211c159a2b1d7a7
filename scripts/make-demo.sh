#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a demo in ./demo/: a sample source database, an empty target, and a workspace whose
# control table shows every state a run can end in on its first run from the window:
#
#   orders      timestamp watermark + id tiebreak, append          -> succeeded
#   events      integer watermark, append                          -> succeeded
#   customers   merge by customer_id with a 1h lookback            -> succeeded
#   payments    target has CHECK (amount >= 0), 25 rows violate it,
#               --max-skipped 100                                  -> warning (25 rejected rows)
#   audit_log   starts at today's maximum, --expect-rows           -> warning (no new rows)
#   products    added, then paused                                 -> skipped
#   invoices    its source table was dropped after it was added    -> failed
#
# and three schedules: nightly (all active tables), orders-15min (orders and events, weekdays,
# with its own alert hook) and weekly-products (paused).
#
# With DEMO_STREAM_ROWS=N an eighth table, clicks (N rows), is copied row by row in small
# committed batches, so a run shows it streaming (rows/s, time left) for a few seconds; the
# screenshot of a run in progress uses it.
#
# Idempotent: an existing complete demo is left alone; `--force` rebuilds it.
#   scripts/make-demo.sh [--force]          env: TIDEMARK_CLI (default build/app/tidemark-cli),
#                                           DEMO_DIR (default ./demo),
#                                           DEMO_SCALE (multiplies orders/events rows, default 1),
#                                           DEMO_STREAM_ROWS (rows of the clicks table, default 0: none)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

demo=${DEMO_DIR:-$root/demo}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
if [[ "${1:-}" == "--force" ]]; then
    rm -rf "$demo"
fi
if [[ -f "$demo/.complete" ]]; then
    echo "make-demo: $demo already exists (use --force to rebuild)"
    exit 0
fi
if [[ ! -x "$cli" ]]; then
    echo "make-demo: $cli not found — run scripts/build.sh first" >&2
    exit 1
fi

rm -rf "$demo"
mkdir -p "$demo"
src="$demo/source.db"
dst="$demo/target.db"
ws="$demo/demo.tidemark"

echo "make-demo: generating $src"
# DEMO_SCALE multiplies the orders and events rows (a bigger demo).
scale=${DEMO_SCALE:-1}
sed -e "s/WHERE i < 40000)/WHERE i < $((40000 * scale)))/" \
    -e "s/WHERE i < 60000)/WHERE i < $((60000 * scale)))/" <<'SQL' | sqlite3 "$src" >/dev/null
PRAGMA journal_mode = WAL;
BEGIN;
-- 40,000 orders over ~2 months, two to three orders sharing each timestamp (ties on the watermark).
CREATE TABLE orders (
    id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, status TEXT NOT NULL,
    amount REAL NOT NULL, updated_at TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
INSERT INTO orders
SELECT i, 1 + (i * 7919) % 5000,
       CASE i % 5 WHEN 0 THEN 'new' WHEN 1 THEN 'paid' WHEN 2 THEN 'shipped' WHEN 3 THEN 'delivered' ELSE 'returned' END,
       round(((i * 7907) % 50000) / 100.0, 2),
       strftime('%Y-%m-%dT%H:%M:%fZ', 1748736000 + (i * 2 / 5) * 300, 'unixepoch')
FROM n;
CREATE INDEX orders_updated_at ON orders (updated_at);

-- 60,000 events with an integer sequence as watermark.
CREATE TABLE events (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, kind TEXT NOT NULL, payload TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60000)
INSERT INTO events
SELECT i, 1000000 + i,
       CASE i % 4 WHEN 0 THEN 'login' WHEN 1 THEN 'view' WHEN 2 THEN 'click' ELSE 'logout' END,
       printf('{"session": %d, "page": "/p/%d"}', i / 7, i % 97)
FROM n;
CREATE INDEX events_seq ON events (seq);

-- 5,000 customers, copied by merge on their key.
CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, country TEXT,
    updated_at TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
INSERT INTO customers
SELECT i, printf('Customer %05d', i), printf('customer%d@example.com', i),
       CASE i % 6 WHEN 0 THEN 'DE' WHEN 1 THEN 'FR' WHEN 2 THEN 'US' WHEN 3 THEN 'JP' WHEN 4 THEN 'BR' ELSE 'NL' END,
       strftime('%Y-%m-%dT%H:%M:%fZ', 1748736000 + i * 900, 'unixepoch')
FROM n;

-- 20,000 payments; 25 of them have a negative amount that the target refuses.
CREATE TABLE payments (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, amount REAL NOT NULL, paid_at TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO payments
SELECT i, 1 + (i * 31) % 40000,
       CASE WHEN i % 800 = 400 THEN -1.0 ELSE round(((i * 7907) % 50000) / 100.0, 2) END,
       strftime('%Y-%m-%dT%H:%M:%fZ', 1748736000 + i * 250, 'unixepoch')
FROM n;

-- 10,000 audit rows; the table is tracked only from today's maximum on.
CREATE TABLE audit_log (id INTEGER PRIMARY KEY, actor TEXT NOT NULL, action TEXT NOT NULL, at TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
INSERT INTO audit_log
SELECT i, printf('user%d', i % 40), CASE i % 3 WHEN 0 THEN 'login' WHEN 1 THEN 'export' ELSE 'edit' END,
       strftime('%Y-%m-%dT%H:%M:%fZ', 1748736000 + i * 600, 'unixepoch')
FROM n;

-- 2,000 products: configured, then paused.
CREATE TABLE products (sku INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL, updated_at TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO products
SELECT i, printf('Product %04d', i), round(((i * 131) % 10000) / 100.0, 2),
       strftime('%Y-%m-%dT%H:%M:%fZ', 1748736000 + i * 3600, 'unixepoch')
FROM n;

-- Dropped after it is added to the control table: the run reports it as failed.
CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL, issued_at TEXT NOT NULL);
INSERT INTO invoices VALUES (1, 10.0, '2025-06-01T00:00:00.000Z'), (2, 20.0, '2025-06-02T00:00:00.000Z');
COMMIT;
SQL

# The target refuses negative payments; with --max-skipped those rows go to the rejects table.
sqlite3 "$dst" >/dev/null <<'SQL'
PRAGMA journal_mode = WAL;
CREATE TABLE payments (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL,
                       amount REAL NOT NULL CHECK (amount >= 0), paid_at TEXT NOT NULL);
SQL

tm() { "$cli" --workspace "$ws" "$@"; }

echo "make-demo: creating workspace $ws"
tm init >/dev/null
tm connection add shop --sqlite "$src" >/dev/null
tm connection add warehouse --sqlite "$dst" >/dev/null
tm table add --source shop:orders --target warehouse:orders --watermark updated_at --tiebreak id >/dev/null
tm table add --source shop:events --target warehouse:events --watermark seq >/dev/null
tm table add --source shop:customers --target warehouse:customers --watermark updated_at \
    --key customer_id --mode merge --lookback 1h >/dev/null
tm table add --source shop:payments --target warehouse:payments --watermark paid_at --tiebreak id \
    --max-skipped 100 >/dev/null
audit_max=$(sqlite3 "$src" "SELECT max(at) FROM audit_log")
tm table add --source shop:audit_log --target warehouse:audit_log --watermark at \
    --initial-watermark "$audit_max" --expect-rows >/dev/null
products_id=$(tm table add --source shop:products --target warehouse:products --watermark updated_at \
    --key sku --mode merge)
tm table pause "$products_id"
tm table add --source shop:invoices --target warehouse:invoices --watermark issued_at >/dev/null
sqlite3 "$src" "DROP TABLE invoices"

# Schedules (the Schedules dock, the control table's "Next run"): every active table nightly,
# two tables every 15 minutes on weekdays with their own alert hook, and a paused weekly one.
tm schedule add nightly --cron "30 2 * * *" --tz Europe/Paris --retries 2 --timeout 30m >/dev/null
tm schedule add orders-15min --cron "*/15 * * * mon-fri" --tz America/New_York --table 1 --table 2 \
    --concurrency 2 --hook 'logger -t tidemark "orders-15min failed"' --on failed >/dev/null
tm schedule add weekly-products --cron "0 6 * * sun" --tz UTC --table "$products_id" --paused >/dev/null

# Only for a run caught in progress: a table streamed in 1,000-row committed batches.
stream_rows=${DEMO_STREAM_ROWS:-0}
if ((stream_rows > 0)); then
    sqlite3 "$src" >/dev/null <<SQL
CREATE TABLE clicks (id INTEGER PRIMARY KEY, session INTEGER NOT NULL, page TEXT NOT NULL, at INTEGER NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $stream_rows)
INSERT INTO clicks SELECT i, i / 9, printf('/p/%d', i % 97), 1700000000000 + i * 37 FROM n;
SQL
    tm table add --source shop:clicks --target warehouse:clicks --watermark at \
        --commit-per-batch --batch-size 1000 >/dev/null
fi

touch "$demo/.complete"
echo "make-demo: ready — open it with: build/app/tidemark --workspace $ws"
tm table list
