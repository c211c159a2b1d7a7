#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Takes the README screenshots of the real window under Xvfb, at each screen size, into
# docs/screenshots/<state>-<width>.png.
#
#   scripts/screenshots.sh [STATE...]
#
# States (default: all of them, in this order):
#   main               a run from the window, finished: every status, the history and its chart
#   running            a run caught mid-way through a streaming table (rows/s, time left)
#   watermark-history  Tables › Watermark History… after a run, a backfill and a second run
#   rejected-rows      the rows the target refused in a run, Rejected Rows…
#   verify             Tables › Verify… of a target someone edited by hand, what differs
#   schedules          the Schedules dock in front
# and, named only: add-schedule, runner-setup, history-table, welcome (bench/window/screenshotstate.h)
#
# Every shot starts from a freshly built demo workspace in a neutral place (SCREENSHOT_DEMO_DIR,
# default /tmp/tidemark-demo, so no checkout path shows), prepared for its state with the CLI,
# and a window with no remembered settings, under a window manager (openbox: the main window
# maximized, dialogs with their title bars, as on a desktop). The window gets into the state itself
# (TIDEMARK_SCREENSHOT_STATE, bench/window/screenshotstate.cpp, built into the instrumented window
# build/bench/tidemark-instrumented, not the shipped one), fills the screen and prints
# "screenshot-ready" when it is there; the shot is taken SCREENSHOT_SETTLE seconds later (default 0.5).
#
# env: SCREENSHOT_SIZES (default "1024x768 1440x900"), TIDEMARK_BUILD_DIR (default build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

source scripts/deps.sh
tidemark_deps imagemagick openbox
build_dir=${TIDEMARK_BUILD_DIR:-build}
gui="$root/$build_dir/bench/tidemark-instrumented"
cli="$root/$build_dir/app/tidemark-cli"
if [[ ! -x "$gui" || ! -x "$cli" ]]; then
    bash scripts/build.sh
fi
if [[ ! -x "$gui" ]]; then
    echo "screenshots: $gui was not built" >&2
    exit 1
fi

states=("$@")
((${#states[@]})) || states=(main running watermark-history rejected-rows verify schedules)
read -r -a sizes <<<"${SCREENSHOT_SIZES:-1024x768 1440x900}"
settle=${SCREENSHOT_SETTLE:-0.5}
demo=${SCREENSHOT_DEMO_DIR:-/tmp/tidemark-demo}
ws="$demo/demo.tidemark"
scratch=$(mktemp -d)

xvfb_pid=
wm_pid=
gui_pid=
cleanup() {
    [[ -n "$gui_pid" ]] && kill "$gui_pid" 2>/dev/null || true
    [[ -n "$wm_pid" ]] && kill "$wm_pid" 2>/dev/null || true
    [[ -n "$xvfb_pid" ]] && kill "$xvfb_pid" 2>/dev/null || true
    rm -rf "$scratch"
}
trap cleanup EXIT

start_xvfb() { # SIZE
    display=99
    while [[ -e /tmp/.X11-unix/X$display || -e /tmp/.X$display-lock ]]; do
        display=$((display + 1))
    done
    Xvfb ":$display" -screen 0 "$1x24" -nolisten tcp >/dev/null 2>&1 &
    xvfb_pid=$!
    for _ in $(seq 50); do
        [[ -e /tmp/.X11-unix/X$display ]] && break
        sleep 0.1
    done
    export DISPLAY=":$display"
    # No session manager, no autostart: only the frames.
    openbox --sm-disable >/dev/null 2>&1 &
    wm_pid=$!
    sleep 1
}

stop_xvfb() {
    kill "$wm_pid" 2>/dev/null || true
    wait "$wm_pid" 2>/dev/null || true
    wm_pid=
    kill "$xvfb_pid" 2>/dev/null || true
    wait "$xvfb_pid" 2>/dev/null || true
    xvfb_pid=
}

tm() { "$cli" --workspace "$ws" "$@"; }

# A fresh demo, then what the state needs done before the window opens (with the CLI, as a
# user or cron would).
prepare() { # STATE
    local rows=0
    [[ "$1" == running ]] && rows=${SCREENSHOT_STREAM_ROWS:-1000000}
    DEMO_DIR="$demo" DEMO_STREAM_ROWS=$rows TIDEMARK_CLI="$cli" bash scripts/make-demo.sh --force >/dev/null
    case "$1" in
    watermark-history)
        tm run >/dev/null || true
        tm backfill 1 --from 2025-07-01 --delete-newer --yes >/dev/null
        tm run --table 1 >/dev/null
        ;;
    verify)
        tm run >/dev/null || true
        # Someone edits the target by hand: two rows go, one amount changes.
        sqlite3 "$demo/target.db" "DELETE FROM orders WHERE id IN (1200, 1201);
                                   UPDATE orders SET amount = amount + 10 WHERE id = 3000;"
        ;;
    esac
}

shoot() { # STATE WIDTH
    local out="docs/screenshots/$1-$2.png" log="$scratch/$1-$2.log"
    : >"$log"
    # What the CLI says while preparing (a run's warnings) goes to a file beside the demo.
    prepare "$1" 2>"$demo.prepare.log"
    # No remembered geometry, splitters or columns: every refresh looks the same.
    local open=(--workspace "$ws")
    [[ "$1" == welcome ]] && open=()
    XDG_CONFIG_HOME="$scratch/config" TIDEMARK_SCREENSHOT_STATE="$1" "$gui" "${open[@]}" >"$log" 2>&1 &
    gui_pid=$!
    local waited=0
    until grep -q '^screenshot-ready' "$log"; do
        if ! kill -0 "$gui_pid" 2>/dev/null || ((waited >= 900)); then
            echo "screenshots: the window never reached the '$1' state; its output:" >&2
            cat "$log" >&2
            exit 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    sleep "$settle"
    import -display "$DISPLAY" -window root "$scratch/shot.png"
    # Maximum zlib compression, no metadata (no timestamps: an unchanged shot is an unchanged file).
    convert "$scratch/shot.png" -strip -define png:compression-level=9 -define png:compression-filter=5 \
        "$out"
    echo "screenshots: $out ($(du -k "$out" | cut -f1) KB)"
    kill "$gui_pid" 2>/dev/null || true
    wait "$gui_pid" 2>/dev/null || true
    gui_pid=
}

unset QT_QPA_PLATFORM WAYLAND_DISPLAY
mkdir -p docs/screenshots
for size in "${sizes[@]}"; do
    start_xvfb "$size"
    for state in "${states[@]}"; do
        shoot "$state" "${size%%x*}"
    done
    stop_xvfb
done
