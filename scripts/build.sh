#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs missing Debian packages, configures (Ninja, RelWithDebInfo) into build/ and builds.
#   scripts/build.sh [extra cmake -D options...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
source scripts/deps.sh
tidemark_deps

build_dir=${TIDEMARK_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$build_dir" -j"$(nproc)"
