#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A throwaway PostgreSQL cluster on a loopback port, for tests and benchmarks.
#
#   scripts/pgcluster.sh start  [--state FILE] [--port N]   last stdout line: TIDEMARK_PG_PORT=<port>
#   scripts/pgcluster.sh stop   [--state FILE]              stops that cluster by its own pid file, removes it
#   scripts/pgcluster.sh halt   [--state FILE]              stops the server (immediate), keeps the data
#   scripts/pgcluster.sh resume [--state FILE]              starts a halted cluster again on the same port
#   scripts/pgcluster.sh status [--state FILE]
#
# Installs nothing (scripts/deps.sh does). Roles: `tidemark` (superuser, password 'tidemark').
# Databases: `tidemark` (trust on 127.0.0.1) and `tidemark_pw` (scram-sha-256 on 127.0.0.1, so
# password handling can be tested). TLS is on, with a self-signed certificate for 127.0.0.1 (a
# copy at <base>/server.crt, the base being the socket directory). Several clusters can run at
# once, one per state file.
set -euo pipefail

STATE=${TIDEMARK_PG_STATE:-/tmp/tidemark-pgcluster.state}
PORT=""
COMMAND=${1:-}
shift || true
while [[ $# -gt 0 ]]; do
    case "$1" in
    --state) STATE=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    *) echo "pgcluster.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
done

die() { echo "pgcluster.sh: $*" >&2; exit 1; }

find_bindir() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [[ -x $dir/initdb && -x $dir/pg_ctl ]]; then
            echo "$dir"
            return 0
        fi
    done
    die "no PostgreSQL server found under /usr/lib/postgresql/*/bin (run scripts/deps.sh)"
}

