#!/bin/sh
# test.sh: configure, build warning-free and run every test (the README's
# test command and what CI runs).  KP_SANITIZE=1 for the ASan+UBSan build.
set -eu
cd "$(dirname "$0")/.."
build=${KP_BUILD_DIR:-build}
san=OFF
[ "${KP_SANITIZE:-0}" = 1 ] && san=ON && build=${KP_BUILD_DIR:-build-asan}
cmake -S . -B "$build" -DKP_WERROR=ON -DKP_SANITIZE=$san >/dev/null
cmake --build "$build" -j"$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
cd "$build"
ctest --output-on-failure -j2
