#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Takes README screenshots of the real window under Xvfb, into docs/screenshots/<state>.png.
#
#   scripts/screenshots.sh [STATE...]        default states: main
#
# For each STATE the window is started afresh on the demo workspace with the environment variable
# TIDEMARK_SCREENSHOT_STATE=<STATE>, which the GUI may use to get into that state (select a tab,
# start a run, ...); the screenshot is taken SCREENSHOT_DELAY seconds later (default 4; per state:
# SCREENSHOT_DELAY_<STATE>, e.g. SCREENSHOT_DELAY_running=2).
# The demo workspace is rebuilt first (--force) so every refresh starts from the same data.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

source scripts/deps.sh
tidemark_deps imagemagick
build_dir=${TIDEMARK_BUILD_DIR:-build}
gui="$root/$build_dir/app/tidemark"
if [[ ! -x "$gui" ]]; then
    bash scripts/build.sh
fi
if [[ ! -x "$gui" ]]; then
    echo "screenshots: $gui was not built" >&2
    exit 1
fi
TIDEMARK_CLI="$root/$build_dir/app/tidemark-cli" bash scripts/make-demo.sh --force >/dev/null

states=("$@")
((${#states[@]})) || states=(main)
geometry=${SCREENSHOT_GEOMETRY:-1440x900}

display=99
while [[ -e /tmp/.X11-unix/X$display || -e /tmp/.X$display-lock ]]; do
    display=$((display + 1))
done
Xvfb ":$display" -screen 0 "${geometry}x24" -nolisten tcp >/dev/null 2>&1 &
xvfb_pid=$!
gui_pid=
cleanup() {
    [[ -n "$gui_pid" ]] && kill "$gui_pid" 2>/dev/null || true
    kill "$xvfb_pid" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 50); do
    [[ -e /tmp/.X11-unix/X$display ]] && break
    sleep 0.1
done
export DISPLAY=":$display"
unset QT_QPA_PLATFORM WAYLAND_DISPLAY

mkdir -p docs/screenshots
for state in "${states[@]}"; do
    delay_var="SCREENSHOT_DELAY_$state"
    delay=${!delay_var:-${SCREENSHOT_DELAY:-4}}
    TIDEMARK_SCREENSHOT_STATE="$state" "$gui" --workspace "$root/demo/demo.tidemark" &
    gui_pid=$!
    sleep "$delay"
    if ! kill -0 "$gui_pid" 2>/dev/null; then
        echo "screenshots: the window exited before the '$state' screenshot" >&2
        exit 1
    fi
    import -display "$DISPLAY" -window root "docs/screenshots/$state.png"
    echo "screenshots: docs/screenshots/$state.png"
    kill "$gui_pid" 2>/dev/null || true
    wait "$gui_pid" 2>/dev/null || true
    gui_pid=
done
