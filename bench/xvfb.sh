# shellcheck shell=bash disable=SC2034,SC2154 # $display comes from, $xvfb_pid goes to, the bench
# SPDX-License-Identifier: MIT
# Sourced by the window benchmarks (window_scale.sh, first_frame.sh): a check that what they
# measure is built, and an Xvfb on $display to measure it in (its pid in $xvfb_pid until stopped).

# Exits, naming the program, when one of PROGRAM... is not built.
bench_programs() { # bench-name program...
    local name=$1 program
    shift
    for program in "$@"; do
        if [[ ! -x "$program" ]]; then
            echo "$name: $program not found — run scripts/build.sh first (or set TIDEMARK_CLI/TIDEMARK_GUI)" >&2
            exit 1
        fi
    done
}

# The instruments (Xvfb and the ping probe) run ahead of everything else on the machine when the
# bench may raise them (root), so a ping's wait is the window's, not theirs for a core; the window
# itself keeps the priority everything else has.
instrument=()
if nice -n -10 true 2>/dev/null; then
    instrument=(nice -n -10) # nice execs its command: $! stays the instrument's own pid
fi

xvfb_pid=
start_xvfb() {
    "${instrument[@]}" Xvfb "$display" -screen 0 1920x1080x24 -nolisten tcp >/dev/null 2>&1 &
    xvfb_pid=$!
    for _ in $(seq 100); do
        DISPLAY=$display xdotool getdisplaygeometry >/dev/null 2>&1 && return 0
        sleep 0.05
    done
    echo "Xvfb did not start on $display" >&2
    exit 1
}

stop_xvfb() {
    if [[ -n "$xvfb_pid" ]]; then
        kill "$xvfb_pid" 2>/dev/null || true
        wait "$xvfb_pid" 2>/dev/null || true
        xvfb_pid=
    fi
}
