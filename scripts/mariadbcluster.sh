#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A throwaway MariaDB server on a loopback port, for tests and benchmarks.
#
#   scripts/mariadbcluster.sh start  [--state FILE] [--port N]   last stdout line: TIDEMARK_MARIADB_PORT=<port>
#   scripts/mariadbcluster.sh stop   [--state FILE]              stops that server by its own pid file, removes it
#   scripts/mariadbcluster.sh status [--state FILE]
#
# Installs nothing (scripts/deps.sh does). The server runs as the `mysql` user when started by
# root, from a temporary directory that holds its data, socket, pid file and log. Accounts:
# `tidemark`@`127.0.0.1` (every privilege, password 'tidemark'). Databases: `tidemark` and
# `tidemark_other`. Several servers can run at once, one per state file.
set -euo pipefail

STATE=${TIDEMARK_MARIADB_STATE:-/tmp/tidemark-mariadb.state}
PORT=""
COMMAND=${1:-}
shift || true
while [[ $# -gt 0 ]]; do
    case "$1" in
    --state) STATE=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    *) echo "mariadbcluster.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
done

die() { echo "mariadbcluster.sh: $*" >&2; exit 1; }

as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u mysql -- "$@"
    else
        "$@"
    fi
}

port_is_free() {
    local port=$1
    if command -v ss >/dev/null 2>&1; then
        ! ss -Htan "sport = :$port" 2>/dev/null | grep -q .
    else
        ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
    fi
}

# Below the ephemeral range and in random order, as scripts/pgcluster.sh picks its port.
pick_port() {
    local low port
    low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
    for port in $(shuf -i 15000-$((low - 1)) -n 100); do
        if port_is_free "$port"; then
            echo "$port"
            return 0
        fi
    done
    die "no free loopback port found"
}

read_state() {
    [[ -f $STATE ]] || die "no server recorded in $STATE"
    # shellcheck disable=SC1090
    source "$STATE"
}

server_pid() {
    [[ -f $BASEDIR/mariadbd.pid ]] || return 1
    local pid
    pid=$(head -1 "$BASEDIR/mariadbd.pid")
    [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

client() {
    mariadb --no-defaults --protocol=socket --socket="$BASEDIR/mariadbd.sock" -u root "$@"
}

start_server() {
    as_owner mariadbd --no-defaults --datadir="$DATADIR" --socket="$BASEDIR/mariadbd.sock" \
        --pid-file="$BASEDIR/mariadbd.pid" --log-error="$BASEDIR/server.log" \
        --bind-address=127.0.0.1 --port="$PORT" --skip-name-resolve --innodb-flush-log-at-trx-commit=2 \
        --innodb-buffer-pool-size=128M --innodb-log-file-size=64M --max-connections=200 \
        --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
        --local-infile=1 --skip-log-bin >/dev/null 2>&1 &
    local tries=0
    until client -e "SELECT 1" >/dev/null 2>&1; do
        tries=$((tries + 1))
        if [[ $tries -ge 120 ]] || ! kill -0 $! 2>/dev/null; then
            return 1
        fi
        sleep 0.5
    done
}

cmd_start() {
    if [[ -f $STATE ]]; then
        # shellcheck disable=SC1090
        source "$STATE"
        if [[ -n ${BASEDIR:-} ]] && server_pid >/dev/null; then
            echo "server already running: $DATADIR"
            echo "TIDEMARK_MARIADB_PORT=$PORT_RECORDED"
            return 0
        fi
        rm -f "$STATE"
    fi
    command -v mariadbd >/dev/null 2>&1 || [[ -x /usr/sbin/mariadbd ]] || die "no mariadbd found (run scripts/deps.sh)"
    export PATH=$PATH:/usr/sbin
    BASEDIR=$(mktemp -d /tmp/tidemark-mariadb.XXXXXX)
    chmod 755 "$BASEDIR"
    DATADIR=$BASEDIR/data
    if [[ $(id -u) -eq 0 ]]; then
        chown mysql: "$BASEDIR"
    fi
    as_owner mariadb-install-db --no-defaults --datadir="$DATADIR" --auth-root-authentication-method=socket \
        --skip-test-db >"$BASEDIR/install.log" 2>&1 \
        || { cat "$BASEDIR/install.log" >&2; rm -rf "$BASEDIR"; die "mariadb-install-db failed"; }
    [[ -n $PORT ]] || PORT=$(pick_port)
    local tries=0
    until start_server; do
        tries=$((tries + 1))
        [[ $tries -lt 5 ]] || { cat "$BASEDIR/server.log" >&2; die "server did not start"; }
        PORT=$(pick_port)
    done
    cat >"$STATE" <<EOF
BASEDIR='$BASEDIR'
DATADIR='$DATADIR'
PORT_RECORDED='$PORT'
EOF
    client -e "CREATE USER 'tidemark'@'127.0.0.1' IDENTIFIED BY 'tidemark';
               CREATE USER 'tidemark'@'localhost' IDENTIFIED BY 'tidemark';
               GRANT ALL PRIVILEGES ON *.* TO 'tidemark'@'127.0.0.1' WITH GRANT OPTION;
               GRANT ALL PRIVILEGES ON *.* TO 'tidemark'@'localhost' WITH GRANT OPTION;
               CREATE DATABASE tidemark; CREATE DATABASE tidemark_other;" \
        || die "could not create the tidemark account and databases"
    echo "server started: $DATADIR (state $STATE, socket $BASEDIR/mariadbd.sock)"
    echo "TIDEMARK_MARIADB_PORT=$PORT"
}

cmd_stop() {
    [[ -f $STATE ]] || { echo "no server recorded in $STATE"; return 0; }
    read_state
    local pid
    if pid=$(server_pid); then
        kill -TERM "$pid" 2>/dev/null || true
        local tries=0
        while kill -0 "$pid" 2>/dev/null && [[ $tries -lt 60 ]]; do
            sleep 0.5
            tries=$((tries + 1))
        done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    case "$BASEDIR" in
    /tmp/tidemark-mariadb.*) rm -rf "$BASEDIR" ;;
    esac
    rm -f "$STATE"
    echo "server stopped"
}

cmd_status() {
    read_state
    local pid
    if pid=$(server_pid); then
        echo "server running: pid $pid, port $PORT_RECORDED, data $DATADIR"
    else
        echo "server not running (data $DATADIR)"
        return 3
    fi
}

case "$COMMAND" in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
*) echo "usage: mariadbcluster.sh start|stop|status [--state FILE] [--port N]" >&2; exit 2 ;;
esac
