#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole suite, as CI runs it: install what is missing, build, start a throwaway PostgreSQL
# cluster and a throwaway MariaDB server for their tests, run CTest, stop both however the tests end.
#
# Under CI=true (.ci/run sets it) nothing may be skipped silently:
#   - the PostgreSQL cluster must start, or the script stops with an error (and the PostgreSQL
#     suites themselves fail, not skip, when TIDEMARK_PG_PORT is unset); the same holds for the
#     MariaDB server and TIDEMARK_MARIADB_PORT;
#   - the whole suite is built again with AddressSanitizer + UndefinedBehaviorSanitizer into
#     build-asan/ and run there too, against the same cluster (suppressions: .ci/sanitizers/).
# Outside CI a developer without PostgreSQL gets the rest of the suite and a loud warning.
#
# Exits non-zero when any CTest run failed. Env: TIDEMARK_BUILD_DIR (default build),
# TIDEMARK_ASAN_BUILD_DIR (default build-asan), TIDEMARK_PG_STATE (see scripts/pgcluster.sh),
# TIDEMARK_MARIADB_STATE (see scripts/mariadbcluster.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

ci=0
case "${CI:-}" in
true | TRUE | True | 1) ci=1 ;;
esac

phases=()
phase_start=0
begin() { phase_start=$(date +%s); echo "test.sh: == $1"; }
end() { # name result
    local took=$(($(date +%s) - phase_start))
    phases+=("$(printf '%-34s %4dm%02ds  %s' "$1" $((took / 60)) $((took % 60)) "$2")")
}
summary() {
    ((${#phases[@]})) || return 0
    echo "test.sh: phases"
    printf '  %s\n' "${phases[@]}"
}

begin "build ($([[ $ci == 1 ]] && echo CI || echo developer))"
bash scripts/build.sh
end build ok

build_dir=${TIDEMARK_BUILD_DIR:-build}
pg_started=0
mariadb_started=0
no_pg_warning=""
no_mariadb_warning=""
stop_pg() {
    if ((pg_started)); then
        bash scripts/pgcluster.sh stop || echo "test.sh: could not stop the PostgreSQL cluster" >&2
    fi
    if ((mariadb_started)); then
        bash scripts/mariadbcluster.sh stop || echo "test.sh: could not stop the MariaDB server" >&2
    fi
    summary
    if [[ -n $no_pg_warning ]]; then
        echo "$no_pg_warning" >&2
    fi
    if [[ -n $no_mariadb_warning ]]; then
        echo "$no_mariadb_warning" >&2
    fi
}
trap stop_pg EXIT

no_pg() { # reason
    if ((ci)); then
        echo "test.sh: $1 — under CI=true the PostgreSQL suites must run: stopping." >&2
        exit 1
    fi
    no_pg_warning="test.sh: *** WARNING: $1 — the PostgreSQL suites were SKIPPED (not tested). ***"
    echo "$no_pg_warning" >&2
}

begin "PostgreSQL cluster"
# Marked started before the call so a half-started cluster is stopped too.
pg_started=1
if pg_out=$(bash scripts/pgcluster.sh start); then
    printf '%s\n' "$pg_out"
    pg_line=$(printf '%s\n' "$pg_out" | tail -n 1)
    if [[ "$pg_line" == TIDEMARK_PG_PORT=* ]]; then
        export TIDEMARK_PG_PORT="${pg_line#TIDEMARK_PG_PORT=}"
        echo "test.sh: PostgreSQL tests use port $TIDEMARK_PG_PORT"
    else
        no_pg "scripts/pgcluster.sh start did not print TIDEMARK_PG_PORT=<port>"
    fi
else
    printf '%s\n' "$pg_out"
    no_pg "the PostgreSQL cluster did not start (scripts/pgcluster.sh start failed)"
fi
end "PostgreSQL cluster" "${TIDEMARK_PG_PORT:+port $TIDEMARK_PG_PORT}"

no_mariadb() { # reason
    if ((ci)); then
        echo "test.sh: $1 — under CI=true the MariaDB suites must run: stopping." >&2
        exit 1
    fi
    no_mariadb_warning="test.sh: *** WARNING: $1 — the MariaDB suites were SKIPPED (not tested). ***"
    echo "$no_mariadb_warning" >&2
}

begin "MariaDB server"
mariadb_started=1
if mariadb_out=$(bash scripts/mariadbcluster.sh start); then
    printf '%s\n' "$mariadb_out"
    mariadb_line=$(printf '%s\n' "$mariadb_out" | tail -n 1)
    if [[ "$mariadb_line" == TIDEMARK_MARIADB_PORT=* ]]; then
        export TIDEMARK_MARIADB_PORT="${mariadb_line#TIDEMARK_MARIADB_PORT=}"
        echo "test.sh: MariaDB tests use port $TIDEMARK_MARIADB_PORT"
    else
        no_mariadb "scripts/mariadbcluster.sh start did not print TIDEMARK_MARIADB_PORT=<port>"
    fi
else
    printf '%s\n' "$mariadb_out"
    no_mariadb "the MariaDB server did not start (scripts/mariadbcluster.sh start failed)"
fi
end "MariaDB server" "${TIDEMARK_MARIADB_PORT:+port $TIDEMARK_MARIADB_PORT}"

rc=0
run_ctest() { # phase-name build-dir [ctest args...]
    local name=$1 dir=$2 result=passed
    shift 2
    begin "$name"
    ctest --test-dir "$dir" --output-on-failure -j2 "$@" || { rc=1; result=FAILED; }
    end "$name" "$result"
}
run_ctest "ctest ($build_dir)" "$build_dir"

if ((ci)); then
    # The whole suite again under ASan + UBSan (any finding aborts the test). Qt and the system
    # libraries are not instrumented: suppressions for their internals only go to .ci/sanitizers/
    # (none needed today).
    asan_dir=${TIDEMARK_ASAN_BUILD_DIR:-build-asan}
    begin "build ($asan_dir, ASan+UBSan)"
    TIDEMARK_BUILD_DIR=$asan_dir bash scripts/build.sh -DTIDEMARK_SANITIZE=address,undefined -DTIDEMARK_BUILD_BENCH=OFF
    end "build ($asan_dir, ASan+UBSan)" ok
    supp=$root/.ci/sanitizers
    export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1"
    export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:suppressions=$supp/ubsan.supp"
    run_ctest "ctest ($asan_dir)" "$asan_dir"
    unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
    # No ThreadSanitizer run: with Debian's uninstrumented Qt, TSan cannot see the ordering that
    # Qt's event queue, slot-object refcounts and QWaitCondition provide, so it reports dozens of
    # races per run of tst_runcoordinator; the only suppressions that silence them
    # (race:libQt6Core) would also hide every race in our own code run from QThreadPool.
fi
exit "$rc"
