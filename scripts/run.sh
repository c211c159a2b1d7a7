#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job on a demo: installs what is missing, builds, creates ./demo/ (once) and opens the
# window on it. Without the window (not built, or no display) it runs a short CLI demo instead:
# a sample source, two incremental copies, and the history they left.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/build.sh
build_dir=${TIDEMARK_BUILD_DIR:-build}
cli="$root/$build_dir/app/tidemark-cli"
gui="$root/$build_dir/app/tidemark"
TIDEMARK_CLI="$cli" bash scripts/make-demo.sh || echo "run.sh: the demo workspace could not be made (see above)" >&2

if [[ -x "$gui" ]]; then
    if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" || -n "${QT_QPA_PLATFORM:-}" ]]; then
        echo "run.sh: opening the window on demo/demo.tidemark (press F5 to run all active tables)"
        exec "$gui" --workspace "$root/demo/demo.tidemark"
    fi
    echo "run.sh: no display (DISPLAY/WAYLAND_DISPLAY unset) — showing the CLI demo instead;"
    echo "        on a desktop: $build_dir/app/tidemark --workspace demo/demo.tidemark"
else
    echo "run.sh: the window ($gui) is not built — showing the CLI demo instead"
fi

# CLI demo: a small orders table copied twice; the second run copies only the rows added since.
work="$root/demo/cli"
rm -rf "$work"
mkdir -p "$work"
ws="$work/cli-demo.tidemark"
tm() { "$cli" --workspace "$ws" "$@"; }
add_orders() { # first last
    sqlite3 "$work/source.db" "
        CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, customer TEXT, amount REAL, updated_at TEXT);
        WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
        INSERT INTO orders SELECT i, 'customer ' || (i % 50), (i % 1000) / 10.0,
               strftime('%Y-%m-%dT%H:%M:%fZ', 1748736000 + i * 60, 'unixepoch') FROM n;"
}
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

add_orders 1 5000
step "tidemark-cli init / connection add / table add"
tm init
tm connection add src --sqlite "$work/source.db" >/dev/null
tm connection add dst --sqlite "$work/target.db" >/dev/null
tm table add --source src:orders --target dst:orders --watermark updated_at --tiebreak id
tm table list

step "tidemark-cli run --json      # first run: a full load of 5,000 rows"
tm run --json || true
add_orders 5001 5750
step "(750 new rows arrive in the source)"
step "tidemark-cli run --json      # second run: only the 750 new rows"
tm run --json || true
step "tidemark-cli run             # third run: nothing new"
tm run || true
step "tidemark-cli history"
tm history
step "tidemark-cli verify"
tm verify || true
echo
echo "target rows: $(sqlite3 "$work/target.db" 'SELECT count(*) FROM orders') (source: $(sqlite3 "$work/source.db" 'SELECT count(*) FROM orders'))"
