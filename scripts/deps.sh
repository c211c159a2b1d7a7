#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages Tidemark needs to build, test and run, but only those that are
# missing, so a second call is instant and makes no network access.
#
#   scripts/deps.sh [EXTRA_PACKAGE...]      # or: source scripts/deps.sh; tidemark_deps [EXTRA...]
#
# Extra packages (e.g. `time` for the benchmark, `imagemagick` for screenshots) are checked the
# same way. libqt6svg6 is the runtime plugin that lets QIcon load the SVG icons in resources/.
# libschedule-cron-events-perl is the independent oracle tst_cronexpression compares fire times with.
# faketime (libfaketime) steps a runner's wall clock in tst_serve, as an NTP correction does.
# systemd brings systemd-analyze and systemd-escape, which the package test runs on the runner's
# units (a fresh Debian 12 container lacks it).
# qtkeychain-qt6-dev stores connection passwords in the Secret Service; the keychain tests start a
# private gnome-keyring-daemon inside dbus-run-session (dbus-daemon); secret-tool checks entries.
# libmariadb-dev is MariaDB Connector/C, the MySQL/MariaDB connector's client library; mariadb-server
# is the throwaway server scripts/mariadbcluster.sh starts for the MariaDB suites. openssl makes the
# throwaway PostgreSQL cluster's TLS certificate (scripts/pgcluster.sh).

TIDEMARK_PACKAGES=(
    cmake ninja-build g++ pkg-config qt6-base-dev qt6-base-dev-tools qt6-charts-dev libqt6opengl6-dev libgl-dev
    libspdlog-dev libsqlite3-dev libpq-dev sqlite3 postgresql postgresql-client
    libqt6svg6 xvfb xauth appstream desktop-file-utils dpkg-dev file spin systemd
    libschedule-cron-events-perl faketime
    qtkeychain-qt6-dev gnome-keyring dbus-daemon libsecret-tools
    libmariadb-dev mariadb-server mariadb-client openssl
)

tidemark_deps() {
    local missing=() pkg status
    for pkg in "${TIDEMARK_PACKAGES[@]}" "$@"; do
        status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
        if [[ "$status" != "install ok installed" ]]; then
            missing+=("$pkg")
        fi
    done
    if ((${#missing[@]} == 0)); then
        return 0
    fi

    local sudo=()
    if [[ $(id -u) -ne 0 ]]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "deps: missing packages (${missing[*]}) and not root, no sudo: install them by hand" >&2
            return 1
        fi
    fi
    echo "deps: installing ${missing[*]}" >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 || return 1
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || return 1
}

# Executed rather than sourced: install now and exit with the result.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    tidemark_deps "$@"
fi
