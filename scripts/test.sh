#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole suite, as CI runs it: install what is missing, build, start a throwaway PostgreSQL
# cluster for the PostgreSQL tests, run CTest, stop the cluster however the tests end.
# Exits with CTest's exit code.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

bash scripts/build.sh

build_dir=${TIDEMARK_BUILD_DIR:-build}
pg_started=0
stop_pg() {
    if ((pg_started)); then
        bash scripts/pgcluster.sh stop || echo "test.sh: could not stop the PostgreSQL cluster" >&2
    fi
}
trap stop_pg EXIT

if [[ -f scripts/pgcluster.sh ]]; then
    # Marked started before the call so a half-started cluster is stopped too.
    pg_started=1
    pg_out=$(bash scripts/pgcluster.sh start)
    printf '%s\n' "$pg_out"
    pg_line=$(printf '%s\n' "$pg_out" | tail -n 1)
    if [[ "$pg_line" == TIDEMARK_PG_PORT=* ]]; then
        export TIDEMARK_PG_PORT="${pg_line#TIDEMARK_PG_PORT=}"
        echo "test.sh: PostgreSQL tests use port $TIDEMARK_PG_PORT"
    else
        echo "test.sh: scripts/pgcluster.sh start did not print TIDEMARK_PG_PORT=<port>; PostgreSQL tests will skip" >&2
    fi
else
    echo "test.sh: scripts/pgcluster.sh not found — PostgreSQL tests will be SKIPPED" >&2
fi

rc=0
ctest --test-dir "$build_dir" --output-on-failure -j2 || rc=$?
exit "$rc"
