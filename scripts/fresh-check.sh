#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that the README's two commands work on a clean Debian 12: builds a minimal bookworm root
# with debootstrap, clones this checkout's HEAD into it, and runs inside a chroot
#
#   scripts/run.sh    under its own Xvfb; passes once the window titled "demo.tidemark — Tidemark"
#                     is on the screen and the demo workspace lists its 7 tables (bounded wait)
#   scripts/test.sh   as a developer runs it (not CI=true, no sanitizer build)
#
# and prints how long each step took. Not part of CI; run it by hand as root (it takes a while):
#
#   scripts/fresh-check.sh [--keep] [--dir DIR]     env: FRESH_MIRROR (default: this machine's
#                                                   apt mirror), FRESH_WINDOW_TIMEOUT (s, default 7200)
#
# The chroot is removed afterwards unless --keep is given. Mounts (proc, sys, dev, dev/pts,
# dev/shm) are undone on exit, on failure too.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

keep=0
dir=""
while [[ $# -gt 0 ]]; do
    case "$1" in
    --keep) keep=1; shift ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "fresh-check: unknown argument: $1" >&2; exit 2 ;;
    esac
done
die() { echo "fresh-check: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"

# The mirror this machine's apt uses (deb822 or one-line format), unless FRESH_MIRROR says otherwise.
host_mirror() {
    local uri
    uri=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' \
        | grep -v security | head -1 || true)
    [[ -n $uri ]] || uri=$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
        | grep -v security | awk '{print $2}' | head -1 || true)
    echo "${uri:-http://deb.debian.org/debian}"
}
mirror=${FRESH_MIRROR:-$(host_mirror)}
security=${mirror%/debian}/debian-security

[[ -n $dir ]] || dir=$(mktemp -d /var/tmp/tidemark-fresh.XXXXXX)
mkdir -p "$dir"
# mktemp makes it 0700; as the chroot's / that would lock out every user but root (initdb runs as postgres).
chmod 0755 "$dir"
dir=$(cd "$dir" && pwd)
[[ $dir != / ]] || die "refusing to use / as the chroot"
head_commit=$(git -C "$root" rev-parse HEAD)
log_dir=$dir.logs
mkdir -p "$log_dir"

mounted=()
mount_in() { # mount args... target (relative to the chroot)
    local target=$dir/${*: -1}
    mkdir -p "$target"
    mount "${@:1:$#-1}" "$target" || return 1
    mounted+=("$target")
}
in_chroot() { chroot "$dir" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }

# Processes left in the chroot (the window, Xvfb, a PostgreSQL server) are ours: the chroot is
# ours. They are found by their root directory, so nothing outside it is touched.
chroot_pids() {
    local p
    for p in /proc/[0-9]*; do
        [[ $(readlink "$p/root" 2>/dev/null) == "$dir" ]] && echo "${p#/proc/}"
    done
    return 0
}
stop_chroot_processes() {
    local pid i
    for pid in $(chroot_pids); do kill -TERM "$pid" 2>/dev/null || true; done
    for i in 1 2 3 4 5 6 7 8 9 10; do [[ -z $(chroot_pids) ]] && return 0; sleep 1; done
    for pid in $(chroot_pids); do kill -KILL "$pid" 2>/dev/null || true; done
}
cleanup() {
    local rc=$? i
    stop_chroot_processes
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || echo "fresh-check: could not unmount ${mounted[i]}" >&2
    done
    if ((keep == 0)) && ! grep -q " $dir/" /proc/mounts; then
        rm -rf --one-file-system "$dir"
    else
        echo "fresh-check: chroot kept in $dir"
    fi
    echo "fresh-check: logs in $log_dir"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

declare -A took
# Steps check their own errors (errexit does not reach into a function called under `||`).
timed() { # name command...
    local name=$1 start rc=0
    shift
    start=$(date +%s)
    echo "fresh-check: [$name] started $(date -u +%H:%M:%S)"
    "$@" || rc=$?
    took[$name]=$(($(date +%s) - start))
    if ((rc == 0)); then
        echo "fresh-check: [$name] passed in $(fmt "${took[$name]}")"
    else
        echo "fresh-check: [$name] FAILED (exit $rc) after $(fmt "${took[$name]}")" >&2
    fi
    return "$rc"
}
fmt() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

bootstrap() {
    debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$log_dir/debootstrap.log" 2>&1 \
        || { tail -20 "$log_dir/debootstrap.log" >&2; return 1; }
    # A fresh install has the updates and security suites too.
    cat >"$dir/etc/apt/sources.list" <<EOF || return 1
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
    cp /etc/resolv.conf "$dir/etc/resolv.conf"
    [[ -s $dir/etc/hosts ]] || printf '127.0.0.1 localhost\n::1 localhost\n' >"$dir/etc/hosts"
    # Packages must not start services in a chroot (postgresql would start its default cluster
    # on port 5432 of this machine): the usual policy-rc.d answer "not allowed".
    printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
    chmod 755 "$dir/usr/sbin/policy-rc.d"
    mount_in -t proc proc proc || return 1
    mount_in -t sysfs sys sys || return 1
    mount_in --bind /dev dev || return 1
    mount_in --bind /dev/pts dev/pts || return 1
    mount_in -t tmpfs -o mode=1777 shm dev/shm || return 1
}

clone() {
    git clone -q --no-hardlinks "$root" "$dir/root/tidemark" || return 1
    git -C "$dir/root/tidemark" checkout -q --detach "$head_commit"
}

# A display number free on this machine: the chroot shares the network namespace, so Xvfb's
# abstract socket must not collide with a server outside it.
free_display() {
    local n
    for n in $(seq 140 199); do
        grep -q "@/tmp/.X11-unix/X$n\$" /proc/net/unix || { echo "$n"; return 0; }
    done
    return 1
}

run_sh() {
    local display timeout=${FRESH_WINDOW_TIMEOUT:-7200} start now pid
    display=$(free_display) || { echo "fresh-check: no free X display" >&2; return 1; }
    # Xvfb comes with scripts/deps.sh, which run.sh calls; so the window check must wait for it.
    # Start run.sh on a display that does not exist yet, and the server once its package is there.
    in_chroot bash -c "cd /root/tidemark && DISPLAY=:$display exec bash scripts/run.sh" \
        >"$log_dir/run.log" 2>&1 &
    pid=$!
    start=$(date +%s)
    local xvfb_started=0 shown=0
    while kill -0 "$pid" 2>/dev/null; do
        now=$(date +%s)
        ((now - start < timeout)) || { echo "fresh-check: no window after $(fmt "$timeout")" >&2; break; }
        # Configured build dir: run.sh's packages (Xvfb among them) are all installed.
        if ((!xvfb_started)) && [[ -f $dir/root/tidemark/build/build.ninja ]]; then
            in_chroot Xvfb ":$display" -screen 0 1280x800x24 -nolisten tcp >"$log_dir/xvfb.log" 2>&1 &
            xvfb_started=1
        fi
        if [[ -f $dir/root/tidemark/demo/.complete && -x $dir/usr/bin/xwininfo ]] \
            && in_chroot xwininfo -display ":$display" -root -tree 2>/dev/null | grep -q 'demo\.tidemark'; then
            shown=1
            break
        fi
        # xwininfo is the check's own tool, installed once run.sh's packages are in (so it
        # cannot stand in for a package the README's commands miss).
        if [[ -f $dir/root/tidemark/demo/.complete && ! -x $dir/usr/bin/xwininfo ]]; then
            in_chroot apt-get install -y -q --no-install-recommends x11-utils >"$log_dir/x11-utils.log" 2>&1 || true
        fi
        sleep 5
    done
    tail -15 "$log_dir/run.log"
    if ((shown)); then
        echo "fresh-check: the window is up:"
        in_chroot xwininfo -display ":$display" -root -tree | grep 'demo\.tidemark' | head -3
        in_chroot bash -c "cd /root/tidemark && build/app/tidemark-cli --workspace demo/demo.tidemark table list" \
            | tee "$log_dir/table-list.txt"
        local tables
        tables=$(grep -c 'shop:' "$log_dir/table-list.txt" || true)
        stop_chroot_processes # the window and Xvfb
        wait "$pid" 2>/dev/null || true
        [[ $tables -eq 7 ]] || { echo "fresh-check: the demo workspace lists $tables tables, expected 7" >&2; return 1; }
        return 0
    fi
    stop_chroot_processes
    wait "$pid" 2>/dev/null || true
    echo "fresh-check: run.sh ended or timed out without showing the window (see $log_dir/run.log)" >&2
    return 1
}

test_sh() {
    local rc=0
    in_chroot bash -c "cd /root/tidemark && bash scripts/test.sh" >"$log_dir/test.log" 2>&1 || rc=$?
    grep -E 'tests passed|tests failed|Total Test time|\*\*\*' "$log_dir/test.log" | tail -20
    return "$rc"
}

echo "fresh-check: clean Debian 12 in $dir from $mirror; commit $head_commit"
status=0
timed debootstrap bootstrap
timed clone clone
timed "scripts/run.sh" run_sh || status=1
# The README's second command runs whatever the first did.
timed "scripts/test.sh" test_sh || status=1

echo
echo "fresh-check: summary (commit ${head_commit:0:12})"
for step in debootstrap clone scripts/run.sh scripts/test.sh; do
    printf '  %-16s %s\n' "$step" "$(fmt "${took[$step]:-0}")"
done
((status == 0)) && echo "fresh-check: PASSED" || echo "fresh-check: FAILED"
exit "$status"