# initdb and the server refuse to run as root: run them as `postgres` then.
as_owner() {
    if [[ $(id -u) -eq 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# Any socket on the port counts, not only listeners: a client connection's local port blocks a
# bind of 127.0.0.1 as well.
port_is_free() {
    local port=$1
    if command -v ss >/dev/null 2>&1; then
        ! ss -Htan "sport = :$port" 2>/dev/null | grep -q .
    else
        ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
    fi
}

# Below the kernel's ephemeral range, so a test's own client connections (which take their local
# ports from that range) cannot grab the port between this check and the server's bind; a random
# order, so two clusters started at once (or a retry) do not keep trying the same port.
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
    [[ -f $STATE ]] || die "no cluster recorded in $STATE"
    # shellcheck disable=SC1090
    source "$STATE"
}

start_server() {
    as_owner "$BINDIR/pg_ctl" -D "$DATADIR" -l "$BASEDIR/server.log" -w -t 60 \
        -o "-p $PORT -k $BASEDIR -c listen_addresses=127.0.0.1" start >/dev/null
}

cmd_start() {
    if [[ -f $STATE ]]; then
        # shellcheck disable=SC1090
        source "$STATE"
        if [[ -n ${DATADIR:-} && -f $DATADIR/postmaster.pid ]] && kill -0 "$(head -1 "$DATADIR/postmaster.pid")" 2>/dev/null; then
            echo "cluster already running: $DATADIR"
            echo "TIDEMARK_PG_PORT=$PORT_RECORDED"
            return 0
        fi
        rm -f "$STATE"
    fi
    BINDIR=$(find_bindir)
    BASEDIR=$(mktemp -d /tmp/tidemark-pg.XXXXXX)
    chmod 755 "$BASEDIR"
    DATADIR=$BASEDIR/data
    if [[ $(id -u) -eq 0 ]]; then
        chown postgres: "$BASEDIR"
    fi
    as_owner "$BINDIR/initdb" -D "$DATADIR" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$BASEDIR/initdb.log" 2>&1 \
        || as_owner "$BINDIR/initdb" -D "$DATADIR" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$BASEDIR/initdb.log" 2>&1 \
        || { cat "$BASEDIR/initdb.log" >&2; rm -rf "$BASEDIR"; die "initdb failed"; }
    # TLS as a team's server offers it: libpq's default (sslmode=prefer) takes it, and tests check
    # require and verify-full against the certificate, readable at $BASEDIR/server.crt.
    as_owner openssl req -x509 -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 30 \
        -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
        -keyout "$DATADIR/server.key" -out "$DATADIR/server.crt" >"$BASEDIR/openssl.log" 2>&1 \
        || { cat "$BASEDIR/openssl.log" >&2; rm -rf "$BASEDIR"; die "openssl could not make the server's certificate"; }
    as_owner chmod 600 "$DATADIR/server.key"
    cp "$DATADIR/server.crt" "$BASEDIR/server.crt"
    chmod 644 "$BASEDIR/server.crt"
    as_owner tee -a "$DATADIR/postgresql.conf" >/dev/null <<EOF
ssl = on
fsync = off
# synchronous_commit stays on: an immediate stop (the fault tests) must keep every commit.
unix_socket_directories = '$BASEDIR'
listen_addresses = '127.0.0.1'
max_connections = 100
EOF
    as_owner tee "$DATADIR/pg_hba.conf" >/dev/null <<EOF
local   all          all                        trust
host    tidemark_pw  all        127.0.0.1/32    scram-sha-256
host    all          all        127.0.0.1/32    trust
EOF
    [[ -n $PORT ]] || PORT=$(pick_port)
    local tries=0
    until start_server; do
        tries=$((tries + 1))
        [[ $tries -lt 5 ]] || { cat "$BASEDIR/server.log" >&2; die "server did not start"; }
        PORT=$(pick_port)
    done
    cat >"$STATE" <<EOF
BINDIR='$BINDIR'
BASEDIR='$BASEDIR'
DATADIR='$DATADIR'
PORT_RECORDED='$PORT'
EOF
    local psql=("$BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$BASEDIR" -p "$PORT" -U postgres -d postgres)
    as_owner "${psql[@]}" -c "CREATE ROLE tidemark SUPERUSER LOGIN PASSWORD 'tidemark'" \
        -c "CREATE DATABASE tidemark OWNER tidemark" -c "CREATE DATABASE tidemark_pw OWNER tidemark" >/dev/null
    echo "cluster started: $DATADIR (state $STATE)"
    echo "TIDEMARK_PG_PORT=$PORT"
}

stop_server() {
    local mode=$1
    if [[ -f $DATADIR/postmaster.pid ]]; then
        as_owner "$BINDIR/pg_ctl" -D "$DATADIR" -m "$mode" -w -t 30 stop >/dev/null 2>&1 || true
    fi
    if [[ -f $DATADIR/postmaster.pid ]]; then
        local pid
        pid=$(head -1 "$DATADIR/postmaster.pid")
        if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
            kill -QUIT "$pid" 2>/dev/null || true
            sleep 1
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
}

cmd_stop() {
    [[ -f $STATE ]] || { echo "no cluster recorded in $STATE"; return 0; }
    read_state
    stop_server fast
    case "$BASEDIR" in
    /tmp/tidemark-pg.*) rm -rf "$BASEDIR" ;;
    esac
    rm -f "$STATE"
    echo "cluster stopped"
}

cmd_halt() {
    read_state
    stop_server immediate
    echo "cluster halted"
}

cmd_resume() {
    read_state
    PORT=$PORT_RECORDED
    start_server || { cat "$BASEDIR/server.log" >&2; die "server did not start again"; }
    echo "cluster resumed"
    echo "TIDEMARK_PG_PORT=$PORT"
}

cmd_status() {
    read_state
    as_owner "$BINDIR/pg_ctl" -D "$DATADIR" status
}

case "$COMMAND" in
start) cmd_start ;;
stop) cmd_stop ;;
halt) cmd_halt ;;
resume) cmd_resume ;;
status) cmd_status ;;
*) echo "usage: pgcluster.sh start|stop|halt|resume|status [--state FILE] [--port N]" >&2; exit 2 ;;
esac
