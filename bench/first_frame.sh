#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How much of the window's open stall is its own, and how much any Qt window of its size pays for
# its first frames under Xvfb (run by hand; not a test).
#
#   bench/first_frame.sh                         bare Qt window vs Tidemark on an empty workspace
#   BENCH_WORKSPACE=big.tidemark bench/first_frame.sh     ... and Tidemark on (a copy of) that one
#
# env: BENCH_TRIALS (5), BENCH_DIR (/tmp/tidemark-first-frame), BENCH_DISPLAY (:88),
#      TIDEMARK_CLI (build/app/tidemark-cli), TIDEMARK_GUI (build/bench/tidemark-instrumented)
#
# Each trial runs each program in turn, each under a fresh Xvfb (at nice -10 when the bench may, as
# in bench/window_scale.sh), for four seconds from its start: bench/bare_window.cpp (a plain
# QMainWindow of 1400x880 with a menu bar, a tool bar, two filled tables and a status bar), the
# same window changing its status bar 20 ms after its first frame (as a window does whose content
# comes in after it is shown: its next paint waits for the X server to take in the first frame),
# then Tidemark (which opens at 1400x880 with fresh settings). Each notes its GUI thread's lateness
# with the same 10 ms timer (Tidemark's through TIDEMARK_BENCH_EVENTS); the figure per program is
# the worst lateness in those four seconds and, in brackets, the worst of it not spent waiting for
# a core. The programs alternate, so the machine's load falls on each alike.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/scripts/deps.sh"
tidemark_deps xdotool

trials=${BENCH_TRIALS:-5}
dir=${BENCH_DIR:-/tmp/tidemark-first-frame}
display=${BENCH_DISPLAY:-:88}
cli=${TIDEMARK_CLI:-$root/build/app/tidemark-cli}
gui=${TIDEMARK_GUI:-$root/build/bench/tidemark-instrumented}
big=${BENCH_WORKSPACE:-}
source "$root/bench/xvfb.sh"
bench_programs first_frame "$cli" "$gui"
mkdir -p "$dir"

bare=$dir/bare_window
# shellcheck disable=SC2046 # pkg-config's flags are words
g++ -std=c++20 -O2 -fPIC -I"$root" "$root/bench/bare_window.cpp" -o "$bare" $(pkg-config --cflags --libs Qt6Widgets)

empty=$dir/empty.tidemark
rm -f "$empty" "$empty".log
"$cli" -w "$empty" init >/dev/null

trap stop_xvfb EXIT

# The worst lateness in events file $1 after time $2, as "late (own)".
worst() { # events start
    awk -v start="$2" '$1 >= start && $1 < start + 4 && $2 == "late" {
        if ($3 > late) late = $3
        if ($3 - $5 > own) own = $3 - $5
    } END { printf "%d (%d)", late, own }' "$1"
}

# Runs `label command...` for four seconds with events file $events; appends its figure.
measure() { # label command...
    local label=$1 start pid
    shift
    : >"$dir/events"
    start_xvfb
    start=$(date +%s.%N)
    DISPLAY=$display XDG_CONFIG_HOME=$dir/config-$label TIDEMARK_BENCH_EVENTS=$dir/events QT_QPA_PLATFORM=xcb \
        "$@" >"$dir/$label.log" 2>&1 &
    pid=$!
    sleep 4
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    stop_xvfb
    figures[$label]+="$(printf '%14s' "$(worst "$dir/events" "$start")")"
}

declare -A figures=([bare]="" [late]="" [empty]="" [big]="")
for trial in $(seq "$trials"); do
    echo "first_frame: trial $trial of $trials (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    measure bare "$bare" "$dir/events"
    measure late "$bare" "$dir/events" 20
    rm -rf "$dir/config-empty"
    measure empty "$gui" "$empty"
    if [[ -n "$big" ]]; then
        cp "$big" "$dir/big.tidemark"
        rm -rf "$dir/config-big"
        sync
        measure big "$gui" "$dir/big.tidemark"
    fi
done

echo "worst GUI-thread lateness in the first 4 s, ms: late (of it, not waiting for a core); load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-34s %s\n' "bare Qt window 1400x880" "${figures[bare]}"
printf '%-34s %s\n' "  ... repainting 20 ms after" "${figures[late]}"
printf '%-34s %s\n' "Tidemark, empty workspace" "${figures[empty]}"
[[ -n "$big" ]] && printf '%-34s %s\n' "Tidemark, $(basename "$big")" "${figures[big]}"
exit 0
